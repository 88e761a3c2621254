package deployutil

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/states"
)

// SecureBootRequested is Ironic's is_secure_boot_requested: the
// secure_boot instance capability is "true" (any case).
func SecureBootRequested(task drivers.Task) (bool, error) {
	caps, err := InstanceInfoCapabilities(task)
	if err != nil {
		return false, err
	}
	v, ok := caps["secure_boot"]
	if !ok {
		return false, nil
	}
	return strings.ToLower(py.Str(v)) == "true", nil
}

// BootModeForDeploy is Ironic's get_boot_mode_for_deploy: "uefi" for
// secure boot, else the first of instance_info/capabilities boot_mode,
// instance_info/deploy_boot_mode, the boot_mode node capability and
// driver_internal_info/deploy_boot_mode, lower-cased; "" when none is set.
// A mode other than the node capability's is an InvalidParameterValue.
func BootModeForDeploy(task drivers.Task) (string, error) {
	secure, err := SecureBootRequested(task)
	if err != nil || secure {
		return drivers.BootModeUEFI, err
	}
	caps, err := InstanceInfoCapabilities(task)
	if err != nil {
		return "", err
	}
	capMode := NodeCapability(task, "boot_mode")
	mode := ""
	for _, v := range []any{caps["boot_mode"], task.InstanceInfo().Get("deploy_boot_mode"), capMode, task.DriverInternalInfo().Get("deploy_boot_mode")} {
		if py.Truthy(v) {
			mode = strings.ToLower(py.Str(v))
			break
		}
	}
	if mode == "" {
		return "", nil
	}
	if capMode != "" && strings.ToLower(capMode) != mode {
		return "", drivers.InvalidParameter("Node %s boot mode %s violates node properties/capabilities %s", task.NodeUUID(), mode, strings.ToLower(capMode))
	}
	return mode, nil
}

// BootMode is Ironic's boot_mode_utils.get_boot_mode: BootModeForDeploy,
// or else defaultMode ([deploy]default_boot_mode).
func BootMode(task drivers.Task, defaultMode string) (string, error) {
	mode, err := BootModeForDeploy(task)
	if mode == "" && err == nil {
		mode = defaultMode
	}
	return mode, err
}

// SyncBootMode is Ironic's sync_boot_mode: the boot mode the hardware
// reports (none when the management interface can't tell) reconciled with
// the one the node asks for. With neither, defaultMode is recorded in
// driver_internal_info/deploy_boot_mode and set on the hardware; with only
// the hardware's, that one is recorded; with only the node's, it is set on
// the hardware (an unsupported setter is fine); when both differ the
// node's is set and an unsupported setter is an error.
//
// Unlike Ironic, the node's boot_mode and secure_boot fields are not
// re-read from the hardware after a change (node_cache_boot_mode); the
// next power-state sync updates them.
func SyncBootMode(ctx context.Context, task drivers.Task, defaultMode string, log *slog.Logger) error {
	mgmt := task.Driver().Management
	if mgmt == nil {
		return drivers.Unsupported(task, "management")
	}
	if err := mgmt.Validate(ctx, task); err != nil {
		return err
	}
	bm, err := mgmt.GetBootMode(ctx, task)
	if ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
		bm, err = "", nil
	}
	if err != nil {
		return err
	}
	mode, err := BootModeForDeploy(task)
	if err != nil {
		return err
	}
	switch {
	case mode == "" && bm == "":
		task.DriverInternalInfo().Set("deploy_boot_mode", defaultMode)
		if err := task.Save(ctx); err != nil {
			return err
		}
		return setBootModeOnHardware(ctx, task, defaultMode, false, log)
	case mode == "":
		task.DriverInternalInfo().Set("deploy_boot_mode", bm)
		return task.Save(ctx)
	case bm == "":
		return setBootModeOnHardware(ctx, task, mode, false, log)
	case mode != bm:
		if log != nil {
			log.InfoContext(ctx, "Boot mode "+bm+" currently configured on node "+task.NodeUUID()+" does not match the boot mode "+
				mode+" requested for provisioning. Attempting to set node boot mode to "+mode+".", "node", task.NodeUUID())
		}
		return setBootModeOnHardware(ctx, task, mode, true, log)
	}
	return nil
}

// setBootModeOnHardware is Ironic's _set_boot_mode_on_bm over
// node_set_boot_mode (nothing is set while the node is adopted).
func setBootModeOnHardware(ctx context.Context, task drivers.Task, mode string, failIfUnsupported bool, log *slog.Logger) error {
	if task.ProvisionState() == states.Adopting {
		return nil
	}
	mgmt := task.Driver().Management
	if err := mgmt.Validate(ctx, task); err != nil {
		return err
	}
	supported, err := mgmt.GetSupportedBootModes(ctx, task)
	if ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
		supported, err = nil, nil
	}
	if err != nil {
		return err
	}
	if len(supported) > 0 && !slices.Contains(supported, mode) {
		err = drivers.InvalidParameter("Unsupported boot mode %s specified for node %s. Supported boot modes are: %s",
			mode, task.NodeUUID(), strings.Join(supported, ", "))
	} else {
		err = mgmt.SetBootMode(ctx, task, mode)
	}
	switch {
	case err == nil:
		return nil
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
		if failIfUnsupported {
			return ironic.Errorf(ironic.UnsupportedDriverExtension, "Baremetal node %s boot mode is not set to boot mode %s: %s", task.NodeUUID(), mode, err)
		}
		if log != nil {
			log.DebugContext(ctx, "boot mode not set on the hardware; assuming it is already "+mode, "node", task.NodeUUID(), "error", err)
		}
		return nil
	case ironic.IsClass(err, ironic.InvalidParameterValue):
		return drivers.InvalidParameter("Node %s boot mode is not set. Attempt to set %s boot mode on the baremetal node failed with error %s", task.NodeUUID(), mode, err)
	}
	return err
}

// ConfigureSecureBoot is Ironic's configure_secure_boot_if_needed (enable
// true) and deconfigure_secure_boot_if_needed (false): when secure boot
// is requested, the management interface turns it on or off. A
// management interface without secure boot support is only warned
// about.
func ConfigureSecureBoot(ctx context.Context, task drivers.Task, enable bool, log *slog.Logger) error {
	secure, err := SecureBootRequested(task)
	if err != nil || !secure {
		return err
	}
	mgmt := task.Driver().Management
	if mgmt == nil {
		return nil
	}
	err = mgmt.SetSecureBootState(ctx, task, enable)
	if ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
		if log != nil && enable {
			log.WarnContext(ctx, "Secure boot was requested for node "+task.NodeUUID()+" but its management interface "+
				task.InterfaceName(drivers.Management)+" does not support it. This warning will become an error in a future release.", "node", task.NodeUUID())
		}
		return nil
	}
	return err
}

// NodeSetBootDevice is Ironic's conductor.utils.node_set_boot_device:
// the management interface is validated, nothing is set while the node
// is being adopted, and driver_info/force_persistent_boot_device
// overrides persistent ("Always", "Never", or for compatibility any
// true boolean string).
func NodeSetBootDevice(ctx context.Context, task drivers.Task, device string, persistent bool) error {
	mgmt := task.Driver().Management
	if mgmt == nil {
		return drivers.Unsupported(task, "management")
	}
	if err := mgmt.Validate(ctx, task); err != nil {
		return err
	}
	if task.ProvisionState() == states.Adopting {
		return nil
	}
	force, set := task.DriverInfo().Lookup("force_persistent_boot_device")
	switch {
	case force == "Always":
		persistent = true
	case force == "Never":
		persistent = false
	case set && force != nil && force != "Default":
		if b, err := BoolFromString(force); err == nil && b {
			persistent = true
		}
	}
	return mgmt.SetBootDevice(ctx, task, device, persistent)
}
