// Package objects is Ironic's versioned objects (ironic/objects) over the
// db/models rows: each object's fields in the order of the Python class,
// written and read as oslo.versionedobjects primitives (for the RPC codec,
// rpc/oslo) and rendered as as_dict() (for the agent's commands). It is a
// leaf: the conductor and rpc/oslo both use it, and it imports neither.
package objects

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/states"
)

// An Ironic object travels as oslo.versionedobjects' primitive:
//
//	{"ironic_object.name": "Node", "ironic_object.namespace": "ironic",
//	 "ironic_object.version": "1.37", "ironic_object.data": {...set fields...},
//	 "ironic_object.changes": [...]}   (changes only when not empty)
//
// Each object type has a table of its fields in the order of the Python
// class (which is the order of the primitive's data), with how each maps
// to the db/models struct.

// Object is an Ironic object as sent or received: the value, which of its
// fields are set, and which changed.
type Object[T any] struct {
	Value *T
	// Fields are the keys of ironic_object.data, in order. Nil means every
	// field the value has (as for an object read from the database).
	Fields []string
	// Changes is ironic_object.changes.
	Changes []string
	// Version is ironic_object.version as received (ours when sending).
	Version string
}

// TimeFormat is how ovo writes a DateTimeField: seconds, UTC, "Z".
const TimeFormat = "2006-01-02T15:04:05Z"

// field maps one ovo field to a models struct.
type field[T any] struct {
	name string
	// null reports that the value is None (written as null, or left out
	// when a create leaves unset fields out).
	null func(*T) bool
	// skip reports that the field is not set at all (a non-nullable
	// field without a value, such as the id of a node not yet created).
	skip   func(*T) bool
	append func(dst []byte, v *T) ([]byte, error)
	decode func(v *T, raw []byte) error
}

// Def describes one object type: its name, version and fields.
type Def[T any] struct {
	name    string
	version string
	fields  []field[T]
	byName  map[string]int
}

func newDef[T any](name, version string, fields ...field[T]) *Def[T] {
	d := &Def[T]{name: name, version: version, fields: fields, byName: make(map[string]int, len(fields))}
	for i, f := range fields {
		d.byName[f.name] = i
	}
	return d
}

// ---- field constructors ----

func intField[T any](name string, p func(*T) *int64) field[T] {
	return field[T]{
		name: name,
		skip: func(v *T) bool { return *p(v) == 0 },
		append: func(dst []byte, v *T) ([]byte, error) {
			return strconv.AppendInt(dst, *p(v), 10), nil
		},
		decode: func(v *T, raw []byte) error {
			n, err := rawjson.DecodeInt(raw)
			*p(v) = n
			return err
		},
	}
}

func optIntField[T any](name string, p func(*T) **int64) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == nil },
		append: func(dst []byte, v *T) ([]byte, error) {
			return pyjson.Append(dst, *p(v))
		},
		decode: func(v *T, raw []byte) error {
			n, err := rawjson.DecodeOptInt(raw)
			*p(v) = n
			return err
		},
	}
}

// strField is a nullable string field held in a Go string: "" is None.
func strField[T any, S ~string](name string, p func(*T) *S) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == "" },
		append: func(dst []byte, v *T) ([]byte, error) {
			return pyjson.AppendString(dst, string(*p(v))), nil
		},
		decode: func(v *T, raw []byte) error {
			s, err := rawjson.DecodeOptString(raw)
			*p(v) = S(models.Deref(s))
			return err
		},
	}
}

// plainStrField is a string field written even when empty ("" stays "").
func plainStrField[T any](name string, p func(*T) *string) field[T] {
	f := strField(name, p)
	f.null = nil
	return f
}

// optStrField is a nullable string field; S is string or one of the
// string types of package states (the node's states and fault).
func optStrField[T any, S ~string](name string, p func(*T) **S) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == nil },
		append: func(dst []byte, v *T) ([]byte, error) {
			s := *p(v)
			if s == nil {
				return append(dst, "null"...), nil
			}
			return pyjson.AppendString(dst, string(*s)), nil
		},
		decode: func(v *T, raw []byte) error {
			s, err := rawjson.DecodeOptString(raw)
			if s == nil {
				*p(v) = nil
				return err
			}
			x := S(*s)
			*p(v) = &x
			return err
		},
	}
}

func boolField[T any](name string, p func(*T) *bool) field[T] {
	return field[T]{
		name: name,
		append: func(dst []byte, v *T) ([]byte, error) {
			return pyjson.Append(dst, *p(v))
		},
		decode: func(v *T, raw []byte) error {
			b, err := rawjson.DecodeBool(raw)
			*p(v) = b
			return err
		},
	}
}

// optBoolField is a nullable BooleanField.
func optBoolField[T any](name string, p func(*T) **bool) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == nil },
		append: func(dst []byte, v *T) ([]byte, error) {
			return pyjson.Append(dst, *p(v))
		},
		decode: func(v *T, raw []byte) error {
			b, err := rawjson.DecodeOptBool(raw)
			*p(v) = b
			return err
		},
	}
}

// reqBoolField is a non-nullable BooleanField held in a *bool: nil means
// not set.
func reqBoolField[T any](name string, p func(*T) **bool) field[T] {
	f := optBoolField(name, p)
	f.null = nil
	f.skip = func(v *T) bool { return *p(v) == nil }
	return f
}

func dictField[T any](name string, p func(*T) *models.JSONDict) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == nil },
		append: func(dst []byte, v *T) ([]byte, error) {
			d := *p(v)
			if d == nil {
				return append(dst, "null"...), nil
			}
			return pyjson.Append(dst, map[string]any(d))
		},
		decode: func(v *T, raw []byte) error {
			d, err := rawjson.DecodeDict(raw)
			*p(v) = d
			return err
		},
	}
}

func listField[T any](name string, p func(*T) *models.JSONList) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return *p(v) == nil },
		append: func(dst []byte, v *T) ([]byte, error) {
			l := *p(v)
			if l == nil {
				return append(dst, "null"...), nil
			}
			return pyjson.Append(dst, []any(l))
		},
		decode: func(v *T, raw []byte) error {
			l, err := rawjson.DecodeList(raw)
			*p(v) = l
			return err
		},
	}
}

func timeField[T any](name string, p func(*T) *models.Time) field[T] {
	return field[T]{
		name: name,
		null: func(v *T) bool { return p(v).IsZero() },
		append: func(dst []byte, v *T) ([]byte, error) {
			t := *p(v)
			if t.IsZero() {
				return append(dst, "null"...), nil
			}
			dst = append(dst, '"')
			dst = t.UTC().AppendFormat(dst, TimeFormat)
			return append(dst, '"'), nil
		},
		decode: func(v *T, raw []byte) error {
			s, err := rawjson.DecodeOptString(raw)
			if err != nil || s == nil {
				*p(v) = models.Time{}
				return err
			}
			t, err := ParseTime(*s)
			*p(v) = t
			return err
		},
	}
}

// ParseTime reads a datetime as ovo writes it ("2026-12-02T12:00:00Z"),
// also accepting fractions and offsets as oslo's parse_isotime does.
func ParseTime(s string) (models.Time, error) {
	if t, err := time.Parse(TimeFormat, s); err == nil {
		return models.NewTime(t), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return models.NewTime(t), nil
	}
	var t models.Time
	if err := t.Scan(strings.TrimSuffix(s, "Z")); err != nil {
		return models.Time{}, fmt.Errorf("oslo: bad datetime %q", s)
	}
	return t, nil
}

// ignoredField is a field of the Python object that the models struct
// does not hold (Port.node_uuid): ignored when received, sent only when
// the encoder is given its value (EncodeOpts.NodeUUID).
func ignoredField[T any](name string) field[T] {
	return field[T]{
		name:   name,
		skip:   func(*T) bool { return true },
		append: func(dst []byte, _ *T) ([]byte, error) { return append(dst, "null"...), nil },
		decode: func(*T, []byte) error { return nil },
	}
}

// ---- encoding and decoding ----

// EncodeOpts says how an object is written.
type EncodeOpts struct {
	// Fields are the fields written, in this order; nil writes every
	// field the value has, in the class's order.
	Fields []string
	// Changes is ironic_object.changes (left out when empty).
	Changes []string
	// Create leaves out fields that are None and lists every written
	// field as changed, as objects.Node(**values) does in the API.
	Create bool
	// NodeUUID, when set, is written as the node_uuid field, which Port
	// 1.11 and Portgroup 1.5 have but their models structs do not.
	NodeUUID string
}

// Name is the object's name ("Node", "Port", ...).
func (d *Def[T]) Name() string { return d.name }

// FieldNames are the object's fields in the order of the Python class.
func (d *Def[T]) FieldNames() []string {
	out := make([]string, len(d.fields))
	for i, f := range d.fields {
		out[i] = f.name
	}
	return out
}

// Append writes v's primitive as o says.
func (d *Def[T]) Append(dst []byte, v *T, o EncodeOpts) ([]byte, error) {
	dst = append(dst, `{"ironic_object.name": "`...)
	dst = append(dst, d.name...)
	dst = append(dst, `", "ironic_object.namespace": "ironic", "ironic_object.version": "`...)
	dst = append(dst, d.version...)
	dst = append(dst, `", "ironic_object.data": {`...)
	var err error
	n := 0
	var created []string
	key := func(name string) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		n++
		dst = pyjson.AppendString(dst, name)
		dst = append(dst, ": "...)
	}
	write := func(f *field[T]) error {
		key(f.name)
		dst, err = f.append(dst, v)
		return err
	}
	if o.Fields == nil {
		for i := range d.fields {
			f := &d.fields[i]
			if f.name == "node_uuid" && o.NodeUUID != "" {
				key(f.name)
				dst = pyjson.AppendString(dst, o.NodeUUID)
				continue
			}
			if f.skip != nil && f.skip(v) {
				continue
			}
			if o.Create && f.null != nil && f.null(v) {
				continue
			}
			if err := write(f); err != nil {
				return dst, err
			}
			if o.Create {
				created = append(created, f.name)
			}
		}
	} else {
		for _, name := range o.Fields {
			i, ok := d.byName[name]
			if !ok {
				return dst, fmt.Errorf("oslo: %s has no field %q", d.name, name)
			}
			if err := write(&d.fields[i]); err != nil {
				return dst, err
			}
		}
	}
	dst = append(dst, '}')
	changes := o.Changes
	if o.Create && changes == nil {
		changes = created
	}
	if len(changes) > 0 {
		dst = append(dst, `, "ironic_object.changes": `...)
		if dst, err = pyjson.Append(dst, changes); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// objHeader is the envelope of an object primitive.
type objHeader struct {
	name, namespace, version string
	data                     []byte
	changes                  []string
}

func splitObj(raw []byte) (*objHeader, error) {
	o, err := rawjson.SplitObject(raw)
	if err != nil {
		return nil, err
	}
	h := &objHeader{}
	for _, m := range o {
		switch m.Key {
		case "ironic_object.name":
			h.name, err = rawjson.DecodeString(m.Raw)
		case "ironic_object.namespace":
			h.namespace, err = rawjson.DecodeString(m.Raw)
		case "ironic_object.version":
			h.version, err = rawjson.DecodeString(m.Raw)
		case "ironic_object.data":
			h.data = m.Raw
		case "ironic_object.changes":
			h.changes, err = rawjson.DecodeStrings(m.Raw)
		}
		if err != nil {
			return nil, err
		}
	}
	if h.name == "" || h.data == nil {
		return nil, fmt.Errorf("oslo: not an Ironic object primitive")
	}
	if h.namespace != "ironic" {
		return nil, fmt.Errorf("oslo: object namespace %q is not ironic", h.namespace)
	}
	return h, nil
}

// compatible reports whether an object of version got can be read as
// version ours: same major, minor not newer.
func compatible(got, ours string) bool {
	gm, gn, ok1 := SplitVersion(got)
	om, on, ok2 := SplitVersion(ours)
	return ok1 && ok2 && gm == om && gn <= on
}

// SplitVersion reads an oslo version ("1.55"; objects and RPC APIs
// alike) as its major and minor numbers.
func SplitVersion(v string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	return ma, mi, err1 == nil && err2 == nil
}

// Decode reads a primitive of this object type (of a compatible
// version): the value, which fields it has and which changed.
func (d *Def[T]) Decode(raw []byte) (Object[T], error) {
	var out Object[T]
	h, err := splitObj(raw)
	if err != nil {
		return out, err
	}
	if h.name != d.name {
		return out, fmt.Errorf("oslo: expected a %s object, got %s", d.name, h.name)
	}
	if !compatible(h.version, d.version) {
		return out, fmt.Errorf("oslo: %s version %s is not compatible with %s", d.name, h.version, d.version)
	}
	data, err := rawjson.SplitObject(h.data)
	if err != nil {
		return out, err
	}
	v := new(T)
	fields := make([]string, 0, len(data))
	for _, m := range data {
		i, ok := d.byName[m.Key]
		if !ok {
			continue
		}
		if err := d.fields[i].decode(v, m.Raw); err != nil {
			return out, fmt.Errorf("oslo: %s.%s: %w", d.name, m.Key, err)
		}
		fields = append(fields, m.Key)
	}
	out.Value, out.Fields, out.Changes, out.Version = v, fields, h.changes, h.version
	return out, nil
}

// ---- the object types ----

func traitsField() field[models.Node] {
	return field[models.Node]{
		name: "traits",
		// Nil traits (not loaded) are None; Python's field is nullable.
		null: func(n *models.Node) bool { return n.Traits == nil },
		append: func(dst []byte, n *models.Node) ([]byte, error) {
			if n.Traits == nil {
				return append(dst, "null"...), nil
			}
			dst = append(dst, `{"ironic_object.name": "TraitList", "ironic_object.namespace": "ironic", "ironic_object.version": "1.0", "ironic_object.data": {"objects": [`...)
			for i, t := range n.Traits {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = append(dst, `{"ironic_object.name": "Trait", "ironic_object.namespace": "ironic", "ironic_object.version": "1.0", "ironic_object.data": {"trait": `...)
				dst = pyjson.AppendString(dst, t.Trait)
				dst = append(dst, "}}"...)
			}
			return append(dst, "]}}"...), nil
		},
		decode: func(n *models.Node, raw []byte) error {
			n.Traits = nil
			if rawjson.IsNull(raw) {
				return nil
			}
			h, err := splitObj(raw)
			if err != nil {
				return err
			}
			if h.name != "TraitList" {
				return fmt.Errorf("expected a TraitList, got %s", h.name)
			}
			data, err := rawjson.SplitObject(h.data)
			if err != nil {
				return err
			}
			objs := data.Get("objects")
			if objs == nil {
				return nil
			}
			elems, err := rawjson.SplitArray(objs)
			if err != nil {
				return err
			}
			n.Traits = make([]models.NodeTrait, 0, len(elems))
			for _, e := range elems {
				th, err := splitObj(e)
				if err != nil {
					return err
				}
				if th.name != "Trait" {
					return fmt.Errorf("expected a Trait, got %s", th.name)
				}
				td, err := rawjson.SplitObject(th.data)
				if err != nil {
					return err
				}
				t := models.NodeTrait{NodeID: n.ID}
				if raw := td.Get("trait"); raw != nil {
					if t.Trait, err = rawjson.DecodeString(raw); err != nil {
						return err
					}
				}
				if raw := td.Get("node_id"); raw != nil && !rawjson.IsNull(raw) {
					// A StringField in Python, an integer in the database.
					if raw[0] == '"' {
						s, err := rawjson.DecodeString(raw)
						if err != nil {
							return err
						}
						raw = []byte(s)
					}
					if t.NodeID, err = rawjson.DecodeInt(raw); err != nil {
						return err
					}
				}
				n.Traits = append(n.Traits, t)
			}
			return nil
		},
	}
}

type node = models.Node

var nodeDef = newDef[node]("Node", models.NodeVersion,
	intField("id", func(n *node) *int64 { return &n.ID }),
	strField("uuid", func(n *node) *string { return &n.UUID }),
	optStrField("name", func(n *node) **string { return &n.Name }),
	optIntField("chassis_id", func(n *node) **int64 { return &n.ChassisID }),
	optStrField("instance_uuid", func(n *node) **string { return &n.InstanceUUID }),
	plainStrField("driver", func(n *node) *string { return &n.Driver }),
	dictField("driver_info", func(n *node) *models.JSONDict { return &n.DriverInfo }),
	dictField("driver_internal_info", func(n *node) *models.JSONDict { return &n.DriverInternalInfo }),
	dictField("clean_step", func(n *node) *models.JSONDict { return &n.CleanStep }),
	dictField("deploy_step", func(n *node) *models.JSONDict { return &n.DeployStep }),
	dictField("raid_config", func(n *node) *models.JSONDict { return &n.RAIDConfig }),
	dictField("target_raid_config", func(n *node) *models.JSONDict { return &n.TargetRAIDConfig }),
	dictField("instance_info", func(n *node) *models.JSONDict { return &n.InstanceInfo }),
	dictField("properties", func(n *node) *models.JSONDict { return &n.Properties }),
	optStrField("reservation", func(n *node) **string { return &n.Reservation }),
	optIntField("conductor_affinity", func(n *node) **int64 { return &n.ConductorAffinity }),
	plainStrField("conductor_group", func(n *node) *string { return &n.ConductorGroup }),
	optStrField("power_state", func(n *node) **states.Power { return &n.PowerState }),
	optStrField("target_power_state", func(n *node) **states.Power { return &n.TargetPowerState }),
	optStrField("provision_state", func(n *node) **states.Provision { return &n.ProvisionState }),
	timeField("provision_updated_at", func(n *node) *models.Time { return &n.ProvisionUpdatedAt }),
	optStrField("target_provision_state", func(n *node) **states.Provision { return &n.TargetProvisionState }),
	boolField("maintenance", func(n *node) *bool { return &n.Maintenance }),
	optStrField("maintenance_reason", func(n *node) **string { return &n.MaintenanceReason }),
	optStrField("fault", func(n *node) **states.Fault { return &n.Fault }),
	boolField("console_enabled", func(n *node) *bool { return &n.ConsoleEnabled }),
	optStrField("last_error", func(n *node) **string { return &n.LastError }),
	optStrField("resource_class", func(n *node) **string { return &n.ResourceClass }),
	timeField("inspection_finished_at", func(n *node) *models.Time { return &n.InspectionFinishedAt }),
	timeField("inspection_started_at", func(n *node) *models.Time { return &n.InspectionStartedAt }),
	dictField("extra", func(n *node) *models.JSONDict { return &n.Extra }),
	optBoolField("automated_clean", func(n *node) **bool { return &n.AutomatedClean }),
	boolField("protected", func(n *node) *bool { return &n.Protected }),
	optStrField("protected_reason", func(n *node) **string { return &n.ProtectedReason }),
	optIntField("allocation_id", func(n *node) **int64 { return &n.AllocationID }),
	optStrField("bios_interface", func(n *node) **string { return &n.BIOSInterface }),
	optStrField("boot_interface", func(n *node) **string { return &n.BootInterface }),
	optStrField("console_interface", func(n *node) **string { return &n.ConsoleInterface }),
	optStrField("deploy_interface", func(n *node) **string { return &n.DeployInterface }),
	optStrField("inspect_interface", func(n *node) **string { return &n.InspectInterface }),
	optStrField("management_interface", func(n *node) **string { return &n.ManagementInterface }),
	optStrField("network_interface", func(n *node) **string { return &n.NetworkInterface }),
	optStrField("power_interface", func(n *node) **string { return &n.PowerInterface }),
	optStrField("raid_interface", func(n *node) **string { return &n.RAIDInterface }),
	optStrField("rescue_interface", func(n *node) **string { return &n.RescueInterface }),
	optStrField("storage_interface", func(n *node) **string { return &n.StorageInterface }),
	optStrField("vendor_interface", func(n *node) **string { return &n.VendorInterface }),
	traitsField(),
	optStrField("owner", func(n *node) **string { return &n.Owner }),
	optStrField("lessee", func(n *node) **string { return &n.Lessee }),
	optStrField("description", func(n *node) **string { return &n.Description }),
	optBoolField("retired", func(n *node) **bool { return &n.Retired }),
	optStrField("retired_reason", func(n *node) **string { return &n.RetiredReason }),
	dictField("network_data", func(n *node) *models.JSONDict { return &n.NetworkData }),
	optStrField("boot_mode", func(n *node) **string { return &n.BootMode }),
	optBoolField("secure_boot", func(n *node) **bool { return &n.SecureBoot }),
	optStrField("shard", func(n *node) **string { return &n.Shard }),
	timeField("created_at", func(n *node) *models.Time { return &n.CreatedAt }),
	timeField("updated_at", func(n *node) *models.Time { return &n.UpdatedAt }),
)

type port = models.Port

var portDef = newDef[port]("Port", models.PortVersion,
	intField("id", func(p *port) *int64 { return &p.ID }),
	strField("uuid", func(p *port) *string { return &p.UUID }),
	optIntField("node_id", func(p *port) **int64 { return &p.NodeID }),
	ignoredField[port]("node_uuid"),
	optStrField("address", func(p *port) **string { return &p.Address }),
	dictField("extra", func(p *port) *models.JSONDict { return &p.Extra }),
	dictField("local_link_connection", func(p *port) *models.JSONDict { return &p.LocalLinkConnection }),
	optIntField("portgroup_id", func(p *port) **int64 { return &p.PortgroupID }),
	reqBoolField("pxe_enabled", func(p *port) **bool { return &p.PXEEnabled }),
	dictField("internal_info", func(p *port) *models.JSONDict { return &p.InternalInfo }),
	optStrField("physical_network", func(p *port) **string { return &p.PhysicalNetwork }),
	optBoolField("is_smartnic", func(p *port) **bool { return &p.IsSmartNIC }),
	optStrField("name", func(p *port) **string { return &p.Name }),
	timeField("created_at", func(p *port) *models.Time { return &p.CreatedAt }),
	timeField("updated_at", func(p *port) *models.Time { return &p.UpdatedAt }),
)

type portgroup = models.Portgroup

var portgroupDef = newDef[portgroup]("Portgroup", models.PortgroupVersion,
	intField("id", func(p *portgroup) *int64 { return &p.ID }),
	strField("uuid", func(p *portgroup) *string { return &p.UUID }),
	optStrField("name", func(p *portgroup) **string { return &p.Name }),
	optIntField("node_id", func(p *portgroup) **int64 { return &p.NodeID }),
	ignoredField[portgroup]("node_uuid"),
	optStrField("address", func(p *portgroup) **string { return &p.Address }),
	dictField("extra", func(p *portgroup) *models.JSONDict { return &p.Extra }),
	dictField("internal_info", func(p *portgroup) *models.JSONDict { return &p.InternalInfo }),
	reqBoolField("standalone_ports_supported", func(p *portgroup) **bool { return &p.StandalonePortsSupported }),
	optStrField("mode", func(p *portgroup) **string { return &p.Mode }),
	dictField("properties", func(p *portgroup) *models.JSONDict { return &p.Properties }),
	timeField("created_at", func(p *portgroup) *models.Time { return &p.CreatedAt }),
	timeField("updated_at", func(p *portgroup) *models.Time { return &p.UpdatedAt }),
)

type connector = models.VolumeConnector

var connectorDef = newDef[connector]("VolumeConnector", models.VolumeConnectorVersion,
	intField("id", func(c *connector) *int64 { return &c.ID }),
	strField("uuid", func(c *connector) *string { return &c.UUID }),
	optIntField("node_id", func(c *connector) **int64 { return &c.NodeID }),
	optStrField("type", func(c *connector) **string { return &c.Type }),
	optStrField("connector_id", func(c *connector) **string { return &c.ConnectorID }),
	dictField("extra", func(c *connector) *models.JSONDict { return &c.Extra }),
	timeField("created_at", func(c *connector) *models.Time { return &c.CreatedAt }),
	timeField("updated_at", func(c *connector) *models.Time { return &c.UpdatedAt }),
)

type target = models.VolumeTarget

var targetDef = newDef[target]("VolumeTarget", models.VolumeTargetVersion,
	intField("id", func(t *target) *int64 { return &t.ID }),
	strField("uuid", func(t *target) *string { return &t.UUID }),
	optIntField("node_id", func(t *target) **int64 { return &t.NodeID }),
	optStrField("volume_type", func(t *target) **string { return &t.VolumeType }),
	dictField("properties", func(t *target) *models.JSONDict { return &t.Properties }),
	optIntField("boot_index", func(t *target) **int64 { return &t.BootIndex }),
	optStrField("volume_id", func(t *target) **string { return &t.VolumeID }),
	dictField("extra", func(t *target) *models.JSONDict { return &t.Extra }),
	timeField("created_at", func(t *target) *models.Time { return &t.CreatedAt }),
	timeField("updated_at", func(t *target) *models.Time { return &t.UpdatedAt }),
)

type allocation = models.Allocation

var allocationDef = newDef[allocation]("Allocation", models.AllocationVersion,
	intField("id", func(a *allocation) *int64 { return &a.ID }),
	strField("uuid", func(a *allocation) *string { return &a.UUID }),
	optStrField("name", func(a *allocation) **string { return &a.Name }),
	optIntField("node_id", func(a *allocation) **int64 { return &a.NodeID }),
	strField("state", func(a *allocation) *states.Allocation { return &a.State }),
	optStrField("last_error", func(a *allocation) **string { return &a.LastError }),
	optStrField("resource_class", func(a *allocation) **string { return &a.ResourceClass }),
	listField("traits", func(a *allocation) *models.JSONList { return &a.Traits }),
	listField("candidate_nodes", func(a *allocation) *models.JSONList { return &a.CandidateNodes }),
	dictField("extra", func(a *allocation) *models.JSONDict { return &a.Extra }),
	optIntField("conductor_affinity", func(a *allocation) **int64 { return &a.ConductorAffinity }),
	optStrField("owner", func(a *allocation) **string { return &a.Owner }),
	timeField("created_at", func(a *allocation) *models.Time { return &a.CreatedAt }),
	timeField("updated_at", func(a *allocation) *models.Time { return &a.UpdatedAt }),
)

// NodeDef is the Node object (its version is models.NodeVersion).
func NodeDef() *Def[models.Node] { return nodeDef }

// PortDef is the Port object.
func PortDef() *Def[models.Port] { return portDef }

// PortgroupDef is the Portgroup object.
func PortgroupDef() *Def[models.Portgroup] { return portgroupDef }

// VolumeConnectorDef is the VolumeConnector object.
func VolumeConnectorDef() *Def[models.VolumeConnector] { return connectorDef }

// VolumeTargetDef is the VolumeTarget object.
func VolumeTargetDef() *Def[models.VolumeTarget] { return targetDef }

// AllocationDef is the Allocation object.
func AllocationDef() *Def[models.Allocation] { return allocationDef }

// AppendNode writes a node primitive with every field it has.
func AppendNode(dst []byte, n *models.Node, changes []string) ([]byte, error) {
	return nodeDef.Append(dst, n, EncodeOpts{Changes: changes})
}

// DecodeNode reads a Node primitive.
func DecodeNode(raw []byte) (Object[models.Node], error) { return nodeDef.Decode(raw) }

// AppendNodeObject writes o with exactly its Fields (all when nil).
func AppendNodeObject(dst []byte, o Object[models.Node]) ([]byte, error) {
	return nodeDef.Append(dst, o.Value, EncodeOpts{Fields: o.Fields, Changes: o.Changes})
}

// AppendPort writes a port primitive with every field it has, node_uuid
// being nodeUUID.
func AppendPort(dst []byte, p *models.Port, nodeUUID string) ([]byte, error) {
	return portDef.Append(dst, p, EncodeOpts{NodeUUID: nodeUUID})
}
