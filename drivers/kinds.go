package drivers

// Kind names one of Ironic's driver interface types, as spelled in the
// <kind>_interface node fields and the enabled_<kind>_interfaces options.
type Kind string

// The interface kinds of Ironic 21.4 (there is no firmware interface yet).
const (
	BIOS       Kind = "bios"
	Boot       Kind = "boot"
	Console    Kind = "console"
	Deploy     Kind = "deploy"
	Inspect    Kind = "inspect"
	Management Kind = "management"
	Network    Kind = "network"
	Power      Kind = "power"
	RAID       Kind = "raid"
	Rescue     Kind = "rescue"
	Storage    Kind = "storage"
	Vendor     Kind = "vendor"
)

// Kinds returns every interface kind, in Ironic 21.4's order (the order of
// the node's *_interface fields).
func Kinds() []Kind {
	return []Kind{BIOS, Boot, Console, Deploy, Inspect, Management, Network,
		Power, RAID, Rescue, Storage, Vendor}
}

// ValidationKinds returns the kinds GET /v1/nodes/{node}/validate reports,
// in the order it reports them: Ironic's core interfaces (boot, deploy,
// management, network, power) then the optional ones (bios, console,
// inspect, raid, rescue, storage). Vendor is not validated there.
func ValidationKinds() []Kind {
	return []Kind{Boot, Deploy, Management, Network, Power, BIOS, Console,
		Inspect, RAID, Rescue, Storage}
}

// PropertiesOrder is the order in which a hardware type's default
// interfaces contribute to GET /v1/drivers/{name}/properties, and in which
// a node's interfaces are checked. Python Ironic walks a set there
// (driver_base.ALL_INTERFACES), whose order is fixed only per process; this
// is the order of the reference deployment (it reproduces its answers byte
// for byte, and is Python's order under PYTHONHASHSEED=35).
func PropertiesOrder() []Kind {
	return []Kind{Inspect, BIOS, Deploy, Vendor, Management, Network, Console,
		Storage, Power, Boot, Rescue, RAID}
}

// ParseKind returns the kind named s.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Field is the node field that holds the kind's implementation name, e.g.
// "boot_interface".
func (k Kind) Field() string { return string(k) + "_interface" }

// entrypoint is the name of Ironic's stevedore namespace for the kind; it
// appears in Ironic's error messages.
func (k Kind) entrypoint() string { return "ironic.hardware.interfaces." + string(k) }
