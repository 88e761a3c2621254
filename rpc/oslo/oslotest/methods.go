// The methods of Fake, one per rpc.ConductorAPI method (written from
// rpc/api.go by a throwaway script; keep them in step).

package oslotest

import (
	"context"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

func (f *Fake) CreateNode(ctx context.Context, topic string, node *models.Node) (*models.Node, error) {
	err := f.record(ctx, "CreateNode", topic, node)
	return result[*models.Node](f, "CreateNode"), err
}

func (f *Fake) UpdateNode(ctx context.Context, topic string, upd rpc.NodeUpdate, resetInterfaces bool) (*models.Node, error) {
	err := f.record(ctx, "UpdateNode", topic, upd, resetInterfaces)
	return result[*models.Node](f, "UpdateNode"), err
}

func (f *Fake) DestroyNode(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "DestroyNode", topic, nodeUUID)
}

func (f *Fake) ValidateDriverInterfaces(ctx context.Context, topic string, nodeUUID string) (map[string]rpc.ValidationResult, error) {
	err := f.record(ctx, "ValidateDriverInterfaces", topic, nodeUUID)
	return result[map[string]rpc.ValidationResult](f, "ValidateDriverInterfaces"), err
}

func (f *Fake) GetDriverProperties(ctx context.Context, topic string, driver string) (map[string]string, error) {
	err := f.record(ctx, "GetDriverProperties", topic, driver)
	return result[map[string]string](f, "GetDriverProperties"), err
}

func (f *Fake) GetDriverVendorPassthruMethods(ctx context.Context, topic string, driver string) (map[string]rpc.VendorMethod, error) {
	err := f.record(ctx, "GetDriverVendorPassthruMethods", topic, driver)
	return result[map[string]rpc.VendorMethod](f, "GetDriverVendorPassthruMethods"), err
}

func (f *Fake) GetNodeVendorPassthruMethods(ctx context.Context, topic string, nodeUUID string) (map[string]rpc.VendorMethod, error) {
	err := f.record(ctx, "GetNodeVendorPassthruMethods", topic, nodeUUID)
	return result[map[string]rpc.VendorMethod](f, "GetNodeVendorPassthruMethods"), err
}

func (f *Fake) GetRAIDLogicalDiskProperties(ctx context.Context, topic string, driver string) (map[string]string, error) {
	err := f.record(ctx, "GetRAIDLogicalDiskProperties", topic, driver)
	return result[map[string]string](f, "GetRAIDLogicalDiskProperties"), err
}

func (f *Fake) AddNodeTraits(ctx context.Context, topic string, nodeUUID string, traits []string, replace bool) error {
	return f.record(ctx, "AddNodeTraits", topic, nodeUUID, traits, replace)
}

func (f *Fake) RemoveNodeTraits(ctx context.Context, topic string, nodeUUID string, traits []string) error {
	return f.record(ctx, "RemoveNodeTraits", topic, nodeUUID, traits)
}

func (f *Fake) VIFList(ctx context.Context, topic string, nodeUUID string) ([]map[string]any, error) {
	err := f.record(ctx, "VIFList", topic, nodeUUID)
	return result[[]map[string]any](f, "VIFList"), err
}

func (f *Fake) VIFAttach(ctx context.Context, topic string, nodeUUID string, vifInfo map[string]any) error {
	return f.record(ctx, "VIFAttach", topic, nodeUUID, vifInfo)
}

func (f *Fake) VIFDetach(ctx context.Context, topic string, nodeUUID string, vifID string) error {
	return f.record(ctx, "VIFDetach", topic, nodeUUID, vifID)
}

func (f *Fake) CreatePort(ctx context.Context, topic string, port *models.Port) (*models.Port, error) {
	err := f.record(ctx, "CreatePort", topic, port)
	return result[*models.Port](f, "CreatePort"), err
}

func (f *Fake) UpdatePort(ctx context.Context, topic string, port *models.Port, changes []string) (*models.Port, error) {
	err := f.record(ctx, "UpdatePort", topic, port, changes)
	return result[*models.Port](f, "UpdatePort"), err
}

func (f *Fake) DestroyPort(ctx context.Context, topic string, port *models.Port) error {
	return f.record(ctx, "DestroyPort", topic, port)
}

func (f *Fake) UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	err := f.record(ctx, "UpdatePortgroup", topic, pg, changes)
	return result[*models.Portgroup](f, "UpdatePortgroup"), err
}

func (f *Fake) DestroyPortgroup(ctx context.Context, topic string, pg *models.Portgroup) error {
	return f.record(ctx, "DestroyPortgroup", topic, pg)
}

func (f *Fake) UpdateVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	err := f.record(ctx, "UpdateVolumeConnector", topic, c, changes)
	return result[*models.VolumeConnector](f, "UpdateVolumeConnector"), err
}

func (f *Fake) DestroyVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector) error {
	return f.record(ctx, "DestroyVolumeConnector", topic, c)
}

func (f *Fake) UpdateVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	err := f.record(ctx, "UpdateVolumeTarget", topic, t, changes)
	return result[*models.VolumeTarget](f, "UpdateVolumeTarget"), err
}

func (f *Fake) DestroyVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget) error {
	return f.record(ctx, "DestroyVolumeTarget", topic, t)
}

func (f *Fake) ChangeNodePowerState(ctx context.Context, topic string, nodeUUID string, newState states.Power, timeout int) error {
	return f.record(ctx, "ChangeNodePowerState", topic, nodeUUID, newState, timeout)
}

func (f *Fake) ChangeNodeBootMode(ctx context.Context, topic string, nodeUUID string, newState string) error {
	return f.record(ctx, "ChangeNodeBootMode", topic, nodeUUID, newState)
}

func (f *Fake) ChangeNodeSecureBoot(ctx context.Context, topic string, nodeUUID string, newState bool) error {
	return f.record(ctx, "ChangeNodeSecureBoot", topic, nodeUUID, newState)
}

func (f *Fake) VendorPassthru(ctx context.Context, topic string, nodeUUID string, method string, httpMethod string, info any) (*rpc.VendorResult, error) {
	err := f.record(ctx, "VendorPassthru", topic, nodeUUID, method, httpMethod, info)
	return result[*rpc.VendorResult](f, "VendorPassthru"), err
}

func (f *Fake) DriverVendorPassthru(ctx context.Context, topic string, driver string, method string, httpMethod string, info any) (*rpc.VendorResult, error) {
	err := f.record(ctx, "DriverVendorPassthru", topic, driver, method, httpMethod, info)
	return result[*rpc.VendorResult](f, "DriverVendorPassthru"), err
}

func (f *Fake) DoNodeDeploy(ctx context.Context, topic string, nodeUUID string, rebuild bool, configdrive any, deploySteps []map[string]any) error {
	return f.record(ctx, "DoNodeDeploy", topic, nodeUUID, rebuild, configdrive, deploySteps)
}

func (f *Fake) DoNodeTearDown(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "DoNodeTearDown", topic, nodeUUID)
}

func (f *Fake) DoProvisioningAction(ctx context.Context, topic string, nodeUUID string, action states.Event) error {
	return f.record(ctx, "DoProvisioningAction", topic, nodeUUID, action)
}

func (f *Fake) ContinueNodeClean(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "ContinueNodeClean", topic, nodeUUID)
}

func (f *Fake) ContinueNodeDeploy(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "ContinueNodeDeploy", topic, nodeUUID)
}

func (f *Fake) DoNodeClean(ctx context.Context, topic string, nodeUUID string, cleanSteps []map[string]any, disableRamdisk *bool) error {
	return f.record(ctx, "DoNodeClean", topic, nodeUUID, cleanSteps, disableRamdisk)
}

func (f *Fake) DoNodeRescue(ctx context.Context, topic string, nodeUUID string, rescuePassword string) error {
	return f.record(ctx, "DoNodeRescue", topic, nodeUUID, rescuePassword)
}

func (f *Fake) DoNodeUnrescue(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "DoNodeUnrescue", topic, nodeUUID)
}

func (f *Fake) InspectHardware(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "InspectHardware", topic, nodeUUID)
}

func (f *Fake) GetConsoleInformation(ctx context.Context, topic string, nodeUUID string) (map[string]any, error) {
	err := f.record(ctx, "GetConsoleInformation", topic, nodeUUID)
	return result[map[string]any](f, "GetConsoleInformation"), err
}

func (f *Fake) SetConsoleMode(ctx context.Context, topic string, nodeUUID string, enabled bool) error {
	return f.record(ctx, "SetConsoleMode", topic, nodeUUID, enabled)
}

func (f *Fake) SetBootDevice(ctx context.Context, topic string, nodeUUID string, device string, persistent bool) error {
	return f.record(ctx, "SetBootDevice", topic, nodeUUID, device, persistent)
}

func (f *Fake) GetBootDevice(ctx context.Context, topic string, nodeUUID string) (*rpc.BootDevice, error) {
	err := f.record(ctx, "GetBootDevice", topic, nodeUUID)
	return result[*rpc.BootDevice](f, "GetBootDevice"), err
}

func (f *Fake) GetSupportedBootDevices(ctx context.Context, topic string, nodeUUID string) ([]string, error) {
	err := f.record(ctx, "GetSupportedBootDevices", topic, nodeUUID)
	return result[[]string](f, "GetSupportedBootDevices"), err
}

func (f *Fake) InjectNMI(ctx context.Context, topic string, nodeUUID string) error {
	return f.record(ctx, "InjectNMI", topic, nodeUUID)
}

func (f *Fake) SetTargetRAIDConfig(ctx context.Context, topic string, nodeUUID string, config map[string]any) error {
	return f.record(ctx, "SetTargetRAIDConfig", topic, nodeUUID, config)
}

func (f *Fake) CreateAllocation(ctx context.Context, topic string, a *models.Allocation) (*models.Allocation, error) {
	err := f.record(ctx, "CreateAllocation", topic, a)
	return result[*models.Allocation](f, "CreateAllocation"), err
}

func (f *Fake) DestroyAllocation(ctx context.Context, topic string, a *models.Allocation) error {
	return f.record(ctx, "DestroyAllocation", topic, a)
}

func (f *Fake) Heartbeat(ctx context.Context, topic string, nodeUUID string, hb rpc.Heartbeat) error {
	return f.record(ctx, "Heartbeat", topic, nodeUUID, hb)
}

func (f *Fake) GetNodeWithToken(ctx context.Context, topic string, nodeUUID string) (*models.Node, error) {
	err := f.record(ctx, "GetNodeWithToken", topic, nodeUUID)
	return result[*models.Node](f, "GetNodeWithToken"), err
}

func (f *Fake) GetSupportedIndicators(ctx context.Context, topic string, nodeUUID string, component string) (map[string]map[string]rpc.Indicator, error) {
	err := f.record(ctx, "GetSupportedIndicators", topic, nodeUUID, component)
	return result[map[string]map[string]rpc.Indicator](f, "GetSupportedIndicators"), err
}

func (f *Fake) GetIndicatorState(ctx context.Context, topic string, nodeUUID string, component string, indicator string) (string, error) {
	err := f.record(ctx, "GetIndicatorState", topic, nodeUUID, component, indicator)
	return result[string](f, "GetIndicatorState"), err
}

func (f *Fake) SetIndicatorState(ctx context.Context, topic string, nodeUUID string, component string, indicator string, state string) error {
	return f.record(ctx, "SetIndicatorState", topic, nodeUUID, component, indicator, state)
}
