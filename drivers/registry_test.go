package drivers_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestReferenceDefaults compares every hardware type's default and enabled
// interfaces with GET /v1/drivers?detail=true of the reference (enabled
// lists compared as sets: Ironic builds them from a Python set).
func TestReferenceDefaults(t *testing.T) {
	reg := newReferenceRegistry(t)
	var detail struct {
		Drivers []map[string]any `json:"drivers"`
	}
	if err := json.Unmarshal(readTestdata(t, "reference", "drivers-detail.json"), &detail); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range detail.Drivers {
		name := d["name"].(string)
		names = append(names, name)
		got, err := reg.HardwareTypeInterfaces(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, k := range drivers.Kinds() {
			if want := d["default_"+string(k)+"_interface"]; got[k].Default != want {
				t.Errorf("%s: default %s interface = %q, reference %q", name, k, got[k].Default, want)
			}
			var want []string
			for _, e := range d["enabled_"+string(k)+"_interfaces"].([]any) {
				want = append(want, e.(string))
			}
			slices.Sort(want)
			enabled := slices.Sorted(slices.Values(got[k].Enabled))
			if diff := cmp.Diff(want, enabled); diff != "" {
				t.Errorf("%s: enabled %s interfaces (-reference +ours):\n%s", name, k, diff)
			}
		}
	}
	if diff := cmp.Diff(names, reg.HardwareTypes()); diff != "" {
		t.Errorf("hardware types (-reference +ours):\n%s", diff)
	}
	if got := reg.Unimplemented(); !slices.Equal(got, []string{"network/flat"}) {
		t.Errorf("Unimplemented() = %v, want [network/flat]", got)
	}
	rows := reg.InterfaceRows()
	defaults := 0
	for _, r := range rows {
		if r.Default {
			defaults++
		}
	}
	if defaults != 3*len(drivers.Kinds()) {
		t.Errorf("InterfaceRows has %d defaults, want one per hardware type and kind", defaults)
	}
}

// TestIronicDefaults checks the defaults computed from Ironic 21.4's own
// default configuration, as Python's driver_factory computes them.
func TestIronicDefaults(t *testing.T) {
	reg, err := drivers.NewRegistry(drivers.DefaultConfig(), referenceImplementations()...)
	if err != nil {
		t.Fatal(err)
	}
	type kindWant struct {
		def     string
		enabled []string
	}
	want := map[string]map[drivers.Kind]kindWant{
		"ipmi": {
			drivers.BIOS:       {"no-bios", []string{"no-bios"}},
			drivers.Boot:       {"ipxe", []string{"ipxe", "pxe"}},
			drivers.Console:    {"no-console", []string{"no-console"}},
			drivers.Deploy:     {"direct", []string{"direct", "ramdisk"}},
			drivers.Inspect:    {"no-inspect", []string{"no-inspect"}},
			drivers.Management: {"ipmitool", []string{"ipmitool"}},
			drivers.Network:    {"flat", []string{"flat", "noop"}},
			drivers.Power:      {"ipmitool", []string{"ipmitool"}},
			drivers.RAID:       {"no-raid", []string{"no-raid", "agent"}},
			drivers.Rescue:     {"no-rescue", []string{"no-rescue"}},
			drivers.Storage:    {"noop", []string{"noop", "cinder"}},
			drivers.Vendor:     {"ipmitool", []string{"ipmitool", "no-vendor"}},
		},
		"redfish": {
			drivers.BIOS:       {"redfish", []string{"redfish", "no-bios"}},
			drivers.Boot:       {"ipxe", []string{"ipxe", "pxe", "redfish-virtual-media"}},
			drivers.Console:    {"no-console", []string{"no-console"}},
			drivers.Deploy:     {"direct", []string{"direct", "ramdisk"}},
			drivers.Inspect:    {"redfish", []string{"redfish", "no-inspect"}},
			drivers.Management: {"redfish", []string{"redfish"}},
			drivers.Network:    {"flat", []string{"flat", "noop"}},
			drivers.Power:      {"redfish", []string{"redfish"}},
			drivers.RAID:       {"redfish", []string{"redfish", "no-raid", "agent"}},
			drivers.Rescue:     {"no-rescue", []string{"no-rescue"}},
			drivers.Storage:    {"noop", []string{"noop", "cinder"}},
			drivers.Vendor:     {"redfish", []string{"redfish", "no-vendor"}},
		},
	}
	for ht, kinds := range want {
		got, err := reg.HardwareTypeInterfaces(ht)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range kinds {
			if got[k].Default != w.def || !slices.Equal(got[k].Enabled, w.enabled) {
				t.Errorf("%s %s: got default %q enabled %v, want %q %v", ht, k, got[k].Default, got[k].Enabled, w.def, w.enabled)
			}
		}
	}
	// enabled_{management,power}_interfaces default to the first supported
	// implementation of every enabled hardware type.
	for _, k := range []drivers.Kind{drivers.Management, drivers.Power} {
		if got := reg.EnabledInterfaces(k); !slices.Equal(got, []string{"ipmitool", "redfish"}) {
			t.Errorf("enabled %s interfaces = %v", k, got)
		}
	}
	if got := reg.Unimplemented(); !slices.Equal(got, []string{"network/flat", "storage/cinder"}) {
		t.Errorf("Unimplemented() = %v", got)
	}
}

// TestComputedEnabledLists mirrors a Python run with fake-hardware and
// manual-management and no enabled_{management,power}_interfaces.
func TestComputedEnabledLists(t *testing.T) {
	cfg := drivers.Config{
		EnabledHardwareTypes: []string{"fake-hardware", "manual-management"},
		Enabled: map[string][]string{
			"bios": {"fake", "no-bios"}, "boot": {"fake", "ipxe"}, "console": {"fake", "no-console"},
			"deploy": {"fake", "direct"}, "inspect": {"fake", "no-inspect"}, "network": {"flat", "noop"},
			"raid": {"fake", "no-raid"}, "rescue": {"fake", "no-rescue"}, "storage": {"fake", "noop"},
			"vendor": {"fake", "no-vendor"},
		},
		Default: map[string]string{"deploy": "direct", "storage": "noop"},
	}
	reg, err := drivers.NewRegistry(cfg, referenceImplementations()...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ht   string
		kind drivers.Kind
		def  string
	}{
		{"fake-hardware", drivers.Deploy, "direct"},
		{"fake-hardware", drivers.Power, "fake"},
		{"fake-hardware", drivers.Storage, "noop"},
		{"fake-hardware", drivers.Network, "flat"},
		{"manual-management", drivers.Power, "agent"},
		{"manual-management", drivers.Management, "noop"},
		{"manual-management", drivers.Deploy, "direct"},
		{"manual-management", drivers.Vendor, "no-vendor"},
	}
	for _, tt := range tests {
		if got, _ := reg.DefaultInterface(tt.ht, tt.kind); got != tt.def {
			t.Errorf("DefaultInterface(%s, %s) = %q, want %q", tt.ht, tt.kind, got, tt.def)
		}
	}
	if got := reg.EnabledInterfaces(drivers.Power); !slices.Equal(got, []string{"agent", "fake"}) {
		t.Errorf("enabled power = %v", got)
	}
	if got := reg.EnabledInterfaces(drivers.Management); !slices.Equal(got, []string{"fake", "noop"}) {
		t.Errorf("enabled management = %v", got)
	}
}

// TestStartupErrors checks the messages Ironic's conductor fails to start
// with (recorded from Python's driver_factory with the same options).
func TestStartupErrors(t *testing.T) {
	with := func(f func(*drivers.Config)) drivers.Config {
		c := drivers.DefaultConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name  string
		cfg   drivers.Config
		class ironic.Class
		msg   string
	}{
		{"unknown hardware types", with(func(c *drivers.Config) { c.EnabledHardwareTypes = []string{"ipmi", "nope", "bad"} }),
			ironic.DriverNotFound, "Could not find the following items in the 'ironic.hardware.types' entrypoint: nope, bad."},
		{"unknown interfaces", with(func(c *drivers.Config) { c.Enabled["boot"] = []string{"ipxe", "bogus", "pxe2"} }),
			ironic.DriverNotFound, "Could not find the following items in the 'ironic.hardware.interfaces.boot' entrypoint: bogus, pxe2."},
		{"default not enabled", with(func(c *drivers.Config) { c.Default["power"] = "fake" }),
			ironic.InterfaceNotFoundInEntrypoint, "Could not find the following interface in the 'ironic.hardware.interfaces.power' entrypoint: fake. Valid interfaces are ['ipmitool', 'redfish']."},
		{"default unsupported", with(func(c *drivers.Config) {
			c.Enabled["power"] = []string{"fake", "ipmitool", "redfish"}
			c.Default["power"] = "fake"
		}), ironic.NoValidDefaultForInterface, "For hardware type 'ipmi', no default value found for power interface could be determined. Please ensure the interfaces are enabled."},
		{"nothing usable", with(func(c *drivers.Config) { c.Enabled["power"] = []string{"fake"} }),
			ironic.NoValidDefaultForInterface, "For hardware type 'ipmi', no default value found for power interface could be determined. Please ensure the interfaces are enabled."},
		{"fake-hardware nothing usable", with(func(c *drivers.Config) {
			c.EnabledHardwareTypes = []string{"fake-hardware"}
			c.Enabled["power"] = []string{"ipmitool"}
		}), ironic.NoValidDefaultForInterface, "For hardware type 'fake-hardware', no default value found for power interface could be determined. Please ensure the interfaces are enabled."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := drivers.NewRegistry(tt.cfg, referenceImplementations()...)
			if err == nil {
				t.Fatal("NewRegistry succeeded")
			}
			if !ironic.IsClass(err, tt.class) || err.Error() != tt.msg {
				t.Errorf("got %s %q\nwant %s %q", ironic.AsFault(err).Class, err, tt.class, tt.msg)
			}
		})
	}
}

func TestNewRegistryRejectsBadImplementations(t *testing.T) {
	cfg := drivers.DefaultConfig()
	if _, err := drivers.NewRegistry(cfg, drivers.Implementation{Kind: drivers.Power, Name: "nonsense", Impl: nil}); err == nil {
		t.Error("unknown implementation name accepted")
	}
	if _, err := drivers.NewRegistry(cfg, drivers.Implementation{Kind: drivers.Power, Name: "ipmitool", Impl: 42}); err == nil {
		t.Error("implementation of the wrong kind accepted")
	}
	impls := referenceImplementations()
	if _, err := drivers.NewRegistry(cfg, append(impls, impls[0])...); err == nil {
		t.Error("duplicate implementation accepted")
	}
}

// TestCheckInterface compares with the reference's answers to
// POST /v1/nodes with bad interfaces.
func TestCheckInterface(t *testing.T) {
	reg := newReferenceRegistry(t)
	tests := []struct {
		ht    string
		kind  drivers.Kind
		name  string
		class ironic.Class
		msg   string
	}{
		{"fake-hardware", drivers.Deploy, "bogus", ironic.InterfaceNotFoundInEntrypoint,
			"Could not find the following interface in the 'ironic.hardware.interfaces.deploy' entrypoint: bogus. Valid interfaces are ['direct', 'fake', 'ramdisk']."},
		{"ipmi", drivers.BIOS, "idrac-wsman", ironic.InterfaceNotFoundInEntrypoint,
			"Could not find the following interface in the 'ironic.hardware.interfaces.bios' entrypoint: idrac-wsman. Valid interfaces are ['fake', 'no-bios', 'redfish']."},
		{"ipmi", drivers.Deploy, "fake", ironic.IncompatibleInterface, ""},
		{"ipmi", drivers.BIOS, "redfish", ironic.IncompatibleInterface, ""},
		{"nope", drivers.Deploy, "fake", ironic.DriverNotFound,
			"Could not find the following driver(s) or hardware type(s): nope."},
		{"fake-hardware", drivers.Deploy, "direct", "", ""},
		{"fake-hardware", drivers.Power, "ipmitool", "", ""}, // fake-hardware takes any enabled one
		{"redfish", drivers.Boot, "redfish-virtual-media", "", ""},
	}
	for _, tt := range tests {
		err := reg.CheckInterface(tt.ht, tt.kind, tt.name)
		if tt.class == "" {
			if err != nil {
				t.Errorf("CheckInterface(%s, %s, %s) = %v", tt.ht, tt.kind, tt.name, err)
			}
			continue
		}
		if !ironic.IsClass(err, tt.class) {
			t.Errorf("CheckInterface(%s, %s, %s) = %v, want %s", tt.ht, tt.kind, tt.name, err, tt.class)
			continue
		}
		if tt.msg != "" && err.Error() != tt.msg {
			t.Errorf("CheckInterface(%s, %s, %s) message\n got %q\nwant %q", tt.ht, tt.kind, tt.name, err, tt.msg)
		}
	}
	// The reference shows the implementation object, whose address we
	// can't reproduce; the rest of the message is Ironic's.
	err := reg.CheckInterface("ipmi", drivers.Deploy, "fake")
	const prefix = "deploy interface implementation '<ironic.drivers.modules.fake.FakeDeploy object at 0x"
	const suffix = ">' is not supported by hardware type IPMIHardware."
	if msg := err.Error(); len(msg) < len(prefix)+len(suffix) || msg[:len(prefix)] != prefix || msg[len(msg)-len(suffix):] != suffix {
		t.Errorf("IncompatibleInterface message %q", msg)
	}
}

func TestCheckAndUpdateNodeInterfaces(t *testing.T) {
	reg := newReferenceRegistry(t)
	n := &drivers.NodeInterfaces{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "ipmi",
		Fields: map[drivers.Kind]string{drivers.Boot: "pxe"}}
	changed, err := reg.CheckAndUpdateNodeInterfaces(n)
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	want := map[drivers.Kind]string{
		drivers.BIOS: "no-bios", drivers.Boot: "pxe", drivers.Console: "ipmitool-socat", drivers.Deploy: "direct",
		drivers.Inspect: "no-inspect", drivers.Management: "ipmitool", drivers.Network: "noop", drivers.Power: "ipmitool",
		drivers.RAID: "no-raid", drivers.Rescue: "no-rescue", drivers.Storage: "noop", drivers.Vendor: "ipmitool",
	}
	if diff := cmp.Diff(want, n.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if changed, _ := reg.CheckAndUpdateNodeInterfaces(n); changed {
		t.Error("second call changed the node again")
	}

	// instance_info overrides win when building the driver and are checked.
	n.InstanceInfo = pyjson.DictOf("deploy_interface", "ramdisk")
	drv, err := reg.BuildDriver(n)
	if err != nil {
		t.Fatal(err)
	}
	if drv.ImplName(drivers.Deploy) != "ramdisk" || n.Fields[drivers.Deploy] != "direct" {
		t.Errorf("deploy %q field %q", drv.ImplName(drivers.Deploy), n.Fields[drivers.Deploy])
	}
	n.InstanceInfo = pyjson.DictOf("deploy_interface", "fake")
	if _, err := reg.BuildDriver(n); !ironic.IsClass(err, ironic.IncompatibleInterface) {
		t.Errorf("incompatible instance_info override: %v", err)
	}
}

func TestRegistryLookupsOfUnknownDriver(t *testing.T) {
	reg := newReferenceRegistry(t)
	const msg = "Could not find the following driver(s) or hardware type(s): manual-management."
	if _, err := reg.DriverProperties("manual-management"); err == nil || err.Error() != msg || !ironic.IsClass(err, ironic.DriverNotFound) {
		t.Errorf("DriverProperties: %v", err)
	}
	if _, err := reg.DriverVendorMethods("nope"); !ironic.IsClass(err, ironic.DriverNotFound) {
		t.Errorf("DriverVendorMethods: %v", err)
	}
	if _, err := reg.RAIDLogicalDiskProperties("nope"); !ironic.IsClass(err, ironic.DriverNotFound) {
		t.Errorf("RAIDLogicalDiskProperties: %v", err)
	}
	if _, err := reg.DefaultInterface("nope", drivers.Boot); !ironic.IsClass(err, ironic.DriverNotFound) {
		t.Errorf("DefaultInterface: %v", err)
	}
}

type staticMethod struct{ name string }

func (m staticMethod) Method() drivers.VendorMethod {
	return drivers.VendorMethod{Name: m.name, HTTPMethods: []string{"GET"}}
}

func (m staticMethod) Call(context.Context, drivers.BootNodes, string, map[string]any) (any, error) {
	return m.name, nil
}

// TestRegisterDriverMethod: a registered driver method is found by name,
// once; it is no vendor route of any hardware type.
func TestRegisterDriverMethod(t *testing.T) {
	reg := newReferenceRegistry(t)
	if _, ok := reg.DriverMethod("ipxe_config"); ok {
		t.Fatal("found before registration")
	}
	if err := reg.RegisterDriverMethod(staticMethod{"ipxe_config"}); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterDriverMethod(staticMethod{"ipxe_config"}); err == nil {
		t.Error("registered twice")
	}
	if dm, ok := reg.DriverMethod("ipxe_config"); !ok || dm.Method().Name != "ipxe_config" {
		t.Errorf("lookup: %v %v", dm, ok)
	}
	for _, hw := range reg.HardwareTypes() {
		routes, err := reg.DriverVendorMethods(hw)
		if err != nil {
			t.Fatal(err)
		}
		if _, listed := routes.Lookup("ipxe_config"); listed {
			t.Errorf("%s lists ipxe_config", hw)
		}
	}
}
