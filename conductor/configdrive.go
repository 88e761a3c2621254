package conductor

import (
	"context"
	"errors"
	"time"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

// ConfigdriveBuilder builds the image of a config drive given as a dict
// (API 1.56+): Ironic's conductor.utils.build_configdrive, whose image
// openstacksdk's make_configdrive writes. drivers/configdrive.Builder
// implements it.
type ConfigdriveBuilder interface {
	// BuildConfigdrive returns the config-2 image, gzipped and
	// base64-encoded, of cd (its meta_data, network_data, user_data and
	// vendor_data, in the client's key order) for the node with this UUID
	// and name ("" for None), which meta_data gets unless it has its own.
	// A dict that is no config drive is InvalidParameterValue ("Invalid
	// configdrive: ...").
	BuildConfigdrive(ctx context.Context, uuid, name string, cd any) (string, error)
}

// ObjectStore is the Swift account config drives are published in
// (internal/swift.Client).
type ObjectStore interface {
	// CreateObject PUTs the container, then the object with
	// X-Delete-After: deleteAfter seconds.
	CreateObject(ctx context.Context, container, object string, data []byte, deleteAfter int) error
	// TempURL is a GET temp URL of the object, valid for ttl.
	TempURL(ctx context.Context, container, object string, ttl time.Duration) (string, error)
	// DeleteObject deletes it (SwiftObjectNotFoundError when absent).
	DeleteObject(ctx context.Context, container, object string) error
}

// configdriveObject is _get_configdrive_obj_name.
func configdriveObject(uuid string) string { return "configdrive-" + uuid }

// storeConfigdrive is deployments._store_configdrive: the value goes into
// instance_info.configdrive. A string (gzip+base64 image or URL) is stored as
// given; the JSON form (API 1.56) is built here, in process, into the
// config-2 ISO image and stored gzipped and base64-encoded (Ironic keeps the
// dict and builds it later in get_configdrive_image; building it at once
// means every consumer sees one format and a bad dict fails the deploy at
// its start). The dict comes as a pyjson.Object in the client's key order
// (the API and RPC keep it), so meta_data.json and the other files read as
// Ironic's json.dump of the same dict.
func (m *Manager) storeConfigdrive(ctx context.Context, t *task, cd any) error {
	switch cd.(type) {
	case *pyjson.Dict, pyjson.Object, map[string]any:
		if m.cfg.Configdrive == nil {
			return errors.New("no config drive builder is configured")
		}
		built, err := m.cfg.Configdrive.BuildConfigdrive(ctx, t.node.UUID, models.Deref(t.node.Name), cd)
		if err != nil {
			return err
		}
		cd = built
	}
	if m.cfg.ConfigdriveUseObjectStore {
		s, ok := cd.(string)
		if !ok {
			return ironic.Errorf(ironic.InvalidParameterValue, "Invalid configdrive: %T", cd)
		}
		if m.cfg.ObjectStore == nil {
			return ironic.Errorf(ironic.ConfigInvalid, "Invalid configuration file. [deploy]configdrive_use_object_store is set but no Swift client is configured")
		}
		ttl := m.cfg.ConfigdriveSwiftTempURLDuration
		if ttl <= 0 {
			ttl = m.cfg.DeployCallbackTimeout
		}
		if ttl <= 0 {
			ttl = 1800 * time.Second
		}
		container, object := m.cfg.ConfigdriveSwiftContainer, configdriveObject(t.node.UUID)
		if err := m.cfg.ObjectStore.CreateObject(ctx, container, object, []byte(s), int(ttl/time.Second)); err != nil {
			return err
		}
		u, err := m.cfg.ObjectStore.TempURL(ctx, container, object, ttl)
		if err != nil {
			return err
		}
		cd = u
	}
	t.InstanceInfo().Set("configdrive", cd)
	return nil
}

// deleteConfigdriveObject removes the node's config drive object from Swift
// at tear down (Ironic leaves it to X-Delete-After); a missing object is
// fine and a failure is logged, never fatal.
func (m *Manager) deleteConfigdriveObject(ctx context.Context, t *task) {
	if !m.cfg.ConfigdriveUseObjectStore || m.cfg.ObjectStore == nil || t.InstanceInfo().Get("configdrive") == nil {
		return
	}
	container := m.cfg.ConfigdriveSwiftContainer
	if container == "" {
		container = "ironic_configdrive_container"
	}
	err := m.cfg.ObjectStore.DeleteObject(ctx, container, configdriveObject(t.node.UUID))
	var f *ironic.Fault
	if err != nil && !(errors.As(err, &f) && f.Class == ironic.SwiftObjectNotFoundError) {
		m.log.WarnContext(ctx, "could not delete the config drive from Swift", "node", t.node.UUID, "error", err)
	}
}

// configdriveErrorMessage is the last_error do_node_deploy records when the
// config drive could not be stored.
func configdriveErrorMessage(err error) string {
	switch ironic.Class(errClass(err)) {
	case ironic.SwiftOperationError, ironic.SwiftObjectNotFoundError, ironic.ConfigInvalid:
		return "Failed to upload the configdrive to Swift: " + err.Error()
	}
	return "Failed to prepare the configdrive. Exception: " + err.Error()
}
