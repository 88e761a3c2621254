package cli

import (
	"testing"
)

// testChassis covers chassis create/list/show/set/unset/delete and nodes
// in a chassis.
func testChassis(t *testing.T, w *world) {
	c := w.cli
	desc := w.name("chassis")
	created := c.Object(t, "chassis", "create", "--description", desc, "--extra", "a=b")
	id := uuidOf(t, created)
	w.cleanup(t, "chassis", "delete", id)
	want := object{"description": desc, "extra": object{"a": "b"}, "updated_at": nil}
	checkFields(t, "chassis create", created, want)
	checkKeys(t, "chassis create", created, "uuid", "description", "extra", "created_at", "updated_at")

	t.Run("list-show", func(t *testing.T) {
		long := mustRow(t, "chassis list --long", c.Rows(t, "chassis", "list", "--long"), "UUID", id)
		checkFields(t, "chassis list --long row", long, object{"Description": desc, "Extra": object{"a": "b"}, "Updated At": nil})
		checkFields(t, "chassis show", c.Object(t, "chassis", "show", id), want)
	})

	t.Run("set-unset", func(t *testing.T) {
		c.OK(t, "chassis", "set", id, "--description", desc+"-b", "--extra", "x=y")
		after := c.Object(t, "chassis", "show", id)
		checkFields(t, "chassis after set", after, object{"description": desc + "-b", "extra": object{"a": "b", "x": "y"}})
		if after["updated_at"] == nil {
			t.Errorf("chassis after set: updated_at is null")
		}
		c.OK(t, "chassis", "unset", id, "--extra", "a", "--description")
		checkFields(t, "chassis after unset", c.Object(t, "chassis", "show", id),
			object{"description": nil, "extra": object{"x": "y"}})
	})

	t.Run("nodes-and-delete", func(t *testing.T) {
		nodeName := w.name("chassis-node")
		w.cleanup(t, "node", "delete", nodeName)
		n := c.Object(t, "node", "create", "--driver", "fake-hardware", "--name", nodeName, "--chassis-uuid", id)
		node := uuidOf(t, n)
		checkFields(t, "node in chassis", n, object{"chassis_uuid": id})
		if got := column(c.Rows(t, "node", "list", "--chassis", id), "UUID"); len(got) != 1 || got[0] != node {
			t.Errorf("node list --chassis %s: %v, want [%s]", id, got, node)
		}
		c.Fails(t, []string{"Failed to delete chassis " + id,
			"Cannot complete the requested action because chassis " + id + " contains nodes."},
			"chassis", "delete", id)
		c.OK(t, "node", "unset", node, "--chassis-uuid")
		checkFields(t, "node out of chassis", c.Object(t, "node", "show", node), object{"chassis_uuid": nil})
		c.OK(t, "chassis", "delete", id)
		c.Fails(t, []string{"Chassis " + id + " could not be found. (HTTP 404)"}, "chassis", "show", id)
	})
}

// testDeployTemplates covers deploy template create (with --steps
// JSON)/list/show/set/unset/delete.
func testDeployTemplates(t *testing.T, w *world) {
	c := w.cli
	name := w.trait("DT")
	w.cleanup(t, "deploy", "template", "delete", name)
	w.cleanup(t, "deploy", "template", "delete", name+"_B")
	steps := []object{{
		"interface": "bios", "step": "apply_configuration",
		"args":     object{"settings": []object{{"name": "LogicalProc", "value": "Enabled"}}},
		"priority": 150,
	}}
	created := c.Object(t, "deploy", "template", "create", name, "--extra", "a=b", "--steps",
		`[{"interface": "bios", "step": "apply_configuration", "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}, "priority": 150}]`)
	id := uuidOf(t, created)
	want := object{"name": name, "steps": steps, "extra": object{"a": "b"}, "updated_at": nil}
	checkFields(t, "deploy template create", created, want)

	t.Run("list-show", func(t *testing.T) {
		long := mustRow(t, "deploy template list --long", c.Rows(t, "deploy", "template", "list", "--long"), "UUID", id)
		checkFields(t, "deploy template list --long row", long, object{"Name": name, "Steps": steps, "Extra": object{"a": "b"}})
		checkFields(t, "deploy template show by name", c.Object(t, "deploy", "template", "show", name), want)
	})

	t.Run("set-unset", func(t *testing.T) {
		c.OK(t, "deploy", "template", "set", name, "--name", name+"_B", "--extra", "c=d", "--steps",
			`[{"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 10}]`)
		checkFields(t, "deploy template after set", c.Object(t, "deploy", "template", "show", id), object{
			"name":  name + "_B",
			"extra": object{"a": "b", "c": "d"},
			"steps": []object{{"interface": "raid", "step": "delete_configuration", "args": object{}, "priority": 10}},
		})
		c.OK(t, "deploy", "template", "unset", name+"_B", "--extra", "a")
		checkFields(t, "deploy template after unset", c.Object(t, "deploy", "template", "show", id),
			object{"extra": object{"c": "d"}})
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "deploy", "template", "delete", name+"_B")
		c.Fails(t, []string{"Deploy template " + id + " could not be found. (HTTP 404)"}, "deploy", "template", "show", id)
	})

	t.Run("invalid", func(t *testing.T) {
		c.Fails(t, []string{"Schema error for template: 'cli_lower' is not valid under any of the given schemas."},
			"deploy", "template", "create", "cli_lower", "--steps",
			`[{"interface": "bios", "step": "apply_configuration", "args": {}, "priority": 150}]`)
		c.Fails(t, []string{"Schema error for template: [] is too short (HTTP 400)"},
			"deploy", "template", "create", w.trait("EMPTY"), "--steps", "[]")
	})
}

// testVolumeConnectors covers volume connector create/list/show/set/unset/delete.
func testVolumeConnectors(t *testing.T, w *world) {
	c := w.cli
	node := newNode(t, w, w.name("vc-node"))
	iqn := "iqn.2017-08.org.openstack." + w.name("vc")
	created := c.Object(t, "volume", "connector", "create", "--node", node, "--type", "iqn",
		"--connector-id", iqn, "--extra", "a=b")
	id := uuidOf(t, created)
	want := object{"node_uuid": node, "type": "iqn", "connector_id": iqn, "extra": object{"a": "b"}, "updated_at": nil}
	checkFields(t, "volume connector create", created, want)

	t.Run("list-show", func(t *testing.T) {
		rows := c.Rows(t, "volume", "connector", "list", "--node", node)
		if len(rows) != 1 {
			t.Fatalf("volume connector list --node: %v, want one", rows)
		}
		checkKeys(t, "volume connector list row", rows[0], "UUID", "Node UUID", "Type", "Connector ID")
		checkFields(t, "volume connector list row", rows[0], object{"UUID": id, "Node UUID": node, "Type": "iqn", "Connector ID": iqn})
		checkFields(t, "volume connector show", c.Object(t, "volume", "connector", "show", id), want)
	})

	t.Run("set-unset", func(t *testing.T) {
		// Ironic updates volume connectors only while the node is powered
		// off; a new node's power state is None.
		c.Fails(t, []string{`The requested action "volume connector update" can not be performed on node "` + node + `" while it is in state "None".`},
			"volume", "connector", "set", id, "--extra", "c=d")
		powerOff(t, w, node)
		c.OK(t, "volume", "connector", "set", id, "--extra", "c=d", "--type", "ip", "--connector-id", "192.168.1.10")
		checkFields(t, "volume connector after set", c.Object(t, "volume", "connector", "show", id),
			object{"type": "ip", "connector_id": "192.168.1.10", "extra": object{"a": "b", "c": "d"}})
		c.OK(t, "volume", "connector", "unset", id, "--extra", "a")
		checkFields(t, "volume connector after unset", c.Object(t, "volume", "connector", "show", id),
			object{"extra": object{"c": "d"}})
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "volume", "connector", "delete", id)
		c.Fails(t, []string{"Volume connector " + id + " could not be found. (HTTP 404)"}, "volume", "connector", "show", id)
	})
}

// testVolumeTargets covers volume target create/list/show/set/unset/delete.
func testVolumeTargets(t *testing.T, w *world) {
	c := w.cli
	node := newNode(t, w, w.name("vt-node"))
	vol := w.name("vol")
	created := c.Object(t, "volume", "target", "create", "--node", node, "--type", "iscsi",
		"--boot-index", "0", "--volume-id", vol, "--property", "target_lun=1", "--extra", "a=b")
	id := uuidOf(t, created)
	want := object{
		"node_uuid": node, "volume_type": "iscsi", "boot_index": 0, "volume_id": vol,
		"properties": object{"target_lun": 1}, "extra": object{"a": "b"}, "updated_at": nil,
	}
	checkFields(t, "volume target create", created, want)

	t.Run("list-show", func(t *testing.T) {
		rows := c.Rows(t, "volume", "target", "list", "--node", node)
		if len(rows) != 1 {
			t.Fatalf("volume target list --node: %v, want one", rows)
		}
		checkKeys(t, "volume target list row", rows[0], "UUID", "Node UUID", "Driver Volume Type", "Boot Index", "Volume ID")
		checkFields(t, "volume target list row", rows[0], object{
			"UUID": id, "Node UUID": node, "Driver Volume Type": "iscsi", "Boot Index": 0, "Volume ID": vol,
		})
		checkFields(t, "volume target show", c.Object(t, "volume", "target", "show", id), want)
	})

	t.Run("set-unset", func(t *testing.T) {
		powerOff(t, w, node)
		c.OK(t, "volume", "target", "set", id, "--extra", "c=d", "--boot-index", "1", "--property", "target_iqn=iqn.x")
		checkFields(t, "volume target after set", c.Object(t, "volume", "target", "show", id), object{
			"boot_index": 1, "extra": object{"a": "b", "c": "d"},
			"properties": object{"target_lun": 1, "target_iqn": "iqn.x"},
		})
		c.OK(t, "volume", "target", "unset", id, "--extra", "a", "--property", "target_lun")
		checkFields(t, "volume target after unset", c.Object(t, "volume", "target", "show", id), object{
			"extra": object{"c": "d"}, "properties": object{"target_iqn": "iqn.x"},
		})
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "volume", "target", "delete", id)
		c.Fails(t, []string{"Volume target " + id + " could not be found. (HTTP 404)"}, "volume", "target", "show", id)
	})
}

// powerOff powers node off and waits until it is.
func powerOff(t *testing.T, w *world, node string) {
	t.Helper()
	w.cli.OK(t, "node", "power", "off", node)
	waitField(t, w, "power_state", "power off", "node", "show", node, "--fields", "power_state")
}
