package apiv1

import (
	"slices"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// driverInterfaceTypes are driver_base.ALL_INTERFACES. Ironic iterates a
// set (an order that changes from run to run); we use name order.
func driverInterfaceTypes() []string {
	return []string{"bios", "boot", "console", "deploy", "inspect", "management", "network",
		"power", "raid", "rescue", "storage", "vendor"}
}

// driverInterfaceVersion is the version that shows the default_/enabled_
// fields of an interface type (hide_fields_in_newer_versions).
func driverInterfaceVersion(iface string) mv.Version {
	switch iface {
	case "storage":
		return mv.StorageInterface
	case "rescue":
		return mv.RescueInterface
	case "bios":
		return mv.BIOSInterface
	}
	return mv.DynamicDrivers
}

// renderDriver is driver.convert_with_links with driver_sanitize: name,
// hosts and links; the properties links from 1.14; from 1.30 the type and,
// with detail, the default and enabled implementation of every interface
// (ifaces are the hardware type's rows of conductor_hardware_interfaces).
// With fields, only those (and links) are kept and a field the driver
// does not have is InvalidParameterValue.
func renderDriver(rq *Request, name string, hosts []string, detail bool, ifaces []models.ConductorHardwareInterface, fields []string) (pyjson.Object, error) {
	base := rq.BaseURL()
	v := rq.Ver
	if hosts == nil {
		hosts = []string{}
	}
	d := pyjson.Object{
		{Key: "name", Value: name},
		{Key: "hosts", Value: hosts},
		{Key: "links", Value: selfLinks(base, "drivers", name)},
	}
	if v.AtLeast(mv.LinksNodestatesDriverproperties) {
		d = append(d, pyjson.Member{Key: "properties", Value: selfLinks(base, "drivers", name+"/properties")})
	}
	if v.AtLeast(mv.DynamicDrivers) {
		d = append(d, pyjson.Member{Key: "type", Value: "dynamic"})
		if detail {
			for _, it := range driverInterfaceTypes() {
				if !v.AtLeast(driverInterfaceVersion(it)) {
					continue
				}
				var def any
				enabled := []string{}
				for _, i := range ifaces {
					if i.InterfaceType != it {
						continue
					}
					if !slices.Contains(enabled, i.InterfaceName) {
						enabled = append(enabled, i.InterfaceName)
					}
					if i.Default {
						def = i.InterfaceName
					}
				}
				slices.Sort(enabled)
				d = append(d,
					pyjson.Member{Key: "default_" + it + "_interface", Value: def},
					pyjson.Member{Key: "enabled_" + it + "_interfaces", Value: enabled})
			}
		}
	}
	if fields == nil {
		return d, nil
	}
	d = keepFields(d, fields)
	if err := checkFields(fields, d); err != nil {
		return nil, err
	}
	return d, nil
}
