package drivers

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// rschema is the subset of JSON Schema draft 4 that Ironic's RAID
// configuration schema uses. Keywords are evaluated in the order listed in
// keys, which is the order of Ironic's schema file: the Python validator
// reports errors in that order, and the order decides which error wins.
type rschema struct {
	keys        []string
	typ         string
	enum        []string
	anyOf       []*rschema
	properties  []rprop
	required    []string
	noAdditions bool
	depends     []rprop // property -> required sibling (in dependsOn)
	dependsOn   [][]string
	items       *rschema
	minItems    int
	minimum     float64
	exclusive   bool
	description string
}

type rprop struct {
	name   string
	schema *rschema
}

func raidSchema() *rschema {
	str := func(desc string, enum ...string) *rschema {
		keys := []string{"type"}
		if enum != nil {
			keys = append(keys, "enum")
		}
		return &rschema{keys: keys, typ: "string", enum: enum, description: desc}
	}
	boolean := func(desc string) *rschema {
		return &rschema{keys: []string{"type"}, typ: "boolean", description: desc}
	}
	disk := &rschema{
		keys: []string{"type", "properties", "required", "additionalProperties", "dependencies"},
		typ:  "object",
		properties: []rprop{
			{"raid_level", str("RAID level for the logical disk. Valid values are 'JBOD', '0', '1', '2', '5', '6', '1+0', '5+0' and '6+0'. Required.",
				"JBOD", "0", "1", "2", "5", "6", "1+0", "5+0", "6+0")},
			{"size_gb", &rschema{
				keys: []string{"anyOf"},
				anyOf: []*rschema{
					{keys: []string{"type", "minimum"}, typ: "integer", minimum: 0},
					{keys: []string{"type", "enum"}, typ: "string", enum: []string{"MAX"}},
				},
				description: "Size in GiB (Integer) for the logical disk. Use 'MAX' as size_gb if this logical disk is supposed to use the rest of the space available. Required.",
			}},
			{"volume_name", str("Name of the volume to be created. If this is not specified, it will be auto-generated. Optional.")},
			{"is_root_volume", boolean("Specifies whether this disk is a root volume. By default, this is False. Optional.")},
			{"share_physical_disks", boolean("Specifies whether other logical disks can share physical disks with this logical disk. By default, this is False. Optional.")},
			{"disk_type", str("The type of disk preferred. Valid values are 'hdd' and 'ssd'. If this is not specified, disk type will not be a selection criterion for choosing backing physical disks. Optional.",
				"hdd", "ssd")},
			{"interface_type", str("The interface type of disk. Valid values are 'sata', 'scsi' and 'sas'. If this is not specified, interface type will not be a selection criterion for choosing backing physical disks. Optional.",
				"sata", "scsi", "sas")},
			{"number_of_physical_disks", &rschema{
				keys: []string{"type", "minimum"}, typ: "integer", minimum: 0, exclusive: true,
				description: "Number of physical disks to use for this logical disk. By default, the driver uses the minimum number of disks required for that RAID level. Optional.",
			}},
			{"controller", str("Controller to use for this logical disk. If not specified, the driver will choose a suitable RAID controller on the bare metal node. Optional.")},
			{"physical_disks", &rschema{
				keys: []string{"anyOf"},
				anyOf: []*rschema{
					{keys: []string{"type", "items"}, typ: "array", items: &rschema{keys: []string{"type"}, typ: "string"}},
					{keys: []string{"type", "items", "minItems"}, typ: "array", items: &rschema{keys: []string{"type"}, typ: "object"}, minItems: 2},
				},
				description: "The physical disks to use for this logical disk. If not specified, the driver will choose suitable physical disks to use. Optional.",
			}},
		},
		required:    []string{"raid_level", "size_gb"},
		noAdditions: true,
		depends:     []rprop{{name: "physical_disks"}},
		dependsOn:   [][]string{{"controller"}},
	}
	return &rschema{
		keys: []string{"type", "properties", "required", "additionalProperties"},
		typ:  "object",
		properties: []rprop{
			{"logical_disks", &rschema{keys: []string{"type", "items", "minItems"}, typ: "array", items: disk, minItems: 1}},
		},
		required:    []string{"logical_disks"},
		noAdditions: true,
	}
}

// LogicalDiskProperties lists the logical disk keys of a RAID configuration
// with their descriptions (Ironic's raid.get_logical_disk_properties).
func LogicalDiskProperties() Properties {
	disk := raidSchema().properties[0].schema.items
	out := make(Properties, len(disk.properties))
	for i, p := range disk.properties {
		out[i] = Property{Name: p.name, Description: p.schema.description}
	}
	return out
}

// ValidateRAIDConfig checks a target RAID configuration against Ironic's
// RAID schema and the one-root-volume rule, with Ironic's messages
// ("RAID config validation error: ..." as Python's jsonschema words it).
func ValidateRAIDConfig(config *pyjson.Dict) error {
	errs := raidSchema().check(config)
	if best := bestMatch(errs); best != nil {
		return InvalidParameter("RAID config validation error: %s", best.message)
	}
	disks, _ := config.Get("logical_disks").([]any)
	roots := 0
	for _, d := range disks {
		if m, ok := pyjson.AsDict(d); ok && py.Truthy(m.Get("is_root_volume")) {
			roots++
		}
	}
	if roots > 1 {
		return InvalidParameter("Raid config cannot have more than one root volume. %d root volumes were specified", roots)
	}
	return nil
}

// schemaError mirrors the parts of jsonschema's ValidationError that its
// best_match heuristic looks at.
type schemaError struct {
	message   string
	keyword   string
	depth     int // len(error.path)
	matchType bool
	context   []*schemaError
}

func (s *rschema) check(inst any) []*schemaError {
	var out []*schemaError
	add := func(kw, msg string, ctx []*schemaError) {
		out = append(out, &schemaError{message: msg, keyword: kw, matchType: s.typ != "" && isType(inst, s.typ), context: ctx})
	}
	for _, kw := range s.keys {
		switch kw {
		case "type":
			if !isType(inst, s.typ) {
				add(kw, fmt.Sprintf("%s is not of type %s", repr(inst), py.Repr(s.typ)), nil)
			}
		case "enum":
			if str, ok := inst.(string); !ok || !slices.Contains(s.enum, str) {
				add(kw, fmt.Sprintf("%s is not one of %s", repr(inst), py.Repr(s.enum)), nil)
			}
		case "anyOf":
			var all []*schemaError
			matched := false
			for _, sub := range s.anyOf {
				errs := sub.check(inst)
				if len(errs) == 0 {
					matched = true
					break
				}
				all = append(all, errs...)
			}
			if !matched {
				add(kw, fmt.Sprintf("%s is not valid under any of the given schemas", repr(inst)), all)
			}
		case "properties":
			obj, ok := pyjson.AsDict(inst)
			if !ok {
				continue
			}
			for _, p := range s.properties {
				if v, ok := obj.Lookup(p.name); ok {
					out = append(out, deeper(p.schema.check(v))...)
				}
			}
		case "required":
			obj, ok := pyjson.AsDict(inst)
			if !ok {
				continue
			}
			for _, r := range s.required {
				if !obj.Has(r) {
					add(kw, fmt.Sprintf("%s is a required property", py.Repr(r)), nil)
				}
			}
		case "additionalProperties":
			obj, ok := pyjson.AsDict(inst)
			if !ok || !s.noAdditions {
				continue
			}
			var extras []string
			for k := range obj.All() {
				if !slices.ContainsFunc(s.properties, func(p rprop) bool { return p.name == k }) {
					extras = append(extras, k)
				}
			}
			if len(extras) > 0 {
				slices.Sort(extras) // jsonschema 4.10's extras_msg sorts them
				verb := "was"
				if len(extras) > 1 {
					verb = "were"
				}
				add(kw, fmt.Sprintf("Additional properties are not allowed (%s %s unexpected)",
					strings.Trim(py.Repr(extras), "[]"), verb), nil)
			}
		case "dependencies":
			obj, ok := pyjson.AsDict(inst)
			if !ok {
				continue
			}
			for i, d := range s.depends {
				if !obj.Has(d.name) {
					continue
				}
				for _, each := range s.dependsOn[i] {
					if !obj.Has(each) {
						add(kw, fmt.Sprintf("%s is a dependency of %s", py.Repr(each), py.Repr(d.name)), nil)
					}
				}
			}
		case "items":
			arr, ok := inst.([]any)
			if !ok {
				continue
			}
			for _, item := range arr {
				out = append(out, deeper(s.items.check(item))...)
			}
		case "minItems":
			if arr, ok := inst.([]any); ok && len(arr) < s.minItems {
				add(kw, fmt.Sprintf("%s is too short", repr(inst)), nil)
			}
		case "minimum":
			f, ok := number(inst)
			if !ok {
				continue
			}
			if s.exclusive && f <= s.minimum {
				add(kw, fmt.Sprintf("%s is less than or equal to the minimum of %d", repr(inst), int(s.minimum)), nil)
			} else if !s.exclusive && f < s.minimum {
				add(kw, fmt.Sprintf("%s is less than the minimum of %d", repr(inst), int(s.minimum)), nil)
			}
		}
	}
	return out
}

// deeper marks errors as coming from one level down the instance.
func deeper(errs []*schemaError) []*schemaError {
	for _, e := range errs {
		e.depth++
	}
	return errs
}

// relevance is jsonschema's by_relevance key: shallower errors first, then
// errors that aren't anyOf, then errors whose instance doesn't match the
// schema's type.
func relevance(e *schemaError) [3]int {
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	return [3]int{-e.depth, b(e.keyword != "anyOf"), b(!e.matchType)}
}

func cmpRelevance(a, b *schemaError) int {
	ra, rb := relevance(a), relevance(b)
	for i := range ra {
		if ra[i] != rb[i] {
			return ra[i] - rb[i]
		}
	}
	return 0
}

// bestMatch is jsonschema's best_match: the most relevant error (the first
// one among equals) and, inside anyOf, the least relevant sub-error unless
// the two least relevant ones tie.
func bestMatch(errs []*schemaError) *schemaError {
	if len(errs) == 0 {
		return nil
	}
	best := errs[0]
	for _, e := range errs[1:] {
		if cmpRelevance(e, best) > 0 {
			best = e
		}
	}
	for len(best.context) > 0 {
		ctx := slices.Clone(best.context)
		slices.SortStableFunc(ctx, cmpRelevance)
		if len(ctx) >= 2 && cmpRelevance(ctx[0], ctx[1]) == 0 {
			return best
		}
		best = ctx[0]
	}
	return best
}

func isType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := pyjson.AsDict(v)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		switch x := v.(type) {
		case int, int64:
			return true
		case json.Number:
			_, err := strconv.ParseInt(string(x), 10, 64)
			return err == nil
		}
		return false
	case "number":
		_, ok := number(v)
		return ok
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// repr is Python's repr of a decoded JSON value.
func repr(v any) string { return py.Repr(v) }
