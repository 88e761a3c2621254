package drivers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// Config selects hardware types and interface implementations, as the
// [DEFAULT] options enabled_hardware_types, enabled_<kind>_interfaces and
// default_<kind>_interface do. Maps are keyed by kind name ("bios",
// "boot", ...).
type Config struct {
	// EnabledHardwareTypes is enabled_hardware_types.
	EnabledHardwareTypes []string
	// Enabled is enabled_<kind>_interfaces. A missing or empty list makes
	// the registry compute it as Ironic does: the most preferred
	// implementation of every enabled hardware type.
	Enabled map[string][]string
	// Default is default_<kind>_interface; "" or missing means none.
	Default map[string]string
}

// Implementation offers the registry one implementation of one kind.
type Implementation struct {
	Kind Kind
	// Name is the implementation's name, one of Ironic's entry point names
	// for the kind ("fake", "ipmitool", "no-raid", ...).
	Name string
	// Impl implements the kind's interface: PowerInterface for Power,
	// VendorInterface for Vendor, and so on.
	Impl any
}

// Registry knows the enabled hardware types, the enabled implementations
// of every kind and every hardware type's defaults, and the driver methods
// registered for every hardware type. It is built once at start-up
// (NewRegistry, then RegisterDriverMethod) and read-only afterwards.
type Registry struct {
	cfg     Config
	types   []*hwEntry              // enabled hardware types, entry point order
	enabled map[Kind][]string       // enabled names per kind, entry point order
	impls   map[Kind]map[string]any // implementation per enabled name
	missing []string                // "kind/name" enabled without a Go implementation
	methods driverMethods           // RegisterDriverMethod's
}

type hwEntry struct {
	hardwareType
	// usable are the supported and enabled names per kind, in the hardware
	// type's order of preference.
	usable   map[Kind][]string
	defaults map[Kind]string
}

// NewRegistry checks cfg the way Ironic's conductor does at start-up and
// computes every hardware type's enabled and default interfaces. It fails
// with Ironic's messages when an enabled hardware type or interface is
// unknown, or when some enabled hardware type has no usable (or a wrong
// default) implementation of some kind.
//
// impls are the Go implementations available. An enabled name that Ironic
// knows but impls lack is served by a placeholder whose operations return
// NotImplemented errors (see Unimplemented).
func NewRegistry(cfg Config, impls ...Implementation) (*Registry, error) {
	r := &Registry{
		cfg:     cfg,
		enabled: map[Kind][]string{},
		impls:   map[Kind]map[string]any{},
	}
	offered := map[Kind]map[string]any{}
	for _, im := range impls {
		if err := checkImplementation(im); err != nil {
			return nil, err
		}
		if offered[im.Kind] == nil {
			offered[im.Kind] = map[string]any{}
		}
		if _, dup := offered[im.Kind][im.Name]; dup {
			return nil, fmt.Errorf("drivers: %s interface %q offered twice", im.Kind, im.Name)
		}
		offered[im.Kind][im.Name] = im.Impl
	}

	// Hardware types first, as Ironic loads them first.
	var unknown []string
	for _, name := range dedupe(cfg.EnabledHardwareTypes) {
		ht, ok := lookupHardwareType(name)
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		r.types = append(r.types, &hwEntry{hardwareType: ht})
	}
	if len(unknown) > 0 {
		return nil, ironic.Errorf(ironic.DriverNotFound,
			"Could not find the following items in the '%s' entrypoint: %s.",
			"ironic.hardware.types", strings.Join(unknown, ", "))
	}
	slices.SortStableFunc(r.types, func(a, b *hwEntry) int {
		return hardwareTypeIndex(a.name) - hardwareTypeIndex(b.name)
	})

	// Then the interfaces of every kind (network and storage are loaded
	// first by Ironic's conductor).
	order := []Kind{Network, Storage, BIOS, Boot, Console, Deploy, Inspect, Management, Power, RAID, Rescue, Vendor}
	for _, k := range order {
		names := dedupe(cfg.Enabled[string(k)])
		if len(names) == 0 {
			for _, ht := range r.types {
				if s := ht.supported[k]; len(s) > 0 && !slices.Contains(names, s[0]) {
					names = append(names, s[0])
				}
			}
		}
		unknown = unknown[:0]
		for _, n := range names {
			if entryPointIndex(k, n) < 0 {
				unknown = append(unknown, n)
			}
		}
		if len(unknown) > 0 {
			return nil, ironic.Errorf(ironic.DriverNotFound,
				"Could not find the following items in the '%s' entrypoint: %s.",
				k.entrypoint(), strings.Join(unknown, ", "))
		}
		slices.SortStableFunc(names, func(a, b string) int {
			return entryPointIndex(k, a) - entryPointIndex(k, b)
		})
		r.enabled[k] = names
		r.impls[k] = map[string]any{}
		for _, n := range names {
			if im, ok := offered[k][n]; ok {
				r.impls[k][n] = im
				continue
			}
			r.impls[k][n] = unimplementedFor(k, n)
			r.missing = append(r.missing, string(k)+"/"+n)
		}
	}

	// Finally every hardware type's usable interfaces and defaults.
	for _, ht := range r.types {
		ht.usable = map[Kind][]string{}
		ht.defaults = map[Kind]string{}
		for _, k := range Kinds() {
			for _, n := range ht.supported[k] {
				if slices.Contains(r.enabled[k], n) {
					ht.usable[k] = append(ht.usable[k], n)
				}
			}
			def, err := r.defaultInterface(ht, k)
			if err != nil {
				return nil, err
			}
			ht.defaults[k] = def
		}
	}
	return r, nil
}

func checkImplementation(im Implementation) error {
	if entryPointIndex(im.Kind, im.Name) < 0 {
		return fmt.Errorf("drivers: %q is not an Ironic %s interface name", im.Name, im.Kind)
	}
	var ok bool
	switch im.Kind {
	case BIOS:
		_, ok = im.Impl.(BIOSInterface)
	case Boot:
		_, ok = im.Impl.(BootInterface)
	case Console:
		_, ok = im.Impl.(ConsoleInterface)
	case Deploy:
		_, ok = im.Impl.(DeployInterface)
	case Inspect:
		_, ok = im.Impl.(InspectInterface)
	case Management:
		_, ok = im.Impl.(ManagementInterface)
	case Network:
		_, ok = im.Impl.(NetworkInterface)
	case Power:
		_, ok = im.Impl.(PowerInterface)
	case RAID:
		_, ok = im.Impl.(RAIDInterface)
	case Rescue:
		_, ok = im.Impl.(RescueInterface)
	case Storage:
		_, ok = im.Impl.(StorageInterface)
	case Vendor:
		_, ok = im.Impl.(VendorInterface)
	}
	if !ok {
		return fmt.Errorf("drivers: %T does not implement the %s interface (%q)", im.Impl, im.Kind, im.Name)
	}
	return nil
}

// dedupe drops empty and repeated names, keeping the first occurrence.
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func lookupHardwareType(name string) (hardwareType, bool) {
	for _, ht := range knownHardwareTypes() {
		if ht.name == name {
			return ht, true
		}
	}
	return hardwareType{}, false
}

func hardwareTypeIndex(name string) int {
	return slices.IndexFunc(knownHardwareTypes(), func(h hardwareType) bool { return h.name == name })
}

func entryPointIndex(k Kind, name string) int {
	return slices.IndexFunc(entryPoints(k), func(e entryPoint) bool { return e.name == name })
}

func entryPointClass(k Kind, name string) string {
	if i := entryPointIndex(k, name); i >= 0 {
		return entryPoints(k)[i].class
	}
	return name
}

// Unimplemented lists the enabled implementations ("kind/name") that Ironic
// knows but this service has no code for yet; they answer NotImplemented.
func (r *Registry) Unimplemented() []string { return slices.Clone(r.missing) }

// HardwareTypes lists the enabled hardware types, in Ironic's entry point
// order.
func (r *Registry) HardwareTypes() []string {
	out := make([]string, len(r.types))
	for i, ht := range r.types {
		out[i] = ht.name
	}
	return out
}

// EnabledInterfaces lists the enabled implementation names of kind k
// (enabled_<kind>_interfaces after Ironic's defaulting), in entry point
// order.
func (r *Registry) EnabledInterfaces(k Kind) []string { return slices.Clone(r.enabled[k]) }

// KindInterfaces are a hardware type's usable implementations of one kind.
type KindInterfaces struct {
	// Default is the implementation nodes get when they name none.
	Default string
	// Enabled are the supported and enabled implementations, in the
	// hardware type's order of preference.
	Enabled []string
}

// HardwareTypeInterfaces returns, for every kind, the default and enabled
// implementations of hwType (the default_*/enabled_* fields of
// GET /v1/drivers?detail=true). DriverNotFound if hwType isn't enabled.
func (r *Registry) HardwareTypeInterfaces(hwType string) (map[Kind]KindInterfaces, error) {
	ht, err := r.hardwareType(hwType)
	if err != nil {
		return nil, err
	}
	out := make(map[Kind]KindInterfaces, len(Kinds()))
	for _, k := range Kinds() {
		out[k] = KindInterfaces{Default: ht.defaults[k], Enabled: slices.Clone(ht.usable[k])}
	}
	return out, nil
}

// InterfaceRow is one row of Ironic's conductor_hardware_interfaces table:
// an implementation a conductor offers for a hardware type.
type InterfaceRow struct {
	HardwareType string
	Kind         Kind
	Name         string
	Default      bool
}

// InterfaceRows lists what a conductor registers in
// conductor_hardware_interfaces at start-up: every usable implementation of
// every kind of every enabled hardware type, with its default flag.
func (r *Registry) InterfaceRows() []InterfaceRow {
	var rows []InterfaceRow
	for _, ht := range r.types {
		for _, k := range Kinds() {
			for _, n := range ht.usable[k] {
				rows = append(rows, InterfaceRow{HardwareType: ht.name, Kind: k, Name: n, Default: n == ht.defaults[k]})
			}
		}
	}
	return rows
}

func (r *Registry) hardwareType(name string) (*hwEntry, error) {
	for _, ht := range r.types {
		if ht.name == name {
			return ht, nil
		}
	}
	return nil, ironic.Errorf(ironic.DriverNotFound,
		"Could not find the following driver(s) or hardware type(s): %s.", name)
}

// CheckInterface checks that implementation name of kind k may be used
// with hardware type hwType, as Ironic's driver_factory.get_interface does:
// DriverNotFound for a hardware type that isn't enabled,
// InterfaceNotFoundInEntrypoint for a name that isn't enabled, and
// IncompatibleInterface for one the hardware type doesn't support
// (fake-hardware accepts every enabled implementation).
func (r *Registry) CheckInterface(hwType string, k Kind, name string) error {
	ht, err := r.hardwareType(hwType)
	if err != nil {
		return err
	}
	_, err = r.getInterface(ht, k, name)
	return err
}

func (r *Registry) getInterface(ht *hwEntry, k Kind, name string) (any, error) {
	impl, ok := r.impls[k][name]
	if !ok {
		return nil, ironic.Errorf(ironic.InterfaceNotFoundInEntrypoint,
			"Could not find the following interface in the '%s' entrypoint: %s. Valid interfaces are %s.",
			k.entrypoint(), name, py.Repr(r.enabled[k]))
	}
	if ht.name == "fake-hardware" {
		return impl, nil
	}
	if !slices.Contains(ht.supported[k], name) {
		return nil, ironic.Errorf(ironic.IncompatibleInterface,
			"%s interface implementation '<%s object at %s>' is not supported by hardware type %s.",
			k, entryPointClass(k, name), pyAddress(string(k)+"/"+name), ht.class)
	}
	return impl, nil
}

// DefaultInterface returns the implementation of kind k that a node of
// hardware type hwType gets when it names none: default_<kind>_interface
// if set (NewRegistry checked that it is enabled and supported), else the
// hardware type's most preferred enabled implementation.
func (r *Registry) DefaultInterface(hwType string, k Kind) (string, error) {
	ht, err := r.hardwareType(hwType)
	if err != nil {
		return "", err
	}
	return ht.defaults[k], nil
}

// defaultInterface computes the default as Ironic's
// driver_factory.default_interface does, at start-up.
func (r *Registry) defaultInterface(ht *hwEntry, k Kind) (string, error) {
	noDefault := func() error {
		return ironic.Errorf(ironic.NoValidDefaultForInterface,
			"For hardware type '%s', no default value found for %s interface could be determined. Please ensure the interfaces are enabled.",
			ht.name, k)
	}
	if name := strings.TrimSpace(r.cfg.Default[string(k)]); name != "" {
		if _, err := r.getInterface(ht, k, name); err != nil {
			if ironic.IsClass(err, ironic.IncompatibleInterface) {
				return "", noDefault()
			}
			return "", err
		}
		return name, nil
	}
	for _, n := range ht.supported[k] {
		if slices.Contains(r.enabled[k], n) {
			return n, nil
		}
	}
	return "", noDefault()
}

// NodeInterfaces is what composing a node's driver needs of the node.
type NodeInterfaces struct {
	// UUID is the node's UUID (named in error messages).
	UUID string
	// Driver is the node's hardware type.
	Driver string
	// Fields are the node's <kind>_interface fields; a missing or "" entry
	// is unset (NULL).
	Fields map[Kind]string
	// InstanceInfo is the node's instance_info, whose "<kind>_interface"
	// keys override the fields.
	InstanceInfo *pyjson.Dict
}

// CheckAndUpdateNodeInterfaces checks a node's interfaces against its
// hardware type and fills unset fields with the defaults, as Ironic's
// check_and_update_node_interfaces does on node creation and update and
// before every driver is built. It reports whether a field was filled.
func (r *Registry) CheckAndUpdateNodeInterfaces(n *NodeInterfaces) (bool, error) {
	ht, err := r.hardwareType(n.Driver)
	if err != nil {
		return false, err
	}
	if n.Fields == nil {
		n.Fields = map[Kind]string{}
	}
	changed := false
	for _, k := range PropertiesOrder() {
		setDefault := true
		if v, ok := n.InstanceInfo.Lookup(k.Field()); ok && v != nil {
			if _, err := r.getInterface(ht, k, py.Str(v)); err != nil {
				return false, err
			}
			setDefault = false
		}
		if name := n.Fields[k]; name != "" {
			if _, err := r.getInterface(ht, k, name); err != nil {
				return false, err
			}
			setDefault = false
		}
		if setDefault {
			n.Fields[k] = ht.defaults[k]
			changed = true
		}
	}
	return changed, nil
}

// BuildDriver composes a node's driver (Ironic's build_driver_for_task):
// it runs CheckAndUpdateNodeInterfaces, so unset fields of n are filled,
// then picks every kind's implementation, an instance_info override first.
func (r *Registry) BuildDriver(n *NodeInterfaces) (*Driver, error) {
	if _, err := r.CheckAndUpdateNodeInterfaces(n); err != nil {
		return nil, err
	}
	ht, _ := r.hardwareType(n.Driver)
	d := &Driver{HardwareType: n.Driver, names: map[Kind]string{}}
	for _, k := range Kinds() {
		name := n.Fields[k]
		if v, ok := n.InstanceInfo.Lookup(k.Field()); ok && v != nil {
			name = py.Str(v)
		}
		impl, err := r.getInterface(ht, k, name)
		if err != nil {
			return nil, err
		}
		d.set(k, name, impl)
	}
	return d, nil
}

// defaultImpl returns the default implementation of kind k for hwType.
func (r *Registry) defaultImpl(hwType string, k Kind) (any, error) {
	ht, err := r.hardwareType(hwType)
	if err != nil {
		return nil, err
	}
	return r.impls[k][ht.defaults[k]], nil
}

// DriverProperties returns the properties of hardware type hwType, as GET
// /v1/drivers/{name}/properties shows them: those of its default
// implementations merged in PropertiesOrder. DriverNotFound if hwType
// isn't enabled.
func (r *Registry) DriverProperties(hwType string) (Properties, error) {
	if _, err := r.hardwareType(hwType); err != nil {
		return nil, err
	}
	var props Properties
	for _, k := range PropertiesOrder() {
		impl, _ := r.defaultImpl(hwType, k)
		switch x := impl.(type) {
		case Interface:
			props = props.Update(x.GetProperties())
		case VendorInterface:
			props = props.Update(x.GetProperties())
		}
	}
	return props, nil
}

// DriverVendor returns the default vendor implementation of hwType, which
// serves driver vendor passthru calls.
func (r *Registry) DriverVendor(hwType string) (VendorInterface, error) {
	impl, err := r.defaultImpl(hwType, Vendor)
	if err != nil {
		return nil, err
	}
	return impl.(VendorInterface), nil
}

// DriverVendorMethods returns the driver vendor passthru methods of hwType
// (GET /v1/drivers/{name}/vendor_passthru/methods).
func (r *Registry) DriverVendorMethods(hwType string) (VendorMethods, error) {
	v, err := r.DriverVendor(hwType)
	if err != nil {
		return nil, err
	}
	return v.DriverRoutes(), nil
}

// RAIDLogicalDiskProperties returns the logical disk properties of hwType's
// default RAID implementation (GET /v1/drivers/{name}/raid/
// logical_disk_properties).
func (r *Registry) RAIDLogicalDiskProperties(hwType string) (Properties, error) {
	impl, err := r.defaultImpl(hwType, RAID)
	if err != nil {
		return nil, err
	}
	return impl.(RAIDInterface).GetLogicalDiskProperties(), nil
}
