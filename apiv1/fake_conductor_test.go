package apiv1_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// Call is one conductor call a FakeConductor saw: the RPC method's name
// and its arguments after the topic.
type Call struct {
	Method string
	Args   []any
}

func (c Call) String() string { return fmt.Sprintf("%s%v", c.Method, c.Args) }

// FakeConductor stands in front of the real conductor client: it records
// the node-action calls and answers them itself (Err, or the canned
// results), passing every other call through. Install it with
// WithConductor(f.Wrap).
type FakeConductor struct {
	rpc.ConductorAPI

	// Err, when set, is every recorded call's answer.
	Err error
	// Answers of the calls that return something.
	Console    map[string]any
	BootDevice *rpc.BootDevice
	Supported  []string
	Vendor     *rpc.VendorResult
	// TokenNode is GetNodeWithToken's answer; nil passes the call through.
	TokenNode *models.Node

	mu    sync.Mutex
	calls []Call
}

// Wrap is the WithConductor hook.
func (f *FakeConductor) Wrap(next rpc.ConductorAPI) rpc.ConductorAPI {
	f.ConductorAPI = next
	return f
}

// Calls returns the calls recorded so far and forgets them.
func (f *FakeConductor) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func (f *FakeConductor) record(method string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, Call{Method: method, Args: args})
	return f.Err
}

func (f *FakeConductor) DoNodeDeploy(_ context.Context, _, node string, rebuild bool, configdrive any, steps []map[string]any) error {
	return f.record("DoNodeDeploy", node, rebuild, configdrive, steps)
}

func (f *FakeConductor) DoNodeTearDown(_ context.Context, _, node string) error {
	return f.record("DoNodeTearDown", node)
}

func (f *FakeConductor) DoProvisioningAction(_ context.Context, _, node string, action states.Event) error {
	return f.record("DoProvisioningAction", node, string(action))
}

func (f *FakeConductor) DoNodeClean(_ context.Context, _, node string, steps []map[string]any, disableRamdisk *bool) error {
	var dr any
	if disableRamdisk != nil {
		dr = *disableRamdisk
	}
	return f.record("DoNodeClean", node, steps, dr)
}

func (f *FakeConductor) DoNodeRescue(_ context.Context, _, node, password string) error {
	return f.record("DoNodeRescue", node, password)
}

func (f *FakeConductor) DoNodeUnrescue(_ context.Context, _, node string) error {
	return f.record("DoNodeUnrescue", node)
}

func (f *FakeConductor) InspectHardware(_ context.Context, _, node string) error {
	return f.record("InspectHardware", node)
}

func (f *FakeConductor) ChangeNodeBootMode(_ context.Context, _, node, mode string) error {
	return f.record("ChangeNodeBootMode", node, mode)
}

func (f *FakeConductor) ChangeNodeSecureBoot(_ context.Context, _, node string, on bool) error {
	return f.record("ChangeNodeSecureBoot", node, on)
}

func (f *FakeConductor) SetTargetRAIDConfig(_ context.Context, _, node string, cfg map[string]any) error {
	return f.record("SetTargetRAIDConfig", node, cfg)
}

func (f *FakeConductor) SetConsoleMode(_ context.Context, _, node string, enabled bool) error {
	return f.record("SetConsoleMode", node, enabled)
}

func (f *FakeConductor) GetConsoleInformation(_ context.Context, _, node string) (map[string]any, error) {
	return f.Console, f.record("GetConsoleInformation", node)
}

func (f *FakeConductor) SetBootDevice(_ context.Context, _, node, device string, persistent bool) error {
	return f.record("SetBootDevice", node, device, persistent)
}

func (f *FakeConductor) GetBootDevice(_ context.Context, _, node string) (*rpc.BootDevice, error) {
	return f.BootDevice, f.record("GetBootDevice", node)
}

func (f *FakeConductor) GetSupportedBootDevices(_ context.Context, _, node string) ([]string, error) {
	return f.Supported, f.record("GetSupportedBootDevices", node)
}

func (f *FakeConductor) InjectNMI(_ context.Context, _, node string) error {
	return f.record("InjectNMI", node)
}

func (f *FakeConductor) VendorPassthru(_ context.Context, _, node, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return f.Vendor, f.record("VendorPassthru", node, method, httpMethod, info)
}

func (f *FakeConductor) DriverVendorPassthru(_ context.Context, _, driver, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return f.Vendor, f.record("DriverVendorPassthru", driver, method, httpMethod, info)
}

func (f *FakeConductor) Heartbeat(_ context.Context, _, node string, hb rpc.Heartbeat) error {
	return f.record("Heartbeat", node, hb)
}

func (f *FakeConductor) GetNodeWithToken(ctx context.Context, topic, node string) (*models.Node, error) {
	if err := f.record("GetNodeWithToken", node); err != nil {
		return nil, err
	}
	if f.TokenNode != nil {
		return f.TokenNode, nil
	}
	return f.ConductorAPI.GetNodeWithToken(ctx, topic, node)
}

func (f *FakeConductor) CreateAllocation(_ context.Context, _ string, a *models.Allocation) (*models.Allocation, error) {
	if err := f.record("CreateAllocation", *a); err != nil {
		return nil, err
	}
	out := *a
	out.State = "allocating"
	return &out, nil
}

func (f *FakeConductor) DestroyAllocation(_ context.Context, _ string, a *models.Allocation) error {
	return f.record("DestroyAllocation", a.UUID)
}
