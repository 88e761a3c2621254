package apiv1

import (
	"context"
	"reflect"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// connectorSchemaJSON is volume_connector.py CONNECTOR_SCHEMA.
const connectorSchemaJSON = `{
  "type": "object",
  "properties": {
    "connector_id": {"type": "string"},
    "extra": {"type": ["object", "null"]},
    "node_uuid": {"type": "string"},
    "type": {"type": "string"},
    "uuid": {"type": ["string", "null"]}
  },
  "required": ["connector_id", "node_uuid", "type"],
  "additionalProperties": false
}`

func mustCompileConnectorSchema() *pyschema.Schema { return pyschema.MustCompile(connectorSchemaJSON) }

// connectorKind is VolumeConnectorsController's part of a volume resource.
type connectorKind struct {
	a      *API
	schema *pyschema.Schema
}

var _ volumeKind[models.VolumeConnector] = connectorKind{}

func (connectorKind) names() volumeNames {
	return volumeNames{
		kind:          "connector",
		plural:        "connectors",
		param:         "connector_uuid",
		schemaProps:   []string{"connector_id", "extra", "node_uuid", "type", "uuid"},
		patchAllowed:  []string{"connector_id", "extra", "node_uuid", "type"},
		defaultFields: []string{"uuid", "node_uuid", "type", "connector_id"},
		badSortKeys:   []string{"extra"},
	}
}

func (k connectorKind) get(ctx context.Context, uuid string) (*models.VolumeConnector, error) {
	return k.a.d.Store.GetVolumeConnector(ctx, db.ByUUID(uuid))
}

func (k connectorKind) list(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeConnector, error) {
	return k.a.d.Store.ListVolumeConnectors(ctx, f, o)
}

func (k connectorKind) create(ctx context.Context, v *models.VolumeConnector) (*models.VolumeConnector, error) {
	return k.a.d.Store.CreateVolumeConnector(ctx, v)
}

func (k connectorKind) update(ctx context.Context, topic string, v *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	return k.a.d.Conductor.UpdateVolumeConnector(ctx, topic, v, changes)
}

func (k connectorKind) destroy(ctx context.Context, topic string, v *models.VolumeConnector) error {
	return k.a.d.Conductor.DestroyVolumeConnector(ctx, topic, v)
}

func (connectorKind) notFound(ident string) error {
	return ironic.Errorf(ironic.VolumeConnectorNotFound, "Volume connector %s could not be found.", ident)
}

func (k connectorKind) validate(doc any, name string) error {
	if verr := k.schema.Validate(doc); verr != nil {
		return schemaError(name, verr)
	}
	return nil
}

func (connectorKind) ids(v *models.VolumeConnector) (int64, string, *int64) {
	return v.ID, v.UUID, v.NodeID
}

func (connectorKind) view(base string, v *models.VolumeConnector, nodeUUID any) pyjson.Object {
	return pyjson.Object{
		{Key: "uuid", Value: v.UUID},
		{Key: "created_at", Value: isoTime(v.CreatedAt)},
		{Key: "updated_at", Value: isoTime(v.UpdatedAt)},
		{Key: "connector_id", Value: strOrNil(v.ConnectorID)},
		{Key: "extra", Value: dictOrEmpty(v.Extra)},
		{Key: "type", Value: strOrNil(v.Type)},
		{Key: "links", Value: selfLinks(base, "volume/connectors", v.UUID)},
		{Key: "node_uuid", Value: nodeUUID},
	}
}

func (connectorKind) sanitize(o pyjson.Object) pyjson.Object { return o }

func (connectorKind) redact(*models.VolumeConnector) bool { return false }

func (connectorKind) fromBody(body map[string]any, uuid string, nodeID int64) *models.VolumeConnector {
	return &models.VolumeConnector{
		UUID:        uuid,
		NodeID:      &nodeID,
		Type:        optString(body["type"]),
		ConnectorID: optString(body["connector_id"]),
		Extra:       bodyDict(body["extra"]),
	}
}

func (connectorKind) asDict(v *models.VolumeConnector) map[string]any {
	return map[string]any{
		"id":           v.ID,
		"uuid":         v.UUID,
		"created_at":   isoTime(v.CreatedAt),
		"updated_at":   isoTime(v.UpdatedAt),
		"type":         strOrNil(v.Type),
		"connector_id": strOrNil(v.ConnectorID),
		"extra":        patchDictValue(v.Extra),
	}
}

func (connectorKind) applyPatched(v *models.VolumeConnector, kept map[string]any) []string {
	var changes []string
	if u, _ := kept["uuid"].(string); u != v.UUID {
		v.UUID = u
		changes = append(changes, "uuid")
	}
	if s := optString(kept["type"]); !sameStr(s, v.Type) {
		v.Type = s
		changes = append(changes, "type")
	}
	if s := optString(kept["connector_id"]); !sameStr(s, v.ConnectorID) {
		v.ConnectorID = s
		changes = append(changes, "connector_id")
	}
	if !reflect.DeepEqual(kept["extra"], patchDictValue(v.Extra)) {
		v.Extra = bodyDict(kept["extra"])
		changes = append(changes, "extra")
	}
	return changes
}

func (connectorKind) setNodeID(v *models.VolumeConnector, id int64) { v.NodeID = &id }

// sameStr compares optional strings.
func sameStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
