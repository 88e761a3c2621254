package conductor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// TestLiveSequence replays states.md §4's live sequence on a fake node:
// every transition runs on a worker to its stable end, with the target
// cleared, no error and the lock released.
func TestLiveSequence(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		m := h.m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Enroll)})
		if err != nil {
			t.Fatal(err)
		}
		u := n.UUID
		steps := []struct {
			name string
			call func() error
			want states.Provision
			// check looks at the node after the step.
			check func(t *testing.T, n *models.Node)
		}{
			{"manage", func() error { return m.DoProvisioningAction(ctx, "", u, states.EventManage) }, states.Manageable, nil},
			{"inspect", func() error { return m.InspectHardware(ctx, "", u) }, states.Manageable, func(t *testing.T, n *models.Node) {
				if !n.InspectionFinishedAt.Valid() || n.InspectionStartedAt.Valid() {
					t.Errorf("inspection times: started %v finished %v", n.InspectionStartedAt, n.InspectionFinishedAt)
				}
			}},
			{"provide", func() error { return m.DoProvisioningAction(ctx, "", u, states.EventProvide) }, states.Available, nil},
			{"active", func() error { return m.DoNodeDeploy(ctx, "", u, false, "H4sIconfigdrive", nil) }, states.Active, func(t *testing.T, n *models.Node) {
				if n.InstanceInfo["configdrive"] != "H4sIconfigdrive" {
					t.Errorf("configdrive: %v", n.InstanceInfo["configdrive"])
				}
				if n.ConductorAffinity == nil {
					t.Error("conductor_affinity not set")
				}
				if len(n.DeployStep) != 0 || n.DriverInternalInfo["deploy_steps"] != nil {
					t.Errorf("deploy step %v steps %v left behind", n.DeployStep, n.DriverInternalInfo["deploy_steps"])
				}
			}},
			{"rebuild", func() error { return m.DoNodeDeploy(ctx, "", u, true, nil, nil) }, states.Active, nil},
			{"rescue", func() error { return m.DoNodeRescue(ctx, "", u, "secret") }, states.Rescue, func(t *testing.T, n *models.Node) {
				h, _ := n.InstanceInfo["hashed_rescue_password"].(string)
				if n.InstanceInfo["rescue_password"] != "secret" || !strings.HasPrefix(h, "$5$") {
					t.Errorf("rescue password: %v %v", n.InstanceInfo["rescue_password"], h)
				}
			}},
			{"unrescue", func() error { return m.DoNodeUnrescue(ctx, "", u) }, states.Active, nil},
			{"deleted", func() error { return m.DoNodeTearDown(ctx, "", u) }, states.Available, func(t *testing.T, n *models.Node) {
				if len(n.InstanceInfo) != 0 || n.InstanceUUID != nil {
					t.Errorf("instance left after tear down: %v %v", n.InstanceInfo, n.InstanceUUID)
				}
			}},
			{"manage again", func() error { return m.DoProvisioningAction(ctx, "", u, states.EventManage) }, states.Manageable, nil},
			{"adopt", func() error { return m.DoProvisioningAction(ctx, "", u, states.EventAdopt) }, states.Active, nil},
		}
		for _, s := range steps {
			if err := s.call(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			m.Wait()
			got := h.byUUID(t, u)
			if models.Deref(got.ProvisionState) != s.want || got.TargetProvisionState != nil || got.LastError != nil || got.Reservation != nil {
				t.Fatalf("after %s: state %q target %v last_error %v reservation %v", s.name, models.Deref(got.ProvisionState),
					models.Deref(got.TargetProvisionState), models.Deref(got.LastError), got.Reservation)
			}
			if !got.ProvisionUpdatedAt.Valid() {
				t.Errorf("after %s: provision_updated_at not set", s.name)
			}
			if s.check != nil {
				s.check(t, got)
			}
		}
		hist, err := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
		if err != nil || len(hist) != 0 {
			t.Errorf("history after a clean run: %v %+v", err, hist)
		}
	})
}

func TestProvisioningRefusals(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		m := h.m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Enroll)})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name  string
			setup db.Values
			call  func() error
			class ironic.Class
			msg   string
		}{
			{"deploy from enroll", nil, func() error { return m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil) },
				ironic.InvalidStateRequested, `The requested action "deploy" can not be performed on node "` + n.UUID + `" while it is in state "enroll".`},
			{"provide from enroll", nil, func() error { return m.DoProvisioningAction(ctx, "", n.UUID, states.EventProvide) },
				ironic.InvalidStateRequested, `The requested action "provide" can not be performed on node "` + n.UUID + `" while it is in state "enroll".`},
			{"deploy in maintenance", db.Values{"provision_state": states.Available, "maintenance": true},
				func() error { return m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil) },
				ironic.NodeInMaintenance, "The provisioning operation can't be performed on node " + n.UUID + " because it's in maintenance mode."},
			{"rebuild protected", db.Values{"provision_state": states.Active, "maintenance": false, "protected": true},
				func() error { return m.DoNodeDeploy(ctx, "", n.UUID, true, nil, nil) },
				ironic.NodeProtected, "Node " + n.UUID + " is protected and cannot be undeployed, rebuilt or deleted"},
			{"tear down protected", nil, func() error { return m.DoNodeTearDown(ctx, "", n.UUID) },
				ironic.NodeProtected, "Node " + n.UUID + " is protected and cannot be undeployed, rebuilt or deleted"},
			{"provide retired", db.Values{"provision_state": states.Manageable, "protected": false, "retired": true},
				func() error { return m.DoProvisioningAction(ctx, "", n.UUID, states.EventProvide) },
				ironic.NodeIsRetired, "The providing operation can't be performed on node " + n.UUID + " because it is retired."},
			{"deploy with missing instance traits", db.Values{"provision_state": states.Available, "retired": false,
				"instance_info": map[string]any{"traits": []any{"CUSTOM_X"}}},
				func() error { return m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil) },
				ironic.InstanceDeployFailure, "Failed to validate deploy or power info for node " + n.UUID +
					": Cannot specify instance traits that are not also set on the node. Node " + n.UUID + " is missing traits CUSTOM_X"},
			{"deploy overriding the core step", db.Values{"instance_info": map[string]any{}},
				func() error {
					return m.DoNodeDeploy(ctx, "", n.UUID, false, nil, []map[string]any{{"interface": "deploy", "step": "deploy", "priority": 50, "args": map[string]any{}}})
				},
				ironic.InstanceDeployFailure, "Failed to validate deploy or power info for node " + n.UUID +
					`: Validation of deploy steps from "deploy steps" argument failed.deploy step deploy on interface deploy is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0`},
		}
		for _, c := range cases {
			if c.setup != nil {
				if _, err := store.UpdateNode(ctx, db.ByID(n.ID), c.setup); err != nil {
					t.Fatal(err)
				}
			}
			err := c.call()
			f := ironic.AsFault(err)
			if !ironic.IsClass(err, c.class) || f.Message != c.msg {
				t.Errorf("%s: got %v (%v), want %s %q", c.name, err, f.Class, c.class, c.msg)
			}
			if c.class == ironic.InstanceDeployFailure && f.HTTPStatus() != 400 {
				t.Errorf("%s: status %d", c.name, f.HTTPStatus())
			}
			if got := h.byUUID(t, n.UUID); got.Reservation != nil {
				t.Errorf("%s: lock kept", c.name)
			}
		}
	})
}

func TestManualClean(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		m := h.m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Manageable)})
		if err != nil {
			t.Fatal(err)
		}
		good := []map[string]any{{"interface": "bios", "step": "apply_configuration",
			"args": map[string]any{"settings": []any{map[string]any{"name": "LogicalProc", "value": "Enabled"}}}}}
		if err := m.DoNodeClean(ctx, "", n.UUID, good, nil); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		got := h.byUUID(t, n.UUID)
		if models.Deref(got.ProvisionState) != states.Manageable || got.TargetProvisionState != nil || got.LastError != nil {
			t.Fatalf("after manual clean: %q %v %v", models.Deref(got.ProvisionState), got.TargetProvisionState, models.Deref(got.LastError))
		}
		settings, err := store.ListBIOSSettings(ctx, n.ID)
		if err != nil || len(settings) != 1 || settings[0].Name != "LogicalProc" {
			t.Errorf("bios settings after apply_configuration: %v %+v", err, settings)
		}

		bad := []map[string]any{{"interface": "bios", "step": "apply_configuration"}}
		if err := m.DoNodeClean(ctx, "", n.UUID, bad, nil); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		got = h.byUUID(t, n.UUID)
		wantErr := "Cannot clean node " + n.UUID + ": clean step {'interface': 'bios', 'step': 'apply_configuration'} is missing these required arguments: " +
			"settings (List of BIOS settings, each item needs to contain a dictionary with name/value pairs)"
		if models.Deref(got.ProvisionState) != states.CleanFailed || models.Deref(got.TargetProvisionState) != states.Manageable ||
			models.Deref(got.LastError) != wantErr {
			t.Fatalf("after a bad clean: %q target %q last_error %q", models.Deref(got.ProvisionState),
				models.Deref(got.TargetProvisionState), models.Deref(got.LastError))
		}
		hist, err := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
		if err != nil || len(hist) != 1 {
			t.Fatalf("history: %v %+v", err, hist)
		}
		row := hist[0]
		if models.Deref(row.EventType) != "cleaning" || models.Deref(row.Severity) != "ERROR" || models.Deref(row.Conductor) != "c1" || models.Deref(row.Event) != wantErr {
			t.Errorf("history row: %s %s %s %q", models.Deref(row.EventType), models.Deref(row.Severity), models.Deref(row.Conductor), models.Deref(row.Event))
		}
		// clean failed → manage → manageable.
		if err := m.DoProvisioningAction(ctx, "", n.UUID, states.EventManage); err != nil {
			t.Fatal(err)
		}
		if got := h.byUUID(t, n.UUID); models.Deref(got.ProvisionState) != states.Manageable || got.TargetProvisionState != nil {
			t.Errorf("manage from clean failed: %q %v", models.Deref(got.ProvisionState), got.TargetProvisionState)
		}
	})
}

func TestAutomatedCleanOffAndNoWorker(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		// A fake power that blocks until released keeps the only worker busy.
		release := make(chan struct{})
		fc := fake.Config{PowerDelay: fake.Delay{Min: time.Second, Max: time.Second},
			Sleep: func(ctx context.Context, _ time.Duration) error {
				<-release
				return nil
			}}
		h := newHarness(t, store, withFake(fc), withWorkers(1), withConfig(func(c *conductor.Config) { c.AutomatedClean = false }))
		m := h.m
		busy, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware"})
		n, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Manageable)})
		if err := m.ChangeNodePowerState(ctx, "", busy.UUID, states.PowerOn, 0); err != nil {
			t.Fatal(err)
		}
		err := m.DoProvisioningAction(ctx, "", n.UUID, states.EventProvide)
		if !ironic.IsClass(err, ironic.NoFreeConductorWorker) || ironic.AsFault(err).HTTPStatus() != 503 {
			t.Fatalf("provide with no free worker: %v", err)
		}
		got := h.byUUID(t, n.UUID)
		if models.Deref(got.ProvisionState) != states.Manageable || models.Deref(got.LastError) != "No free conductor workers available" || got.Reservation != nil {
			t.Fatalf("after no worker: %q %q %v", models.Deref(got.ProvisionState), models.Deref(got.LastError), got.Reservation)
		}
		close(release)
		m.Wait()
		if err := m.DoProvisioningAction(ctx, "", n.UUID, states.EventProvide); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		got = h.byUUID(t, n.UUID)
		if models.Deref(got.ProvisionState) != states.Available || got.LastError != nil {
			t.Fatalf("provide without automated clean: %q %q", models.Deref(got.ProvisionState), models.Deref(got.LastError))
		}
	})
}

func TestAgentTokenAndHeartbeat(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		m := h.m
		n, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.DeployWait)})
		first, err := m.GetNodeWithToken(ctx, "", n.UUID)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := first.DriverInternalInfo["agent_secret_token"].(string)
		if len(tok) != 43 {
			t.Fatalf("token %q", tok)
		}
		if got := h.byUUID(t, n.UUID); got.DriverInternalInfo["agent_secret_token"] != tok || got.Reservation != nil {
			t.Fatalf("stored token %v, reservation %v", got.DriverInternalInfo["agent_secret_token"], got.Reservation)
		}
		again, err := m.GetNodeWithToken(ctx, "", n.UUID)
		if err != nil || again.DriverInternalInfo["agent_secret_token"] != "******" {
			t.Fatalf("second token request: %v %v", err, again.DriverInternalInfo["agent_secret_token"])
		}
		bad := "nope"
		err = m.Heartbeat(ctx, "", n.UUID, rpcHeartbeat("3.0.0", &bad))
		if !ironic.IsClass(err, ironic.InvalidParameterValue) || ironic.AsFault(err).Message != "Invalid or missing agent token received." {
			t.Errorf("heartbeat with a bad token: %v", err)
		}
		if err := m.Heartbeat(ctx, "", n.UUID, rpcHeartbeat("", &tok)); !ironic.IsClass(err, ironic.InvalidParameterValue) {
			t.Errorf("heartbeat without version: %v", err)
		}
		if err := m.Heartbeat(ctx, "", n.UUID, rpcHeartbeat("3.0.0", &tok)); err != nil {
			t.Errorf("heartbeat: %v", err)
		}
		m.Wait()
	})
}

// rpcHeartbeat is a heartbeat with an agent version ("" = none sent).
func rpcHeartbeat(version string, token *string) rpc.Heartbeat {
	hb := rpc.Heartbeat{CallbackURL: "http://192.0.2.1:9999", AgentToken: token}
	if version != "" {
		hb.AgentVersion = &version
	}
	return hb
}

// TestHeartbeatTLSAndCertificate: [agent]require_tls refuses an http
// callback URL; the agent's certificate is stored and its path handed
// on, and a different certificate later is refused.
func TestHeartbeatTLSAndCertificate(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		dir := t.TempDir()
		h := newHarness(t, store, withConfig(func(c *conductor.Config) {
			c.AgentRequireTLS, c.AgentCertificatesPath = true, dir
		}))
		m := h.m
		n, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.DeployWait)})
		first, err := m.GetNodeWithToken(ctx, "", n.UUID)
		if err != nil {
			t.Fatal(err)
		}
		tok := first.DriverInternalInfo["agent_secret_token"].(string)
		err = m.Heartbeat(ctx, "", n.UUID, rpcHeartbeat("3.0.0", &tok))
		if !ironic.IsClass(err, ironic.InvalidParameterValue) || err.Error() != "TLS is required by configuration" {
			t.Errorf("http callback: %v", err)
		}
		hb := rpcHeartbeat("3.0.0", &tok)
		hb.CallbackURL = "https://192.0.2.1:9999"
		cert := "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
		hb.AgentVerifyCA = &cert
		if err := m.Heartbeat(ctx, "", n.UUID, hb); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		data, err := os.ReadFile(filepath.Join(dir, n.UUID+".crt"))
		if err != nil || string(data) != cert {
			t.Fatalf("stored certificate: %q %v", data, err)
		}
	})
}
