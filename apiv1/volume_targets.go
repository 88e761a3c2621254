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

// targetSchemaJSON is volume_target.py TARGET_SCHEMA.
const targetSchemaJSON = `{
  "type": "object",
  "properties": {
    "boot_index": {"type": "integer"},
    "extra": {"type": ["object", "null"]},
    "node_uuid": {"type": "string"},
    "properties": {"type": ["object", "null"]},
    "volume_id": {"type": "string"},
    "volume_type": {"type": "string"},
    "uuid": {"type": ["string", "null"]}
  },
  "required": ["boot_index", "node_uuid", "volume_id", "volume_type"],
  "additionalProperties": false
}`

// redactedTargetProperties replaces a target's properties for callers
// without baremetal:volume:view_target_properties.
const redactedTargetProperties = "** Value redacted: Requires permission baremetal:volume:view_target_properties access. Permission denied. **"

func mustCompileTargetSchema() *pyschema.Schema { return pyschema.MustCompile(targetSchemaJSON) }

// targetKind is VolumeTargetsController's part of a volume resource.
type targetKind struct {
	a      *API
	schema *pyschema.Schema
}

var _ volumeKind[models.VolumeTarget] = targetKind{}

func (targetKind) names() volumeNames {
	return volumeNames{
		kind:          "target",
		plural:        "targets",
		param:         "target_uuid",
		schemaProps:   []string{"boot_index", "extra", "node_uuid", "properties", "volume_id", "volume_type", "uuid"},
		patchAllowed:  []string{"boot_index", "extra", "node_uuid", "properties", "volume_id", "volume_type"},
		defaultFields: []string{"uuid", "node_uuid", "volume_type", "boot_index", "volume_id"},
		badSortKeys:   []string{"extra", "properties"},
	}
}

func (k targetKind) get(ctx context.Context, uuid string) (*models.VolumeTarget, error) {
	return k.a.d.Store.GetVolumeTarget(ctx, db.ByUUID(uuid))
}

func (k targetKind) list(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeTarget, error) {
	return k.a.d.Store.ListVolumeTargets(ctx, f, o)
}

func (k targetKind) create(ctx context.Context, v *models.VolumeTarget) (*models.VolumeTarget, error) {
	return k.a.d.Store.CreateVolumeTarget(ctx, v)
}

func (k targetKind) update(ctx context.Context, topic string, v *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	return k.a.d.Conductor.UpdateVolumeTarget(ctx, topic, v, changes)
}

func (k targetKind) destroy(ctx context.Context, topic string, v *models.VolumeTarget) error {
	return k.a.d.Conductor.DestroyVolumeTarget(ctx, topic, v)
}

func (targetKind) notFound(ident string) error {
	return ironic.Errorf(ironic.VolumeTargetNotFound, "Volume target %s could not be found.", ident)
}

func (k targetKind) validate(doc any, name string) error {
	if verr := k.schema.Validate(doc); verr != nil {
		return schemaError(name, verr)
	}
	return nil
}

func (targetKind) ids(v *models.VolumeTarget) (int64, string, *int64) { return v.ID, v.UUID, v.NodeID }

func (targetKind) view(base string, v *models.VolumeTarget, nodeUUID any) pyjson.Object {
	var bootIndex any
	if v.BootIndex != nil {
		bootIndex = *v.BootIndex
	}
	return pyjson.Object{
		{Key: "uuid", Value: v.UUID},
		{Key: "created_at", Value: isoTime(v.CreatedAt)},
		{Key: "updated_at", Value: isoTime(v.UpdatedAt)},
		{Key: "boot_index", Value: bootIndex},
		{Key: "extra", Value: dictOrEmpty(v.Extra)},
		{Key: "properties", Value: dictOrEmpty(v.Properties)},
		{Key: "volume_id", Value: strOrNil(v.VolumeID)},
		{Key: "volume_type", Value: strOrNil(v.VolumeType)},
		{Key: "links", Value: selfLinks(base, "volume/targets", v.UUID)},
		{Key: "node_uuid", Value: nodeUUID},
	}
}

// sanitize is target_sanitize's masking: secrets in the properties.
func (k targetKind) sanitize(o pyjson.Object) pyjson.Object {
	for i, m := range o {
		if m.Key != "properties" {
			continue
		}
		if p, ok := m.Value.(map[string]any); ok && len(p) > 0 {
			o[i].Value = k.a.masker.MaskDict(p, "******")
		}
	}
	return o
}

func (targetKind) redact(v *models.VolumeTarget) bool {
	v.Properties = models.JSONDict{"redacted_contents": redactedTargetProperties}
	return true
}

func (targetKind) fromBody(body map[string]any, uuid string, nodeID int64) *models.VolumeTarget {
	return &models.VolumeTarget{
		UUID:       uuid,
		NodeID:     &nodeID,
		VolumeType: optString(body["volume_type"]),
		Properties: bodyDict(body["properties"]),
		BootIndex:  bodyInt64(body["boot_index"]),
		VolumeID:   optString(body["volume_id"]),
		Extra:      bodyDict(body["extra"]),
	}
}

func (targetKind) asDict(v *models.VolumeTarget) map[string]any {
	var bootIndex any
	if v.BootIndex != nil {
		bootIndex = *v.BootIndex
	}
	return map[string]any{
		"id":          v.ID,
		"uuid":        v.UUID,
		"created_at":  isoTime(v.CreatedAt),
		"updated_at":  isoTime(v.UpdatedAt),
		"volume_type": strOrNil(v.VolumeType),
		"properties":  patchDictValue(v.Properties),
		"boot_index":  bootIndex,
		"volume_id":   strOrNil(v.VolumeID),
		"extra":       patchDictValue(v.Extra),
	}
}

func (targetKind) applyPatched(v *models.VolumeTarget, kept map[string]any) []string {
	var changes []string
	if u, _ := kept["uuid"].(string); u != v.UUID {
		v.UUID = u
		changes = append(changes, "uuid")
	}
	if s := optString(kept["volume_type"]); !sameStr(s, v.VolumeType) {
		v.VolumeType = s
		changes = append(changes, "volume_type")
	}
	if !reflect.DeepEqual(kept["properties"], patchDictValue(v.Properties)) {
		v.Properties = bodyDict(kept["properties"])
		changes = append(changes, "properties")
	}
	if bi := bodyInt64(kept["boot_index"]); !sameInt(bi, v.BootIndex) {
		v.BootIndex = bi
		changes = append(changes, "boot_index")
	}
	if s := optString(kept["volume_id"]); !sameStr(s, v.VolumeID) {
		v.VolumeID = s
		changes = append(changes, "volume_id")
	}
	if !reflect.DeepEqual(kept["extra"], patchDictValue(v.Extra)) {
		v.Extra = bodyDict(kept["extra"])
		changes = append(changes, "extra")
	}
	return changes
}

func (targetKind) setNodeID(v *models.VolumeTarget, id int64) { v.NodeID = &id }

// sameInt compares optional integers.
func sameInt(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
