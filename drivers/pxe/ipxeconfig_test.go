package pxe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// bootNodes is an in-memory drivers.BootNodes that records its reads.
type bootNodes struct {
	nodes []drivers.BootNode
	ports map[string]string // MAC -> node UUID
	vols  map[string]ScriptNode
	reads []string
	err   error
}

func (b *bootNodes) find(uuid string) (drivers.BootNode, bool, error) {
	for _, n := range b.nodes {
		if n.UUID == uuid {
			return n, true, b.err
		}
	}
	return drivers.BootNode{}, false, b.err
}

func (b *bootNodes) BootNodeByUUID(_ context.Context, uuid string) (drivers.BootNode, bool, error) {
	b.reads = append(b.reads, "node "+uuid)
	return b.find(uuid)
}

func (b *bootNodes) BootNodeByPortAddress(_ context.Context, mac string) (drivers.BootNode, bool, error) {
	b.reads = append(b.reads, "port "+mac)
	return b.find(b.ports[mac])
}

func (b *bootNodes) BootVolumeTargets(_ context.Context, n drivers.BootNode) ([]drivers.BootVolumeTarget, error) {
	b.reads = append(b.reads, "targets")
	return b.vols[n.UUID].VolumeTargets, nil
}

func (b *bootNodes) BootVolumeConnectors(_ context.Context, n drivers.BootNode) ([]drivers.VolumeConnector, error) {
	b.reads = append(b.reads, "connectors")
	var out []drivers.VolumeConnector
	for _, c := range b.vols[n.UUID].VolumeConnectors {
		out = append(out, drivers.VolumeConnector{Type: c.Type, ConnectorID: c.ConnectorID})
	}
	return out, nil
}

// TestIPXEConfigMethod: the driver method finds the node by UUID or by any
// spelling of a port's MAC, reads volumes only for an active node (and
// connectors only when it has targets), answers the error script for
// whatever it can't boot, and fails only when the read fails.
func TestIPXEConfigMethod(t *testing.T) {
	ctx := context.Background()
	m, err := NewIPXEConfig(ScriptConfig{HTTPURL: "http://h:5781", APIURL: "http://api:6385"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if md := m.Method(); md.Name != "ipxe_config" || !slices.Equal(md.HTTPMethods, []string{"GET"}) || !md.Attach || md.Async {
		t.Errorf("method %+v", md)
	}
	bfv := bfvNode()
	nodes := &bootNodes{
		nodes: []drivers.BootNode{
			{ID: 1, UUID: "n-clean", ProvisionState: "clean wait", DriverInfo: pyjson.DictOf("deploy_kernel", "k", "deploy_ramdisk", "r")},
			{ID: 2, UUID: nodeUUID, ProvisionState: "active", DeployInterface: "direct", DriverInternalInfo: bfv.DriverInternalInfo},
			{ID: 3, UUID: "n-local", ProvisionState: "active", DriverInternalInfo: pyjson.DictOf("is_whole_disk_image", true)},
		},
		ports: map[string]string{"52:54:00:0a:0b:0c": "n-clean"},
		vols:  map[string]ScriptNode{nodeUUID: bfv},
	}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		want  string
		reads []string
	}{
		{"by uuid", map[string]any{"node_uuid": "n-clean"}, "kernel http://h:5781/n-clean/deploy_kernel", []string{"node n-clean"}},
		{"by mac", map[string]any{"port_address": "52-54-00-0A-0B-0C"}, "kernel http://h:5781/n-clean/deploy_kernel", []string{"port 52:54:00:0a:0b:0c"}},
		{"boot from volume", map[string]any{"node_uuid": nodeUUID}, "sanhook", []string{"node " + nodeUUID, "targets", "connectors"}},
		{"no targets", map[string]any{"node_uuid": "n-local"}, "\nexit 1\n", []string{"node n-local", "targets"}},
		{"unknown node", map[string]any{"node_uuid": "nope"}, "\nexit 1\n", []string{"node nope"}},
		{"not a mac", map[string]any{"port_address": "52:54"}, "\nexit 1\n", nil},
		{"nothing named", map[string]any{}, "\nexit 1\n", nil},
	} {
		nodes.reads = nil
		ret, err := m.Call(ctx, nodes, "fake-hardware", tc.args)
		body, _ := ret.(string)
		if err != nil || !strings.HasPrefix(body, "#!ipxe\n") || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %v, no %q in\n%s", tc.name, err, tc.want, body)
		}
		if !slices.Equal(nodes.reads, tc.reads) {
			t.Errorf("%s: reads %q, want %q", tc.name, nodes.reads, tc.reads)
		}
	}
	nodes.err = errors.New("database gone")
	if _, err := m.Call(ctx, nodes, "fake-hardware", map[string]any{"node_uuid": "n-clean"}); err == nil {
		t.Error("a failed read answered a script")
	}
}
