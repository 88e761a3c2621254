package redfishbmc

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// BiosAttribute describes one BIOS attribute in the system's attribute
// registry.
type BiosAttribute struct {
	Name string
	// Type is "Enumeration", "String", "Integer" or "Boolean".
	Type string
	// Values are an Enumeration's allowable values.
	Values []string
	// ReadOnly attributes can't be set; ResetRequired is reported.
	ReadOnly, ResetRequired bool
	// LowerBound and UpperBound bound an Integer (both zero: unbounded).
	LowerBound, UpperBound int
}

// biosRegistryID is the Id (and AttributeRegistry) of every system's
// BIOS attribute registry.
const biosRegistryID = "BiosAttributeRegistry.v1_0_0"

// defaultBiosRegistry describes DefaultBios's attributes.
func defaultBiosRegistry() map[string]BiosAttribute {
	enum := func(name string, values ...string) BiosAttribute {
		return BiosAttribute{Name: name, Type: "Enumeration", Values: values, ResetRequired: true}
	}
	out := map[string]BiosAttribute{}
	for _, a := range []BiosAttribute{
		enum("BootMode", "Bios", "Uefi"),
		enum("EmbeddedSata", "Ata", "Ahci", "Raid", "Off"),
		enum("NicBoot1", "NetworkBoot", "Disabled"),
		enum("NicBoot2", "NetworkBoot", "Disabled"),
		enum("PowerProfile", "MaxPerf", "PerfPerWattOptimizedOs", "PerfPerWattOptimizedDapc", "Custom"),
		enum("ProcTurboMode", "Enabled", "Disabled"),
		enum("ProcVirtualization", "Enabled", "Disabled"),
		{Name: "SecureBootStatus", Type: "Enumeration", Values: []string{"Enabled", "Disabled"}, ReadOnly: true},
		{Name: "SerialNumber", Type: "String", ReadOnly: true},
	} {
		out[a.Name] = a
	}
	return out
}

// biosRegistry is the registry of s's attributes: the given entries,
// DefaultBios's, and entries inferred from the values of any others.
func (s *System) biosRegistry() map[string]BiosAttribute {
	reg := defaultBiosRegistry()
	for _, a := range s.spec.BiosRegistry {
		reg[a.Name] = a
	}
	for k, v := range s.spec.Bios {
		if _, ok := reg[k]; ok {
			continue
		}
		a := BiosAttribute{Name: k, Type: "String", ResetRequired: true}
		switch v.(type) {
		case bool:
			a.Type = "Boolean"
		case int, int64, float64, json.Number:
			a.Type = "Integer"
		}
		reg[k] = a
	}
	for k := range reg {
		if _, ok := s.spec.Bios[k]; !ok {
			delete(reg, k)
		}
	}
	return reg
}

// BiosAttributes are the system's current BIOS attributes.
func (s *System) BiosAttributes() map[string]any {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.settle(s.b.srv.opts.Now())
	return maps.Clone(s.bios)
}

// PendingBiosAttributes are the attributes to be applied at the next
// boot.
func (s *System) PendingBiosAttributes() map[string]any {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.settle(s.b.srv.opts.Now())
	return maps.Clone(s.biosPending)
}

func (c *call) renderBios(s *System) map[string]any {
	id := s.spec.ID
	settings := map[string]any{
		"@odata.type":         "#Settings.v1_3_0.Settings",
		"SettingsObject":      c.ref("Systems", id, "Bios", "Settings"),
		"SupportedApplyTimes": []string{"OnReset"},
		"Messages":            []any{},
	}
	if !s.biosApplied.IsZero() {
		settings["Time"] = s.biosApplied.UTC().Format(time.RFC3339)
	}
	return map[string]any{
		"@odata.type":       "#Bios.v1_1_0.Bios",
		"@odata.id":         c.uri("Systems", id, "Bios"),
		"Id":                "BIOS",
		"Name":              "BIOS Configuration Current Settings",
		"AttributeRegistry": biosRegistryID,
		"Attributes":        maps.Clone(s.bios),
		"@Redfish.Settings": settings,
		"Actions": map[string]any{
			"#Bios.ResetBios":      map[string]any{"target": c.uri("Systems", id, "Bios", "Actions", "Bios.ResetBios")},
			"#Bios.ChangePassword": map[string]any{"target": c.uri("Systems", id, "Bios", "Actions", "Bios.ChangePassword")},
		},
	}
}

func getBios(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	s.settle(c.now)
	return okReply(c.renderBios(s)), nil
}

func (c *call) renderBiosSettings(s *System) map[string]any {
	id := s.spec.ID
	return map[string]any{
		"@odata.type": "#Bios.v1_1_0.Bios",
		"@odata.id":   c.uri("Systems", id, "Bios", "Settings"),
		"Id":          "Settings",
		"Name":        "BIOS Configuration Pending Settings",
		"Attributes":  maps.Clone(s.biosPending),
		"@Redfish.SettingsApplyTime": map[string]any{
			"@odata.type":                       "#Settings.v1_1_0.PreferredApplyTime",
			"ApplyTime":                         "OnReset",
			"ApplyTime@Redfish.AllowableValues": []string{"OnReset"},
		},
	}
}

func getBiosSettings(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	s.settle(c.now)
	return okReply(c.renderBiosSettings(s)), nil
}

// patchBiosSettings stages attributes for the next boot, validated
// against the attribute registry.
func patchBiosSettings(c *call) (*reply, error) {
	s, body, err := c.patchBody(true, c.renderBiosSettings)
	if err != nil {
		return nil, err
	}
	var attrs map[string]any
	for k, v := range body {
		switch {
		case k == "Attributes":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, errPropertyType("#/Attributes", v)
			}
			attrs = m
		case k == "@Redfish.SettingsApplyTime":
			m, _ := v.(map[string]any)
			if at, ok := m["ApplyTime"]; ok && at != "OnReset" {
				return nil, errPropertyNotInList("#/@Redfish.SettingsApplyTime/ApplyTime", toString(at), []string{"OnReset"})
			}
		case len(k) > 0 && k[0] == '@':
		default:
			return nil, errPropertyUnknown("#/" + k)
		}
	}
	reg := s.biosRegistry()
	staged := map[string]any{}
	for k, v := range attrs {
		ptr := "#/Attributes/" + k
		a, ok := reg[k]
		if !ok {
			return nil, errPropertyUnknown(ptr)
		}
		if a.ReadOnly {
			return nil, errPropertyNotWritable(ptr)
		}
		val, rerr := a.check(ptr, v)
		if rerr != nil {
			return nil, rerr
		}
		staged[k] = val
	}
	maps.Copy(s.biosPending, staged)
	return noContent(), nil
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// check validates v for a and returns it as it will be stored.
func (a BiosAttribute) check(ptr string, v any) (any, error) {
	switch a.Type {
	case "Enumeration":
		str, ok := v.(string)
		if !ok {
			return nil, errPropertyType(ptr, toString(v))
		}
		if !slices.Contains(a.Values, str) {
			return nil, errPropertyNotInList(ptr, str, a.Values)
		}
		return str, nil
	case "Boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, errPropertyType(ptr, toString(v))
		}
		return b, nil
	case "Integer":
		n, ok := v.(json.Number)
		if !ok {
			return nil, errPropertyType(ptr, toString(v))
		}
		i, err := n.Int64()
		if err != nil {
			return nil, errPropertyType(ptr, n.String())
		}
		if (a.LowerBound != 0 || a.UpperBound != 0) && (i < int64(a.LowerBound) || i > int64(a.UpperBound)) {
			return nil, errPropertyValueOutOfRange(ptr, n.String())
		}
		return i, nil
	default:
		str, ok := v.(string)
		if !ok {
			return nil, errPropertyType(ptr, toString(v))
		}
		return str, nil
	}
}

// postResetBios stages the default attributes for the next boot.
func postResetBios(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	if _, err := c.object(); err != nil {
		return nil, err
	}
	s.settle(c.now)
	maps.Copy(s.biosPending, s.spec.Bios)
	s.biosResets++
	return noContent(), nil
}

func postBiosChangePassword(c *call) (*reply, error) {
	if _, err := c.system(); err != nil {
		return nil, err
	}
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	const action = "Bios.ChangePassword"
	for _, p := range []string{"PasswordName", "OldPassword", "NewPassword"} {
		if _, ok := body[p].(string); !ok {
			if _, present := body[p]; present {
				return nil, errActionParamType(action, p, "***")
			}
			return nil, errActionParamMissing(action, p)
		}
	}
	if name := body["PasswordName"].(string); name != "AdminPassword" && name != "UserPassword" {
		return nil, errActionParamNotInList(action, "PasswordName", name, []string{"AdminPassword", "UserPassword"})
	}
	return noContent(), nil
}

// Registries: a collection with the BIOS attribute registry, whose
// document each system's Bios names by AttributeRegistry.

func getRegistries(c *call) (*reply, error) {
	return okReply(c.collection("#MessageRegistryFileCollection.MessageRegistryFileCollection",
		"Registry File Collection", []string{"Registries"}, []string{biosRegistryID})), nil
}

func getRegistryFile(c *call) (*reply, error) {
	if c.args[0] != biosRegistryID {
		return nil, errNotFound(c.r.URL.Path)
	}
	return okReply(map[string]any{
		"@odata.type": "#MessageRegistryFile.v1_1_0.MessageRegistryFile",
		"@odata.id":   c.uri("Registries", biosRegistryID),
		"Id":          biosRegistryID,
		"Name":        "BIOS Attribute Registry File",
		"Description": "BIOS attribute registry of the emulated systems",
		"Languages":   []string{"en"},
		"Registry":    "BiosAttributeRegistry.1.0",
		"Location": []any{map[string]any{
			"Language": "en",
			"Uri":      c.uri("Registries", biosRegistryID, "BiosAttributeRegistry"),
		}},
	}), nil
}

// getBiosRegistry serves the attribute registry of the BMC's first
// system (the systems of one BMC share a registry).
func getBiosRegistry(c *call) (*reply, error) {
	if c.args[0] != biosRegistryID || len(c.b.sysOrder) == 0 {
		return nil, errNotFound(c.r.URL.Path)
	}
	s := c.b.systems[c.b.sysOrder[0]]
	reg := s.biosRegistry()
	names := slices.Sorted(maps.Keys(reg))
	attrs := make([]any, 0, len(reg))
	for _, n := range names {
		a := reg[n]
		e := map[string]any{
			"AttributeName":          a.Name,
			"DisplayName":            a.Name,
			"Type":                   a.Type,
			"ReadOnly":               a.ReadOnly,
			"ResetRequired":          a.ResetRequired,
			"Immutable":              false,
			"IsSystemUniqueProperty": a.Name == "SerialNumber",
			"DefaultValue":           s.spec.Bios[a.Name],
		}
		if a.Type == "Enumeration" {
			vals := make([]any, len(a.Values))
			for i, v := range a.Values {
				vals[i] = map[string]any{"ValueName": v, "ValueDisplayName": v}
			}
			e["Value"] = vals
		}
		if a.Type == "Integer" && (a.LowerBound != 0 || a.UpperBound != 0) {
			e["LowerBound"], e["UpperBound"] = a.LowerBound, a.UpperBound
		}
		attrs = append(attrs, e)
	}
	return okReply(map[string]any{
		"@odata.type":     "#AttributeRegistry.v1_3_0.AttributeRegistry",
		"@odata.id":       c.uri("Registries", biosRegistryID, "BiosAttributeRegistry"),
		"Id":              biosRegistryID,
		"Name":            "BIOS Attribute Registry",
		"Language":        "en",
		"OwningEntity":    "goironic",
		"RegistryVersion": "1.0.0",
		"SupportedSystems": []any{map[string]any{
			"ProductName": s.spec.Model, "SystemId": "goironic-emulator",
		}},
		"RegistryEntries": map[string]any{"Attributes": attrs},
	}), nil
}
