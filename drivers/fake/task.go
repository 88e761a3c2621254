package fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// Node is the node data a Task holds.
type Node struct {
	UUID   string
	Name   string
	Driver string
	// Interfaces are the node's <kind>_interface fields.
	Interfaces         map[drivers.Kind]string
	DriverInfo         *pyjson.Dict
	DriverInternalInfo *pyjson.Dict
	InstanceInfo       *pyjson.Dict
	Properties         *pyjson.Dict
	TargetRAIDConfig   *pyjson.Dict
	RAIDConfig         *pyjson.Dict
	NetworkData        *pyjson.Dict
	AutomatedClean     *bool
	PowerState         states.Power
	ProvisionState     states.Provision
	// LastError is the node's last_error (nil for None; what
	// FailInspection recorded).
	LastError *string
	// TargetProvisionState and Maintenance are the node's fields.
	TargetProvisionState states.Provision
	Maintenance          bool
	// CleanStep and DeployStep are the node's current steps.
	CleanStep    *pyjson.Dict
	DeployStep   *pyjson.Dict
	InstanceUUID string
}

// Task is an in-memory drivers.Task for tests. Build its Driver with
// drivers.Registry.BuildDriver or drivers.NewDriver.
type Task struct {
	Node          *Node
	Drv           *drivers.Driver
	PortList      []drivers.Port
	PortgroupList []drivers.Portgroup
	SharedLock    bool
	BIOS          *BIOSStore
	// Vols holds the node's volume connectors and targets.
	Vols *VolumeStore
	// Saves counts calls to Save; PortSaves those to SavePort and
	// SavePortgroup.
	Saves     int
	PortSaves int
	// PowerActions records the states PowerAction was asked for, in order.
	PowerActions []states.Power
	// Flow records the calls into the conductor's flows (StepFlow,
	// RescueFlow, UpgradeLock), in order: "upgrade lock", "set cleaning
	// steps", "continue <phase>", "fail <phase>: <msg>", "touch
	// provisioning", "event <name>", "fail rescue: <msg>".
	Flow []string
	// Inventory and PluginData are what StoreInventory stored; After the
	// functions AfterRelease was given (RunAfter runs them).
	Inventory, PluginData *pyjson.Dict
	After                 []func(ctx context.Context, withNode drivers.WithNode)
}

var _ drivers.Task = (*Task)(nil)

func orEmpty(d **pyjson.Dict) *pyjson.Dict {
	if *d == nil {
		*d = pyjson.NewDict(0)
	}
	return *d
}

// NodeUUID implements drivers.Task.
func (t *Task) NodeUUID() string { return t.Node.UUID }

// NodeName implements drivers.Task.
func (t *Task) NodeName() string { return t.Node.Name }

// TargetProvisionState implements drivers.Task.
func (t *Task) TargetProvisionState() states.Provision { return t.Node.TargetProvisionState }

// Maintenance implements drivers.Task.
func (t *Task) Maintenance() bool { return t.Node.Maintenance }

// DriverName implements drivers.Task.
func (t *Task) DriverName() string { return t.Node.Driver }

// Driver implements drivers.Task.
func (t *Task) Driver() *drivers.Driver { return t.Drv }

// InterfaceName implements drivers.Task.
func (t *Task) InterfaceName(k drivers.Kind) string {
	if v, ok := t.Node.InstanceInfo.Get(k.Field()).(string); ok {
		return v
	}
	if n := t.Node.Interfaces[k]; n != "" {
		return n
	}
	if t.Drv != nil {
		return t.Drv.ImplName(k)
	}
	return ""
}

// DriverInfo implements drivers.Task.
func (t *Task) DriverInfo() *pyjson.Dict { return orEmpty(&t.Node.DriverInfo) }

// DriverInternalInfo implements drivers.Task.
func (t *Task) DriverInternalInfo() *pyjson.Dict { return orEmpty(&t.Node.DriverInternalInfo) }

// InstanceInfo implements drivers.Task.
func (t *Task) InstanceInfo() *pyjson.Dict { return orEmpty(&t.Node.InstanceInfo) }

// Properties implements drivers.Task.
func (t *Task) Properties() *pyjson.Dict { return orEmpty(&t.Node.Properties) }

// TargetRAIDConfig implements drivers.Task.
func (t *Task) TargetRAIDConfig() *pyjson.Dict { return orEmpty(&t.Node.TargetRAIDConfig) }

// RAIDConfig implements drivers.Task.
func (t *Task) RAIDConfig() *pyjson.Dict { return orEmpty(&t.Node.RAIDConfig) }

// NetworkData implements drivers.Task.
func (t *Task) NetworkData() *pyjson.Dict { return orEmpty(&t.Node.NetworkData) }

// AutomatedClean implements drivers.Task.
func (t *Task) AutomatedClean() *bool { return t.Node.AutomatedClean }

// PowerState implements drivers.Task.
func (t *Task) PowerState() states.Power { return t.Node.PowerState }

// LastError implements drivers.Task.
func (t *Task) LastError() *string { return t.Node.LastError }

// SetPowerState implements drivers.Task.
func (t *Task) SetPowerState(s states.Power) { t.Node.PowerState = s }

// PowerAction implements drivers.Task: the driver's power interface
// moves the node (no call when it already reports state, as the
// conductor skips it too) and the resulting state is recorded.
func (t *Task) PowerAction(ctx context.Context, state states.Power) error {
	t.PowerActions = append(t.PowerActions, state)
	if t.Drv == nil || t.Drv.Power == nil {
		return fmt.Errorf("fake task: node %s has no power interface", t.Node.UUID)
	}
	target := states.PowerOff
	if state == states.PowerOn || state == states.Rebooting || state == states.SoftRebooting {
		target = states.PowerOn
	}
	if state == states.PowerOn || state == states.PowerOff || state == states.SoftPowerOff {
		cur, err := t.Drv.Power.GetPowerState(ctx, t)
		if err != nil {
			return err
		}
		if cur == target {
			t.Node.PowerState = cur
			return nil
		}
	}
	var err error
	if state == states.Rebooting {
		err = t.Drv.Power.Reboot(ctx, t, 0)
	} else {
		err = t.Drv.Power.SetPowerState(ctx, t, state, 0)
	}
	if err != nil {
		return err
	}
	t.Node.PowerState = target
	return nil
}

// ProvisionState implements drivers.Task.
func (t *Task) ProvisionState() states.Provision { return t.Node.ProvisionState }

// InstanceUUID implements drivers.Task.
func (t *Task) InstanceUUID() string { return t.Node.InstanceUUID }

// SavePort implements drivers.Task: the port of PortList with p's UUID
// gets p's InternalInfo and Extra.
func (t *Task) SavePort(_ context.Context, p drivers.Port) error {
	for i := range t.PortList {
		if t.PortList[i].UUID == p.UUID {
			t.PortList[i].InternalInfo, t.PortList[i].Extra = p.InternalInfo, p.Extra
			t.PortSaves++
			return nil
		}
	}
	return fmt.Errorf("fake task: no port %s", p.UUID)
}

// SavePortgroup implements drivers.Task.
func (t *Task) SavePortgroup(_ context.Context, pg drivers.Portgroup) error {
	for i := range t.PortgroupList {
		if t.PortgroupList[i].UUID == pg.UUID {
			t.PortgroupList[i].InternalInfo, t.PortgroupList[i].Extra = pg.InternalInfo, pg.Extra
			t.PortSaves++
			return nil
		}
	}
	return fmt.Errorf("fake task: no port group %s", pg.UUID)
}

// CreatePort implements drivers.Task: a port with the address, refused
// (MACAlreadyExists) when one of the task's ports has it.
func (t *Task) CreatePort(_ context.Context, address string) error {
	for _, p := range t.PortList {
		if strings.EqualFold(p.Address, address) {
			return ironic.Errorf(ironic.MACAlreadyExists, "A port with MAC address %s already exists.", address)
		}
	}
	t.PortList = append(t.PortList, drivers.Port{UUID: fmt.Sprintf("port-%d", len(t.PortList)+1), Address: address, PXEEnabled: true})
	t.PortSaves++
	return nil
}

// Ports implements drivers.Task.
func (t *Task) Ports() []drivers.Port { return t.PortList }

// Portgroups implements drivers.Task.
func (t *Task) Portgroups() []drivers.Portgroup { return t.PortgroupList }

// Shared implements drivers.Task.
func (t *Task) Shared() bool { return t.SharedLock }

// BIOSSettings implements drivers.Task.
func (t *Task) BIOSSettings() drivers.BIOSSettingsStore {
	if t.BIOS == nil {
		t.BIOS = &BIOSStore{}
	}
	return t.BIOS
}

// Volumes implements drivers.Task.
func (t *Task) Volumes() drivers.VolumeStore {
	if t.Vols == nil {
		t.Vols = &VolumeStore{}
	}
	return t.Vols
}

// VolumeStore is an in-memory drivers.VolumeStore of one node.
type VolumeStore struct {
	mu             sync.Mutex
	ConnectorList  []drivers.VolumeConnector
	TargetList     []drivers.VolumeTarget
	PropertySaves  int
	DestroyedUUIDs []string
}

// Connectors implements drivers.VolumeStore.
func (s *VolumeStore) Connectors(context.Context) ([]drivers.VolumeConnector, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ConnectorList), nil
}

// Targets implements drivers.VolumeStore.
func (s *VolumeStore) Targets(context.Context) ([]drivers.VolumeTarget, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.TargetList), nil
}

// SetTargetProperties implements drivers.VolumeStore.
func (s *VolumeStore) SetTargetProperties(_ context.Context, volumeID string, props *pyjson.Dict) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range s.TargetList {
		if s.TargetList[i].VolumeID == volumeID {
			s.TargetList[i].Properties = props
			n++
		}
	}
	s.PropertySaves += n
	return n, nil
}

// DestroyTarget implements drivers.VolumeStore.
func (s *VolumeStore) DestroyTarget(_ context.Context, uuid string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.TargetList = slices.DeleteFunc(s.TargetList, func(t drivers.VolumeTarget) bool { return t.UUID == uuid })
	s.DestroyedUUIDs = append(s.DestroyedUUIDs, uuid)
	return nil
}

// Save implements drivers.Task.
func (t *Task) Save(context.Context) error {
	t.Saves++
	return nil
}

// BIOSStore is an in-memory drivers.BIOSSettingsStore.
type BIOSStore struct {
	mu       sync.Mutex
	settings []drivers.BIOSSetting
}

// List implements drivers.BIOSSettingsStore.
func (s *BIOSStore) List(context.Context) ([]drivers.BIOSSetting, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.settings), nil
}

// Replace implements drivers.BIOSSettingsStore.
func (s *BIOSStore) Replace(_ context.Context, settings []drivers.BIOSSetting) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	byName := map[string]drivers.BIOSSetting{}
	for _, x := range settings {
		byName[x.Name] = x
	}
	s.settings = s.settings[:0]
	for _, x := range byName {
		s.settings = append(s.settings, x)
	}
	slices.SortFunc(s.settings, func(a, b drivers.BIOSSetting) int { return strings.Compare(a.Name, b.Name) })
	return nil
}
