// Package storage implements Ironic's storage interfaces
// (ironic/drivers/modules/storage; "noop" is drivers/generic's): "external"
// (volumes attached outside Ironic) and "cinder" (volumes attached through
// the Block Storage API, with the calls of ironic/common/cinder.py). The
// Cinder client is declared here (Cinder) and implemented by
// drivers/storage/cinderclient.
//
// It also holds the deploy helpers of ironic/drivers/modules/deploy_utils
// that the deploy interfaces call around storage
// (PopulateInternalInfo, TearDownConfiguration).
package storage

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// Config holds the [cinder] options the interfaces read.
type Config struct {
	// ActionRetries is [cinder]action_retries (3): detaching is retried
	// this many times.
	ActionRetries int
	// ActionRetryInterval is [cinder]action_retry_interval (5 s).
	ActionRetryInterval time.Duration
}

// Deps are what the interfaces use.
type Deps struct {
	// Cinder is the Block Storage API client (only "cinder" uses it).
	Cinder Cinder
	// Log receives the interfaces' messages; nil discards.
	Log *slog.Logger
	// Sleep waits between detach attempts; nil sleeps for real.
	Sleep func(context.Context, time.Duration) error
	// Now is the clock of the volume metadata's last_seen; nil is
	// time.Now.
	Now func() time.Time
}

// Implementations returns the storage interfaces of this package
// ("cinder", "external") under their Ironic names, for
// drivers.NewRegistry.
func Implementations(cfg Config, deps Deps) []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.Storage, Name: "external", Impl: NewExternal(deps)},
		{Kind: drivers.Storage, Name: "cinder", Impl: NewCinderStorage(cfg, deps)},
	}
}

func logOf(d Deps) *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
}

// External is the "external" storage interface: the volumes are attached
// by something else; a node that boots from one must netboot with iPXE.
type External struct{ log *slog.Logger }

var _ drivers.StorageInterface = (*External)(nil)

// NewExternal returns the "external" interface (it only uses deps.Log).
func NewExternal(deps Deps) *External { return &External{log: logOf(deps)} }

// GetProperties returns none.
func (*External) GetProperties() drivers.Properties { return nil }

// Validate requires an iPXE boot interface when no image is written.
func (e *External) Validate(ctx context.Context, task drivers.Task) error {
	write, err := shouldWriteImage(ctx, task)
	if err != nil {
		return err
	}
	if !write && !ipxeEnabled(task) {
		msg := "Failed to validate external storage interface for node " + task.NodeUUID() + ". " +
			"The [pxe]/ipxe_enabled option must be set to True to support network booting to an iSCSI volume or the boot interface must be set to ``ipxe``."
		e.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return ironic.Errorf(ironic.InvalidParameterValue, "%s", msg)
	}
	return nil
}

// AttachVolumes does nothing.
func (*External) AttachVolumes(context.Context, drivers.Task) error { return nil }

// DetachVolumes does nothing.
func (*External) DetachVolumes(context.Context, drivers.Task) error { return nil }

// ShouldWriteImage is false when the node has a boot volume (boot_index
// 0) and instance_info has no image_source.
func (*External) ShouldWriteImage(ctx context.Context, task drivers.Task) (bool, error) {
	return shouldWriteImage(ctx, task)
}

// shouldWriteImage is the should_write_image of "cinder" and "external".
func shouldWriteImage(ctx context.Context, task drivers.Task) (bool, error) {
	if _, ok := task.InstanceInfo().Lookup("image_source"); ok {
		return true, nil
	}
	boot, err := BootVolume(ctx, task)
	if err != nil {
		return false, err
	}
	return boot == nil, nil
}

// ipxeEnabled is pxe_utils.is_ipxe_enabled: the boot interface has the
// ipxe_boot capability.
func ipxeEnabled(task drivers.Task) bool {
	drv := task.Driver()
	if drv == nil || drv.Boot == nil {
		return false
	}
	return slices.Contains(drv.Boot.Capabilities(), "ipxe_boot")
}

// BootVolume is deploy_utils.get_remote_boot_volume: the node's volume
// target with boot_index 0, or nil.
func BootVolume(ctx context.Context, task drivers.Task) (*drivers.VolumeTarget, error) {
	targets, err := task.Volumes().Targets(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if t.BootIndex == 0 {
			return &t, nil
		}
	}
	return nil, nil
}

// capabilityKeys is the key set of driver_utils.capabilities_to_dict
// over the node's properties/capabilities; InvalidParameterValue when it
// is malformed.
func capabilityKeys(task drivers.Task) (map[string]bool, error) {
	keys := map[string]bool{}
	raw := task.Properties().Get("capabilities")
	if !py.Truthy(raw) {
		return keys, nil
	}
	caps, ok := raw.(string)
	if !ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Value of 'capabilities' must be string. Got %s", pyTypeName(raw))
	}
	for _, c := range strings.Split(caps, ",") {
		parts := strings.Split(c, ":")
		if len(parts) != 2 {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Malformed capabilities value: %s", c)
		}
		keys[parts[0]] = true
	}
	return keys, nil
}

func pyTypeName(v any) string {
	switch v.(type) {
	case *pyjson.Dict, map[string]any:
		return "<class 'dict'>"
	case []any:
		return "<class 'list'>"
	case bool:
		return "<class 'bool'>"
	case float64, int, int64:
		return "<class 'int'>"
	}
	return "<class 'object'>"
}

// PopulateInternalInfo is deploy_utils.populate_storage_driver_internal_info,
// which deploy interfaces call in prepare: with a boot volume, records
// driver_internal_info boot_from_volume (when the boot interface can boot
// a volume of its type) and boot_from_volume_deploy (when the deploy
// interface can deploy to one and an image is written), then saves the
// node. StorageError when the node lacks the iscsi_boot /
// fibre_channel_boot capability for its boot volume.
func PopulateInternalInfo(ctx context.Context, task drivers.Task) error {
	boot, err := BootVolume(ctx, task)
	if err != nil || boot == nil {
		return err
	}
	volType := strings.ToLower(boot.VolumeType)
	caps, err := capabilityKeys(task)
	if err != nil {
		return err
	}
	if volType == "iscsi" && !caps["iscsi_boot"] {
		return ironic.Errorf(ironic.StorageError, "Node %s has an iSCSI boot volume defined and no iSCSI boot support available.", task.NodeUUID())
	}
	if volType == "fibre_channel" && !caps["fibre_channel_boot"] {
		return ironic.Errorf(ironic.StorageError, "Node %s has a Fibre Channel boot volume defined and no Fibre Channel boot support available.", task.NodeUUID())
	}
	drv := task.Driver()
	if drv != nil && drv.Boot != nil && slices.Contains(drv.Boot.Capabilities(), volType+"_volume_boot") {
		task.DriverInternalInfo().Set("boot_from_volume", boot.UUID)
	}
	if drv != nil && drv.Deploy != nil && drv.Storage != nil {
		if c, ok := drv.Deploy.(interface{ Capabilities() []string }); ok && slices.Contains(c.Capabilities(), volType+"_volume_deploy") {
			write, err := drv.Storage.ShouldWriteImage(ctx, task)
			if err != nil {
				return err
			}
			if write {
				task.DriverInternalInfo().Set("boot_from_volume_deploy", boot.UUID)
			}
		}
	}
	return task.Save(ctx)
}

// TearDownConfiguration is deploy_utils.tear_down_storage_configuration,
// which deploy interfaces call in tear_down after detaching: it deletes
// the node's volume targets and drops boot_from_volume and
// boot_from_volume_deploy from driver_internal_info (saved by the
// caller, as in Ironic).
func TearDownConfiguration(ctx context.Context, task drivers.Task, log *slog.Logger) error {
	targets, err := task.Volumes().Targets(ctx)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if err := task.Volumes().DestroyTarget(ctx, t.UUID); err != nil {
			return err
		}
		if log != nil {
			log.InfoContext(ctx, "Successfully deleted volume target "+t.UUID+". The node associated with the target was "+task.NodeUUID()+".",
				"node", task.NodeUUID())
		}
	}
	dii := task.DriverInternalInfo()
	dii.Delete("boot_from_volume")
	dii.Delete("boot_from_volume_deploy")
	return nil
}

// DeployPrepare is the storage part of the prepare step of Ironic's
// agent ("direct"), anaconda and ramdisk deploy interfaces while the node
// is deploying: PopulateInternalInfo, then the storage interface's
// AttachVolumes. It reports whether an image is to be written; false
// means the node boots from its volume and the deploy interface has
// nothing more to prepare (no agent boot, no provisioning network). The
// "fake" deploy interface calls none of this, as in Ironic.
func DeployPrepare(ctx context.Context, task drivers.Task) (writeImage bool, err error) {
	if err := PopulateInternalInfo(ctx, task); err != nil {
		return false, err
	}
	st := task.Driver().Storage
	if st == nil {
		return true, nil
	}
	if err := st.AttachVolumes(ctx, task); err != nil {
		return false, err
	}
	return st.ShouldWriteImage(ctx, task)
}

// DeployTearDown is the storage part of those deploy interfaces'
// tear_down, after the node is powered off: the volumes are detached and
// TearDownConfiguration deletes the node's volume targets; the node is
// saved.
func DeployTearDown(ctx context.Context, task drivers.Task, log *slog.Logger) error {
	if st := task.Driver().Storage; st != nil {
		if err := st.DetachVolumes(ctx, task); err != nil {
			return err
		}
	}
	if err := TearDownConfiguration(ctx, task, log); err != nil {
		return err
	}
	return task.Save(ctx)
}
