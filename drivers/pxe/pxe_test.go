package pxe_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/pxe"
)

func task(di, ii map[string]any) *fake.Task {
	return &fake.Task{
		Node:     &fake.Node{UUID: "u", Driver: "ipmi", DriverInfo: di, InstanceInfo: ii},
		PortList: []drivers.Port{{UUID: "p", Address: "52:54:00:00:00:01"}},
	}
}

func TestValidate(t *testing.T) {
	ctx := context.Background()
	cfg := pxe.DefaultConfig()
	cfg.HTTPURL = "http://10.0.0.1:8080"
	kr := map[string]any{"deploy_kernel": "k", "deploy_ramdisk": "r"}
	tests := []struct {
		name  string
		boot  *pxe.Boot
		task  *fake.Task
		class ironic.Class
		msg   string
	}{
		{"ipxe without http_url", pxe.NewBoot(pxe.DefaultConfig(), true), task(kr, nil),
			ironic.MissingParameterValue, "iPXE boot is enabled but no HTTP URL or HTTP root was specified"},
		{"pxe without http_url", pxe.NewBoot(pxe.DefaultConfig(), false), task(kr, nil), "", ""},
		{"ipxe", pxe.NewBoot(cfg, true), task(kr, nil), "", ""},
		{"kernel and ramdisk from the configuration", pxe.NewBoot(pxe.Config{HTTPURL: "u", HTTPRoot: "r", DeployKernel: "k", DeployRamdisk: "r"}, true),
			task(nil, nil), "", ""},
		{"only a kernel", pxe.NewBoot(cfg, false), task(map[string]any{"deploy_kernel": "k"}, nil), ironic.MissingParameterValue,
			"Cannot validate PXE bootloader. Some parameters were missing in node's driver_info and configuration. Missing are: ['deploy_ramdisk']"},
		{"bad capabilities string", pxe.NewBoot(cfg, false), task(kr, map[string]any{"capabilities": "{bad"}), ironic.InvalidParameterValue,
			"Error parsing capabilities from Node u instance_info field. A dictionary or a \"jsonified\" dictionary is expected."},
		{"capabilities as a JSON string", pxe.NewBoot(cfg, false), task(kr, map[string]any{"capabilities": `{"boot_mode": "uefi"}`}), "", ""},
	}
	for _, tt := range tests {
		err := tt.boot.Validate(ctx, tt.task)
		if tt.class == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if !ironic.IsClass(err, tt.class) || err.Error() != tt.msg {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestValidateRescueAndInspection(t *testing.T) {
	ctx := context.Background()
	b := pxe.NewBoot(pxe.DefaultConfig(), false)
	err := b.ValidateRescue(ctx, task(nil, nil))
	if err == nil || err.Error() != "Cannot validate PXE bootloader. Some parameters were missing in node's driver_info and configuration. Missing are: ['rescue_kernel', 'rescue_ramdisk']" {
		t.Errorf("rescue: %v", err)
	}
	err = b.ValidateInspection(ctx, task(nil, nil))
	if !ironic.IsClass(err, ironic.UnsupportedDriverExtension) || err.Error() != "Driver ipmi does not support inspection (disabled or not implemented)." {
		t.Errorf("inspection: %v", err)
	}
	if err := b.PrepareInstance(ctx, task(nil, nil)); !ironic.IsClass(err, ironic.IronicException) {
		t.Errorf("PrepareInstance: %v", err)
	}
}
