package conductor_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/swift"
	"github.com/goironic/ironic/internal/swift/swifttest"
	"github.com/goironic/ironic/states"
)

// TestDeployBuildsConfigdrive: the JSON form is built into a gzip+base64
// config-2 image at deploy start (meta_data uuid/name from the node, after
// the given keys; every file's keys in the order the dict came in, as
// Ironic's json.dump writes them), a string is stored as given, rebuild
// replaces it, an empty dict stores nothing (Python's `if configdrive:`),
// tear down clears it.
func TestDeployBuildsConfigdrive(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, dbtest.SQLite(t))
	m := h.m
	n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", Name: models.Ptr("cd-node"), ProvisionState: models.Ptr(states.Available)})
	if err != nil {
		t.Fatal(err)
	}
	u := n.UUID
	// As the API and RPC hand it over: keys in the client's order.
	cd, err := pyjson.DecodeOrdered([]byte(`{
		"meta_data": {"hostname": "h1", "availability_zone": "az", "weight": 1.50},
		"network_data": {"services": [], "networks": [], "links": []},
		"user_data": "#cloud-config\n",
		"vendor_data": {"k": "v", "b": {"z": 1, "a": 2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.DoNodeDeploy(ctx, "", u, false, cd, nil); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	got := h.byUUID(t, u)
	if s := models.Deref(got.ProvisionState); s != states.Active {
		t.Fatalf("state %s, last_error %v", s, models.Deref(got.LastError))
	}
	packed, ok := got.InstanceInfo.Get("configdrive").(string)
	if !ok {
		t.Fatalf("configdrive not built: %T %v", got.InstanceInfo.Get("configdrive"), got.InstanceInfo.Get("configdrive"))
	}
	img, err := configdrive.Unpack(packed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := iso9660.OpenImage(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := r.Label(); l != "config-2" {
		t.Errorf("label %q", l)
	}
	root, _ := r.RootDir()
	want := map[string]string{
		"meta_data.json":    `{"hostname": "h1", "availability_zone": "az", "weight": 1.5, "uuid": "` + u + `", "name": "cd-node"}`,
		"network_data.json": `{"services": [], "networks": [], "links": []}`,
		"user_data":         "#cloud-config\n",
		"vendor_data2.json": `{"k": "v", "b": {"z": 1, "a": 2}}`,
	}
	for _, dir := range []string{"2012-08-10", "latest"} {
		for name, body := range want {
			f := find(t, root, "openstack", dir, name)
			b, _ := io.ReadAll(f.Reader())
			if string(b) != body {
				t.Errorf("%s/%s = %q, want %q", dir, name, b, body)
			}
		}
	}

	// Rebuild with a URL: stored as given.
	if err := m.DoNodeDeploy(ctx, "", u, true, "http://example.com/cd", nil); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	if got := h.byUUID(t, u); got.InstanceInfo.Get("configdrive") != "http://example.com/cd" || models.Deref(got.ProvisionState) != states.Active {
		t.Errorf("after rebuild: %v %s", got.InstanceInfo.Get("configdrive"), models.Deref(got.ProvisionState))
	}
	if err := m.DoNodeTearDown(ctx, "", u); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	if got := h.byUUID(t, u); got.InstanceInfo.Get("configdrive") != nil {
		t.Errorf("configdrive left after tear down: %v", got.InstanceInfo)
	}

	// An empty dict is no config drive.
	if err := m.DoNodeDeploy(ctx, "", u, false, pyjson.Object{}, nil); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	if got := h.byUUID(t, u); got.InstanceInfo.Get("configdrive") != nil || models.Deref(got.ProvisionState) != states.Active {
		t.Errorf("after deploy with {}: %v %s", got.InstanceInfo, models.Deref(got.ProvisionState))
	}
}

func find(t *testing.T, dir *iso9660.File, path ...string) *iso9660.File {
	t.Helper()
	kids, err := dir.GetChildren()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if strings.EqualFold(k.Name(), path[0]) {
			if len(path) == 1 {
				return k
			}
			return find(t, k, path[1:]...)
		}
	}
	t.Fatalf("%s not in the image", path[0])
	return nil
}

// TestConfigdriveObjectStore: with [deploy]configdrive_use_object_store the
// built drive goes to Swift (container PUT, object configdrive-<uuid> with
// X-Delete-After), instance_info keeps a working temp URL, tear down
// deletes the object; a Swift failure fails the deploy with Ironic's
// message.
func TestConfigdriveObjectStore(t *testing.T) {
	ctx := context.Background()
	fake := swifttest.New()
	defer fake.Close()
	fake.SetAccountKey("secret")
	h := newHarness(t, dbtest.SQLite(t), withConfig(func(c *conductor.Config) {
		c.ConfigdriveUseObjectStore = true
		c.ConfigdriveSwiftContainer = "cds"
		c.ObjectStore = swift.New(swift.Config{Options: keystoneauth.Options{EndpointOverride: fake.AccountURL()}}, nil)
	}))
	m := h.m
	n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available)})
	if err != nil {
		t.Fatal(err)
	}
	u := n.UUID
	if err := m.DoNodeDeploy(ctx, "", u, false, map[string]any{"user_data": "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	got := h.byUUID(t, u)
	if s := models.Deref(got.ProvisionState); s != states.Active {
		t.Fatalf("state %s, last_error %v", s, models.Deref(got.LastError))
	}
	url, _ := got.InstanceInfo.Get("configdrive").(string)
	if !strings.HasPrefix(url, fake.AccountURL()+"/cds/configdrive-"+u+"?temp_url_sig=") {
		t.Fatalf("configdrive %q", url)
	}
	obj := fake.Object("cds", "configdrive-"+u)
	if obj == nil || obj.DeleteAt.IsZero() {
		t.Fatalf("object %+v", obj)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	img, err := configdrive.Unpack(string(body))
	if resp.StatusCode != 200 || err != nil {
		t.Fatalf("GET temp url: %d %v", resp.StatusCode, err)
	}
	r, err := iso9660.OpenImage(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := r.RootDir()
	ud, _ := io.ReadAll(find(t, root, "openstack", "latest", "user_data").Reader())
	if string(ud) != "hi" {
		t.Errorf("user_data %q", ud)
	}

	if err := m.DoNodeTearDown(ctx, "", u); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	if fake.Object("cds", "configdrive-"+u) != nil {
		t.Errorf("object left after tear down")
	}

	// No temp URL key: the deploy fails (MissingParameterValue is not one
	// of the Swift errors Ironic names).
	fake.SetAccountKey("")
	if err := m.DoNodeDeploy(ctx, "", u, false, "H4sIAAAA", nil); err != nil {
		t.Fatal(err)
	}
	m.Wait()
	got = h.byUUID(t, u)
	if s, le := models.Deref(got.ProvisionState), models.Deref(got.LastError); s != states.DeployFailed ||
		!strings.HasPrefix(le, "Failed to prepare the configdrive. Exception: Swift temporary URLs require a shared secret") {
		t.Errorf("without a key: %s %q", s, le)
	}
}
