package conductor

import (
	"context"
	"slices"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// Volumes implements drivers.Task: the node's volume connectors and
// targets, read from the database when asked for (Ironic's task loads
// them lazily too).
func (t *task) Volumes() drivers.VolumeStore { return volumeStore{t} }

type volumeStore struct{ t *task }

func (v volumeStore) Connectors(ctx context.Context) ([]drivers.VolumeConnector, error) {
	id := v.t.node.ID
	rows, err := v.t.m.store.ListVolumeConnectors(ctx, db.VolumeFilter{NodeID: &id}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	return driverConnectors(rows), nil
}

// driverConnectors are volume connector rows as drivers see them.
func driverConnectors(rows []models.VolumeConnector) []drivers.VolumeConnector {
	out := make([]drivers.VolumeConnector, len(rows))
	for i, r := range rows {
		out[i] = drivers.VolumeConnector{UUID: r.UUID, Type: models.Deref(r.Type), ConnectorID: models.Deref(r.ConnectorID)}
	}
	return out
}

func (v volumeStore) Targets(ctx context.Context) ([]drivers.VolumeTarget, error) {
	id := v.t.node.ID
	rows, err := v.t.m.store.ListVolumeTargets(ctx, db.VolumeFilter{NodeID: &id}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	out := make([]drivers.VolumeTarget, len(rows))
	for i, r := range rows {
		out[i] = driverTarget(r)
	}
	return out, nil
}

func driverTarget(r models.VolumeTarget) drivers.VolumeTarget {
	vt := drivers.VolumeTarget{UUID: r.UUID, VolumeType: models.Deref(r.VolumeType), VolumeID: models.Deref(r.VolumeID),
		Properties: r.Properties.Dict}
	if r.BootIndex != nil {
		vt.BootIndex = *r.BootIndex
	}
	return vt
}

func (v volumeStore) SetTargetProperties(ctx context.Context, volumeID string, props *pyjson.Dict) (int, error) {
	rows, err := v.t.m.store.ListVolumeTargets(ctx, db.VolumeFilter{VolumeID: &volumeID}, db.ListOpts{})
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		r.Properties = jsonDict(props)
		vals, err := v.t.m.store.VolumeTargetValues(&r, []string{"properties"})
		if err != nil {
			return 0, err
		}
		if _, err := v.t.m.store.UpdateVolumeTarget(ctx, db.ByID(r.ID), vals); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

func (v volumeStore) DestroyTarget(ctx context.Context, uuid string) error {
	id := v.t.node.ID
	rows, err := v.t.m.store.ListVolumeTargets(ctx, db.VolumeFilter{NodeID: &id}, db.ListOpts{})
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(rows, func(r models.VolumeTarget) bool { return r.UUID == uuid }) {
		return nil
	}
	return v.t.m.store.DestroyVolumeTarget(ctx, db.ByUUID(uuid))
}
