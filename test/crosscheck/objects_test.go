package crosscheck

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture names the objects populate created.
type fixture struct {
	chassis    string
	nodes      []string // full, off, plain, nameless
	ports      []string // p1 (pxe, llc), p2 and p3 (in the portgroup), p4 (node off)
	portgroup  string
	connectors []string
	targets    []string
	templates  []string
	// deleted lists the paths of objects deleted since (they must be 404).
	deleted []string
}

const (
	fullNode  = 0
	offNode   = 1
	portInPG  = 2 // p3, deleted by the modification step
	firstPort = 0
)

func uuidOf(t *testing.T, obj map[string]any) string {
	t.Helper()
	u, ok := obj["uuid"].(string)
	if !ok || u == "" {
		t.Fatalf("no uuid in %v", obj)
	}
	return u
}

// networkData is a valid network_data document (Nova's network metadata).
func networkData() map[string]any {
	return map[string]any{
		"links": []any{map[string]any{
			"id": "port-0", "type": "phy", "ethernet_mac_address": "52:54:00:12:34:01", "mtu": 9000,
		}},
		"networks": []any{map[string]any{
			"id": "net-0", "type": "ipv4", "link": "port-0", "network_id": "public",
			"ip_address": "192.0.2.10", "netmask": "255.255.255.0",
			"routes": []any{map[string]any{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}},
		}},
		"services": []any{map[string]any{"type": "dns", "address": "192.0.2.2"}},
	}
}

// populate creates, through c's REST API, a realistic set of objects: a
// chassis with nodes; nodes with driver_info (a password among it),
// properties, extra, instance_info, traits, name, owner, lessee,
// resource_class, shard, network_data and explicit interfaces; a node in
// maintenance; a node powered off through PUT states/power; ports with
// local_link_connection and pxe_enabled; a portgroup with two ports;
// volume connectors and targets; deploy templates with steps.
func populate(ctx context.Context, t *testing.T, c *client) fixture {
	t.Helper()
	var fx fixture
	ch := c.must(ctx, t, http.MethodPost, "/v1/chassis", map[string]any{
		"description": "crosscheck rack",
		"extra":       map[string]any{"row": "A", "slots": 42},
	}, http.StatusCreated)
	fx.chassis = uuidOf(t, ch)

	full := c.must(ctx, t, http.MethodPost, "/v1/nodes", map[string]any{
		"name":         "xcheck-full",
		"driver":       "fake-hardware",
		"chassis_uuid": fx.chassis,
		"driver_info": map[string]any{
			"deploy_kernel": "http://192.0.2.1/ipa.kernel", "deploy_ramdisk": "http://192.0.2.1/ipa.initramfs",
			"fake_username": "admin", "fake_password": "s3cret",
		},
		"properties": map[string]any{
			"cpus": 8, "memory_mb": 16384, "local_gb": 100, "cpu_arch": "x86_64",
			"capabilities": "boot_mode:uefi,disk_label:gpt",
		},
		"extra": map[string]any{
			"nested": map[string]any{"list": []any{1, 2.5, true, nil, "é ünïcode"}},
			"big":    uint64(12345678901234567890), "neg": -7, "empty": map[string]any{},
		},
		"instance_info":    map[string]any{"image_source": "http://192.0.2.1/image.qcow2", "root_gb": "10"},
		"lessee":           "project-lessee",
		"resource_class":   "baremetal-large",
		"description":      "fully populated node",
		"shard":            "shard-1",
		"network_data":     networkData(),
		"deploy_interface": "direct",
		"boot_interface":   "ipxe",
		"raid_interface":   "no-raid",
		"automated_clean":  false,
	}, http.StatusCreated)
	off := c.must(ctx, t, http.MethodPost, "/v1/nodes", map[string]any{
		"name": "xcheck-off", "driver": "fake-hardware", "chassis_uuid": fx.chassis,
		"resource_class": "baremetal-small",
		"properties":     map[string]any{"cpus": 2, "memory_mb": 4096},
	}, http.StatusCreated)
	plain := c.must(ctx, t, http.MethodPost, "/v1/nodes", map[string]any{
		"name": "xcheck-plain", "driver": "fake-hardware",
	}, http.StatusCreated)
	nameless := c.must(ctx, t, http.MethodPost, "/v1/nodes", map[string]any{
		"driver": "fake-hardware", "extra": map[string]any{"note": "no name"},
	}, http.StatusCreated)
	fx.nodes = []string{uuidOf(t, full), uuidOf(t, off), uuidOf(t, plain), uuidOf(t, nameless)}
	fullID, offID := fx.nodes[fullNode], fx.nodes[offNode]

	// A project-scoped request (noauth is one) cannot create a node with
	// an owner: set it afterwards.
	for _, n := range []string{fullID, offID} {
		c.must(ctx, t, http.MethodPatch, "/v1/nodes/"+n, []any{
			map[string]any{"op": "add", "path": "/owner", "value": "project-owner"},
		}, http.StatusOK)
	}
	c.must(ctx, t, http.MethodPut, "/v1/nodes/"+fullID+"/traits", map[string]any{
		"traits": []any{"CUSTOM_XCHECK_A", "CUSTOM_XCHECK_B", "HW_CPU_X86_VMX"},
	}, http.StatusNoContent)
	c.must(ctx, t, http.MethodPut, "/v1/nodes/"+fullID+"/maintenance", map[string]any{
		"reason": "crosscheck maintenance",
	}, http.StatusAccepted)
	c.must(ctx, t, http.MethodPut, "/v1/nodes/"+offID+"/states/power", map[string]any{
		"target": "power off",
	}, http.StatusAccepted)
	waitPowerOff(ctx, t, c, offID)

	pg := c.must(ctx, t, http.MethodPost, "/v1/portgroups", map[string]any{
		"node_uuid": fullID, "address": "52:54:00:12:34:10", "name": "xcheck-pg",
		"mode": "802.3ad", "properties": map[string]any{"miimon": "100", "xmit_hash_policy": "layer3+4"},
		"standalone_ports_supported": true, "extra": map[string]any{"bond": "bond0"},
	}, http.StatusCreated)
	fx.portgroup = uuidOf(t, pg)
	for _, p := range []map[string]any{
		{
			"node_uuid": fullID, "address": "52:54:00:12:34:01", "pxe_enabled": true,
			"local_link_connection": map[string]any{
				"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Ethernet1/1", "switch_info": "leaf-1",
			},
			"physical_network": "physnet1", "extra": map[string]any{"slot": 1},
		},
		{
			"node_uuid": fullID, "address": "52:54:00:12:34:02", "pxe_enabled": false,
			"portgroup_uuid":        fx.portgroup,
			"local_link_connection": map[string]any{"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Ethernet1/2"},
		},
		{
			"node_uuid": fullID, "address": "52:54:00:12:34:03", "pxe_enabled": false,
			"portgroup_uuid": fx.portgroup, "is_smartnic": false,
			"local_link_connection": map[string]any{"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Ethernet1/3"},
		},
		{"node_uuid": offID, "address": "52:54:00:12:34:20", "pxe_enabled": true},
	} {
		fx.ports = append(fx.ports, uuidOf(t, c.must(ctx, t, http.MethodPost, "/v1/ports", p, http.StatusCreated)))
	}

	for _, vc := range []map[string]any{
		{"node_uuid": fullID, "type": "iqn", "connector_id": "iqn.2024-05.org.example:xcheck-full", "extra": map[string]any{"initiator": true}},
		{"node_uuid": fullID, "type": "ip", "connector_id": "192.0.2.50"},
	} {
		fx.connectors = append(fx.connectors, uuidOf(t, c.must(ctx, t, http.MethodPost, "/v1/volume/connectors", vc, http.StatusCreated)))
	}
	for _, vt := range []map[string]any{
		{
			"node_uuid": fullID, "volume_type": "iscsi", "boot_index": 0, "volume_id": "vol-0001",
			"properties": map[string]any{"target_iqn": "iqn.2024-05.org.example:vol-0001", "target_lun": 0, "auth_method": "CHAP"},
			"extra":      map[string]any{"tier": "gold"},
		},
		{"node_uuid": fullID, "volume_type": "fibre_channel", "boot_index": 1, "volume_id": "vol-0002"},
	} {
		fx.targets = append(fx.targets, uuidOf(t, c.must(ctx, t, http.MethodPost, "/v1/volume/targets", vt, http.StatusCreated)))
	}

	for _, dt := range []map[string]any{
		{
			"name": "CUSTOM_XCHECK_RAID_BIOS",
			"steps": []any{
				map[string]any{"interface": "raid", "step": "apply_configuration", "priority": 150, "args": map[string]any{
					"raid_config": map[string]any{"logical_disks": []any{
						map[string]any{"size_gb": 100, "raid_level": "1", "is_root_volume": true},
					}},
				}},
				map[string]any{"interface": "bios", "step": "apply_configuration", "priority": 140, "args": map[string]any{
					"settings": []any{map[string]any{"name": "LogicalProc", "value": "Enabled"}},
				}},
			},
			"extra": map[string]any{"owner": "ops"},
		},
		{
			"name":  "CUSTOM_XCHECK_MGMT",
			"steps": []any{map[string]any{"interface": "management", "step": "reset_idrac", "priority": 10, "args": map[string]any{}}},
		},
	} {
		fx.templates = append(fx.templates, uuidOf(t, c.must(ctx, t, http.MethodPost, "/v1/deploy_templates", dt, http.StatusCreated)))
	}
	return fx
}

// waitPowerOff polls the node until its power action has ended, and
// requires it powered off.
func waitPowerOff(ctx context.Context, t *testing.T, c *client, node string) {
	t.Helper()
	deadline := time.Now().Add(asyncTimeout)
	for {
		n := c.must(ctx, t, http.MethodGet, "/v1/nodes/"+node, nil, http.StatusOK)
		if n["target_power_state"] == nil {
			if n["power_state"] != "power off" || n["last_error"] != nil {
				t.Fatalf("node %s after power off: power_state %v, last_error %v", node, n["power_state"], n["last_error"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s: power off not finished after %s (target_power_state %v)", node, asyncTimeout, n["target_power_state"])
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// modify changes the objects of fx through c, as an operator would after
// switching servers: it patches a node (nested extra, properties,
// instance_info, description), removes one of its traits, patches a port
// and a deploy template, and deletes a port of the portgroup. It returns
// the fixture without the deleted port.
func modify(ctx context.Context, t *testing.T, c *client, fx fixture) fixture {
	t.Helper()
	fullID := fx.nodes[fullNode]
	c.must(ctx, t, http.MethodPatch, "/v1/nodes/"+fullID, []any{
		map[string]any{"op": "replace", "path": "/extra/nested", "value": map[string]any{"changed": "by the other server"}},
		map[string]any{"op": "add", "path": "/properties/root_device", "value": map[string]any{"name": "/dev/sda"}},
		map[string]any{"op": "remove", "path": "/instance_info/root_gb"},
		map[string]any{"op": "replace", "path": "/description", "value": "patched"},
	}, http.StatusOK)
	c.must(ctx, t, http.MethodDelete, "/v1/nodes/"+fullID+"/traits/CUSTOM_XCHECK_B", nil, http.StatusNoContent)
	c.must(ctx, t, http.MethodPatch, "/v1/ports/"+fx.ports[firstPort], []any{
		map[string]any{"op": "replace", "path": "/pxe_enabled", "value": false},
		map[string]any{"op": "add", "path": "/extra/patched", "value": true},
	}, http.StatusOK)
	c.must(ctx, t, http.MethodPatch, "/v1/deploy_templates/"+fx.templates[0], []any{
		map[string]any{"op": "replace", "path": "/extra/owner", "value": "platform"},
	}, http.StatusOK)
	deleted := fx.ports[portInPG]
	c.must(ctx, t, http.MethodDelete, "/v1/ports/"+deleted, nil, http.StatusNoContent)

	out := fx
	out.ports = append(append([]string(nil), fx.ports[:portInPG]...), fx.ports[portInPG+1:]...)
	out.deleted = append(append([]string(nil), fx.deleted...), "/v1/ports/"+deleted)
	return out
}

// checkModified verifies, on its own terms, that the answers of c show
// modify's changes (so that a modification both servers ignored alike
// cannot pass as agreement).
func checkModified(ctx context.Context, t *testing.T, c *client, fx fixture) {
	t.Helper()
	n := c.must(ctx, t, http.MethodGet, "/v1/nodes/"+fx.nodes[fullNode], nil, http.StatusOK)
	want := map[string]any{
		"description":   "patched",
		"extra.nested":  map[string]any{"changed": "by the other server"},
		"properties.rd": map[string]any{"name": "/dev/sda"},
		"traits":        []any{"CUSTOM_XCHECK_A", "HW_CPU_X86_VMX"},
		"root_gb gone":  false,
	}
	extra, _ := n["extra"].(map[string]any)
	props, _ := n["properties"].(map[string]any)
	ii, _ := n["instance_info"].(map[string]any)
	_, hasRootGB := ii["root_gb"]
	got := map[string]any{
		"description":   n["description"],
		"extra.nested":  extra["nested"],
		"properties.rd": props["root_device"],
		"traits":        sortedStrings(n["traits"]),
		"root_gb gone":  hasRootGB,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("node %s does not show the modification (-want +got):\n%s", fx.nodes[fullNode], d)
	}
	p := c.must(ctx, t, http.MethodGet, "/v1/ports/"+fx.ports[firstPort], nil, http.StatusOK)
	if p["pxe_enabled"] != false {
		t.Errorf("port %s: pxe_enabled %v, want false", fx.ports[firstPort], p["pxe_enabled"])
	}
	pg := c.must(ctx, t, http.MethodGet, "/v1/portgroups/"+fx.portgroup+"/ports", nil, http.StatusOK)
	if ports, _ := pg["ports"].([]any); len(ports) != 1 {
		t.Errorf("portgroup %s has %d ports, want 1 after the deletion: %v", fx.portgroup, len(ports), pg["ports"])
	}
}

func sortedStrings(v any) []any {
	list, _ := v.([]any)
	out := append([]any(nil), list...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && fmt.Sprint(out[j]) < fmt.Sprint(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// readPaths are the GET requests compared for fx: every object on its
// own, by name where it has one, the detailed and short lists, the
// sub-resources of nodes, chassis and portgroups, and a few filters.
func readPaths(fx fixture) []string {
	paths := []string{
		"/v1/chassis",
		"/v1/chassis?detail=True",
		"/v1/chassis/" + fx.chassis,
		"/v1/chassis/" + fx.chassis + "/nodes",
		"/v1/chassis/" + fx.chassis + "/nodes/detail",
		"/v1/nodes",
		"/v1/nodes/detail",
		"/v1/nodes?detail=True&sort_key=name&sort_dir=desc",
		"/v1/nodes?maintenance=true",
		"/v1/nodes?owner=project-owner&detail=True",
		"/v1/nodes?resource_class=baremetal-large",
		"/v1/nodes?shard=shard-1",
		"/v1/nodes?fields=uuid,name,power_state,traits,network_data",
		"/v1/nodes/xcheck-full",
		"/v1/nodes/xcheck-off/states",
		"/v1/ports",
		"/v1/ports/detail",
		"/v1/ports?address=52:54:00:12:34:01",
		"/v1/ports?portgroup=" + fx.portgroup + "&detail=True",
		"/v1/portgroups?detail=True",
		"/v1/portgroups/" + fx.portgroup,
		"/v1/portgroups/xcheck-pg",
		"/v1/portgroups/" + fx.portgroup + "/ports?detail=True",
		"/v1/volume/connectors?detail=True",
		"/v1/volume/targets?detail=True",
		"/v1/deploy_templates?detail=True",
		"/v1/deploy_templates/CUSTOM_XCHECK_RAID_BIOS",
	}
	for _, n := range fx.nodes {
		paths = append(paths,
			"/v1/nodes/"+n,
			"/v1/nodes/"+n+"/traits",
			"/v1/nodes/"+n+"/states",
			"/v1/nodes/"+n+"/ports?detail=True",
			"/v1/nodes/"+n+"/portgroups?detail=True",
			"/v1/nodes/"+n+"/volume/connectors?detail=True",
			"/v1/nodes/"+n+"/volume/targets?detail=True",
			"/v1/nodes/"+n+"/vifs",
		)
	}
	for _, p := range fx.ports {
		paths = append(paths, "/v1/ports/"+p)
	}
	for _, v := range fx.connectors {
		paths = append(paths, "/v1/volume/connectors/"+v)
	}
	for _, v := range fx.targets {
		paths = append(paths, "/v1/volume/targets/"+v)
	}
	for _, d := range fx.templates {
		paths = append(paths, "/v1/deploy_templates/"+d)
	}
	return paths
}

// answer is one normalised GET answer.
type answer struct {
	Status int
	Body   any
}

// snapshot is a server's normalised answers, by path.
type snapshot map[string]answer

// record GETs every path of fx from s. The recording server must answer
// each with 200 (a failure there is a setup or server bug, not a
// difference); deleted objects must be 404.
func record(ctx context.Context, t *testing.T, s *server, fx fixture) snapshot {
	t.Helper()
	c := newClient(s)
	snap := snapshot{}
	for _, path := range readPaths(fx) {
		status, raw, err := c.do(ctx, http.MethodGet, path, nil)
		if err != nil {
			// A server that drops the connection (a panic) fails this
			// path; the others are still compared.
			t.Errorf("%s: GET %s: %v", s.impl, path, err)
			continue
		}
		body, err := decode(raw)
		if err != nil {
			t.Errorf("%s: GET %s: %v\nbody: %s", s.impl, path, err, tail(raw, 1000))
			continue
		}
		if status != http.StatusOK {
			t.Errorf("%s: GET %s: status %d\nbody: %s", s.impl, path, status, tail(raw, 1000))
		}
		snap[path] = answer{Status: status, Body: normalize(body, s)}
	}
	for _, path := range fx.deleted {
		status, raw, err := c.do(ctx, http.MethodGet, path, nil)
		if err != nil {
			t.Fatalf("%s: GET %s: %v", s.impl, path, err)
		}
		if status != http.StatusNotFound {
			t.Errorf("%s: GET %s of a deleted object: status %d, want 404\nbody: %s", s.impl, path, status, tail(raw, 1000))
		}
	}
	return snap
}

// normalize replaces, in every string of v (object keys included), what
// legitimately differs between two servers on one database: the endpoint
// URL by <url> and the server's own conductor host name by <host>. A
// node's "conductor" naming the other server's host is therefore a
// difference: it means that server's conductor is still seen as alive.
// Nothing else is rewritten: the UUIDs and timestamps come from the
// shared database and must be equal.
func normalize(v any, s *server) any {
	r := strings.NewReplacer(s.url, "<url>", s.host, "<host>")
	return mapStrings(v, r.Replace)
}

func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[f(k)] = mapStrings(val, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = mapStrings(val, f)
		}
		return out
	}
	return v
}

// diffSnapshots lists, in path order, every path where got's answer
// differs from want's, as JSON values: object key order does not matter
// (it cannot be seen after decoding), list order does, and numbers compare
// as written (12345678901234567890 and 1.2345678901234567e19 differ).
func diffSnapshots(want, got snapshot) []string {
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var diffs []string
	for _, path := range paths {
		g, ok := got[path]
		if !ok {
			diffs = append(diffs, "GET "+path+": no answer")
			continue
		}
		if d := cmp.Diff(want[path], g); d != "" {
			diffs = append(diffs, "GET "+path+":\n"+d)
		}
	}
	return diffs
}

// compare fails t for every answer of got that differs from want's.
func compare(t *testing.T, wantImpl string, want snapshot, gotImpl string, got snapshot) {
	t.Helper()
	diffs := diffSnapshots(want, got)
	for _, d := range diffs {
		t.Errorf("%s answers differently from %s (-%s +%s): %s", gotImpl, wantImpl, wantImpl, gotImpl, d)
	}
	t.Logf("compared %d answers of %s with %s's: %d differ", len(want), gotImpl, wantImpl, len(diffs))
}
