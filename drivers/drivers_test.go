package drivers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
)

func TestKinds(t *testing.T) {
	if len(drivers.Kinds()) != 12 || len(drivers.ValidationKinds()) != 11 || len(drivers.PropertiesOrder()) != 12 {
		t.Fatal("wrong number of kinds")
	}
	for _, k := range drivers.Kinds() {
		if got, ok := drivers.ParseKind(string(k)); !ok || got != k {
			t.Errorf("ParseKind(%s)", k)
		}
	}
	if _, ok := drivers.ParseKind("firmware"); ok {
		t.Error("firmware is not an Ironic 21.4 interface")
	}
	if drivers.Boot.Field() != "boot_interface" {
		t.Error(drivers.Boot.Field())
	}
}

func TestPropertiesUpdate(t *testing.T) {
	p := drivers.Properties{{"a", "1"}, {"b", "2"}}
	q := p.Update(drivers.Properties{{"c", "3"}, {"a", "new"}})
	if marshal(t, q.Object()) != `{"a": "new", "b": "2", "c": "3"}` {
		t.Errorf("Update: %s", marshal(t, q.Object()))
	}
	if d, _ := p.Get("a"); d != "1" {
		t.Error("Update modified its receiver")
	}
}

func TestStepObject(t *testing.T) {
	clean := drivers.Step{Phase: drivers.CleanStep, Interface: drivers.BIOS, Name: "apply_configuration", RequiresRamdisk: true,
		ArgsInfo: []drivers.StepArg{{Name: "settings", Description: "d", Required: true}}}
	want := `{"step": "apply_configuration", "priority": 0, "abortable": false, "argsinfo": {"settings": {"description": "d", "required": true}}, "interface": "bios", "requires_ramdisk": true}`
	if got := marshal(t, clean.Object()); got != want {
		t.Errorf("clean step %s", got)
	}
	deploy := drivers.Step{Phase: drivers.DeployStep, Interface: drivers.Deploy, Name: "deploy", Priority: 100}
	if got := marshal(t, deploy.Object()); got != `{"step": "deploy", "priority": 100, "argsinfo": null, "interface": "deploy"}` {
		t.Errorf("deploy step %s", got)
	}
}

// TestValidateNodeUnexpected checks how errors that aren't validation
// faults are reported, with an enabled implementation that has no Go code
// yet (flat network) and a failing deploy check.
func TestValidateNodeUnexpected(t *testing.T) {
	reg := newReferenceRegistry(t)
	ni := &drivers.NodeInterfaces{UUID: "u1", Driver: "fake-hardware", Fields: map[drivers.Kind]string{drivers.Network: "flat"}}
	drv, err := reg.BuildDriver(ni)
	if err != nil {
		t.Fatal(err)
	}
	task := &fake.Task{Node: &fake.Node{UUID: "u1", Driver: "fake-hardware"}, Drv: drv}
	res := reg.ValidateNode(context.Background(), task, drivers.WithHost("cond-1"),
		drivers.WithDeployChecks(func(context.Context, drivers.Task) error {
			return ironic.Errorf(ironic.InvalidParameterValue, "Cannot validate deploy steps")
		}))
	net, _ := res.Get(drivers.Network)
	const prefix = "Unexpected exception, traceback saved into log by ironic conductor service that is running on cond-1: "
	if net.Result || !strings.HasPrefix(net.Reason, prefix) || !strings.Contains(net.Reason, `"flat" network interface cannot validate nodes`) {
		t.Errorf("network: %+v", net)
	}
	dep, _ := res.Get(drivers.Deploy)
	if dep.Result || dep.Reason != "Cannot validate deploy steps" {
		t.Errorf("deploy: %+v", dep)
	}
	res = reg.ValidateNode(context.Background(), task, drivers.WithDeployChecks(func(context.Context, drivers.Task) error {
		return errors.New("boom")
	}))
	if dep, _ := res.Get(drivers.Deploy); dep.Result || !strings.HasSuffix(dep.Reason, "running on : boom") {
		t.Errorf("deploy with a plain error: %+v", dep)
	}
	// Placeholders never pretend: every operation fails.
	if err := drv.Network.VIFAttach(context.Background(), task, drivers.VIF{"id": "x"}); !ironic.IsClass(err, ironic.IronicException) {
		t.Errorf("flat VIFAttach: %v", err)
	}
}

func TestUnimplementedPlaceholders(t *testing.T) {
	cfg := drivers.DefaultConfig()
	cfg.Enabled["deploy"] = []string{"direct", "ansible"}
	cfg.Default["deploy"] = "ansible"
	reg, err := drivers.NewRegistry(cfg, referenceImplementations()...)
	if err != nil {
		t.Fatal(err)
	}
	props, err := reg.DriverProperties("ipmi")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := props.Get("ansible_username"); !ok {
		t.Error("ansible's properties missing from an ansible-deploying hardware type")
	}
	drv, err := reg.BuildDriver(&drivers.NodeInterfaces{UUID: "u", Driver: "ipmi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drv.Deploy.Deploy(context.Background(), &fake.Task{Node: &fake.Node{UUID: "u", Driver: "ipmi"}, Drv: drv}); !ironic.IsClass(err, ironic.IronicException) {
		t.Errorf("ansible deploy: %v", err)
	}
}
