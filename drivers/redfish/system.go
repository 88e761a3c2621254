package redfish

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/stmcginnis/gofish/schemas"
)

// sushy 4.3's enumerations: values outside them read as None.
var (
	bootSources = []string{"None", "Pxe", "Floppy", "Cd", "Usb", "Hdd", "BiosSetup", "Utilities", "Diags",
		"UefiShell", "UefiTarget", "SDCard", "UefiHttp", "RemoteDrive", "UefiBootNext", "UsbCd"}
	bootEnabledValues = []string{"Disabled", "Once", "Continuous"}
	bootModeValues    = []string{"Legacy", "UEFI"}
	resetTypes        = []string{"On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "Nmi",
		"ForceOn", "PushPowerButton", "PowerCycle", "Suspend", "Pause", "Resume"}
	indicatorLEDs = []string{"Lit", "Blinking", "Off", "Unknown"}
	powerStates   = []string{"On", "Off", "PoweringOn", "PoweringOff", "Paused"}
)

// mapped is sushy's MappedField over an enumeration: the value when it is
// one of values, "" (None) otherwise.
func mapped(v any, values []string) string {
	if s, ok := v.(string); ok && slices.Contains(values, s) {
		return s
	}
	return ""
}

// field reads a nested field of a document (sushy's Field with a path):
// intermediate objects that are missing read as empty.
func field(d *pyjson.Dict, names ...string) (any, bool) {
	for _, n := range names[:len(names)-1] {
		next, ok := pyjson.AsDict(d.Get(n))
		if !ok {
			next = pyjson.NewDict(0)
		}
		d = next
	}
	return d.Lookup(names[len(names)-1])
}

func str(d *pyjson.Dict, names ...string) string {
	v, _ := field(d, names...)
	s, _ := v.(string)
	return s
}

// require checks that the document has the required fields, as sushy's
// refresh does.
func require(path string, d *pyjson.Dict, names ...string) error {
	for _, n := range names {
		if _, ok := d.Lookup(n); !ok {
			return missingAttribute(n, path)
		}
	}
	return nil
}

// subPath is sushy's get_sub_resource_path_by: the @odata.id of a linked
// resource.
func subPath(path string, d *pyjson.Dict, names ...string) (string, error) {
	v, _ := field(d, names...)
	attr := strings.Join(names, "/") + "/@odata.id"
	if !pyjsonTruthy(v) {
		return "", missingAttribute(strings.Join(names, "/"), path)
	}
	link, ok := pyjson.AsDict(v)
	if !ok {
		return "", missingAttribute(attr, path)
	}
	id, ok := link.Lookup("@odata.id")
	if !ok {
		return "", missingAttribute(attr, path)
	}
	s, _ := id.(string)
	return s, nil
}

// subPaths is get_sub_resource_path_by(..., is_collection=True).
func subPaths(path string, d *pyjson.Dict, names ...string) ([]string, error) {
	v, _ := field(d, names...)
	if !pyjsonTruthy(v) {
		return nil, missingAttribute(strings.Join(names, "/"), path)
	}
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		link, ok := pyjson.AsDict(e)
		id, has := any(nil), false
		if ok {
			id, has = link.Lookup("@odata.id")
		}
		if !has {
			return nil, missingAttribute(strings.Join(names, "/")+"["+strconv.Itoa(len(out))+"]/@odata.id", path)
		}
		s, _ := id.(string)
		out = append(out, s)
	}
	return out, nil
}

func pyjsonTruthy(v any) bool { return pyjson.Truthy(v) }

// members is a collection's member paths, trailing slashes removed
// (sushy's get_members_identities).
func members(d *pyjson.Dict) []string {
	list, _ := d.Get("Members").([]any)
	var out []string
	for _, m := range list {
		link, ok := pyjson.AsDict(m)
		if !ok {
			continue
		}
		if id, ok := link.Get("@odata.id").(string); ok && id != "" {
			out = append(out, strings.TrimRight(id, "/"))
		}
	}
	return out
}

// system is a ComputerSystem, as sushy's System object reads it.
type system struct {
	b *bmc
	*resource[schemas.ComputerSystem]
}

// quoteSystemID is urllib.parse.quote(redfish_system_id).
func quoteSystemID(id string) string {
	var sb strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString("%" + strings.ToUpper(url.PathEscape(string(c))[1:]))
	}
	return sb.String()
}

// loadSystem reads the system at path.
func loadSystem(ctx context.Context, b *bmc, path string) (*system, error) {
	r, err := fetch[schemas.ComputerSystem](ctx, b, path)
	if err != nil {
		return nil, err
	}
	if err := require(path, r.raw, "Boot", "Id", "Actions"); err != nil {
		return nil, err
	}
	return &system{b: b, resource: r}, nil
}

// getSystem is Sushy.get_system: the system at id, or the only one of the
// service's Systems collection when id is "".
func (b *bmc) getSystem(ctx context.Context, id string) (*system, error) {
	if id != "" {
		return loadSystem(ctx, b, id)
	}
	coll, err := subPath(b.rootPrefix, b.root, "Systems")
	if err != nil {
		return nil, missingAttribute("Systems/@odata.id", b.rootPrefix)
	}
	r, err := b.get(ctx, coll)
	if err != nil {
		return nil, err
	}
	paths := members(r.dict())
	for _, p := range paths {
		if _, err := loadSystem(ctx, b, p); err != nil {
			return nil, err
		}
	}
	if len(paths) != 1 {
		return nil, unknownDefault("ComputerSystem", "System count is not exactly one")
	}
	return loadSystem(ctx, b, paths[0])
}

// powerState is the system's PowerState ("" when unknown).
// Fields gofish's ComputerSystem decodes are read from it; sushy's
// enumerations still decide what is known.
func (s *system) powerState() string { return mapped(string(s.obj.PowerState), powerStates) }

// boot reads the Boot field: target, enabled and mode, each "" when
// unknown.
func (s *system) boot() (target, enabled, mode string) {
	b := s.obj.Boot
	return mapped(string(b.BootSourceOverrideTarget), bootSources),
		mapped(string(b.BootSourceOverrideEnabled), bootEnabledValues),
		mapped(string(b.BootSourceOverrideMode), bootModeValues)
}

// bootModeSet reports whether Boot has a BootSourceOverrideMode value.
func (s *system) bootModeSet() bool {
	v, _ := field(s.raw, "Boot", "BootSourceOverrideMode")
	return v != nil
}

func (s *system) manufacturer() string { return s.obj.Manufacturer }
func (s *system) uuid() string         { return s.obj.UUID }
func (s *system) identity() string     { return s.obj.ID }

// allowed reads an @Redfish.AllowableValues list restricted to an
// enumeration, or the whole enumeration when the BMC lists none.
func allowed(v any, enum []string) []string {
	list, _ := v.([]any)
	if len(list) == 0 {
		return enum
	}
	var out []string
	for _, e := range enum {
		for _, a := range list {
			if a == e {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func validValues(values []string) string {
	return "{" + strings.Join(values, ", ") + "}"
}

// resetSystem is System.reset_system: POST the ResetType to the reset
// action's target, once checked against the allowed values.
func (s *system) resetSystem(ctx context.Context, value string) error {
	action, ok := pyjson.AsDict(mustField(s.raw, "Actions", "#ComputerSystem.Reset"))
	if !ok {
		return missingAction("#ComputerSystem.Reset", s.path)
	}
	valid := allowed(action.Get("ResetType@Redfish.AllowableValues"), resetTypes)
	if !slices.Contains(valid, value) {
		return invalidValue("value", value, validValues(valid))
	}
	target, ok := action.Get("target").(string)
	if !ok {
		return missingAttribute("Actions/#ComputerSystem.Reset/target", s.path)
	}
	_, err := s.b.post(ctx, target, pyjson.DictOf("ResetType", value))
	return err
}

func mustField(d *pyjson.Dict, names ...string) any {
	v, _ := field(d, names...)
	return v
}

// etag is ResourceBase._get_etag: the resource read again for its ETag
// header.
func (s *system) etag(ctx context.Context) (string, error) {
	r, err := s.b.get(ctx, s.path)
	if err != nil {
		return "", err
	}
	return r.header.Get("ETag"), nil
}

// setBootOptions is System.set_system_boot_options: target, enabled and
// mode ("" leaves one alone) PATCHed to the system, or to its
// @Redfish.Settings object for the fields that object has.
func (s *system) setBootOptions(ctx context.Context, target, enabled, mode string) error {
	settingsURI := str(s.raw, "@Redfish.Settings", "SettingsObject", "@odata.id")
	var settingsBoot *pyjson.Dict
	var settingsETag string
	if settingsURI != "" {
		r, err := s.b.get(ctx, settingsURI)
		if err != nil {
			return err
		}
		settingsETag = r.header.Get("ETag")
		settingsBoot, _ = pyjson.AsDict(r.dict().Get("Boot"))
		if settingsBoot == nil {
			settingsBoot = pyjson.NewDict(0)
		}
	}
	data, sdata := pyjson.NewDict(0), pyjson.NewDict(0)
	put := func(key, value string) {
		if settingsBoot != nil && settingsBoot.Has(key) {
			sdata.Set(key, value)
		} else {
			data.Set(key, value)
		}
	}
	if target != "" {
		valid := allowed(mustField(s.raw, "Boot", "BootSourceOverrideTarget@Redfish.AllowableValues"), bootSources)
		if !slices.Contains(valid, target) {
			return invalidValue("target", target, validValues(valid))
		}
		if strings.EqualFold(s.manufacturer(), "supermicro") && target == "Cd" {
			if list, _ := mustField(s.raw, "Boot", "BootSourceOverrideTarget@Redfish.AllowableValues").([]any); slices.Contains(list, any("UsbCd")) {
				target = "UsbCd"
			}
		}
		put("BootSourceOverrideTarget", target)
	}
	if enabled != "" {
		if !slices.Contains(bootEnabledValues, enabled) {
			return invalidValue("enabled", enabled, "["+strings.Join(bootEnabledValues, ", ")+"]")
		}
		put("BootSourceOverrideEnabled", enabled)
	}
	if mode != "" {
		if !slices.Contains(bootModeValues, mode) {
			return invalidValue("mode", mode, "["+strings.Join(bootModeValues, ", ")+"]")
		}
		put("BootSourceOverrideMode", mode)
	}
	if sdata.Len() > 0 {
		if _, err := s.b.patch(ctx, settingsURI, pyjson.DictOf("Boot", sdata), settingsETag); err != nil {
			return err
		}
	}
	if data.Len() > 0 {
		etag, err := s.etag(ctx)
		if err != nil {
			return err
		}
		if _, err := s.b.patch(ctx, s.path, pyjson.DictOf("Boot", data), etag); err != nil {
			return err
		}
	}
	return nil
}
