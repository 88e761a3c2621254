package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testNetworkData is the round trip a user tries first: `node set
// --network-data FILE`, then `node show -f json -c network_data` prints
// the file's dict again, key order included (Ironic keeps a dict in the
// order the client sent it; a sorted answer is a different document to a
// user comparing them).
func testNetworkData(t *testing.T, w *world) {
	c := w.cli
	name := w.name("netdata")
	w.cleanup(t, "node", "delete", name)
	c.Object(t, "node", "create", "--driver", "fake-hardware", "--name", name)

	// Keys in no sorted order, at every level.
	doc := `{"services": [{"type": "dns", "address": "8.8.8.8"}],
 "networks": [{"network_id": "da5bb487-5193-4a65-a3df-4a0055a8ca0d", "type": "ipv4", "link": "eth0", "id": "network0",
   "ip_address": "10.0.0.5", "netmask": "255.255.255.0",
   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.0.0.1"}]}],
 "links": [{"type": "phy", "id": "eth0", "ethernet_mac_address": "` + w.mac(7) + `", "mtu": 1500}]}`
	file := filepath.Join(t.TempDir(), "network_data.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c.OK(t, "node", "set", name, "--network-data", file)

	out := c.OK(t, "node", "show", name, "-f", "json", "-c", "network_data")
	var shown map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("node show -f json: %v\n%s", err, out)
	}
	// Compacted, two JSON texts are equal exactly when they hold the same
	// values with the same keys in the same order.
	var want, got bytes.Buffer
	if err := json.Compact(&want, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&got, shown["network_data"]); err != nil {
		t.Fatalf("network_data: %v\n%s", err, out)
	}
	if got.String() != want.String() {
		t.Errorf("node show -c network_data differs from the file given to node set --network-data:\n got %s\nwant %s", got.String(), want.String())
	}
}
