package rpc

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

// Local is the in-process transport (rpc_transport = none): every call is
// served by the conductor in this process, but its arguments and results
// are encoded and decoded on the way, as a message would be, so neither
// side can rely on sharing memory with the other. Faults keep their class.
type Local struct {
	srv ConductorAPI
}

// NewLocal wraps the in-process conductor.
func NewLocal(srv ConductorAPI) *Local { return &Local{srv: srv} }

var _ ConductorAPI = (*Local)(nil)

// through copies v through the codec.
func through[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	// Numbers stay json.Number, so integers and floats keep their form.
	err = pyjson.Unmarshal(b, &out)
	return out, err
}

// wireFault is how a fault travels: its class and message.
type wireFault struct {
	Class   ironic.Class `json:"class"`
	Message string       `json:"message"`
	Status  int          `json:"status,omitempty"`
}

// remote turns a server-side error into what the caller sees.
func remote(err error) error {
	if err == nil {
		return nil
	}
	var f *ironic.Fault
	if !errors.As(err, &f) {
		// Non-fault errors lose their type across RPC, as in oslo.
		return &ironic.Fault{Class: ironic.IronicException, Message: err.Error()}
	}
	w, _ := through(wireFault{Class: f.Class, Message: f.Message, Status: f.Status})
	return &ironic.Fault{Class: w.Class, Message: w.Message, Status: w.Status}
}

func result[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, remote(err)
	}
	return through(v)
}

func (l *Local) CreateNode(ctx context.Context, topic string, node *models.Node) (*models.Node, error) {
	in, err := through(node)
	if err != nil {
		return nil, err
	}
	return result(l.srv.CreateNode(ctx, topic, in))
}

func (l *Local) UpdateNode(ctx context.Context, topic string, upd NodeUpdate, reset bool) (*models.Node, error) {
	in, err := through(upd)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdateNode(ctx, topic, in, reset))
}

func (l *Local) DestroyNode(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.DestroyNode(ctx, topic, nodeUUID))
}

func (l *Local) ValidateDriverInterfaces(ctx context.Context, topic, nodeUUID string) (map[string]ValidationResult, error) {
	return result(l.srv.ValidateDriverInterfaces(ctx, topic, nodeUUID))
}

func (l *Local) GetDriverProperties(ctx context.Context, topic, driver string) (map[string]string, error) {
	return result(l.srv.GetDriverProperties(ctx, topic, driver))
}

func (l *Local) GetDriverVendorPassthruMethods(ctx context.Context, topic, driver string) (map[string]VendorMethod, error) {
	return result(l.srv.GetDriverVendorPassthruMethods(ctx, topic, driver))
}

func (l *Local) GetNodeVendorPassthruMethods(ctx context.Context, topic, nodeUUID string) (map[string]VendorMethod, error) {
	return result(l.srv.GetNodeVendorPassthruMethods(ctx, topic, nodeUUID))
}

func (l *Local) GetRAIDLogicalDiskProperties(ctx context.Context, topic, driver string) (map[string]string, error) {
	return result(l.srv.GetRAIDLogicalDiskProperties(ctx, topic, driver))
}

func (l *Local) AddNodeTraits(ctx context.Context, topic, nodeUUID string, traits []string, replace bool) error {
	in, err := through(traits)
	if err != nil {
		return err
	}
	return remote(l.srv.AddNodeTraits(ctx, topic, nodeUUID, in, replace))
}

func (l *Local) RemoveNodeTraits(ctx context.Context, topic, nodeUUID string, traits []string) error {
	in, err := through(traits)
	if err != nil {
		return err
	}
	return remote(l.srv.RemoveNodeTraits(ctx, topic, nodeUUID, in))
}

func (l *Local) VIFList(ctx context.Context, topic, nodeUUID string) ([]map[string]any, error) {
	return result(l.srv.VIFList(ctx, topic, nodeUUID))
}

func (l *Local) VIFAttach(ctx context.Context, topic, nodeUUID string, vifInfo map[string]any) error {
	in, err := through(vifInfo)
	if err != nil {
		return err
	}
	return remote(l.srv.VIFAttach(ctx, topic, nodeUUID, in))
}

func (l *Local) VIFDetach(ctx context.Context, topic, nodeUUID, vifID string) error {
	return remote(l.srv.VIFDetach(ctx, topic, nodeUUID, vifID))
}

func (l *Local) CreatePort(ctx context.Context, topic string, port *models.Port) (*models.Port, error) {
	in, err := through(port)
	if err != nil {
		return nil, err
	}
	return result(l.srv.CreatePort(ctx, topic, in))
}

func (l *Local) UpdatePort(ctx context.Context, topic string, port *models.Port, changes []string) (*models.Port, error) {
	in, err := through(port)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdatePort(ctx, topic, in, changes))
}

func (l *Local) DestroyPort(ctx context.Context, topic string, port *models.Port) error {
	in, err := through(port)
	if err != nil {
		return err
	}
	return remote(l.srv.DestroyPort(ctx, topic, in))
}

func (l *Local) UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	in, err := through(pg)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdatePortgroup(ctx, topic, in, changes))
}

func (l *Local) DestroyPortgroup(ctx context.Context, topic string, pg *models.Portgroup) error {
	in, err := through(pg)
	if err != nil {
		return err
	}
	return remote(l.srv.DestroyPortgroup(ctx, topic, in))
}

func (l *Local) UpdateVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	in, err := through(c)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdateVolumeConnector(ctx, topic, in, changes))
}

func (l *Local) DestroyVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector) error {
	in, err := through(c)
	if err != nil {
		return err
	}
	return remote(l.srv.DestroyVolumeConnector(ctx, topic, in))
}

func (l *Local) UpdateVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	in, err := through(t)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdateVolumeTarget(ctx, topic, in, changes))
}

func (l *Local) DestroyVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget) error {
	in, err := through(t)
	if err != nil {
		return err
	}
	return remote(l.srv.DestroyVolumeTarget(ctx, topic, in))
}

func (l *Local) ChangeNodePowerState(ctx context.Context, topic, nodeUUID, newState string, timeout int) error {
	return remote(l.srv.ChangeNodePowerState(ctx, topic, nodeUUID, newState, timeout))
}

func (l *Local) GetSupportedIndicators(ctx context.Context, topic, nodeUUID, component string) (map[string]map[string]Indicator, error) {
	return result(l.srv.GetSupportedIndicators(ctx, topic, nodeUUID, component))
}

func (l *Local) GetIndicatorState(ctx context.Context, topic, nodeUUID, component, indicator string) (string, error) {
	return result(l.srv.GetIndicatorState(ctx, topic, nodeUUID, component, indicator))
}

func (l *Local) SetIndicatorState(ctx context.Context, topic, nodeUUID, component, indicator, state string) error {
	return remote(l.srv.SetIndicatorState(ctx, topic, nodeUUID, component, indicator, state))
}

func (l *Local) ChangeNodeBootMode(ctx context.Context, topic, nodeUUID, newState string) error {
	return remote(l.srv.ChangeNodeBootMode(ctx, topic, nodeUUID, newState))
}

func (l *Local) ChangeNodeSecureBoot(ctx context.Context, topic, nodeUUID string, newState bool) error {
	return remote(l.srv.ChangeNodeSecureBoot(ctx, topic, nodeUUID, newState))
}

func (l *Local) VendorPassthru(ctx context.Context, topic, nodeUUID, method, httpMethod string, info any) (*VendorResult, error) {
	in, err := through(info)
	if err != nil {
		return nil, err
	}
	return result(l.srv.VendorPassthru(ctx, topic, nodeUUID, method, httpMethod, in))
}

func (l *Local) DriverVendorPassthru(ctx context.Context, topic, driver, method, httpMethod string, info any) (*VendorResult, error) {
	in, err := through(info)
	if err != nil {
		return nil, err
	}
	return result(l.srv.DriverVendorPassthru(ctx, topic, driver, method, httpMethod, in))
}

func (l *Local) DoNodeDeploy(ctx context.Context, topic, nodeUUID string, rebuild bool, configdrive any, deploySteps []map[string]any) error {
	cd, err := through(configdrive)
	if err != nil {
		return err
	}
	steps, err := through(deploySteps)
	if err != nil {
		return err
	}
	return remote(l.srv.DoNodeDeploy(ctx, topic, nodeUUID, rebuild, cd, steps))
}

func (l *Local) DoNodeTearDown(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.DoNodeTearDown(ctx, topic, nodeUUID))
}

func (l *Local) DoProvisioningAction(ctx context.Context, topic, nodeUUID, action string) error {
	return remote(l.srv.DoProvisioningAction(ctx, topic, nodeUUID, action))
}

func (l *Local) ContinueNodeClean(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.ContinueNodeClean(ctx, topic, nodeUUID))
}

func (l *Local) ContinueNodeDeploy(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.ContinueNodeDeploy(ctx, topic, nodeUUID))
}

func (l *Local) DoNodeClean(ctx context.Context, topic, nodeUUID string, cleanSteps []map[string]any, disableRamdisk *bool) error {
	steps, err := through(cleanSteps)
	if err != nil {
		return err
	}
	return remote(l.srv.DoNodeClean(ctx, topic, nodeUUID, steps, disableRamdisk))
}

func (l *Local) DoNodeRescue(ctx context.Context, topic, nodeUUID, rescuePassword string) error {
	return remote(l.srv.DoNodeRescue(ctx, topic, nodeUUID, rescuePassword))
}

func (l *Local) DoNodeUnrescue(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.DoNodeUnrescue(ctx, topic, nodeUUID))
}

func (l *Local) InspectHardware(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.InspectHardware(ctx, topic, nodeUUID))
}

func (l *Local) GetConsoleInformation(ctx context.Context, topic, nodeUUID string) (map[string]any, error) {
	return result(l.srv.GetConsoleInformation(ctx, topic, nodeUUID))
}

func (l *Local) SetConsoleMode(ctx context.Context, topic, nodeUUID string, enabled bool) error {
	return remote(l.srv.SetConsoleMode(ctx, topic, nodeUUID, enabled))
}

func (l *Local) SetBootDevice(ctx context.Context, topic, nodeUUID, device string, persistent bool) error {
	return remote(l.srv.SetBootDevice(ctx, topic, nodeUUID, device, persistent))
}

func (l *Local) GetBootDevice(ctx context.Context, topic, nodeUUID string) (*BootDevice, error) {
	return result(l.srv.GetBootDevice(ctx, topic, nodeUUID))
}

func (l *Local) GetSupportedBootDevices(ctx context.Context, topic, nodeUUID string) ([]string, error) {
	return result(l.srv.GetSupportedBootDevices(ctx, topic, nodeUUID))
}

func (l *Local) InjectNMI(ctx context.Context, topic, nodeUUID string) error {
	return remote(l.srv.InjectNMI(ctx, topic, nodeUUID))
}

func (l *Local) SetTargetRAIDConfig(ctx context.Context, topic, nodeUUID string, config map[string]any) error {
	in, err := through(config)
	if err != nil {
		return err
	}
	return remote(l.srv.SetTargetRAIDConfig(ctx, topic, nodeUUID, in))
}

func (l *Local) CreateAllocation(ctx context.Context, topic string, a *models.Allocation) (*models.Allocation, error) {
	in, err := through(a)
	if err != nil {
		return nil, err
	}
	return result(l.srv.CreateAllocation(ctx, topic, in))
}

func (l *Local) DestroyAllocation(ctx context.Context, topic string, a *models.Allocation) error {
	in, err := through(a)
	if err != nil {
		return err
	}
	return remote(l.srv.DestroyAllocation(ctx, topic, in))
}

func (l *Local) Heartbeat(ctx context.Context, topic, nodeUUID string, hb Heartbeat) error {
	in, err := through(hb)
	if err != nil {
		return err
	}
	return remote(l.srv.Heartbeat(ctx, topic, nodeUUID, in))
}

func (l *Local) GetNodeWithToken(ctx context.Context, topic, nodeUUID string) (*models.Node, error) {
	return result(l.srv.GetNodeWithToken(ctx, topic, nodeUUID))
}
