package generic_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
)

func task() *fake.Task { return &fake.Task{Node: &fake.Node{UUID: "u", Driver: "ipmi"}} }

func TestNoInterfacesFail(t *testing.T) {
	ctx := context.Background()
	tk := task()
	tests := []struct {
		name string
		err  error
		msg  string
	}{
		{"no-bios validate", generic.NoBIOS{}.Validate(ctx, tk), "Driver ipmi does not support bios (disabled or not implemented)."},
		{"no-bios apply", generic.NoBIOS{}.ApplyConfiguration(ctx, tk, nil), "Driver ipmi does not support bios (disabled or not implemented)."},
		{"no-console start", generic.NoConsole{}.StartConsole(ctx, tk), "Driver ipmi does not support console (disabled or not implemented)."},
		{"no-inspect abort", generic.NoInspect{}.Abort(ctx, tk), "Driver ipmi does not support abort (disabled or not implemented)."},
		{"no-raid config", generic.NoRAID{}.ValidateRAIDConfig(ctx, tk, nil), "Driver ipmi does not support raid (disabled or not implemented)."},
		{"no-rescue validate", generic.NoRescue{}.Validate(ctx, tk), "Driver ipmi does not support rescue (disabled or not implemented)."},
		{"no-vendor validate", generic.NoVendor{}.Validate(ctx, tk, "m", "POST", nil), "Driver ipmi does not support vendor (disabled or not implemented)."},
		{"no-vendor driver validate", generic.NoVendor{}.DriverValidate(ctx, "m", "POST", nil), "Driver NoVendor does not support vendor (disabled or not implemented)."},
	}
	for _, tt := range tests {
		if !ironic.IsClass(tt.err, ironic.UnsupportedDriverExtension) || tt.err.Error() != tt.msg {
			t.Errorf("%s: %v", tt.name, tt.err)
		}
	}
	if err := (generic.NoBIOS{}).CacheBIOSSettings(ctx, tk); err != nil {
		t.Errorf("no-bios cache: %v", err)
	}
	if len(generic.NoRAID{}.GetLogicalDiskProperties()) != 10 {
		t.Error("no-raid lists no logical disk properties")
	}
}

func TestNoops(t *testing.T) {
	ctx := context.Background()
	tk := task()
	m := generic.NoopManagement{}
	if err := m.SetBootDevice(ctx, tk, drivers.BootDeviceDisk, true); err != nil {
		t.Error(err)
	}
	err := m.SetBootDevice(ctx, tk, drivers.BootDeviceCDROM, true)
	if !ironic.IsClass(err, ironic.InvalidParameterValue) || err.Error() != "Invalid boot device cdrom specified, supported are pxe, disk." {
		t.Errorf("cdrom: %v", err)
	}
	if bd, _ := m.GetBootDevice(ctx, tk); bd.Device != "pxe" || !*bd.Persistent {
		t.Errorf("boot device %+v", bd)
	}
	if _, err := m.GetSensorsData(ctx, tk); !ironic.IsClass(err, ironic.IronicException) {
		t.Errorf("sensors: %v", err)
	}
	n := generic.NoopNetwork{}
	if err := n.VIFAttach(ctx, tk, drivers.VIF{"id": "v"}); err != nil {
		t.Error(err)
	}
	if vifs, err := n.VIFList(ctx, tk); err != nil || len(vifs) != 0 || vifs == nil {
		t.Errorf("VIFList %v %v", vifs, err)
	}
	if err := n.ValidateInspection(ctx, tk); err != nil {
		t.Errorf("noop network ValidateInspection: %v", err)
	}
	if w, _ := (generic.NoopStorage{}).ShouldWriteImage(ctx, tk); !w {
		t.Error("noop storage doesn't write images")
	}
}
