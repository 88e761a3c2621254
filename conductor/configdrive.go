package conductor

import (
	"context"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers/configdrive"
)

// storeConfigdrive is deployments._store_configdrive: the value goes into
// instance_info.configdrive. A string (gzip+base64 image or URL) is stored as
// given; the JSON form (API 1.56) is built here, in process, into the
// config-2 ISO image and stored gzipped and base64-encoded (Ironic keeps the
// dict and builds it later in get_configdrive_image; building it at once
// means every consumer sees one format and a bad dict fails the deploy at
// its start).
func (m *Manager) storeConfigdrive(ctx context.Context, t *task, cd any) error {
	if d, ok := cd.(map[string]any); ok {
		c, err := configdrive.FromMap(d)
		if err != nil {
			return ironic.Errorf(ironic.InvalidParameterValue, "Invalid configdrive: %s", err)
		}
		node := configdrive.Node{UUID: t.node.UUID}
		if t.node.Name != nil {
			node.Name = *t.node.Name
		}
		built, err := configdrive.Builder{Log: m.log}.Build(ctx, node, c)
		if err != nil {
			return err
		}
		cd = built
	}
	t.InstanceInfo()["configdrive"] = cd
	return nil
}
