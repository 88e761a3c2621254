package apiv1_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/kdomanski/iso9660"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/drivers/configdrive"
)

// TestConfigdriveKeyOrderEndToEnd: a configdrive dict sent to the API
// reaches the conductor through the in-process RPC (the oslo codec) in the
// client's key order, and the drive's files hold what Ironic 21.4 writes
// for the same request: json.dump of json.loads of the client's text, the
// node's uuid and name appended to meta_data (expected strings printed by
// /usr/bin/python3 the way build_configdrive builds them).
func TestConfigdriveKeyOrderEndToEnd(t *testing.T) {
	s := NewSetup(t)
	uuid := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "cd-order"}).Field("uuid").(string)
	setNode(t, s, uuid, db.Values{"provision_state": "available"})
	body := `{"target": "active", "configdrive": {
		"vendor_data": {"z": {"b": 1, "a": 2}, "y": [1e5, -0]},
		"meta_data": {"public_keys": {"k2": "ssh-ed25519 B", "k1": "ssh-rsa A"}, "hostname": "h", "availability_zone": "z\u00e9"},
		"user_data": {"runcmd": ["x"], "bootcmd": []},
		"network_data": {"services": [], "networks": [], "links": [{"type": "phy", "id": "p", "mtu": 1500.0}]}}}`
	if r := s.Do("PUT", "/v1/nodes/"+uuid+"/states/provision", body); r.Status != http.StatusAccepted {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	n, err := s.Store.GetNodeByUUID(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	packed, ok := n.InstanceInfo.Get("configdrive").(string)
	if !ok {
		t.Fatalf("instance_info.configdrive %T (state %v, last_error %v)", n.InstanceInfo.Get("configdrive"), n.ProvisionState, n.LastError)
	}
	img, err := configdrive.Unpack(packed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := iso9660.OpenImage(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := r.RootDir()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range []string{"openstack", "latest"} {
		kids, err := dir.GetChildren()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kids {
			if k.Name() == p {
				dir = k
			}
		}
	}
	kids, err := dir.GetChildren()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		b, _ := io.ReadAll(k.Reader())
		files[k.Name()] = string(b)
	}
	want := map[string]string{
		"meta_data.json":    `{"public_keys": {"k2": "ssh-ed25519 B", "k1": "ssh-rsa A"}, "hostname": "h", "availability_zone": "z\u00e9", "uuid": "` + uuid + `", "name": "cd-order"}`,
		"network_data.json": `{"services": [], "networks": [], "links": [{"type": "phy", "id": "p", "mtu": 1500.0}]}`,
		"vendor_data2.json": `{"z": {"b": 1, "a": 2}, "y": [100000.0, 0]}`,
		"user_data":         `{"runcmd": ["x"], "bootcmd": []}`,
	}
	for name, w := range want {
		if files[name] != w {
			t.Errorf("%s:\n got %s\nwant %s", name, files[name], w)
		}
	}
	if len(files) != len(want) {
		t.Errorf("files %v", files)
	}
}
