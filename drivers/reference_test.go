package drivers_test

import (
	"context"
	"slices"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestReferenceProperties compares GET /v1/drivers/{name}/properties
// byte for byte with the reference's answers.
func TestReferenceProperties(t *testing.T) {
	cfg := referenceConfig()
	cfg.EnabledHardwareTypes = append(cfg.EnabledHardwareTypes, "manual-management")
	reg, err := drivers.NewRegistry(cfg, referenceImplementations()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, ht := range []string{"fake-hardware", "ipmi", "redfish", "manual-management"} {
		props, err := reg.DriverProperties(ht)
		if err != nil {
			t.Fatalf("%s: %v", ht, err)
		}
		want := string(readTestdata(t, "reference", "properties", ht+".json"))
		if got := marshal(t, props.Object()); got != want {
			t.Errorf("%s properties:\n got %s\nwant %s", ht, got, want)
		}
	}
}

func TestReferenceRAIDLogicalDiskProperties(t *testing.T) {
	reg := newReferenceRegistry(t)
	want := string(readTestdata(t, "reference", "raid-logical-disk-properties.json"))
	for _, ht := range reg.HardwareTypes() {
		props, err := reg.RAIDLogicalDiskProperties(ht)
		if err != nil {
			t.Fatal(err)
		}
		if got := marshal(t, props.Object()); got != want {
			t.Errorf("%s:\n got %s\nwant %s", ht, got, want)
		}
	}
}

func TestReferenceVendorMethods(t *testing.T) {
	reg := newReferenceRegistry(t)
	for _, ht := range reg.HardwareTypes() {
		m, err := reg.DriverVendorMethods(ht)
		if err != nil {
			t.Fatal(err)
		}
		if got := marshal(t, m.DriverMetadata()); got != "{}" {
			t.Errorf("%s driver vendor methods = %s, reference {}", ht, got)
		}
	}
	for ht, impl := range map[string]string{"fake-hardware": "fake", "ipmi": "ipmitool", "redfish": "redfish"} {
		drv, err := reg.BuildDriver(&drivers.NodeInterfaces{UUID: "u", Driver: ht})
		if err != nil {
			t.Fatal(err)
		}
		if drv.ImplName(drivers.Vendor) != impl {
			t.Fatalf("%s vendor = %s", ht, drv.ImplName(drivers.Vendor))
		}
		want := string(readTestdata(t, "reference", "node-vendor-methods", impl+".json"))
		if got := marshal(t, drv.Vendor.Routes().NodeMetadata()); got != want {
			t.Errorf("%s node vendor methods:\n got %s\nwant %s", ht, got, want)
		}
	}
}

// validateScenario is one node of testdata/reference/validate.json: how it
// was created on the reference and what GET /v1/nodes/{node}/validate
// answered.
type validateScenario struct {
	Name     string       `json:"name"`
	UUID     string       `json:"uuid"`
	Node     *pyjson.Dict `json:"node"`
	Ports    []string     `json:"ports"`
	Validate string       `json:"validate"`
}

// updateImageType does what Ironic's conductor does to a node before
// validating it (conductor.utils.update_image_type) in the cases the
// scenarios cover: an explicit image_type wins, otherwise a non-Glance
// image without kernel and ramdisk is a whole disk image.
func updateImageType(n *fake.Node) {
	src := n.InstanceInfo.Get("image_source")
	if src == nil || src == "" || deployutil.IsGlanceImage(src) {
		return
	}
	var wholeDisk bool
	if it, ok := n.InstanceInfo.Get("image_type").(string); ok && it != "" {
		wholeDisk = it != "partition"
	} else {
		wholeDisk = n.InstanceInfo.Get("kernel") == nil && n.InstanceInfo.Get("ramdisk") == nil
	}
	if n.DriverInternalInfo == nil {
		n.DriverInternalInfo = pyjson.DictOf()
	}
	n.DriverInternalInfo.Set("is_whole_disk_image", wholeDisk)
	n.InstanceInfo.Set("image_type", map[bool]string{true: "whole-disk", false: "partition"}[wholeDisk])
}

func mapField(node *pyjson.Dict, key string) *pyjson.Dict {
	m, _ := node.Get(key).(*pyjson.Dict)
	if m == nil {
		m = pyjson.NewDict(0)
	}
	return m
}

// TestReferenceValidate rebuilds every recorded node and compares our
// validation with the reference's, byte for byte.
func TestReferenceValidate(t *testing.T) {
	reg := newReferenceRegistry(t)
	var scenarios []validateScenario
	if err := pyjson.Unmarshal(readTestdata(t, "reference", "validate.json"), &scenarios); err != nil {
		t.Fatal(err)
	}
	if len(scenarios) < 40 {
		t.Fatalf("only %d scenarios", len(scenarios))
	}
	ctx := context.Background()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			n := &fake.Node{
				UUID:         sc.UUID,
				Driver:       sc.Node.Get("driver").(string),
				Interfaces:   map[drivers.Kind]string{},
				DriverInfo:   mapField(sc.Node, "driver_info"),
				InstanceInfo: mapField(sc.Node, "instance_info"),
				Properties:   mapField(sc.Node, "properties"),
				// Nodes are created in "enroll".
				ProvisionState: "enroll",
			}
			for _, k := range drivers.Kinds() {
				if v, ok := sc.Node.Get(k.Field()).(string); ok {
					n.Interfaces[k] = v
				}
			}
			updateImageType(n)
			ni := &drivers.NodeInterfaces{UUID: n.UUID, Driver: n.Driver, Fields: n.Interfaces, InstanceInfo: n.InstanceInfo}
			drv, err := reg.BuildDriver(ni)
			if err != nil {
				t.Fatal(err)
			}
			task := &fake.Task{Node: n, Drv: drv, SharedLock: true}
			for i, mac := range sc.Ports {
				task.PortList = append(task.PortList, drivers.Port{UUID: string(rune('a' + i)), Address: mac, PXEEnabled: true})
			}
			res := reg.ValidateNode(ctx, task, drivers.WithHost("ref-ironic-6390"))
			if got := marshal(t, res.Object()); got != sc.Validate {
				t.Errorf("validate:\n got %s\nwant %s", got, sc.Validate)
			}
		})
	}
}

type raidCase struct {
	Config *pyjson.Dict `json:"config"`
	Driver string       `json:"driver"`
	Status int          `json:"status"`
	Error  *string      `json:"error"`
}

// TestReferenceRAIDConfig compares ValidateRAIDConfig with the reference's
// answers to PUT /v1/nodes/{node}/states/raid.
func TestReferenceRAIDConfig(t *testing.T) {
	reg := newReferenceRegistry(t)
	var cases []raidCase
	if err := pyjson.Unmarshal(readTestdata(t, "reference", "raid-config.json"), &cases); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, c := range cases {
		if c.Config.Len() == 0 {
			continue // an empty configuration clears target_raid_config
		}
		ht := "fake-hardware"
		if c.Driver != "" {
			ht = c.Driver
		}
		drv, err := reg.BuildDriver(&drivers.NodeInterfaces{UUID: "u", Driver: ht})
		if err != nil {
			t.Fatal(err)
		}
		task := &fake.Task{Node: &fake.Node{UUID: "u", Driver: ht}, Drv: drv}
		err = drv.RAID.ValidateRAIDConfig(ctx, task, c.Config)
		switch {
		case c.Error == nil && err != nil:
			t.Errorf("case %d: unexpected error %v", i, err)
		case c.Error != nil && err == nil:
			t.Errorf("case %d: no error, reference: %s", i, *c.Error)
		case c.Error != nil && (err.Error() != *c.Error || !ironic.IsClass(err, ironic.InvalidParameterValue)):
			t.Errorf("case %d:\n got %v\nwant %s", i, err, *c.Error)
		}
	}
	if slices.IndexFunc(cases, func(c raidCase) bool { return c.Error != nil }) < 0 {
		t.Fatal("no error cases recorded")
	}
}
