package conductor

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// Heartbeat is heartbeat: an agent's call back, checked against the
// node's agent token and handed to the deploy interface in a worker. The
// fake deploy interface only logs that it doesn't support heartbeats.
func (m *Manager) Heartbeat(ctx context.Context, _ string, uuid string, hb rpc.Heartbeat) error {
	if hb.AgentVersion == nil && hb.AgentStatus == nil {
		return ironic.Errorf(ironic.InvalidParameterValue,
			"Agent did not transmit a version, and a version is required. Please update the agent being used.")
	}
	t, err := m.acquire(ctx, uuid, true)
	if err != nil {
		return err
	}
	known, _ := t.DriverInternalInfo()["agent_secret_token"].(string)
	if hb.AgentToken == nil || t.DriverInternalInfo()["agent_secret_token"] == nil || known != *hb.AgentToken {
		m.log.ErrorContext(ctx, "invalid or missing agent_token received", "node", uuid)
		return ironic.Errorf(ironic.InvalidParameterValue, "Invalid or missing agent token received.")
	}
	if m.cfg.AgentRequireTLS && hb.CallbackURL != "" && !strings.HasPrefix(hb.CallbackURL, "https://") {
		m.log.ErrorContext(ctx, "rejecting a callback_url that does not use TLS", "node", uuid, "url", hb.CallbackURL)
		return ironic.Errorf(ironic.InvalidParameterValue, "TLS is required by configuration")
	}
	verifyCA := models.Deref(hb.AgentVerifyCA)
	if verifyCA != "" {
		if verifyCA, err = m.storeAgentCertificate(ctx, t, verifyCA); err != nil {
			return err
		}
	}
	deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
	if err != nil {
		return err
	}
	dhb := drivers.Heartbeat{CallbackURL: hb.CallbackURL, AgentVersion: models.Deref(hb.AgentVersion),
		AgentVerifyCA: verifyCA, AgentStatus: models.Deref(hb.AgentStatus),
		AgentStatusMessage: models.Deref(hb.AgentStatusMessage)}
	return m.spawnOrFail(ctx, t, func(ctx context.Context, t *task) {
		if err := deploy.Heartbeat(ctx, t, dhb); err != nil {
			m.log.ErrorContext(ctx, "heartbeat failed", "node", t.node.UUID, "error", err)
		}
	})
}

// GetNodeWithToken is get_node_with_token: the node with a newly minted
// agent token, or with the token masked when one exists already.
func (m *Manager) GetNodeWithToken(ctx context.Context, _ string, uuid string) (*models.Node, error) {
	t, err := m.acquire(ctx, uuid, true)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if t.DriverInternalInfo()["agent_secret_token"] != nil {
		m.log.WarnContext(ctx, "an agent token generation request is being refused as one is already present", "node", uuid)
		n := snapshot(t.node)
		n.DriverInternalInfo["agent_secret_token"] = "******"
		return &n, nil
	}
	if err := t.upgradeLock(ctx); err != nil {
		return nil, err
	}
	dii := t.DriverInternalInfo()
	dii["agent_secret_token"] = newAgentToken()
	delete(dii, "agent_secret_token_pregenerated")
	if err := t.Save(ctx); err != nil {
		return nil, err
	}
	n := snapshot(t.node)
	return &n, nil
}

// newAgentToken is secrets.token_urlsafe(): 32 random bytes, URL-safe
// base64 without padding.
func newAgentToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// The conductor side of Ironic's agent_base: the calls an agent deploy
// interface makes into conductor code while it handles a heartbeat
// (drivers/agent declares them as the task's optional methods).

// UpgradeLock is task.upgrade_lock(retry=False): a heartbeat that finds
// the node locked is skipped (NodeLocked) and the next one tries again.
func (t *task) UpgradeLock(ctx context.Context) error {
	if !t.shared {
		return nil
	}
	n, err := t.m.store.ReserveNode(ctx, t.m.cfg.Host, db.ByID(t.node.ID))
	if err != nil {
		return err
	}
	*t.node = *n
	t.orig, t.shared = snapshot(t.node), false
	return nil
}

// TouchProvisioning is node.touch_provisioning(): provision_updated_at
// becomes now, so a heartbeating agent's long step does not time out.
func (t *task) TouchProvisioning(ctx context.Context) error {
	return t.m.store.TouchNodeProvisioning(ctx, db.ByID(t.node.ID))
}

// NodeName is the node's name ("" for None).
func (t *task) NodeName() string { return models.Deref(t.node.Name) }

// Maintenance is the node's maintenance flag.
func (t *task) Maintenance() bool { return t.node.Maintenance }

// TargetProvisionState is the node's target_provision_state ("" for None).
func (t *task) TargetProvisionState() string { return models.Deref(t.node.TargetProvisionState) }

// CurrentStep is node.clean_step or node.deploy_step.
func (t *task) CurrentStep(phase drivers.StepPhase) map[string]any {
	if phase == drivers.CleanStep {
		return t.node.CleanStep
	}
	return t.node.DeployStep
}

// SetCleaningSteps is steps.set_node_cleaning_steps, once the agent's
// clean steps are known.
func (t *task) SetCleaningSteps(ctx context.Context) error {
	disable, _ := t.DriverInternalInfo()["cleaning_disable_ramdisk"].(bool)
	_, err := setNodeCleaningSteps(ctx, t, disable)
	return err
}

// ContinueSteps is agent_base._continue_steps: the node resumes
// (clean wait -> cleaning, deploy wait -> deploying) and the next step
// runs in this task, as continue_node_clean / continue_node_deploy.
func (t *task) ContinueSteps(ctx context.Context, phase drivers.StepPhase) error {
	m := t.m
	if phase == drivers.CleanStep {
		if t.ProvisionState() == states.CleanWait {
			target := ""
			if t.TargetProvisionState() == states.Manageable {
				target = states.Manageable
			}
			if err := t.processEvent(ctx, event{Name: states.EventResume, Target: target}); err != nil {
				return err
			}
		}
		next := nextStepIndex(t, "clean")
		// continue_node_clean: a step flagged abort_after that is not
		// the last one aborts the cleaning once it has finished.
		if abort, _ := t.node.CleanStep["abort_after"].(bool); abort && next >= 0 && next < len(asSteps(t.DriverInternalInfo()["clean_steps"])) {
			target := ""
			if t.TargetProvisionState() == states.Manageable {
				target = states.Manageable
			}
			if err := t.processEvent(ctx, event{Name: states.EventFail, Target: target}); err != nil {
				return err
			}
			m.doNodeCleanAbort(ctx, t)
			return nil
		}
		m.doNextCleanStep(ctx, t, next, nil)
		return nil
	}
	if t.ProvisionState() == states.DeployWait {
		if err := t.processEvent(ctx, event{Name: states.EventResume}); err != nil {
			return err
		}
	}
	m.continueDeploy(ctx, t)
	return nil
}

// FailSteps is cleaning_error_handler or deploying_error_handler for a
// step the agent failed (or a heartbeat that could not go on).
func (t *task) FailSteps(ctx context.Context, phase drivers.StepPhase, msg string) {
	if phase == drivers.CleanStep {
		t.m.cleaningError(ctx, t, msg, cleanErrOpts{})
		return
	}
	t.m.deployingError(ctx, t, msg, true)
}

// storeAgentCertificate is utils.store_agent_certificate: the agent's
// TLS certificate is written to [agent]certificates_path/<node>.crt and
// its path returned; a certificate that differs from the one already
// recorded is refused.
func (m *Manager) storeAgentCertificate(ctx context.Context, t *task, cert string) (string, error) {
	if existing, _ := t.DriverInternalInfo()["agent_verify_ca"].(string); existing != "" {
		data, err := os.ReadFile(existing)
		switch {
		case err == nil && strings.TrimSpace(string(data)) != strings.TrimSpace(cert):
			m.log.ErrorContext(ctx, "content mismatch for agent_verify_ca", "node", t.node.UUID)
			return "", ironic.Errorf(ironic.InvalidParameterValue, `Detected change in ramdisk provided "agent_verify_ca"`)
		case err == nil:
			return existing, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		m.log.InfoContext(ctx, "current agent_verify_ca was not found, assuming take over and storing", "node", t.node.UUID)
	}
	dir := m.cfg.AgentCertificatesPath
	if dir == "" {
		dir = "/var/lib/ironic/certificates"
	}
	fname := filepath.Join(dir, t.node.UUID+".crt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(fname, []byte(cert), 0o644); err != nil {
		return "", err
	}
	return fname, nil
}

// PortDicts is [port.as_dict() for port in ports] for the node's ports.
func (t *task) PortDicts() ([]any, error) {
	out := make([]any, 0, len(t.ports))
	for i := range t.ports {
		d, err := objects.PortAsDict(&t.ports[i], t.node.UUID)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// NodeDict is node.as_dict() (objects.NodeAsDict). The agent deploy
// interfaces send it (masked) as their commands' "node".
func (t *task) NodeDict() (pyjson.Object, error) { return objects.NodeAsDict(t.node) }

// ProcessEvent is task.process_event for an agent interface finishing
// an operation (rescue's "resume" and "done").
func (t *task) ProcessEvent(ctx context.Context, name string) error {
	return t.processEvent(ctx, event{Name: name})
}

// FailRescue is utils.rescuing_error_handler for an agent's failed
// rescue.
func (t *task) FailRescue(ctx context.Context, msg string) {
	t.m.rescuingError(ctx, t, msg, true)
}
