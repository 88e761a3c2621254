package drivers

import (
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// ParseBIOSSettings reads the "settings" argument of a BIOS
// apply_configuration step: a list of {"name": ..., "value": ...}
// dictionaries. Values that aren't strings are stored as Python's str()
// of them.
func ParseBIOSSettings(v any) ([]BIOSSetting, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, InvalidParameter("BIOS settings must be a list of dictionaries with name/value pairs, not %s", py.Repr(v))
	}
	out := make([]BIOSSetting, 0, len(list))
	for _, item := range list {
		m, ok := pyjson.AsDict(item)
		if !ok {
			return nil, InvalidParameter("BIOS settings must be a list of dictionaries with name/value pairs, not %s", py.Repr(v))
		}
		name, ok := m.Get("name").(string)
		if !ok {
			return nil, InvalidParameter("BIOS setting %s has no name", py.Repr(item))
		}
		value, ok := m.Lookup("value")
		if !ok {
			return nil, InvalidParameter("BIOS setting %s has no value", py.Repr(item))
		}
		out = append(out, BIOSSetting{Name: name, Value: py.Str(value)})
	}
	return out, nil
}
