// Package deployutil holds the node checks that Ironic's deploy_utils,
// driver utils and ironic_lib share between boot and deploy interfaces
// (boot option, capabilities, root device hints, missing parameters), with
// Ironic's messages.
package deployutil

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/roothints"
	"github.com/goironic/ironic/states"
)

// Param is one labelled value for CheckMissing.
type Param struct {
	Label string
	Value any
}

// CheckMissing is Ironic's check_for_missing_params: a MissingParameterValue
// fault "<errorMsg>. Missing are: ['a', 'b']" listing the labels whose
// value is falsy, in order.
func CheckMissing(errorMsg string, params ...Param) error {
	var missing []string
	for _, p := range params {
		if !py.Truthy(p.Value) {
			missing = append(missing, p.Label)
		}
	}
	if len(missing) > 0 {
		return drivers.MissingParameter("%s. Missing are: %s", errorMsg, py.Repr(missing))
	}
	return nil
}

// BootOption is Ironic's get_boot_option: "kickstart" for the anaconda
// deploy interface, "ramdisk" for the ramdisk one, else "local".
func BootOption(task drivers.Task) string {
	switch task.InterfaceName(drivers.Deploy) {
	case "anaconda":
		return "kickstart"
	case "ramdisk":
		return "ramdisk"
	}
	return "local"
}

// SkipAutomatedCleaning is Ironic's skip_automated_cleaning: the node's
// automated_clean field if set, else the negation of
// [conductor]automated_clean (confAutomatedClean).
func SkipAutomatedCleaning(task drivers.Task, confAutomatedClean bool) bool {
	if ac := task.AutomatedClean(); ac != nil {
		return !*ac
	}
	return !confAutomatedClean
}

// NeedsAgentRamdisk is Ironic's needs_agent_ramdisk: rescue always needs
// the agent; a ramdisk deploy needs it only when automated cleaning runs.
func NeedsAgentRamdisk(task drivers.Task, mode drivers.RamdiskMode, confAutomatedClean bool) bool {
	if mode != drivers.RamdiskDeploy {
		return true
	}
	if BootOption(task) != "ramdisk" {
		return true
	}
	return !SkipAutomatedCleaning(task, confAutomatedClean)
}

// RescueOrDeployMode is Ironic's rescue_or_deploy_mode.
func RescueOrDeployMode(task drivers.Task) drivers.RamdiskMode {
	switch task.ProvisionState() {
	case states.Rescuing, states.RescueWait, states.RescueFailed, states.Unrescuing, states.UnrescueFailed:
		return drivers.RamdiskRescue
	}
	return drivers.RamdiskDeploy
}

// NodeCapability is Ironic's get_node_capability: the value of name in the
// node's properties/capabilities string ("k1:v1,k2:v2"), "" if absent.
func NodeCapability(task drivers.Task, name string) string {
	caps, _ := task.Properties().Get("capabilities").(string)
	if caps == "" {
		return ""
	}
	for _, c := range strings.Split(caps, ",") {
		parts := strings.Split(c, ":")
		if len(parts) == 2 && parts[0] != "" && parts[1] != "" && strings.TrimSpace(parts[0]) == name {
			return strings.TrimSpace(parts[1])
		}
	}
	return ""
}

// InstanceInfoCapabilities is Ironic's parse_instance_info_capabilities:
// instance_info/capabilities as a dictionary (it may be stored as a JSON
// string).
func InstanceInfoCapabilities(task drivers.Task) (map[string]any, error) {
	parseErr := drivers.InvalidParameter("Error parsing capabilities from Node %s instance_info field. A dictionary or a \"jsonified\" dictionary is expected.", task.NodeUUID())
	v, ok := task.InstanceInfo().Lookup("capabilities")
	if !ok {
		return map[string]any{}, nil
	}
	if s, isStr := v.(string); isStr {
		var parsed any
		if err := pyjson.Unmarshal([]byte(s), &parsed); err != nil {
			return nil, parseErr
		}
		v = parsed
	}
	m, ok := pyjson.AsDict(v)
	if !ok {
		return nil, parseErr
	}
	return m.Map(), nil // read only
}

// supportedCapabilities are Ironic's SUPPORTED_CAPABILITIES, in order.
func supportedCapabilities() []struct {
	name  string
	valid []string
} {
	return []struct {
		name  string
		valid []string
	}{
		{"boot_mode", []string{drivers.BootModeBIOS, drivers.BootModeUEFI}},
		{"secure_boot", []string{"true", "false"}},
		{"disk_label", []string{"msdos", "gpt"}},
	}
}

// ValidateCapabilities is Ironic's validate_capabilities: boot_mode,
// secure_boot and disk_label, in properties/capabilities and in
// instance_info/capabilities, must have valid values.
func ValidateCapabilities(task drivers.Task) error {
	for _, c := range supportedCapabilities() {
		bad := func(field string, value any) error {
			return drivers.InvalidParameter("The parameter '%s' from %s has an invalid value: '%s'. Acceptable values are: %s.",
				c.name, field, py.Str(value), strings.Join(c.valid, ", "))
		}
		if v := NodeCapability(task, c.name); v != "" && !contains(c.valid, v) {
			return bad("properties/capabilities", v)
		}
		caps, err := InstanceInfoCapabilities(task)
		if err != nil {
			return err
		}
		if v, ok := caps[c.name]; ok && py.Truthy(v) {
			if s, isStr := v.(string); !isStr || !contains(c.valid, s) {
				return bad("instance_info['capabilities']", v)
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BoolFromString is oslo's strutils.bool_from_string(v, strict=True).
func BoolFromString(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return roothints.ParseBool(py.Str(v))
}

// FastTrackEnabled is utils.fast_track_enabled: the node's
// driver_info["fast_track"] when set, else def ([deploy]fast_track); a
// value oslo cannot read as a boolean is InvalidParameterValue.
func FastTrackEnabled(task drivers.Task, def bool) (bool, error) {
	v, ok := task.DriverInfo().Lookup("fast_track")
	if !ok || v == nil {
		return def, nil
	}
	b, err := BoolFromString(v)
	if err != nil {
		return false, drivers.InvalidParameter("Invalid value of fast_track: %s", err.Error())
	}
	return b, nil
}

// ValidateRootDeviceHints is Ironic's get_root_device_for_deploy reduced to
// its checks: the root_device hints of instance_info, else of properties,
// must be valid.
func ValidateRootDeviceHints(task drivers.Task) error {
	hints, source := task.InstanceInfo().Get("root_device"), "instance_info"
	if !py.Truthy(hints) {
		hints, source = task.Properties().Get("root_device"), "properties"
		if !py.Truthy(hints) {
			return nil
		}
	}
	fail := func(err error) error {
		return drivers.InvalidParameter("Failed to validate the root device hints %s (from the node's %s) for node %s: %s",
			py.Repr(hints), source, task.NodeUUID(), err.Error())
	}
	m, ok := pyjson.AsDict(hints)
	if !ok {
		return fail(fmt.Errorf("root device hints must be a dictionary"))
	}
	var invalid, valid []string
	types := map[string]roothints.Kind{}
	for _, h := range roothints.Hints() {
		valid = append(valid, h.Name)
		types[h.Name] = h.Kind
	}
	for k := range m.All() {
		if _, ok := types[k]; !ok {
			invalid = append(invalid, k)
		}
	}
	if len(invalid) > 0 {
		return fail(fmt.Errorf("The hints \"%s\" are invalid. Valid hints are: \"%s\"", //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
			strings.Join(invalid, ", "), strings.Join(valid, ", ")))
	}
	for _, h := range roothints.Hints() {
		expr, ok := m.Lookup(h.Name)
		if !ok {
			continue
		}
		switch h.Kind {
		case roothints.Str:
			s, isStr := expr.(string)
			if !isStr {
				return fail(fmt.Errorf("Root device hint \"%s\" is not a string value. Hint expression: %s", h.Name, py.Str(expr))) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
			}
			if strings.TrimSpace(s) == "" {
				return fail(fmt.Errorf("Root device hint \"%s\" expression is empty", h.Name)) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
			}
		case roothints.Int:
			s := py.Str(expr)
			if strings.TrimSpace(s) == "" {
				return fail(fmt.Errorf("Root device hint \"%s\" expression is empty", h.Name)) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
			}
			_, values := roothints.Split(s)
			for _, v := range values {
				n, ok := py.Int(v)
				if !ok {
					return fail(fmt.Errorf("Root device hint \"%s\" is not an integer value. Current value: %s", h.Name, s)) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
				}
				if n <= 0 {
					return fail(fmt.Errorf("Root device hint \"%s\" should be a positive integer. Current value: %s", h.Name, s)) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
				}
			}
		case roothints.Bool:
			if _, err := BoolFromString(expr); err != nil {
				return fail(fmt.Errorf("Root device hint \"%s\" is not a Boolean value. Current value: %s", h.Name, py.Str(expr))) //nolint:staticcheck // ST1005: ironic_lib's message, which clients see
			}
		}
	}
	return nil
}

// IsGlanceImage is Ironic's is_glance_image: a glance:// URL or a UUID.
func IsGlanceImage(ref any) bool {
	s, ok := ref.(string)
	if !ok {
		return false
	}
	if strings.HasPrefix(s, "glance://") {
		return true
	}
	return isUUIDLike(s)
}

// isUUIDLike is oslo's uuidutils.is_uuid_like: a string that parses as a
// UUID and prints back the same, dashes and case aside.
func isUUIDLike(s string) bool {
	u, err := uuid.Parse(s)
	if err != nil {
		return false
	}
	norm := strings.ReplaceAll(strings.ToLower(s), "-", "")
	norm = strings.TrimPrefix(strings.TrimPrefix(norm, "urn:uuid:"), "{")
	norm = strings.TrimSuffix(norm, "}")
	return strings.ReplaceAll(u.String(), "-", "") == norm
}

// ImageRefError is Ironic's image_service.get_image_service check of an
// image reference: "" when Ironic can download it (Glance UUID, glance://,
// http(s)://, file://), else the reason it can't.
func ImageRefError(ref string) string {
	u, err := url.Parse(ref)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	} else if i := strings.Index(ref, ":"); i > 0 {
		scheme = strings.ToLower(ref[:i])
	}
	switch scheme {
	case "":
		if isUUIDLike(ref) {
			return ""
		}
		return "Scheme-less image href is not a UUID."
	case "http", "https", "file", "glance":
		return ""
	}
	return fmt.Sprintf("Image download protocol %s is not supported.", scheme)
}

// WithNetworkPower runs fn with the node powered on when its network
// interface needs that to configure it (Ironic's
// power_on_node_if_needed / restore_power_state_if_needed, the
// power_state_for_network_configuration context: the neutron interface
// with a Smart NIC port), the previous power state restored afterwards.
// Ironic also waits twice [agent]neutron_agent_poll_interval around the
// switch.
func WithNetworkPower(ctx context.Context, task drivers.Task, fn func() error) error {
	drv := task.Driver()
	if drv == nil || drv.Network == nil || !drv.Network.NeedPowerOn(ctx, task) {
		return fn()
	}
	prev, err := drv.Power.GetPowerState(ctx, task)
	if err != nil {
		return err
	}
	if prev == states.PowerOff {
		if err := task.PowerAction(ctx, states.PowerOn); err != nil {
			return err
		}
	}
	err = fn()
	if prev == states.PowerOff {
		if perr := task.PowerAction(ctx, prev); err == nil {
			err = perr
		}
	}
	return err
}
