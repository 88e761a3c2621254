package conductor

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
)

// These conductor calls are being built (issue 3). Until each lands it
// refuses the call as an unsupported extension, naming itself.

func pending(method string) error {
	return ironic.Errorf(ironic.UnsupportedDriverExtension,
		"The conductor does not implement %s in this release.", method)
}

func (m *Manager) ChangeNodeBootMode(ctx context.Context, _ string, nodeUUID, newState string) error {
	return pending("change_node_boot_mode")
}

func (m *Manager) ChangeNodeSecureBoot(ctx context.Context, _ string, nodeUUID string, newState bool) error {
	return pending("change_node_secure_boot")
}

func (m *Manager) VendorPassthru(ctx context.Context, _ string, nodeUUID, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return nil, pending("vendor_passthru")
}

func (m *Manager) DriverVendorPassthru(ctx context.Context, _ string, driver, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return nil, pending("driver_vendor_passthru")
}

func (m *Manager) DoNodeDeploy(ctx context.Context, _ string, nodeUUID string, rebuild bool, configdrive any, deploySteps []map[string]any) error {
	return pending("do_node_deploy")
}

func (m *Manager) DoNodeTearDown(ctx context.Context, _ string, nodeUUID string) error {
	return pending("do_node_tear_down")
}

func (m *Manager) DoProvisioningAction(ctx context.Context, _ string, nodeUUID, action string) error {
	return pending("do_provisioning_action")
}

func (m *Manager) ContinueNodeClean(ctx context.Context, _ string, nodeUUID string) error {
	return pending("continue_node_clean")
}

func (m *Manager) ContinueNodeDeploy(ctx context.Context, _ string, nodeUUID string) error {
	return pending("continue_node_deploy")
}

func (m *Manager) DoNodeClean(ctx context.Context, _ string, nodeUUID string, cleanSteps []map[string]any, disableRamdisk *bool) error {
	return pending("do_node_clean")
}

func (m *Manager) DoNodeRescue(ctx context.Context, _ string, nodeUUID, rescuePassword string) error {
	return pending("do_node_rescue")
}

func (m *Manager) DoNodeUnrescue(ctx context.Context, _ string, nodeUUID string) error {
	return pending("do_node_unrescue")
}

func (m *Manager) InspectHardware(ctx context.Context, _ string, nodeUUID string) error {
	return pending("inspect_hardware")
}

func (m *Manager) GetConsoleInformation(ctx context.Context, _ string, nodeUUID string) (map[string]any, error) {
	return nil, pending("get_console_information")
}

func (m *Manager) SetConsoleMode(ctx context.Context, _ string, nodeUUID string, enabled bool) error {
	return pending("set_console_mode")
}

func (m *Manager) SetBootDevice(ctx context.Context, _ string, nodeUUID, device string, persistent bool) error {
	return pending("set_boot_device")
}

func (m *Manager) GetBootDevice(ctx context.Context, _ string, nodeUUID string) (*rpc.BootDevice, error) {
	return nil, pending("get_boot_device")
}

func (m *Manager) GetSupportedBootDevices(ctx context.Context, _ string, nodeUUID string) ([]string, error) {
	return nil, pending("get_supported_boot_devices")
}

func (m *Manager) InjectNMI(ctx context.Context, _ string, nodeUUID string) error {
	return pending("inject_nmi")
}

func (m *Manager) SetTargetRAIDConfig(ctx context.Context, _ string, nodeUUID string, config map[string]any) error {
	return pending("set_target_raid_config")
}

func (m *Manager) CreateAllocation(ctx context.Context, _ string, a *models.Allocation) (*models.Allocation, error) {
	return nil, pending("create_allocation")
}

func (m *Manager) DestroyAllocation(ctx context.Context, _ string, a *models.Allocation) error {
	return pending("destroy_allocation")
}

func (m *Manager) Heartbeat(ctx context.Context, _ string, nodeUUID string, hb rpc.Heartbeat) error {
	return pending("heartbeat")
}

func (m *Manager) GetNodeWithToken(ctx context.Context, _ string, nodeUUID string) (*models.Node, error) {
	return nil, pending("get_node_with_token")
}
