package fakeglance_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/goironic/ironic/test/fakeglance"
)

const (
	id1 = "3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	id2 = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
)

func start(t *testing.T, token string) *fakeglance.TestServer {
	return fakeglance.ForTest(t, fakeglance.Options{Token: token},
		fakeglance.Image{ID: id1, Data: []byte("0123456789"), Fields: map[string]any{"kernel_id": "k", "disk_format": "qcow2"}},
		fakeglance.Image{ID: id2, Fields: map[string]any{"status": "queued", "visibility": "private"}})
}

func client(u, token string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: http.Client{}}
	pc.SetToken(token)
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u + "/", ResourceBase: u + "/v2/", Type: "image"}
}

// TestGophercloud holds the fake to gophercloud's image service v2.
func TestGophercloud(t *testing.T) {
	ctx := context.Background()
	srv := start(t, "tok")
	sc := client(srv.URL, "tok")

	im, err := images.Get(ctx, sc, id1).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if im.ID != id1 || im.Status != images.ImageStatusActive || im.DiskFormat != "qcow2" || im.SizeBytes != 10 ||
		im.Checksum != "781e5e245d69b566979b86e28d23f2c7" || im.Properties["kernel_id"] != "k" || im.File != "/v2/images/"+id1+"/file" {
		t.Errorf("image %+v", im)
	}
	pages, err := images.List(sc, nil).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := images.ExtractImages(pages)
	if err != nil || len(all) != 2 || all[0].ID != id1 || all[1].Visibility != images.ImageVisibilityPrivate {
		t.Errorf("list %v %+v", err, all)
	}
	r, err := imagedata.Download(ctx, sc, id1).Extract()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(r)
	r.Close()
	if string(data) != "0123456789" {
		t.Errorf("data %q", data)
	}

	// A missing image: 404 with webob's JSON body for a JSON client.
	err = images.Get(ctx, sc, "4b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d").Err
	if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		t.Errorf("missing: %v", err)
	}
	var rc gophercloud.ErrUnexpectedResponseCode
	if ok := asCode(err, &rc); ok {
		var body map[string]any
		if json.Unmarshal(rc.Body, &body) != nil || body["code"] != "404 Not Found" || !strings.HasPrefix(body["message"].(string), "No image found with ID 4b1b2c3d") {
			t.Errorf("404 body %s", rc.Body)
		}
	}
	// Without the token: 401.
	if err := images.Get(ctx, client(srv.URL, "bad"), id1).Err; !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
		t.Errorf("bad token: %v", err)
	}
	// No data yet: 204.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v2/images/"+id2+"/file", nil)
	req.Header.Set("X-Auth-Token", "tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("queued image's file: %d", resp.StatusCode)
	}
	// The version document.
	resp, err = http.Get(srv.URL + "/") //nolint:noctx // a test
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Versions []struct{ ID, Status string } }
	_ = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMultipleChoices || len(doc.Versions) == 0 || doc.Versions[0].Status != "CURRENT" {
		t.Errorf("versions %d %+v", resp.StatusCode, doc)
	}
}

func asCode(err error, rc *gophercloud.ErrUnexpectedResponseCode) bool {
	e, ok := err.(gophercloud.ErrUnexpectedResponseCode) //nolint:errorlint // gophercloud returns the value
	if ok {
		*rc = e
	}
	return ok
}

// TestGlanceclient holds the fake to python-glanceclient, the client
// Ironic 21.4 uses (skipped without it).
func TestGlanceclient(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if exec.Command(py, "-c", "import glanceclient").Run() != nil {
		t.Skip("python3-glanceclient is not installed")
	}
	srv := start(t, "")
	script := `
import sys
from glanceclient import client, exc
from keystoneauth1 import session, noauth
s = session.Session(auth=noauth.NoAuth())
c = client.Client(2, session=s, endpoint_override=sys.argv[1])
img = c.images.get(sys.argv[2])
print(img.id, img.status, img.disk_format, img.checksum, img.kernel_id, getattr(img, 'self', None))
try:
    c.images.get('4b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d')
except exc.HTTPNotFound as e:
    print('notfound', e.code)
print(b''.join(c.images.data(sys.argv[2])).decode())
`
	out, err := exec.Command(py, "-c", script, srv.URL, id1).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := id1 + " active qcow2 781e5e245d69b566979b86e28d23f2c7 k None\nnotfound 404\n0123456789\n"
	if string(out) != want {
		t.Errorf("glanceclient:\n%s\nwant\n%s", out, want)
	}
}
