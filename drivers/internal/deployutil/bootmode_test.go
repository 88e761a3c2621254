package deployutil

import (
	"context"
	"testing"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// bootDevices records SetBootDevice calls.
type bootDevices struct {
	fake.Management
	set []string
}

func (b *bootDevices) SetBootDevice(_ context.Context, _ drivers.Task, device string, persistent bool) error {
	s := device
	if persistent {
		s += " persistent"
	}
	b.set = append(b.set, s)
	return nil
}

// TestNodeSetBootDevice: driver_info/force_persistent_boot_device as
// conductor.utils.node_set_boot_device reads it, and nothing set while
// adopting.
func TestNodeSetBootDevice(t *testing.T) {
	for _, tc := range []struct {
		force      any
		persistent bool
		want       string
	}{
		{nil, false, "pxe"},
		{nil, true, "pxe persistent"},
		{"Always", false, "pxe persistent"},
		{"Never", true, "pxe"},
		{"Default", true, "pxe persistent"},
		{"True", false, "pxe persistent"},
		{"yes", false, "pxe persistent"},
		{"False", true, "pxe persistent"}, // only a true value overrides
		{"always", false, "pxe"},          // the names are case-sensitive
	} {
		mgmt := &bootDevices{}
		info := pyjson.NewDict(0)
		if tc.force != nil {
			info.Set("force_persistent_boot_device", tc.force)
		}
		task := &fake.Task{Node: &fake.Node{UUID: "u", DriverInfo: info, ProvisionState: states.Manageable},
			Drv: &drivers.Driver{Management: mgmt}}
		if err := NodeSetBootDevice(context.Background(), task, drivers.BootDevicePXE, tc.persistent); err != nil {
			t.Fatal(err)
		}
		if len(mgmt.set) != 1 || mgmt.set[0] != tc.want {
			t.Errorf("force %v, persistent %v: set %v, want %s", tc.force, tc.persistent, mgmt.set, tc.want)
		}
	}
	mgmt := &bootDevices{}
	task := &fake.Task{Node: &fake.Node{UUID: "u", ProvisionState: states.Adopting}, Drv: &drivers.Driver{Management: mgmt}}
	if err := NodeSetBootDevice(context.Background(), task, drivers.BootDevicePXE, true); err != nil || len(mgmt.set) != 0 {
		t.Errorf("adopting: %v %v", mgmt.set, err)
	}
}
