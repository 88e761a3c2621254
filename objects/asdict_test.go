package objects_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/states"
)

// Ironic 21.4's Node.fields and Port.fields, in order (python3 -c "from
// ironic.objects import node; print(' '.join(node.Node.fields))").
const (
	ironicNodeFields = "id uuid name chassis_id instance_uuid driver driver_info driver_internal_info clean_step deploy_step raid_config target_raid_config instance_info properties reservation conductor_affinity conductor_group power_state target_power_state provision_state provision_updated_at target_provision_state maintenance maintenance_reason fault console_enabled last_error resource_class inspection_finished_at inspection_started_at extra automated_clean protected protected_reason allocation_id bios_interface boot_interface console_interface deploy_interface inspect_interface management_interface network_interface power_interface raid_interface rescue_interface storage_interface vendor_interface traits owner lessee description retired retired_reason network_data boot_mode secure_boot shard created_at updated_at"
	ironicPortFields = "id uuid node_id node_uuid address extra local_link_connection portgroup_id pxe_enabled internal_info physical_network is_smartnic name created_at updated_at"
)

func keys(o pyjson.Object) string {
	k := make([]string, len(o))
	for i, m := range o {
		k[i] = m.Key
	}
	return strings.Join(k, " ")
}

// TestFieldTables: the object tables list Ironic's fields in Ironic's
// order, which is the order of primitives and of as_dict.
func TestFieldTables(t *testing.T) {
	if got := strings.Join(objects.NodeDef().FieldNames(), " "); got != ironicNodeFields {
		t.Errorf("Node fields:\n%s\nwant\n%s", got, ironicNodeFields)
	}
	if got := strings.Join(objects.PortDef().FieldNames(), " "); got != ironicPortFields {
		t.Errorf("Port fields:\n%s\nwant\n%s", got, ironicPortFields)
	}
}

// TestNodeAsDict: every field of a node read from the database, datetimes
// as to_primitive writes them, traits as {"objects": [trait data]}.
func TestNodeAsDict(t *testing.T) {
	created := models.NewTime(time.Date(2026, 12, 2, 11, 52, 28, 0, time.UTC))
	n := &models.Node{ID: 5, UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Name: models.Ptr("pact"), Driver: "fake-hardware",
		DriverInfo: models.JSONDict{"ipmi_password": "secret"}, ProvisionState: models.Ptr(states.Active),
		Traits: []models.NodeTrait{{NodeID: 5, Trait: "CUSTOM_GOLD"}}, CreatedAt: created}
	d, err := objects.NodeAsDict(n)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(d); got != ironicNodeFields {
		t.Errorf("as_dict keys:\n%s\nwant\n%s", got, ironicNodeFields)
	}
	for k, want := range map[string]string{
		"id": "5", "name": `"pact"`, "chassis_id": "null", "created_at": `"2026-12-02T11:52:28.000000"`, "updated_at": "null",
		"driver_info": `{"ipmi_password": "secret"}`, "maintenance": "false",
		"traits": `{"objects": [{"trait": "CUSTOM_GOLD"}]}`,
	} {
		v, _ := d.Get(k)
		if got, err := pyjson.Marshal(v); err != nil || string(got) != want {
			t.Errorf("%s = %s (%v), want %s", k, got, err, want)
		}
	}
}

// TestPortAsDict: every Port field, node_uuid given by the caller.
func TestPortAsDict(t *testing.T) {
	p := &models.Port{ID: 7, UUID: "p1", NodeID: models.Ptr(int64(5)), Address: models.Ptr("52:54:00:00:00:01"),
		PXEEnabled: models.Ptr(true), CreatedAt: models.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC))}
	d, err := objects.PortAsDict(p, "n-uuid")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(d); got != ironicPortFields {
		t.Errorf("as_dict keys:\n%s\nwant\n%s", got, ironicPortFields)
	}
	for k, want := range map[string]any{"node_uuid": "n-uuid", "pxe_enabled": true, "created_at": "2026-01-02T03:04:05.000000"} {
		if got, _ := d.Get(k); !cmp.Equal(got, want) {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
}
