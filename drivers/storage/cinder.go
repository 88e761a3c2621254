package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/states"
)

// Cinder is the part of the Block Storage API (v3) Ironic's
// common/cinder.py uses. Errors of the service should render as
// cinderclient's exceptions do ("<message> (HTTP <code>) (Request-ID:
// <id>)"), since Ironic embeds their text in its messages.
type Cinder interface {
	// GetVolume is GET /v3/volumes/{id}.
	GetVolume(ctx context.Context, id string) (*Volume, error)
	// Reserve is the os-reserve action: the volume becomes "attaching".
	Reserve(ctx context.Context, id string) error
	// InitializeConnection is os-initialize_connection with a connector
	// ({"initiator", "ip", "wwpns", "wwnns", "multipath", "host"}); it
	// returns the connection_info: {"driver_volume_type": ..., "data":
	// {...}}.
	InitializeConnection(ctx context.Context, id string, connector map[string]any) (map[string]any, error)
	// Attach is os-attach {"instance_uuid", "mountpoint", "mode": "rw"}:
	// the volume becomes "in-use".
	Attach(ctx context.Context, id, instanceUUID, mountpoint string) error
	// BeginDetaching is os-begin_detaching: the volume becomes
	// "detaching".
	BeginDetaching(ctx context.Context, id string) error
	// TerminateConnection is os-terminate_connection with the connector.
	TerminateConnection(ctx context.Context, id string, connector map[string]any) error
	// Detach is os-detach {"attachment_id"} ("" sends null).
	Detach(ctx context.Context, id, attachmentID string) error
	// SetMetadata is POST /v3/volumes/{id}/metadata: the keys are added
	// or replaced.
	SetMetadata(ctx context.Context, id string, metadata map[string]string) error
}

// Volume is what Ironic reads of a Cinder volume.
type Volume struct {
	ID          string
	Status      string
	Multiattach bool
	Attachments []Attachment
}

// Attachment is one of a volume's attachments.
type Attachment struct {
	ServerID     string
	AttachmentID string
}

// attachedTo is cinder.is_volume_attached / _get_attachment_id: the
// attachment of the node (by instance UUID or node UUID), if any.
func attachedTo(task drivers.Task, v *Volume) (Attachment, bool) {
	for _, a := range v.Attachments {
		if a.ServerID != "" && (a.ServerID == task.InstanceUUID() || a.ServerID == task.NodeUUID()) {
			return a, true
		}
	}
	return Attachment{}, false
}

// CinderStorage is the "cinder" storage interface.
type CinderStorage struct {
	cfg   Config
	api   Cinder
	log   *slog.Logger
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

var _ drivers.StorageInterface = (*CinderStorage)(nil)

// NewCinderStorage returns the "cinder" interface.
func NewCinderStorage(cfg Config, deps Deps) *CinderStorage {
	c := &CinderStorage{cfg: cfg, api: deps.Cinder, log: logOf(deps), sleep: deps.Sleep, now: deps.Now}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// GetProperties returns none.
func (*CinderStorage) GetProperties() drivers.Properties { return nil }

func (c *CinderStorage) fail(ctx context.Context, task drivers.Task, class ironic.Class, reason string) error {
	msg := fmt.Sprintf("Failed to validate cinder storage interface for node %s. %s", task.NodeUUID(), reason)
	c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
	return ironic.Errorf(class, "%s", msg)
}

type foundTypes struct{ fc, iscsi bool }

// validateConnectors is _validate_connectors.
func (c *CinderStorage) validateConnectors(ctx context.Context, task drivers.Task) (foundTypes, error) {
	conns, err := task.Volumes().Connectors(ctx)
	if err != nil {
		return foundTypes{}, err
	}
	ipxe := ipxeEnabled(task)
	var iscsi []string
	wwpn, wwnn := 0, 0
	for _, conn := range conns {
		if conn.Type == "iqn" {
			iscsi = append(iscsi, conn.UUID)
			if !ipxe {
				return foundTypes{}, c.fail(ctx, task, ironic.InvalidParameterValue,
					"The [pxe]/ipxe_enabled option must be set to True or the boot interface must be set to ``ipxe`` to support network booting to an iSCSI volume.")
			}
		}
		switch conn.Type {
		case "wwpn":
			wwpn++
		case "wwnn":
			wwnn++
		}
	}
	if len(iscsi) > 1 {
		c.log.WarnContext(ctx, fmt.Sprintf("Multiple possible iSCSI connectors, %s found, for node %s. Only the first iSCSI connector, %s, will be utilized.",
			pyStrList(iscsi), task.NodeUUID(), iscsi[0]), "node", task.NodeUUID())
	}
	if wwpn != wwnn {
		return foundTypes{}, c.fail(ctx, task, ironic.StorageError, fmt.Sprintf(
			"Cinder requires both wwnn and wwpn entries for FCoE connections. There must be a wwpn entry for every wwnn entry. There are %d wwpn entries and %d wwnn entries.", wwpn, wwnn))
	}
	return foundTypes{fc: wwpn >= 1, iscsi: len(iscsi) >= 1}, nil
}

func pyStrList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "'" + s + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Validate checks the connectors, the boot capabilities and the targets
// against each other (CinderStorage.validate).
func (c *CinderStorage) Validate(ctx context.Context, task drivers.Task) error {
	found, err := c.validateConnectors(ctx, task)
	if err != nil {
		return err
	}
	iscsiBoot, _ := deployutil.BoolFromString(deployutil.NodeCapability(task, "iscsi_boot"))
	fcBoot, _ := deployutil.BoolFromString(deployutil.NodeCapability(task, "fibre_channel_boot"))
	if iscsiBoot && !found.iscsi {
		return c.fail(ctx, task, ironic.InvalidParameterValue,
			"In order to enable the 'iscsi_boot' capability for the node, an associated volume_connector type must be valid for iSCSI (iqn).")
	}
	if fcBoot && !found.fc {
		return c.fail(ctx, task, ironic.InvalidParameterValue,
			"In order to enable the 'fibre_channel_boot' capability for the node, an associated volume_connector type must be valid for Fibre Channel (wwpn, wwnn).")
	}
	targets, err := task.Volumes().Targets(ctx)
	if err != nil {
		return err
	}
	for _, vt := range targets {
		if vt.VolumeID == "" {
			return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf("volume_id missing from target %s.", vt.UUID))
		}
		switch vt.VolumeType {
		case "fibre_channel":
			if !fcBoot && vt.BootIndex == 0 {
				return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf(
					"Volume target %s is configured for 'fibre_channel', however the capability 'fibre_channel_boot' is not set on node.", vt.UUID))
			}
			if !found.fc {
				return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf(
					"Volume target %s is configured for 'fibre_channel', however no Fibre Channel WWPNs are configured for the node volume connectors.", vt.UUID))
			}
		case "iscsi":
			if !iscsiBoot && vt.BootIndex == 0 {
				return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf(
					"Volume target %s is configured for 'iscsi', however the capability 'iscsi_boot' is not set for the node.", vt.UUID))
			}
			if !found.iscsi {
				return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf(
					"Volume target %s is configured for 'iscsi', however no iSCSI connectors are configured for the node.", vt.UUID))
			}
		default:
			return c.fail(ctx, task, ironic.InvalidParameterValue, fmt.Sprintf(
				"Volume target %s is of an unknown type '%s'. Supported types: 'iscsi' or 'fibre_channel'", vt.UUID, vt.VolumeType))
		}
	}
	return nil
}

// ShouldWriteImage is false when the node has a boot volume and
// instance_info has no image_source.
func (*CinderStorage) ShouldWriteImage(ctx context.Context, task drivers.Task) (bool, error) {
	return shouldWriteImage(ctx, task)
}

// connector is _generate_connector: what Cinder is told about the node.
func (c *CinderStorage) connector(ctx context.Context, task drivers.Task) (map[string]any, error) {
	conns, err := task.Volumes().Connectors(ctx)
	if err != nil {
		return nil, err
	}
	data := map[string]any{}
	valid := false
	var wwpns, wwnns []any
	for _, conn := range conns {
		_, haveInitiator := data["initiator"]
		_, haveIP := data["ip"]
		switch {
		case strings.Contains(conn.Type, "iqn") && !haveInitiator:
			data["initiator"] = conn.ConnectorID
			valid = true
		case strings.Contains(conn.Type, "ip") && !haveIP:
			data["ip"] = conn.ConnectorID
		case strings.Contains(conn.Type, "wwpn"):
			wwpns = append(wwpns, conn.ConnectorID)
			valid = true
		case strings.Contains(conn.Type, "wwnn"):
			wwnns = append(wwnns, conn.ConnectorID)
			valid = true
		default:
			c.log.WarnContext(ctx, fmt.Sprintf("Node %s has a volume_connector (%s) defined with an unsupported type: %s.",
				task.NodeUUID(), conn.UUID, conn.Type), "node", task.NodeUUID())
		}
	}
	if wwpns != nil {
		data["wwpns"] = wwpns
	}
	if wwnns != nil {
		data["wwnns"] = wwnns
	}
	if !valid {
		msg := fmt.Sprintf("Insufficient or incompatible volume connection records for node %s. Valid connector types: wwpn, wwnn, iqn", task.NodeUUID())
		c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return nil, ironic.Errorf(ironic.StorageError, "%s", msg)
	}
	data["host"] = task.NodeUUID()
	if len(conns) > 1 && len(data) > 1 {
		data["multipath"] = true
	}
	return data, nil
}

// metadata is _create_metadata_dictionary.
func (c *CinderStorage) metadata(task drivers.Task, action string) map[string]string {
	inst := task.InstanceUUID()
	if inst == "" {
		inst = task.NodeUUID()
	}
	// json.dumps of a dict keeps insertion order and ", "/": " separators.
	b, _ := json.Marshal(inst)
	ts, _ := json.Marshal(c.now().UTC().Format("2006-01-02T15:04:05.000000"))
	act, _ := json.Marshal(action)
	return map[string]string{"ironic_node_" + task.NodeUUID(): fmt.Sprintf(`{"instance_uuid": %s, "last_seen": %s, "last_action": %s}`, b, ts, act)}
}

func (c *CinderStorage) client(task drivers.Task) (Cinder, error) {
	if c.api == nil {
		msg := fmt.Sprintf("Failed to initialize cinder client for operations on node %s: no Block Storage client is configured", task.NodeUUID())
		return nil, ironic.Errorf(ironic.StorageError, "%s", msg)
	}
	return c.api, nil
}

// AttachVolumes attaches every volume target of the node through Cinder
// and stores each connection's data as the properties of the targets of
// that volume. On failure the attachments are rolled back.
func (c *CinderStorage) AttachVolumes(ctx context.Context, task drivers.Task) error {
	targets, err := task.Volumes().Targets(ctx)
	if err != nil || len(targets) == 0 {
		return err
	}
	connector, err := c.connector(ctx, task)
	if err != nil {
		return err
	}
	connected, err := c.attach(ctx, task, targets, connector)
	if err != nil {
		c.log.ErrorContext(ctx, fmt.Sprintf("Error attaching volumes for node %s: %v", task.NodeUUID(), err), "node", task.NodeUUID())
		if derr := c.detach(ctx, task, connector, true); derr != nil {
			c.log.WarnContext(ctx, "detach after a failed attach failed", "node", task.NodeUUID(), "error", derr)
		}
		return err
	}
	if len(connected) != len(targets) {
		c.log.ErrorContext(ctx, fmt.Sprintf("The number of volumes defined for node %s does not match the number of attached volumes. Attempting detach and abort operation.", task.NodeUUID()), "node", task.NodeUUID())
		if derr := c.detach(ctx, task, connector, true); derr != nil {
			return derr
		}
		return ironic.Errorf(ironic.StorageError, "Mismatch between the number of configured volume targets for node %s and the number of completed attachments.", task.NodeUUID())
	}
	for _, conn := range connected {
		if conn.alreadyAttached {
			continue
		}
		if _, err := task.Volumes().SetTargetProperties(ctx, conn.volumeUUID, conn.data); err != nil {
			return err
		}
	}
	return nil
}

type connection struct {
	volumeUUID      string
	data            map[string]any
	alreadyAttached bool
}

// attach is cinder.attach_volumes.
func (c *CinderStorage) attach(ctx context.Context, task drivers.Task, targets []drivers.VolumeTarget, connector map[string]any) ([]connection, error) {
	api, err := c.client(task)
	if err != nil {
		return nil, err
	}
	node := task.NodeUUID()
	var out []connection
	for _, vt := range targets {
		id := vt.VolumeID
		vol, err := api.GetVolume(ctx, id)
		if err != nil {
			return nil, storageErr("Failed to get volume %s from cinder for node %s: %v", id, node, err)
		}
		if _, ok := attachedTo(task, vol); ok {
			c.log.DebugContext(ctx, "volume already attached, skipping", "node", node, "volume", id)
			out = append(out, connection{volumeUUID: vol.ID, alreadyAttached: true,
				data: map[string]any{"ironic_volume_uuid": vol.ID, "volume_id": id}})
			continue
		}
		if err := api.Reserve(ctx, id); err != nil {
			return nil, storageErr("Failed to reserve volume %s for node %s: %v)", id, node, err)
		}
		info, err := api.InitializeConnection(ctx, id, connector)
		if err != nil {
			return nil, storageErr("Failed to initialize connection for volume %s to node %s: %v", id, node, err)
		}
		data, _ := info["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
			info["data"] = data
		}
		if _, ok := data["volume_id"]; !ok {
			data["volume_id"] = id
		}
		data["ironic_volume_uuid"] = vol.ID
		out = append(out, connection{volumeUUID: vol.ID, data: data})
		c.log.InfoContext(ctx, fmt.Sprintf("Successfully initialized volume %s for node %s.", id, node), "node", node)
		inst := task.InstanceUUID()
		if inst == "" {
			inst = node
		}
		if err := api.Attach(ctx, id, inst, "ironic_mountpoint"); err != nil {
			return nil, storageErr("Failed to inform cinder that the attachment for volume %s for node %s has been completed: %v", id, node, err)
		}
		if err := api.SetMetadata(ctx, id, c.metadata(task, "attached")); err != nil {
			c.log.WarnContext(ctx, fmt.Sprintf("Failed to update volume metadata for volume %s for node %s: %v", id, node, err), "node", node)
		}
	}
	return out, nil
}

func storageErr(format string, args ...any) error {
	return ironic.Errorf(ironic.StorageError, format, args...)
}

// DetachVolumes detaches every volume target of the node, retrying
// [cinder]action_retries times; errors of a node in "active" are logged,
// not returned (it is likely being powered off).
func (c *CinderStorage) DetachVolumes(ctx context.Context, task drivers.Task) error {
	targets, err := task.Volumes().Targets(ctx)
	if err != nil || len(targets) == 0 {
		return err
	}
	connector, err := c.connector(ctx, task)
	if err != nil {
		return err
	}
	return c.detach(ctx, task, connector, false)
}

// detach is CinderStorage.detach_volumes with its tenacity retry.
func (c *CinderStorage) detach(ctx context.Context, task drivers.Task, connector map[string]any, aborting bool) error {
	targets, err := task.Volumes().Targets(ctx)
	if err != nil || len(targets) == 0 {
		return err
	}
	node := task.NodeUUID()
	for attempt := 0; ; attempt++ {
		allowErrors := task.ProvisionState() == states.Active || (aborting && attempt > 0)
		err := c.detachOnce(ctx, task, targets, connector, allowErrors)
		if err == nil {
			return nil
		}
		format := "Error detaching volume for node %s: %v."
		if aborting {
			format = "Error on aborting volume detach for node %s: %v."
		}
		msg := fmt.Sprintf(format, node, err)
		if attempt >= c.cfg.ActionRetries {
			c.log.ErrorContext(ctx, msg, "node", node)
			return err
		}
		c.log.WarnContext(ctx, msg+" Re-attempting detachment.", "node", node)
		if serr := c.sleep(ctx, c.cfg.ActionRetryInterval); serr != nil {
			return err
		}
	}
}

// detachOnce is cinder.detach_volumes.
func (c *CinderStorage) detachOnce(ctx context.Context, task drivers.Task, targets []drivers.VolumeTarget, connector map[string]any, allowErrors bool) error {
	api, err := c.client(task)
	if err != nil {
		return err
	}
	node := task.NodeUUID()
	handle := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if allowErrors {
			c.log.WarnContext(ctx, msg, "node", node)
			return nil
		}
		c.log.ErrorContext(ctx, msg, "node", node)
		return ironic.Errorf(ironic.StorageError, "%s", msg)
	}
	for _, vt := range targets {
		id := vt.VolumeID
		vol, err := api.GetVolume(ctx, id)
		if err != nil {
			if herr := handle("Failed to get volume %s from cinder for node %s: %v", id, node, err); herr != nil {
				return herr
			}
			continue
		}
		att, ok := attachedTo(task, vol)
		if !ok {
			c.log.DebugContext(ctx, "volume not attached, skipping detachment", "node", node, "volume", id)
			continue
		}
		if err := api.BeginDetaching(ctx, id); err != nil {
			if herr := handle("Failed to request detach for volume %s from cinder for node %s: %v", id, node, err); herr != nil {
				return herr
			}
		}
		if err := api.TerminateConnection(ctx, id, connector); err != nil {
			if herr := handle("Failed to detach volume %s from node %s: %v", id, node, err); herr != nil {
				return herr
			}
			continue
		}
		if err := api.Detach(ctx, id, att.AttachmentID); err != nil {
			if herr := handle("Failed to inform cinder that the detachment for volume %s from node %s has been completed: %v", id, node, err); herr != nil {
				return herr
			}
		}
		if err := api.SetMetadata(ctx, id, c.metadata(task, "detached")); err != nil {
			c.log.WarnContext(ctx, fmt.Sprintf("Failed to update volume %s metadata for node %s: %v", id, node, err), "node", node)
		}
	}
	return nil
}
