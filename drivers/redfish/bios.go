package redfish

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/stmcginnis/gofish/schemas"
)

// BIOS is the "redfish" BIOS interface: the system's Bios Attributes,
// changed through its @Redfish.Settings object and applied by a reboot.
type BIOS struct{ base }

var _ drivers.Stepper = (*BIOS)(nil)

// bios is the system's Bios resource (sushy's system.bios); a system
// without one is MissingAttributeError.
func (s *system) bios(ctx context.Context) (*resource[schemas.Bios], error) {
	p, err := subPath(s.path, s.raw, "Bios")
	if err != nil {
		return nil, err
	}
	r, err := fetch[schemas.Bios](ctx, s.b, p)
	if err != nil {
		return nil, err
	}
	return r, require(p, r.raw, "Id")
}

// attributes is the Bios' Attributes, in the BMC's order (nil when it
// has none).
func attributes(b *resource[schemas.Bios]) *pyjson.Dict {
	d, _ := pyjson.AsDict(b.raw.Get("Attributes"))
	return d
}

// CacheBIOSSettings stores the system's BIOS attributes as the node's
// BIOS settings. The settings have no registry fields: sushy finds no
// attribute registry among the standard ones, and the BMC's own
// registries are not read.
func (b *BIOS) CacheBIOSSettings(ctx context.Context, task drivers.Task) error {
	sys, done, err := b.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	bios, err := sys.bios(ctx)
	if isKind(err, kindMissingAttribute) {
		msg := fmt.Sprintf("Cannot fetch BIOS attributes for node %s, BIOS settings are not supported.", task.NodeUUID())
		b.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return drivers.UnsupportedMessage(msg)
	}
	if err != nil {
		return asFault(err)
	}
	var settings []drivers.BIOSSetting
	for k, v := range attributes(bios).All() {
		settings = append(settings, drivers.BIOSSetting{Name: k, Value: biosValue(v)})
	}
	if reg, err := attributeRegistry(ctx, sys.b, bios.raw); err != nil {
		b.c.log.InfoContext(ctx, fmt.Sprintf("Cannot get BIOS Registry attributes for node %s, Error %s.", task.NodeUUID(), err))
	} else if reg != nil {
		withRegistryFields(settings, reg)
	}
	return task.BIOSSettings().Replace(ctx, settings)
}

// biosValue is a BIOS attribute as Ironic's BIOSSetting stores it (a
// string field: Python's str() of the value).
func biosValue(v any) string {
	if v == nil {
		return ""
	}
	return py.Str(v)
}

// ApplyConfiguration is the apply_configuration step outside of a step
// flow: the settings are committed and the node's cache refreshed.
func (b *BIOS) ApplyConfiguration(ctx context.Context, task drivers.Task, settings []drivers.BIOSSetting) error {
	list := make([]any, len(settings))
	for i, s := range settings {
		list[i] = pyjson.DictOf("name", s.Name, "value", s.Value)
	}
	_, err := b.applyConfiguration(ctx, task, list)
	return err
}

// FactoryReset is the factory_reset step outside of a step flow.
func (b *BIOS) FactoryReset(ctx context.Context, task drivers.Task) error {
	_, err := b.factoryReset(ctx, task)
	return err
}

// Steps declares apply_configuration and factory_reset as clean and
// deploy steps (priority 0).
func (*BIOS) Steps() []drivers.Step {
	args := []drivers.StepArg{{Name: "settings", Description: "A list of BIOS settings to be applied", Required: true}}
	return []drivers.Step{
		{Phase: drivers.CleanStep, Interface: drivers.BIOS, Name: "apply_configuration", ArgsInfo: args, RequiresRamdisk: true},
		{Phase: drivers.CleanStep, Interface: drivers.BIOS, Name: "factory_reset", RequiresRamdisk: true},
		{Phase: drivers.DeployStep, Interface: drivers.BIOS, Name: "apply_configuration", ArgsInfo: args},
		{Phase: drivers.DeployStep, Interface: drivers.BIOS, Name: "factory_reset"},
	}
}

// ExecuteStep runs a BIOS step; the node's settings are cached again
// afterwards, as Ironic's cache_bios_settings decorator does.
func (b *BIOS) ExecuteStep(ctx context.Context, task drivers.Task, name string, args *pyjson.Dict) (states.Provision, error) {
	var next states.Provision
	var err error
	switch name {
	case "apply_configuration":
		list, ok := args.Get("settings").([]any)
		if !ok {
			return "", drivers.InvalidParameter("BIOS settings must be a list of dictionaries with name/value pairs, not %s", py.Repr(args.Get("settings")))
		}
		next, err = b.applyConfiguration(ctx, task, list)
	case "factory_reset":
		next, err = b.factoryReset(ctx, task)
	default:
		return "", drivers.InvalidParameter("Step %s is not supported by this interface.", name)
	}
	if err != nil {
		return "", err
	}
	return next, b.CacheBIOSSettings(ctx, task)
}

// biosNotSupported is the RedfishError of a system without Bios (Ironic
// words it "factory reset" for both steps).
func biosNotSupported(task drivers.Task) error {
	return redfishError("Redfish BIOS factory reset failed for node %s, because BIOS settings are not supported.", task.NodeUUID())
}

// factoryReset is RedfishBIOS.factory_reset: ResetBios, then a reboot
// (the step runs again when the agent is back, and clears its flag).
func (b *BIOS) factoryReset(ctx context.Context, task drivers.Task) (states.Provision, error) {
	sys, bios, done, err := b.stepBios(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	dii := task.DriverInternalInfo()
	if requested, _ := dii.Get("post_factory_reset_reboot_requested").(bool); requested {
		b.c.log.DebugContext(ctx, "Post factory reset, BIOS configuration", "node", task.NodeUUID(), "attrs", attributes(bios))
		return "", clearRebootRequested(ctx, task)
	}
	return b.rebootAfter(ctx, task, "factory reset", resetBios(ctx, sys.b, bios), func(dii *pyjson.Dict) {
		dii.Set("post_factory_reset_reboot_requested", true)
	})
}

// stepBios reads the node's system and its Bios for a step: a system
// without one is biosNotSupported. done must be called when err is nil.
func (b *BIOS) stepBios(ctx context.Context, task drivers.Task) (*system, *resource[schemas.Bios], func(), error) {
	sys, done, err := b.c.getSystem(ctx, task)
	if err != nil {
		return nil, nil, nil, err
	}
	bios, err := sys.bios(ctx)
	if isKind(err, kindMissingAttribute) {
		done()
		b.c.log.ErrorContext(ctx, "BIOS settings are not supported", "node", task.NodeUUID())
		return nil, nil, nil, biosNotSupported(task)
	}
	if err != nil {
		done()
		return nil, nil, nil, asFault(err)
	}
	return sys, bios, done, nil
}

// rebootAfter ends a step whose BMC request (what) answered err: a
// failure is RedfishError; otherwise record notes in the node's
// driver_internal_info, the step becomes asynchronous and the node
// reboots to finish it.
func (b *BIOS) rebootAfter(ctx context.Context, task drivers.Task, what string, err error, record func(dii *pyjson.Dict)) (states.Provision, error) {
	if err != nil {
		if !isSushy(err) {
			return "", err
		}
		msg := fmt.Sprintf("Redfish BIOS %s failed for node %s. Error: %s", what, task.NodeUUID(), err)
		b.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return "", redfishError("%s", msg)
	}
	record(task.DriverInternalInfo())
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	if err := deployutil.SetAsyncStepFlags(ctx, task, deployutil.True, deployutil.False, deployutil.Unset); err != nil {
		return "", err
	}
	return deployutil.RebootToFinishStep(ctx, task)
}

// resetBios is sushy's Bios.reset_bios: POST to the ResetBios action
// without a body, again with {} when the BMC wants one (415 or 400).
func resetBios(ctx context.Context, b *bmc, bios *resource[schemas.Bios]) error {
	actions, ok := pyjson.AsDict(bios.raw.Get("Actions"))
	if !ok || actions.Len() == 0 {
		return missingAttribute("Actions", bios.path)
	}
	act, ok := pyjson.AsDict(actions.Get("#Bios.ResetBios"))
	if !ok {
		return missingAction("#Bios.ResetBios", bios.path)
	}
	target, ok := act.Get("target").(string)
	if !ok {
		return missingAttribute("Actions/#Bios.ResetBios/target", bios.path)
	}
	_, err := b.post(ctx, target, nil)
	if s, ok := asSushy(err); ok && s.kind.isHTTP() && (s.status == 415 || s.status == 400) {
		_, err = b.post(ctx, target, pyjson.NewDict(0))
	}
	return err
}

// applyConfiguration is RedfishBIOS.apply_configuration: the attributes
// PATCHed to the Bios' settings object (to apply on reset when the BMC
// supports it), then a reboot; when the step runs again after it, the
// attributes the BMC shows are checked against the requested ones.
func (b *BIOS) applyConfiguration(ctx context.Context, task drivers.Task, settings []any) (states.Provision, error) {
	sys, bios, done, err := b.stepBios(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	attrs := pyjson.NewDict(len(settings))
	for _, s := range settings {
		d, ok := pyjson.AsDict(s)
		if !ok {
			return "", drivers.InvalidParameter("BIOS settings must be a list of dictionaries with name/value pairs, not %s", py.Repr(settings))
		}
		name, ok := d.Lookup("name")
		if !ok {
			return "", ironicKeyError("name")
		}
		value, ok := d.Lookup("value")
		if !ok {
			return "", ironicKeyError("value")
		}
		attrs.Set(py.Str(name), value)
	}
	dii := task.DriverInternalInfo()
	if requested, _ := dii.Get("post_config_reboot_requested").(bool); requested {
		want, _ := pyjson.AsDict(dii.Get("requested_bios_attrs"))
		if err := clearRebootRequested(ctx, task); err != nil {
			return "", err
		}
		return "", checkBIOSAttrs(attributes(bios), want)
	}
	applyTime := ""
	if times, _ := mustField(bios.raw, "@Redfish.Settings", "SupportedApplyTimes").([]any); containsAny(times, "OnReset") {
		applyTime = "OnReset"
	}
	return b.rebootAfter(ctx, task, "apply configuration", setAttributes(ctx, sys.b, bios, attrs, applyTime),
		func(dii *pyjson.Dict) {
			dii.Set("post_config_reboot_requested", true)
			dii.Set("requested_bios_attrs", attrs)
		})
}

func containsAny(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func ironicKeyError(key string) error {
	return &sushyError{kind: kindKey, msg: "'" + key + "'"}
}

// setAttributes is sushy's Bios.set_attributes: PATCH {"Attributes": ...}
// (with @Redfish.SettingsApplyTime when an apply time is asked for) to
// the settings object.
func setAttributes(ctx context.Context, b *bmc, bios *resource[schemas.Bios], attrs *pyjson.Dict, applyTime string) error {
	payload := pyjson.DictOf("Attributes", attrs)
	if applyTime != "" {
		payload.Set("@Redfish.SettingsApplyTime", pyjson.DictOf(
			"@odata.type", "#Settings.v1_0_0.PreferredApplyTime",
			"ApplyTime", applyTime))
	}
	uri := str(bios.raw, "@Redfish.Settings", "SettingsObject", "@odata.id")
	if uri == "" {
		return &sushyError{kind: kindKey, msg: "'NoneType' object has no attribute 'commit'"}
	}
	_, err := b.patch(ctx, uri, payload, "")
	return err
}

// clearRebootRequested is RedfishBIOS._clear_reboot_requested.
func clearRebootRequested(ctx context.Context, task drivers.Task) error {
	dii := task.DriverInternalInfo()
	dii.Delete("post_config_reboot_requested")
	dii.Delete("post_factory_reset_reboot_requested")
	dii.Delete("requested_bios_attrs")
	return task.Save(ctx)
}

// checkBIOSAttrs is RedfishBIOS._check_bios_attrs: the step fails (the
// node's cleaning or deployment) when an attribute didn't take the
// requested value.
func checkBIOSAttrs(current, requested *pyjson.Dict) error {
	notUpdated := pyjson.NewDict(0)
	for k, want := range requested.All() {
		var cur any
		if current != nil {
			cur = current.Get(k)
		}
		if !pyjson.Equal(want, cur) {
			notUpdated.Set(k, want)
		}
	}
	if notUpdated.Len() == 0 {
		return nil
	}
	// Ironic calls the phase's error handler from within the step and
	// lets the step end; failing the step records the same message.
	return ironic.Errorf(ironic.IronicException, "Redfish BIOS apply_configuration step failed. Attributes %s are not updated.",
		py.Repr(notUpdated))
}
