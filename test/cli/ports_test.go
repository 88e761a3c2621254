package cli

import (
	"strings"
	"testing"
)

// newNode creates a fake-hardware node named name for a sub-test and
// returns its UUID.
func newNode(t *testing.T, w *world, name string, extra ...string) string {
	t.Helper()
	w.cleanup(t, "node", "delete", name)
	args := append([]string{"node", "create", "--driver", "fake-hardware", "--name", name}, extra...)
	return uuidOf(t, w.cli.Object(t, args...))
}

// testPorts covers port create/list/show/set/unset/delete.
func testPorts(t *testing.T, w *world) {
	c := w.cli
	nodeName := w.name("port-node")
	node := newNode(t, w, nodeName)
	mac := w.mac(1)

	// The CLI's --node takes a UUID; the address is given in upper case
	// and stored in lower case.
	created := c.Object(t, "port", "create", strings.ToUpper(mac), "--node", node,
		"--extra", "k=v", "--local-link-connection", "switch_id=00:11:22:33:44:55",
		"--local-link-connection", "port_id=Ethernet1/1", "--physical-network", "physnet1",
		"--pxe-enabled", "false")
	id := uuidOf(t, created)
	want := object{
		"address":               mac,
		"node_uuid":             node,
		"extra":                 object{"k": "v"},
		"local_link_connection": object{"switch_id": "00:11:22:33:44:55", "port_id": "Ethernet1/1"},
		"physical_network":      "physnet1",
		"pxe_enabled":           false,
		"portgroup_uuid":        nil,
		"is_smartnic":           false,
		"internal_info":         object{},
	}
	checkFields(t, "port create", created, want)

	t.Run("list", func(t *testing.T) {
		rows := c.Rows(t, "port", "list", "--node", nodeName)
		if len(rows) != 1 {
			t.Fatalf("port list --node %s: %v, want one port", nodeName, rows)
		}
		checkKeys(t, "port list row", rows[0], "UUID", "Address")
		checkFields(t, "port list row", rows[0], object{"UUID": id, "Address": mac})
		long := c.Rows(t, "port", "list", "--node", node, "--long")
		if len(long) != 1 {
			t.Fatalf("port list --node %s --long: %v, want one port", node, long)
		}
		checkFields(t, "port list --long row", long[0], object{
			"UUID": id, "Address": mac, "Node UUID": node, "PXE boot enabled": false,
			"Physical Network": "physnet1", "Portgroup UUID": nil, "Is Smart NIC port": false,
		})
	})

	t.Run("show", func(t *testing.T) {
		checkFields(t, "port show", c.Object(t, "port", "show", id), want)
		byAddr := c.Object(t, "port", "show", "--address", mac, "--fields", "uuid", "address")
		checkKeys(t, "port show --address --fields", byAddr, "uuid", "address")
		checkFields(t, "port show --address", byAddr, object{"uuid": id, "address": mac})
	})

	t.Run("set-unset", func(t *testing.T) {
		c.OK(t, "port", "set", id, "--extra", "k2=v2", "--physical-network", "physnet2", "--pxe-enabled")
		checkFields(t, "port show after set", c.Object(t, "port", "show", id), object{
			"extra": object{"k": "v", "k2": "v2"}, "physical_network": "physnet2", "pxe_enabled": true,
		})
		c.OK(t, "port", "unset", id, "--extra", "k", "--physical-network")
		checkFields(t, "port show after unset", c.Object(t, "port", "show", id), object{
			"extra": object{"k2": "v2"}, "physical_network": nil, "address": mac, "node_uuid": node,
		})
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "port", "delete", id)
		c.Fails(t, []string{"Port " + id + " could not be found. (HTTP 404)"}, "port", "show", id)
	})
}

// testPortgroups covers port group create/list/show/set/unset/delete and
// ports in a group.
func testPortgroups(t *testing.T, w *world) {
	c := w.cli
	node := newNode(t, w, w.name("pg-node"))
	name := w.name("pg")
	mac := w.mac(2)

	created := c.Object(t, "port", "group", "create", "--node", node, "--name", name,
		"--address", mac, "--extra", "a=b", "--mode", "active-backup",
		"--property", "miimon=100", "--support-standalone-ports")
	id := uuidOf(t, created)
	want := object{
		"name":                       name,
		"address":                    mac,
		"node_uuid":                  node,
		"extra":                      object{"a": "b"},
		"mode":                       "active-backup",
		"properties":                 object{"miimon": 100},
		"standalone_ports_supported": true,
		"internal_info":              object{},
	}
	checkFields(t, "port group create", created, want)

	t.Run("list-show", func(t *testing.T) {
		rows := c.Rows(t, "port", "group", "list", "--node", node)
		if len(rows) != 1 {
			t.Fatalf("port group list --node %s: %v, want one", node, rows)
		}
		checkKeys(t, "port group list row", rows[0], "UUID", "Address", "Name")
		checkFields(t, "port group list row", rows[0], object{"UUID": id, "Address": mac, "Name": name})
		long := mustRow(t, "port group list --long", c.Rows(t, "port", "group", "list", "--long", "--node", node), "UUID", id)
		checkFields(t, "port group list --long row", long, object{
			"Mode": "active-backup", "Node UUID": node, "Standalone Ports Supported": true,
			"Properties": object{"miimon": 100},
		})
		checkFields(t, "port group show by name", c.Object(t, "port", "group", "show", name), want)
		byAddr := c.Object(t, "port", "group", "show", "--address", mac)
		checkFields(t, "port group show --address", byAddr, object{"uuid": id, "name": name})
	})

	t.Run("set-unset", func(t *testing.T) {
		c.OK(t, "port", "group", "set", name, "--name", name+"-b", "--extra", "c=d",
			"--mode", "802.3ad", "--property", "xmit_hash_policy=layer2")
		checkFields(t, "port group after set", c.Object(t, "port", "group", "show", id), object{
			"name":       name + "-b",
			"extra":      object{"a": "b", "c": "d"},
			"mode":       "802.3ad",
			"properties": object{"miimon": 100, "xmit_hash_policy": "layer2"},
		})
		c.OK(t, "port", "group", "unset", name+"-b", "--extra", "a", "--property", "miimon")
		checkFields(t, "port group after unset", c.Object(t, "port", "group", "show", id), object{
			"extra":      object{"c": "d"},
			"properties": object{"xmit_hash_policy": "layer2"},
		})
	})

	t.Run("member-ports-and-delete", func(t *testing.T) {
		// After set-unset the group may be called name or name-b: use
		// its UUID.
		member := c.Object(t, "port", "create", w.mac(3), "--node", node, "--port-group", id)
		port := uuidOf(t, member)
		checkFields(t, "member port", member, object{"portgroup_uuid": id})
		members := c.Rows(t, "port", "list", "--port-group", id)
		if got := column(members, "UUID"); len(got) != 1 || got[0] != port {
			t.Errorf("port list --port-group %s: %v, want [%s]", id, got, port)
		}
		// Ironic refuses to delete a port group that still has ports
		// (PortgroupNotEmpty). The reference 21.4 answers a 500 here on
		// SQLite (its emptiness check never matches, then the foreign key
		// fails); the intended answer is this 400. Against another
		// endpoint only the refusal is required.
		notEmpty := []string{"Cannot complete the requested action because portgroup " + id + " contains ports. (HTTP 400)"}
		if !w.own {
			notEmpty = []string{"Failed to delete port group " + id}
		}
		c.Fails(t, notEmpty, "port", "group", "delete", id)
		c.OK(t, "port", "unset", port, "--port-group")
		checkFields(t, "port after unset --port-group", c.Object(t, "port", "show", port), object{"portgroup_uuid": nil})
		c.OK(t, "port", "group", "delete", id)
		c.Fails(t, []string{"Portgroup " + id + " could not be found. (HTTP 404)"}, "port", "group", "show", id)
	})
}
