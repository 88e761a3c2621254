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

func (l *Local) DestroyPort(ctx context.Context, topic, portUUID string) error {
	return remote(l.srv.DestroyPort(ctx, topic, portUUID))
}

func (l *Local) UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	in, err := through(pg)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdatePortgroup(ctx, topic, in, changes))
}

func (l *Local) DestroyPortgroup(ctx context.Context, topic, portgroupUUID string) error {
	return remote(l.srv.DestroyPortgroup(ctx, topic, portgroupUUID))
}

func (l *Local) UpdateVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	in, err := through(c)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdateVolumeConnector(ctx, topic, in, changes))
}

func (l *Local) DestroyVolumeConnector(ctx context.Context, topic, uuid string) error {
	return remote(l.srv.DestroyVolumeConnector(ctx, topic, uuid))
}

func (l *Local) UpdateVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	in, err := through(t)
	if err != nil {
		return nil, err
	}
	return result(l.srv.UpdateVolumeTarget(ctx, topic, in, changes))
}

func (l *Local) DestroyVolumeTarget(ctx context.Context, topic, uuid string) error {
	return remote(l.srv.DestroyVolumeTarget(ctx, topic, uuid))
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
