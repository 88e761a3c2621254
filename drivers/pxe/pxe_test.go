package pxe_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/internal/pyjson"
)

func task(di, ii *pyjson.Dict) *fake.Task {
	return &fake.Task{
		Node:     &fake.Node{UUID: "u", Driver: "ipmi", DriverInfo: di, InstanceInfo: ii},
		PortList: []drivers.Port{{UUID: "p", Address: "52:54:00:00:00:01"}},
	}
}

func TestValidate(t *testing.T) {
	ctx := context.Background()
	cfg := pxe.DefaultConfig()
	cfg.HTTPURL = "http://10.0.0.1:8080"
	kr := pyjson.DictOf("deploy_kernel", "k", "deploy_ramdisk", "r")
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
		{"only a kernel", pxe.NewBoot(cfg, false), task(pyjson.DictOf("deploy_kernel", "k"), nil), ironic.MissingParameterValue,
			"Cannot validate PXE bootloader. Some parameters were missing in node's driver_info and configuration. Missing are: ['deploy_ramdisk']"},
		{"bad capabilities string", pxe.NewBoot(cfg, false), task(kr, pyjson.DictOf("capabilities", "{bad")), ironic.InvalidParameterValue,
			"Error parsing capabilities from Node u instance_info field. A dictionary or a \"jsonified\" dictionary is expected."},
		{"capabilities as a JSON string", pxe.NewBoot(cfg, false), task(kr, pyjson.DictOf("capabilities", `{"boot_mode": "uefi"}`)), "", ""},
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
}

// recMgmt records SetBootDevice calls.
type recMgmt struct {
	fake.Management
	calls []string
}

func (m *recMgmt) SetBootDevice(_ context.Context, _ drivers.Task, dev string, persistent bool) error {
	p := "once"
	if persistent {
		p = "persistent"
	}
	m.calls = append(m.calls, dev+" "+p)
	return nil
}

func TestPrepareSetsBootDevice(t *testing.T) {
	ctx := context.Background()
	b := pxe.NewBoot(pxe.Config{HTTPURL: "http://h", HTTPRoot: "/r", AutomatedClean: true}, true)
	// http(s) images are not fetched: iPXE loads them where they are.
	kr := pyjson.DictOf("deploy_kernel", "http://i/k", "deploy_ramdisk", "http://i/r")
	for _, tc := range []struct {
		name string
		run  func(*fake.Task) error
		task *fake.Task
		want string
	}{
		{"ramdisk", func(tk *fake.Task) error { return b.PrepareRamdisk(ctx, tk, nil, "deploy") }, task(kr, nil), "pxe once"},
		{"ramdisk always persistent", func(tk *fake.Task) error { return b.PrepareRamdisk(ctx, tk, nil, "deploy") },
			task(pyjson.DictOf("deploy_kernel", "http://i/k", "deploy_ramdisk", "http://i/r", "force_persistent_boot_device", "Always"), nil), "pxe persistent"},
		{"whole disk", func(tk *fake.Task) error { return b.PrepareInstance(ctx, tk) }, task(kr, pyjson.DictOf("image_source", "http://i")), "disk persistent"},
		// Ironic 21.4 has no netboot of partition images: they boot locally.
		{"partition image", func(tk *fake.Task) error { return b.PrepareInstance(ctx, tk) }, task(kr, pyjson.DictOf("kernel", "k", "ramdisk", "r")), "disk persistent"},
		{"ramdisk deploy", func(tk *fake.Task) error { return b.PrepareInstance(ctx, tk) }, func() *fake.Task {
			tk := task(kr, pyjson.DictOf("kernel", "http://i/k", "ramdisk", "http://i/r"))
			tk.Node.Interfaces = map[drivers.Kind]string{drivers.Deploy: "ramdisk"}
			return tk
		}(), "pxe persistent"},
		{"boot from iscsi volume", func(tk *fake.Task) error { return b.PrepareInstance(ctx, tk) }, func() *fake.Task {
			tk := task(kr, nil)
			tk.Node.DriverInternalInfo = pyjson.DictOf("boot_from_volume", "t")
			tk.Vols = &fake.VolumeStore{TargetList: []drivers.VolumeTarget{{UUID: "t", VolumeType: "iscsi"}}}
			return tk
		}(), "pxe persistent"},
		{"boot from fibre channel volume", func(tk *fake.Task) error { return b.PrepareInstance(ctx, tk) }, func() *fake.Task {
			tk := task(kr, nil)
			tk.Node.DriverInternalInfo = pyjson.DictOf("boot_from_volume", "t")
			tk.Vols = &fake.VolumeStore{TargetList: []drivers.VolumeTarget{{UUID: "t", VolumeType: "fibre_channel"}}}
			return tk
		}(), "disk persistent"},
		{"active (takeover) keeps the boot device", func(tk *fake.Task) error {
			tk.Node.ProvisionState = "active"
			if err := b.PrepareInstance(ctx, tk); err != nil {
				return err
			}
			return b.PrepareRamdisk(ctx, tk, nil, "deploy")
		}, task(kr, nil), "pxe once"},
	} {
		m := &recMgmt{}
		tc.task.Drv = &drivers.Driver{Management: m}
		if err := tc.run(tc.task); err != nil || len(m.calls) != 1 || m.calls[0] != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, err, m.calls, tc.want)
		}
		// The fake management interface can't tell or set the boot mode:
		// the default is recorded, as Ironic's sync_boot_mode does.
		if got := tc.task.Node.DriverInternalInfo.Get("deploy_boot_mode"); got != "uefi" {
			t.Errorf("%s: deploy_boot_mode %v, want uefi", tc.name, got)
		}
	}
	if err := b.PrepareRamdisk(ctx, task(nil, nil), nil, "rescue"); !ironic.IsClass(err, ironic.MissingParameterValue) {
		t.Errorf("rescue without images: %v", err)
	}
}
