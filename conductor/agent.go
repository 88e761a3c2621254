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
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/rpc"
)

// Heartbeat is heartbeat: an agent's call back, checked against the
// node's agent token and handed to the deploy interface in a worker. The
// fake deploy interface only logs that it doesn't support heartbeats.
func (m *Manager) Heartbeat(ctx context.Context, _ string, uuid string, hb rpc.Heartbeat) error {
	if hb.AgentVersion == nil && hb.AgentStatus == nil {
		return ironic.Errorf(ironic.InvalidParameterValue,
			"Agent did not transmit a version, and a version is required. Please update the agent being used.")
	}
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return err
	}
	known, _ := t.DriverInternalInfo().Get("agent_secret_token").(string)
	if hb.AgentToken == nil || t.DriverInternalInfo().Get("agent_secret_token") == nil || known != *hb.AgentToken {
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
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if t.DriverInternalInfo().Get("agent_secret_token") != nil {
		m.log.WarnContext(ctx, "an agent token generation request is being refused as one is already present", "node", uuid)
		n := snapshot(t.node)
		n.DriverInternalInfo.Set("agent_secret_token", "******")
		return &n, nil
	}
	if err := t.upgradeLock(ctx); err != nil {
		return nil, err
	}
	dii := t.DriverInternalInfo()
	dii.Set("agent_secret_token", newAgentToken())
	dii.Delete("agent_secret_token_pregenerated")
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

// storeAgentCertificate is utils.store_agent_certificate: the agent's
// TLS certificate is written to [agent]certificates_path/<node>.crt and
// its path returned; a certificate that differs from the one already
// recorded is refused.
func (m *Manager) storeAgentCertificate(ctx context.Context, t *task, cert string) (string, error) {
	if existing, _ := t.DriverInternalInfo().Get("agent_verify_ca").(string); existing != "" {
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
