package conductor_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/states"
)

// stepBIOS is the fake BIOS interface with deploy steps, as a real BIOS
// interface (redfish, idrac) has them: apply_configuration and
// factory_reset (priority 0, run when a template or the user asks),
// tune (priority 90, optional argument "level") and pause (priority 10,
// goes asynchronous so the node stops in wait call-back with its steps
// in driver_internal_info). It records the steps it runs.
type stepBIOS struct {
	*fake.BIOS
	mu  sync.Mutex
	ran []string
}

func (*stepBIOS) Steps() []drivers.Step {
	step := func(name string, prio int, args ...drivers.StepArg) drivers.Step {
		return drivers.Step{Phase: drivers.DeployStep, Interface: drivers.BIOS, Name: name, Priority: prio, ArgsInfo: args}
	}
	return []drivers.Step{
		step("apply_configuration", 0, drivers.StepArg{Name: "settings", Description: "List of BIOS settings", Required: true}),
		step("factory_reset", 0),
		step("tune", 90, drivers.StepArg{Name: "level", Description: "How much"}),
		step("pause", 10),
	}
}

func (b *stepBIOS) ExecuteStep(ctx context.Context, task drivers.Task, name string, args map[string]any) (states.Provision, error) {
	a, _ := json.Marshal(args)
	b.mu.Lock()
	b.ran = append(b.ran, name+" "+string(a))
	b.mu.Unlock()
	switch name {
	case "apply_configuration", "factory_reset":
		return b.BIOS.ExecuteStep(ctx, task, name, args)
	case "pause":
		return states.DeployWait, nil
	}
	return "", nil
}

func (b *stepBIOS) steps() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.ran...)
}

func newStepBIOS() *stepBIOS {
	for _, im := range fake.Implementations(fake.Config{}) {
		if im.Kind == drivers.BIOS {
			return &stepBIOS{BIOS: im.Impl.(*fake.BIOS)}
		}
	}
	panic("no fake BIOS")
}

type tplStep struct {
	iface, step string
	prio        int64
	args        models.JSONDict
}

func createTemplate(t *testing.T, store *db.Store, name string, steps ...tplStep) {
	t.Helper()
	tpl := &models.DeployTemplate{Name: name}
	for _, s := range steps {
		if s.args == nil {
			s.args = models.JSONDict{}
		}
		tpl.Steps = append(tpl.Steps, models.DeployTemplateStep{Interface: s.iface, Step: s.step, Priority: s.prio, Args: s.args})
	}
	if _, err := store.CreateDeployTemplate(context.Background(), tpl); err != nil {
		t.Fatal(err)
	}
}

// templatedNode is an available fake-hardware node with the traits, which
// instance_info.traits requests.
func templatedNode(t *testing.T, h *harness, traits ...string) *models.Node {
	t.Helper()
	list := make([]any, len(traits))
	for i, tr := range traits {
		list[i] = tr
	}
	n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOff,
		"instance_info": models.JSONDict{"traits": list}})
	if _, err := h.store.SetNodeTraits(context.Background(), n.ID, traits); err != nil {
		t.Fatal(err)
	}
	return n
}

// asJSON normalises a decoded value for comparison.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeployTemplateSteps: the steps of the templates matching the node's
// instance traits join the driver's (_get_all_deployment_steps): they run
// with their arguments in priority order, a template step of priority 0
// disables the driver's step, and the user's deploy_steps override the
// templates'.
func TestDeployTemplateSteps(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		bios := newStepBIOS()
		h := newHarness(t, store, withImpl(drivers.BIOS, "fake", bios))
		settings := []any{map[string]any{"name": "BootMode", "value": "Uefi"}}
		createTemplate(t, store, "CUSTOM_B", tplStep{"bios", "factory_reset", 95, nil}, tplStep{"bios", "tune", 0, nil})
		createTemplate(t, store, "CUSTOM_A", tplStep{"bios", "apply_configuration", 150, models.JSONDict{"settings": settings}})
		createTemplate(t, store, "CUSTOM_UNUSED", tplStep{"bios", "tune", 99, nil})

		n := templatedNode(t, h, "CUSTOM_B", "CUSTOM_A")
		if err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if ps := models.Deref(got.ProvisionState); ps != states.DeployWait || got.LastError != nil {
			t.Fatalf("state %s, last_error %v", ps, models.Deref(got.LastError))
		}
		wantRan := []string{
			`apply_configuration {"settings":[{"name":"BootMode","value":"Uefi"}]}`,
			`factory_reset {}`,
			`pause null`,
		}
		if diff := cmp.Diff(wantRan, bios.steps()); diff != "" {
			t.Errorf("steps run (-want +got):\n%s", diff)
		}
		// What Ironic stores: template steps as {interface, step, args,
		// priority}, driver steps with their argsinfo; tune is disabled.
		wantSteps := asJSON(t, []any{
			map[string]any{"interface": "bios", "step": "apply_configuration", "args": map[string]any{"settings": settings}, "priority": 150},
			map[string]any{"interface": "deploy", "step": "deploy", "priority": 100, "argsinfo": nil},
			map[string]any{"interface": "bios", "step": "factory_reset", "args": map[string]any{}, "priority": 95},
			map[string]any{"interface": "bios", "step": "pause", "priority": 10, "argsinfo": nil},
		})
		if diff := cmp.Diff(wantSteps, asJSON(t, got.DriverInternalInfo["deploy_steps"])); diff != "" {
			t.Errorf("deploy_steps (-want +got):\n%s", diff)
		}
		if idx := asJSON(t, got.DriverInternalInfo["deploy_step_index"]); idx != 3.0 {
			t.Errorf("deploy_step_index %v", idx)
		}

		// User steps override template steps of the same interface and
		// step; the other template steps stay.
		bios.ran = nil
		n2 := templatedNode(t, h, "CUSTOM_A", "CUSTOM_B")
		user := []map[string]any{{"interface": "bios", "step": "apply_configuration", "args": map[string]any{"settings": []any{}}, "priority": 5}}
		if err := h.m.DoNodeDeploy(ctx, "", n2.UUID, false, nil, user); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		wantRan = []string{`factory_reset {}`, `pause null`, `apply_configuration {"settings":[]}`}
		if diff := cmp.Diff(wantRan[:2], bios.steps()); diff != "" {
			t.Errorf("steps run with user steps (-want +got):\n%s", diff)
		}
		got = h.reload(t, n2)
		var ids []string
		for _, s := range got.DriverInternalInfo["deploy_steps"].([]any) {
			m := s.(map[string]any)
			ids = append(ids, m["interface"].(string)+"."+m["step"].(string))
		}
		if diff := cmp.Diff([]string{"deploy.deploy", "bios.factory_reset", "bios.pause", "bios.apply_configuration"}, ids); diff != "" {
			t.Errorf("deploy_steps with user steps (-want +got):\n%s", diff)
		}
	})
}

// TestDeployTemplateDisablesAll: a template that disables the only enabled
// step leaves no steps, and the deployment fails as in Ironic.
func TestDeployTemplateDisablesAll(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		h := newHarness(t, store)
		createTemplate(t, store, "CUSTOM_DIS", tplStep{"deploy", "deploy", 0, nil})
		n := templatedNode(t, h, "CUSTOM_DIS")
		if err := h.m.DoNodeDeploy(context.Background(), "", n.UUID, false, nil, nil); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if ps := models.Deref(got.ProvisionState); ps != states.DeployFailed || models.Deref(got.LastError) != "No deploy steps returned by the driver" {
			t.Errorf("state %s, last_error %q", ps, models.Deref(got.LastError))
		}
	})
}

// TestDeployTemplateInvalid: invalid template steps fail the deploy call
// with Ironic's messages, the node untouched; unknown steps are skipped
// (skip_missing: in-band steps are not known before the agent runs).
func TestDeployTemplateInvalid(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withImpl(drivers.BIOS, "fake", newStepBIOS()))
		createTemplate(t, store, "CUSTOM_CORE", tplStep{"deploy", "deploy", 100, nil})
		createTemplate(t, store, "CUSTOM_NOARGS", tplStep{"bios", "apply_configuration", 10, nil})
		createTemplate(t, store, "CUSTOM_EXTRA", tplStep{"bios", "factory_reset", 0, models.JSONDict{"x": 1}})
		createTemplate(t, store, "CUSTOM_DUP", tplStep{"bios", "factory_reset", 0, nil})
		createTemplate(t, store, "CUSTOM_UNKNOWN", tplStep{"raid", "no_such_step", 10, nil})
		const prefix = "Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: "
		for _, tc := range []struct {
			traits []string
			msg    string
		}{
			{[]string{"CUSTOM_CORE"}, prefix + "CUSTOM_CORE. Errors: deploy step deploy on interface deploy is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0"},
			{[]string{"CUSTOM_NOARGS"}, prefix + "CUSTOM_NOARGS. Errors: deploy step {'interface': 'bios', 'step': 'apply_configuration', 'args': {}, 'priority': 10} is missing these required arguments: settings (List of BIOS settings)"},
			{[]string{"CUSTOM_EXTRA"}, prefix + "CUSTOM_EXTRA. Errors: deploy step {'interface': 'bios', 'step': 'factory_reset', 'args': {'x': 1}, 'priority': 0} has these unexpected arguments: x"},
			{[]string{"CUSTOM_EXTRA", "CUSTOM_DUP"}, prefix + "CUSTOM_DUP,CUSTOM_EXTRA. Errors: deploy step {'interface': 'bios', 'step': 'factory_reset', 'args': {'x': 1}, 'priority': 0} has these unexpected arguments: x; " +
				"deploy steps from all deploy templates matching this node's instance traits cannot have the same interface and step. Duplicate deploy steps for bios.factory_reset"},
		} {
			n := templatedNode(t, h, tc.traits...)
			err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil)
			wantFault(t, tc.traits[0], err, ironic.InstanceDeployFailure, "Failed to validate deploy or power info for node "+n.UUID+": "+tc.msg)
			if f := ironic.AsFault(err); f.HTTPStatus() != 400 {
				t.Errorf("%v: code %d", tc.traits, f.HTTPStatus())
			}
			got := h.reload(t, n)
			if ps := models.Deref(got.ProvisionState); ps != states.Available || got.Reservation != nil {
				t.Errorf("%v: state %s reservation %v", tc.traits, ps, got.Reservation)
			}
			v, err := h.m.ValidateDriverInterfaces(ctx, "", n.UUID)
			if err != nil {
				t.Fatal(err)
			}
			if r := v["deploy"]; r.Result || r.Reason != tc.msg {
				t.Errorf("%v: validate deploy %+v", tc.traits, r)
			}
		}
		n := templatedNode(t, h, "CUSTOM_UNKNOWN")
		if err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.reload(t, n); models.Deref(got.ProvisionState) != states.DeployWait {
			t.Errorf("unknown template step: state %s, last_error %v", models.Deref(got.ProvisionState), models.Deref(got.LastError))
		}
	})
}
