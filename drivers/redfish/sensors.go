package redfish

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/stmcginnis/gofish/schemas"
)

// doc is a resource read for its document alone.
type doc struct {
	path string
	raw  *pyjson.Dict
}

// load reads a resource and checks its required fields; T is gofish's
// type of it, which decodes it.
func load[T any, PT schemas.GenericSchemaObjectPointer[T]](ctx context.Context, b *bmc, path string, required ...string) (*doc, error) {
	r, err := fetch[T, PT](ctx, b, path)
	if err != nil {
		return nil, err
	}
	if err := require(path, r.raw, required...); err != nil {
		return nil, err
	}
	return &doc{path: path, raw: r.raw}, nil
}

// chassis is sushy's system.chassis: every chassis of Links/Chassis, read
// in order.
func (s *system) chassis(ctx context.Context) ([]*doc, error) {
	paths, err := subPaths(s.path, s.raw, "Links", "Chassis")
	if err != nil {
		return nil, err
	}
	out := make([]*doc, 0, len(paths))
	for _, p := range paths {
		d, err := load[schemas.Chassis](ctx, s.b, p, "Id", "Name")
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// simpleStorage is sushy's system.simple_storage.get_members().
func (s *system) simpleStorage(ctx context.Context) ([]*doc, error) {
	p, err := subPath(s.path, s.raw, "SimpleStorage")
	if err != nil {
		return nil, err
	}
	r, err := s.b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []*doc
	for _, m := range members(r.dict()) {
		d, err := load[schemas.SimpleStorage](ctx, s.b, m, "Id")
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// intOrNone is sushy's utils.int_or_none: Python's int() of a JSON value.
func intOrNone(path, attr string, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, malformed(attr, path, fmt.Sprintf("invalid literal for int() with base 10: %s", quotePy(x)))
		}
		return n, nil
	}
	if n, ok := pyNumber(v); ok {
		return int64(math.Trunc(n)), nil
	}
	return nil, malformed(attr, path, "int() argument must be a string, a bytes-like object or a real number")
}

func quotePy(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

func malformed(attr, resource, why string) error {
	return &sushyError{kind: kindMalformed,
		msg: fmt.Sprintf("The attribute %s is malformed in the resource %s: %s", attr, resource, why)}
}

// sensorField copies one field of a sensor (an entry of a list), with
// sushy's adapter: "int" fields through int_or_none, enumerations to
// their value or None.
type sensorField struct {
	key, json string
	adapt     func(path, attr string, v any) (any, error)
}

func plain(_, _ string, v any) (any, error) { return v, nil }

func enum(values ...string) func(string, string, any) (any, error) {
	return func(_, _ string, v any) (any, error) {
		if m := mapped(v, values); m != "" {
			return m, nil
		}
		return nil, nil
	}
}

var (
	stateEnum = enum("Enabled", "Disabled", "StandbyOffline", "StandbySpare", "InTest", "Starting", "Absent",
		"UnavailableOffline", "Deferring", "Quiesced", "Updating", "Qualified")
	healthEnum = enum("OK", "Warning", "Critical")
)

// sensorDict is management._sensor2dict over the fields, then the
// entry's Status (state, health).
func sensorDict(path, list string, e *pyjson.Dict, fields []sensorField) (*pyjson.Dict, error) {
	out := pyjson.NewDict(len(fields) + 2)
	for _, f := range fields {
		v, err := f.adapt(path, list+"/"+f.json, e.Get(f.json))
		if err != nil {
			return nil, err
		}
		out.Set(f.key, v)
	}
	if st, ok := pyjson.AsDict(e.Get("Status")); ok {
		s, _ := stateEnum(path, "", st.Get("State"))
		h, _ := healthEnum(path, "", st.Get("Health"))
		out.Set("state", s)
		out.Set("health", h)
	}
	return out, nil
}

// listOf reads a list field of sensors; each needs its MemberId when
// required.
func listOf(d *pyjson.Dict, name string) []*pyjson.Dict {
	list, _ := d.Get(name).([]any)
	out := make([]*pyjson.Dict, 0, len(list))
	for _, e := range list {
		if m, ok := pyjson.AsDict(e); ok {
			out = append(out, m)
		} else {
			out = append(out, pyjson.NewDict(0))
		}
	}
	return out
}

// chassisPart reads a chassis' Thermal or Power resource.
func chassisPart[T any, PT schemas.GenericSchemaObjectPointer[T]](ctx context.Context, b *bmc, ch *doc, name string, required ...string) (*doc, error) {
	p, err := subPath(ch.path, ch.raw, name)
	if err != nil {
		return nil, err
	}
	return load[T, PT](ctx, b, p, required...)
}

// thermalSensors reads one list of a chassis' Thermal resource (Fans or
// Temperatures) as Ironic's _get_sensors_fan/_temperatures do, keyed
// "<MemberId>@<chassis Id>". The Thermal resource is read once per
// chassis: *thermal caches it between the two lists.
func thermalSensors(ctx context.Context, b *bmc, ch *doc, thermal **doc, list string, fields []sensorField) (*pyjson.Dict, error) {
	if *thermal == nil {
		t, err := chassisPart[schemas.Thermal](ctx, b, ch, "Thermal")
		if err != nil {
			return nil, err
		}
		*thermal = t
	}
	t := *thermal
	out := pyjson.NewDict(0)
	for _, item := range listOf(t.raw, list) {
		id, ok := item.Lookup("MemberId")
		if !ok {
			return nil, missingAttribute(list+"/MemberId", t.path)
		}
		s, err := sensorDict(t.path, list, item, fields)
		if err != nil {
			return nil, err
		}
		out.Set(pyStrOf(id)+"@"+str(ch.raw, "Id"), s)
	}
	return out, nil
}

func fansOf(ctx context.Context, b *bmc, ch *doc, thermal **doc) (*pyjson.Dict, error) {
	return thermalSensors(ctx, b, ch, thermal, "Fans", []sensorField{
		{"identity", "MemberId", plain},
		{"max_reading_range", "MaxReadingRange", intOrNone},
		{"min_reading_range", "MinReadingRange", intOrNone},
		{"reading", "Reading", intOrNone},
		{"reading_units", "ReadingUnits", enum("RPM", "Percent")},
		{"serial_number", "SerialNumber", plain},
		{"physical_context", "PhysicalContext", plain},
	})
}

func temperaturesOf(ctx context.Context, b *bmc, ch *doc, thermal **doc) (*pyjson.Dict, error) {
	return thermalSensors(ctx, b, ch, thermal, "Temperatures", []sensorField{
		{"identity", "MemberId", plain},
		{"max_reading_range_temp", "MaxReadingRangeTemp", plain},
		{"min_reading_range_temp", "MinReadingRangeTemp", plain},
		{"reading_celsius", "ReadingCelsius", plain},
		{"physical_context", "PhysicalContext", plain},
		{"sensor_number", "SensorNumber", intOrNone},
	})
}

func powerSuppliesOf(ctx context.Context, b *bmc, ch *doc) (*pyjson.Dict, error) {
	p, err := chassisPart[schemas.Power](ctx, b, ch, "Power", "Id", "Name")
	if err != nil {
		return nil, err
	}
	out := pyjson.NewDict(0)
	for _, ps := range listOf(p.raw, "PowerSupplies") {
		s, err := sensorDict(p.path, "PowerSupplies", ps, []sensorField{
			{"power_capacity_watts", "PowerCapacityWatts", intOrNone},
			{"line_input_voltage", "LineInputVoltage", intOrNone},
			{"last_power_output_watts", "LastPowerOutputWatts", intOrNone},
			{"serial_number", "SerialNumber", plain},
		})
		if err != nil {
			return nil, err
		}
		// input_ranges is a list: _sensor2dict finds none of the range
		// fields on it, as in Ironic.
		out.Set(pyStrOf(ps.Get("MemberId"))+":"+pyStrOf(p.raw.Get("Id"))+"@"+str(ch.raw, "Id"), s)
	}
	return out, nil
}

func drivesOf(ctx context.Context, sys *system) (*pyjson.Dict, error) {
	storages, err := sys.simpleStorage(ctx)
	if err != nil {
		return nil, err
	}
	out := pyjson.NewDict(0)
	for _, st := range storages {
		for _, dev := range listOf(st.raw, "Devices") {
			name, ok := dev.Lookup("Name")
			if !ok {
				return nil, missingAttribute("Devices/Name", st.path)
			}
			s, err := sensorDict(st.path, "Devices", dev, []sensorField{
				{"name", "Name", plain},
				{"model", "Model", plain},
				{"capacity_bytes", "CapacityBytes", intOrNone},
			})
			if err != nil {
				return nil, err
			}
			out.Set(pyStrOf(name)+":"+str(st.raw, "Id")+"@"+sys.identity(), s)
		}
	}
	return out, nil
}

// pyStrOf is Python's %s of a JSON value.
func pyStrOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyStr(v)
}

// GetSensorsData reads every chassis' fans and temperatures (Thermal) and
// power supplies (Power), and the drives of SimpleStorage, in Ironic's
// _get_sensors_* shapes. A part that can't be read is left out.
func (m *Management) GetSensorsData(ctx context.Context, task drivers.Task) (map[string]any, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return nil, err
	}
	defer done()
	chassis, err := sys.chassis(ctx)
	if err != nil {
		return nil, asFault(err)
	}
	sensors := map[string]any{}
	add := func(kind string, d *pyjson.Dict, err error) {
		if err != nil {
			m.c.log.DebugContext(ctx, fmt.Sprintf("Failed reading %s information for node %s: %s", strings.ToLower(kindName(kind)), task.NodeUUID(), err))
			if isSushy(err) {
				return
			}
		}
		cur, _ := sensors[kind].(*pyjson.Dict)
		if cur == nil {
			cur = pyjson.NewDict(0)
			sensors[kind] = cur
		}
		if d != nil {
			cur.Update(d)
		}
	}
	for _, ch := range chassis {
		var thermal *doc
		d, err := fansOf(ctx, sys.b, ch, &thermal)
		add("Fan", d, err)
		d, err = temperaturesOf(ctx, sys.b, ch, &thermal)
		add("Temperature", d, err)
		d, err = powerSuppliesOf(ctx, sys.b, ch)
		add("Power", d, err)
	}
	d, err := drivesOf(ctx, sys)
	add("Drive", d, err)
	return sensors, nil
}

func kindName(kind string) string {
	if kind == "Fan" {
		return "fan"
	}
	return kind
}

// indicatorProperties is what Ironic answers for every redfish indicator.
func indicatorProperties() drivers.Indicator {
	return drivers.Indicator{ReadOnly: false, States: []string{drivers.IndicatorBlinking, drivers.IndicatorOff, drivers.IndicatorOn}}
}

// drives is sushy's system.simple_storage.drives: every device of every
// SimpleStorage as a drive (with its own indicator).
func (s *system) storageDrives(ctx context.Context) ([]*pyjson.Dict, error) {
	storages, err := s.simpleStorage(ctx)
	if err != nil {
		return nil, err
	}
	var out []*pyjson.Dict
	for _, st := range storages {
		out = append(out, listOf(st.raw, "Devices")...)
	}
	return out, nil
}

// GetSupportedIndicators lists the chassis, system (and drive) LEDs, each
// by its UUID.
func (m *Management) GetSupportedIndicators(ctx context.Context, task drivers.Task, component string) (map[string]map[string]drivers.Indicator, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return nil, err
	}
	defer done()
	out := map[string]map[string]drivers.Indicator{}
	if component == "" || component == drivers.ComponentChassis {
		chassis, err := sys.chassis(ctx)
		if err != nil {
			m.c.log.DebugContext(ctx, "Chassis indicator not available", "node", task.NodeUUID(), "error", err)
		} else if len(chassis) > 0 {
			ind := map[string]drivers.Indicator{}
			for _, ch := range chassis {
				if mapped(ch.raw.Get("IndicatorLED"), indicatorLEDs) != "" {
					ind[str(ch.raw, "UUID")] = indicatorProperties()
				}
			}
			out[drivers.ComponentChassis] = ind
		}
	}
	if component == "" || component == drivers.ComponentSystem {
		if mapped(sys.raw.Get("IndicatorLED"), indicatorLEDs) != "" {
			out[drivers.ComponentSystem] = map[string]drivers.Indicator{sys.uuid(): indicatorProperties()}
		}
	}
	if component == "" || component == drivers.ComponentDisk {
		// Ironic asks sushy's SimpleStorage collection for "drives",
		// which it doesn't have: only the collection's GET happens, and
		// no drive indicator is listed.
		if p, err := subPath(sys.path, sys.raw, "SimpleStorage"); err != nil {
			m.c.log.DebugContext(ctx, "Drive indicator not available", "node", task.NodeUUID(), "error", err)
		} else if _, err := sys.b.get(ctx, p); err != nil {
			m.c.log.DebugContext(ctx, "Drive indicator not available", "node", task.NodeUUID(), "error", err)
		}
	}
	return out, nil
}

// SetIndicatorState PATCHes the IndicatorLED of the system or the chassis
// the indicator (a UUID) names.
func (m *Management) SetIndicatorState(ctx context.Context, task drivers.Task, component, indicator, state string) error {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	found, err := m.withIndicator(ctx, sys, component, indicator, func(path string, _ *pyjson.Dict) error {
		value, ok := indicatorMapRev[state]
		if !ok {
			return invalidValue("state", state, "Lit ,Blinking ,Off ,Unknown")
		}
		_, err := sys.b.patch(ctx, path, pyjson.DictOf("IndicatorLED", value), "")
		return err
	})
	if err != nil {
		if !isSushy(err) {
			return err
		}
		msg := fmt.Sprintf("Redfish set %s indicator %s state %s failed for node %s. Error: %s", component, indicator, state, task.NodeUUID(), err)
		m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return redfishError("%s", msg)
	}
	if !found {
		return unknownIndicator(task, component, indicator)
	}
	return nil
}

func unknownIndicator(task drivers.Task, component, indicator string) error {
	return drivers.MissingParameter("Unknown indicator %s for component %s of node %s", indicator, component, task.NodeUUID())
}

// withIndicator runs fn on the resource whose LED the indicator names.
func (m *Management) withIndicator(ctx context.Context, sys *system, component, indicator string, fn func(path string, d *pyjson.Dict) error) (bool, error) {
	switch component {
	case drivers.ComponentSystem:
		if indicator == sys.uuid() {
			return true, fn(sys.path, sys.raw)
		}
	case drivers.ComponentChassis:
		chassis, err := sys.chassis(ctx)
		if err != nil {
			return false, err
		}
		for _, ch := range chassis {
			if str(ch.raw, "UUID") == indicator {
				return true, fn(ch.path, ch.raw)
			}
		}
	case drivers.ComponentDisk:
		drives, err := sys.storageDrives(ctx)
		if err != nil {
			return false, err
		}
		for _, d := range drives {
			if str(d, "UUID") == indicator {
				// sushy's simple storage devices have no resource of
				// their own to PATCH.
				return true, missingAttribute("uuid", sys.path)
			}
		}
	}
	return false, nil
}

// GetIndicatorState reads the IndicatorLED of the system or chassis the
// indicator names.
func (m *Management) GetIndicatorState(ctx context.Context, task drivers.Task, component, indicator string) (string, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	var state string
	found, err := m.withIndicator(ctx, sys, component, indicator, func(_ string, d *pyjson.Dict) error {
		v := mapped(d.Get("IndicatorLED"), indicatorLEDs)
		s, ok := indicatorMap[v]
		if !ok {
			return &sushyError{kind: kindKey, msg: "None"}
		}
		state = s
		return nil
	})
	if err != nil {
		if !isSushy(err) || isKind(err, kindKey) {
			return "", asFault(err)
		}
		msg := fmt.Sprintf("Redfish get %s indicator %s state failed for node %s. Error: %s", component, indicator, task.NodeUUID(), err)
		m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return "", redfishError("%s", msg)
	}
	if !found {
		return "", unknownIndicator(task, component, indicator)
	}
	return state, nil
}

// enabledMACs is redfish_utils.get_enabled_macs: the MAC addresses of the
// system's EthernetInterfaces whose Status/State is Enabled, in order.
func enabledMACs(ctx context.Context, log func(string), sys *system) ([]string, error) {
	p, err := subPath(sys.path, sys.raw, "EthernetInterfaces")
	if err != nil {
		return nil, err
	}
	r, err := sys.b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	summary := pyjson.NewDict(0)
	for _, m := range members(r.dict()) {
		d, err := load[schemas.EthernetInterface](ctx, sys.b, m, "Id")
		if err != nil {
			return nil, err
		}
		mac, ok := d.raw.Get("MACAddress").(string)
		status, isDict := pyjson.AsDict(d.raw.Get("Status"))
		if !ok || !isDict {
			continue
		}
		if h, _ := healthEnum(d.path, "", status.Get("Health")); h != "OK" {
			continue
		}
		state, _ := stateEnum(d.path, "", status.Get("State"))
		summary.Set(mac, state)
	}
	var out []string
	for mac, state := range summary.All() {
		if state != "Enabled" {
			continue
		}
		if mac == "" {
			log("Ignoring device as no MAC reported")
			continue
		}
		out = append(out, mac)
	}
	return out, nil
}

// GetMACAddresses returns the MAC addresses of the enabled ethernet
// interfaces (none when the system lists no EthernetInterfaces).
func (m *Management) GetMACAddresses(ctx context.Context, task drivers.Task) ([]string, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return nil, err
	}
	defer done()
	macs, err := enabledMACs(ctx, func(msg string) { m.c.log.WarnContext(ctx, msg, "node", task.NodeUUID()) }, sys)
	switch {
	case isKind(err, kindMissingAttribute):
		m.c.log.WarnContext(ctx, fmt.Sprintf("Cannot get MAC addresses for node %s: %s", task.NodeUUID(), err))
		return nil, nil
	case isSushy(err):
		msg := fmt.Sprintf("Failed to get network interface information on node %s: %s", task.NodeUUID(), err)
		m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return nil, redfishError("%s", msg)
	}
	return macs, err
}
