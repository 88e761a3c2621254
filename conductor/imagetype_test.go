package conductor_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// fakeWeb answers HEAD requests by URL path; unknown paths fail to
// connect. It counts the requests.
type fakeWeb struct {
	mu    sync.Mutex
	heads []string
	pages map[string]*http.Response
}

func (f *fakeWeb) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heads = append(f.heads, req.Method+" "+req.URL.String())
	r, ok := f.pages[req.URL.Path]
	if !ok {
		return nil, errors.New("connection refused")
	}
	out := *r
	out.Body = io.NopCloser(strings.NewReader(""))
	return &out, nil
}

func page(status int, hdr ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	return &http.Response{StatusCode: status, Header: h}
}

// TestUpdateImageType: a deploy records the image type as Ironic's
// update_image_type does (cases checked against the reference with the
// same web server answers).
func TestUpdateImageType(t *testing.T) {
	web := &fakeWeb{pages: map[string]*http.Response{
		"/img":        page(200, "Content-Type", "application/octet-stream", "Content-Length", "1024"),
		"/dir/":       page(200, "Content-Type", "text/html; charset=utf-8"),
		"/html":       page(200, "Content-Type", "text/html"),
		"/missing":    page(404, "Content-Type", "text/html", "Content-Length", "0"),
		"/redir":      page(301, "Location", "/dir/"),
		"/found":      page(302, "Location", "/img"),
		"/noinfo":     page(200),
		"/noinfo/":    page(200),
		"/lenonly":    page(200, "Content-Length", "5"),
		"/forbidden/": page(403, "Content-Type", "text/html"),
	}}
	const S = "http://web.example"
	wd := func(whole bool) map[string]any {
		it := "partition"
		if whole {
			it = "whole-disk"
		}
		return map[string]any{"is_whole_disk_image": whole, "image_type": it}
	}
	path := map[string]any{"is_source_a_path": true}
	for _, tc := range []struct {
		name  string
		ii    models.JSONDict
		want  map[string]any // is_whole_disk_image, image_type, is_source_a_path after the deploy
		heads int
		err   string
	}{
		{"file", models.DictOf("image_source", S+"/img"), wd(true), 1, ""},
		{"file with kernel and ramdisk", models.DictOf("image_source", S+"/img", "kernel", "k", "ramdisk", "r"), wd(false), 1, ""},
		{"file with ramdisk", models.DictOf("image_source", S+"/img", "ramdisk", "r"), wd(false), 1, ""},
		{"directory", models.DictOf("image_source", S+"/dir/"), path, 1, ""},
		{"html with kernel", models.DictOf("image_source", S+"/html", "kernel", "k"), path, 1, ""},
		{"unreachable", models.DictOf("image_source", S+"/down"), wd(true), 1, ""},
		{"404", models.DictOf("image_source", S+"/missing"), wd(true), 1, ""},
		{"301 to a directory", models.DictOf("image_source", S+"/redir"), path, 1, ""},
		{"302", models.DictOf("image_source", S+"/found"), wd(true), 1, ""},
		{"no headers", models.DictOf("image_source", S+"/noinfo"), wd(true), 1, ""},
		{"no headers, slash", models.DictOf("image_source", S+"/noinfo/"), path, 1, ""},
		{"length only", models.DictOf("image_source", S+"/lenonly"), wd(true), 1, ""},
		{"403 directory", models.DictOf("image_source", S+"/forbidden/"), path, 1, ""},
		{"image_type partition", models.DictOf("image_source", S+"/img", "image_type", "partition"), wd(false), 0, ""},
		{"image_type whole-disk", models.DictOf("image_source", S+"/dir/", "image_type", "whole-disk"), wd(true), 0, ""},
		{"image_type other", models.DictOf("image_source", S+"/dir/", "image_type", "bogus"), wd(true), 0, ""},
		{"file URL", models.DictOf("image_source", "file:///var/lib/ironic/x.img"), wd(true), 0, ""},
		{"upper-case scheme", models.DictOf("image_source", "HTTP://web.example/img"), wd(true), 1, ""},
		{"glance", models.DictOf("image_source", "7ee5bdb0-40ab-4e1b-8a71-b1e1f1a8e3a2"), map[string]any{}, 0, ""},
		{"no image", models.DictOf("kernel", "x"), map[string]any{}, 0, ""},
		{"empty image", models.DictOf("image_source", ""), map[string]any{}, 0, ""},
		{"scheme-less", models.DictOf("image_source", "foo"), nil, 0, "Validation of image href foo failed, reason: Scheme-less image href is not a UUID."},
		{"ftp", models.DictOf("image_source", "ftp://x/y"), nil, 0, "Validation of image href ftp://x/y failed, reason: Image download protocol ftp is not supported."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
				ctx := context.Background()
				h := newHarness(t, store, withConfig(func(c *conductor.Config) { c.ImageHTTP = web }))
				n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOff, "instance_info": tc.ii})
				web.mu.Lock()
				web.heads = nil
				web.mu.Unlock()
				err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil)
				h.m.Wait()
				if tc.err != "" {
					wantFault(t, "deploy", err, ironic.ImageRefValidationFailed, tc.err)
					if _, err := h.m.ValidateDriverInterfaces(ctx, "", n.UUID); err == nil || err.Error() != tc.err {
						t.Errorf("validate: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := h.reload(t, n)
				if ps := models.Deref(got.ProvisionState); ps != states.Active {
					t.Fatalf("state %s: %v", ps, models.Deref(got.LastError))
				}
				have := map[string]any{}
				for _, k := range []string{"is_whole_disk_image", "is_source_a_path"} {
					if v, ok := got.DriverInternalInfo.Lookup(k); ok {
						have[k] = v
					}
				}
				if v, ok := got.InstanceInfo.Lookup("image_type"); ok {
					have["image_type"] = v
				}
				if diff := cmp.Diff(tc.want, have); diff != "" {
					t.Errorf("image type (-want +got):\n%s", diff)
				}
				web.mu.Lock()
				heads := len(web.heads)
				web.mu.Unlock()
				if heads != tc.heads {
					t.Errorf("%d HEAD requests, want %d", heads, tc.heads)
				}
			})
		})
	}
}

// glanceProps is a conductor.ImageProperties: the properties of the
// images it knows (by UUID or glance://UUID), ImageNotFound for the others.
type glanceProps map[string]*pyjson.Dict

func (g glanceProps) ImageProperties(_ context.Context, href string) (*pyjson.Dict, error) {
	if p, ok := g[href[strings.LastIndex(href, "/")+1:]]; ok {
		return p, nil
	}
	return nil, ironic.Errorf(ironic.ImageNotFound, "Image %s could not be found.", href)
}

// TestUpdateImageTypeGlance: a Glance image's type comes from its
// properties (img_type, else a whole disk unless it has a kernel_id or a
// ramdisk_id), as images.is_whole_disk_image reads them; an image Glance
// can't show records nothing.
func TestUpdateImageTypeGlance(t *testing.T) {
	const (
		whole = "11111111-1111-4111-8111-111111111111"
		part  = "22222222-2222-4222-8222-222222222222"
		typed = "33333333-3333-4333-8333-333333333333"
		gone  = "44444444-4444-4444-8444-444444444444"
	)
	images := glanceProps{
		whole: pyjson.DictOf("hw_arch", "x86_64", "kernel_id", nil),
		part:  pyjson.DictOf("kernel_id", "k", "ramdisk_id", "r"),
		typed: pyjson.DictOf("img_type", "partition"),
	}
	for _, tc := range []struct {
		href string
		want map[string]any
	}{
		{whole, map[string]any{"is_whole_disk_image": true, "image_type": "whole-disk"}},
		{"glance://" + part, map[string]any{"is_whole_disk_image": false, "image_type": "partition"}},
		{typed, map[string]any{"is_whole_disk_image": false, "image_type": "partition"}},
		{gone, map[string]any{}},
	} {
		t.Run(tc.href, func(t *testing.T) {
			dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
				ctx := context.Background()
				h := newHarness(t, store, withConfig(func(c *conductor.Config) { c.Images = images }))
				n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOff,
					"instance_info": models.DictOf("image_source", tc.href)})
				if err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil); err != nil {
					t.Fatal(err)
				}
				h.m.Wait()
				got := h.reload(t, n)
				have := map[string]any{}
				if v, ok := got.DriverInternalInfo.Lookup("is_whole_disk_image"); ok {
					have["is_whole_disk_image"] = v
				}
				if v, ok := got.InstanceInfo.Lookup("image_type"); ok {
					have["image_type"] = v
				}
				if diff := cmp.Diff(tc.want, have); diff != "" {
					t.Errorf("image type (-want +got):\n%s", diff)
				}
			})
		})
	}
}
