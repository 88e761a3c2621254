package drivers

import (
	"context"
	"log/slog"

	"github.com/goironic/ironic/states"
)

// The types below give implementations Ironic's base-class behaviour for
// the methods Ironic doesn't require them to write: embed the one of the
// kind and override what the implementation supports.

// PowerBase answers GetSupportedPowerStates with Ironic's default.
type PowerBase struct{}

// GetSupportedPowerStates returns PowerOn, PowerOff and Reboot.
func (PowerBase) GetSupportedPowerStates(context.Context, Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting}, nil
}

// ManagementBase answers UnsupportedDriverExtension for the optional
// management methods, naming the method as Ironic does.
type ManagementBase struct{}

// InjectNMI is unsupported.
func (ManagementBase) InjectNMI(_ context.Context, task Task) error {
	return Unsupported(task, "inject_nmi")
}

// GetSupportedBootModes is unsupported.
func (ManagementBase) GetSupportedBootModes(_ context.Context, task Task) ([]string, error) {
	return nil, Unsupported(task, "get_supported_boot_modes")
}

// GetBootMode is unsupported.
func (ManagementBase) GetBootMode(_ context.Context, task Task) (string, error) {
	return "", Unsupported(task, "get_boot_mode")
}

// SetBootMode is unsupported.
func (ManagementBase) SetBootMode(_ context.Context, task Task, _ string) error {
	return Unsupported(task, "set_boot_mode")
}

// GetSecureBootState is unsupported.
func (ManagementBase) GetSecureBootState(_ context.Context, task Task) (bool, error) {
	return false, Unsupported(task, "get_secure_boot_state")
}

// SetSecureBootState is unsupported.
func (ManagementBase) SetSecureBootState(_ context.Context, task Task, _ bool) error {
	return Unsupported(task, "set_secure_boot_state")
}

// GetSupportedIndicators is unsupported.
func (ManagementBase) GetSupportedIndicators(_ context.Context, task Task, _ string) (map[string]map[string]Indicator, error) {
	return nil, Unsupported(task, "get_supported_indicators")
}

// SetIndicatorState is unsupported.
func (ManagementBase) SetIndicatorState(_ context.Context, task Task, _, _, _ string) error {
	return Unsupported(task, "set_indicator_state")
}

// GetIndicatorState is unsupported.
func (ManagementBase) GetIndicatorState(_ context.Context, task Task, _, _ string) (string, error) {
	return "", Unsupported(task, "get_indicator_state")
}

// BootBase has no capabilities and can neither rescue nor inspect.
type BootBase struct{}

// Capabilities returns none.
func (BootBase) Capabilities() []string { return nil }

// ValidateRescue is unsupported.
func (BootBase) ValidateRescue(_ context.Context, task Task) error {
	return Unsupported(task, "validate_rescue")
}

// ValidateInspection is unsupported.
func (BootBase) ValidateInspection(_ context.Context, task Task) error {
	return Unsupported(task, "validate_inspection")
}

// DeployBase does nothing for cleaning and ignores heartbeats, as Ironic's
// base DeployInterface does.
type DeployBase struct {
	// Log receives the warning about an unexpected heartbeat; nil discards.
	Log *slog.Logger
}

// PrepareCleaning does nothing.
func (DeployBase) PrepareCleaning(context.Context, Task) (states.Provision, error) { return "", nil }

// TearDownCleaning does nothing.
func (DeployBase) TearDownCleaning(context.Context, Task) error { return nil }

// Heartbeat logs that the driver doesn't support heartbeating.
func (b DeployBase) Heartbeat(ctx context.Context, task Task, _ Heartbeat) error {
	if b.Log != nil {
		b.Log.WarnContext(ctx, "Got heartbeat message from node, but the driver does not support heartbeating",
			"node", task.NodeUUID(), "driver", task.DriverName())
	}
	return nil
}

// InspectBase can't abort.
type InspectBase struct{}

// Abort is unsupported.
func (InspectBase) Abort(_ context.Context, task Task) error {
	return Unsupported(task, "abort")
}

// NetworkBase is Ironic's base NetworkInterface: no properties, nothing to
// validate, no rescuing or inspection network, the node's network_data.
type NetworkBase struct{}

// GetProperties returns none.
func (NetworkBase) GetProperties() Properties { return nil }

// Validate accepts every node.
func (NetworkBase) Validate(context.Context, Task) error { return nil }

// ValidateRescue accepts every node.
func (NetworkBase) ValidateRescue(context.Context, Task) error { return nil }

// AddRescuingNetwork does nothing.
func (NetworkBase) AddRescuingNetwork(context.Context, Task) (map[string]string, error) {
	return map[string]string{}, nil
}

// RemoveRescuingNetwork does nothing.
func (NetworkBase) RemoveRescuingNetwork(context.Context, Task) error { return nil }

// ValidateInspection is unsupported.
func (NetworkBase) ValidateInspection(_ context.Context, task Task) error {
	return Unsupported(task, "validate_inspection")
}

// AddInspectionNetwork does nothing.
func (NetworkBase) AddInspectionNetwork(context.Context, Task) (map[string]string, error) {
	return map[string]string{}, nil
}

// RemoveInspectionNetwork does nothing.
func (NetworkBase) RemoveInspectionNetwork(context.Context, Task) error { return nil }

// NeedPowerOn returns false.
func (NetworkBase) NeedPowerOn(context.Context, Task) bool { return false }

// GetNodeNetworkData returns the node's network_data.
func (NetworkBase) GetNodeNetworkData(_ context.Context, task Task) (map[string]any, error) {
	nd := task.NetworkData()
	if nd == nil {
		nd = map[string]any{}
	}
	return nd, nil
}

// RAIDBase is Ironic's base RAIDInterface: it validates target_raid_config
// against Ironic's RAID configuration schema and lists the schema's logical
// disk properties.
type RAIDBase struct{}

// GetProperties returns none.
func (RAIDBase) GetProperties() Properties { return nil }

// Validate checks the node's target_raid_config, if any.
func (b RAIDBase) Validate(ctx context.Context, task Task) error {
	cfg := task.TargetRAIDConfig()
	if len(cfg) == 0 {
		return nil
	}
	return b.ValidateRAIDConfig(ctx, task, cfg)
}

// ValidateRAIDConfig checks config against Ironic's RAID schema.
func (RAIDBase) ValidateRAIDConfig(_ context.Context, _ Task, config map[string]any) error {
	return ValidateRAIDConfig(config)
}

// GetLogicalDiskProperties returns the schema's logical disk properties.
func (RAIDBase) GetLogicalDiskProperties() Properties { return LogicalDiskProperties() }
