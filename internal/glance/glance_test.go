package glance_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/test/fakeglance"
)

const (
	imgID    = "3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	privID   = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
	queuedID = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
	project  = "0123456789abcdef0123456789abcdef"
)

func classOf(err error) ironic.Class {
	var f *ironic.Fault
	if errors.As(err, &f) {
		return f.Class
	}
	return ""
}

func newServer(t *testing.T, opts fakeglance.Options) *fakeglance.TestServer {
	t.Helper()
	return fakeglance.ForTest(t, opts,
		fakeglance.Image{ID: imgID, Data: []byte("disk image"), Fields: map[string]any{
			"kernel_id": "k-1", "ramdisk_id": "r-1", "direct_url": "swift+http://example/glance/" + imgID, "hw_arch": "x86_64"}},
		fakeglance.Image{ID: privID, Data: []byte("private"), Fields: map[string]any{"visibility": "private", "owner": project}},
		fakeglance.Image{ID: queuedID, Fields: map[string]any{"status": "queued", "checksum": nil}},
	)
}

func config(u string) glance.Config {
	c := option.Default[glance.Config]()
	c.Options = keystoneauth.Options{EndpointOverride: u}
	return c
}

func TestShow(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, fakeglance.Options{})
	c := glance.New(config(srv.URL), nil, nil)

	im, err := c.Show(ctx, imgID)
	if err != nil {
		t.Fatal(err)
	}
	if im.ID != imgID || im.Get("disk_format") != "raw" || im.Get("container_format") != "bare" ||
		len(fmt.Sprint(im.Get("checksum"))) != 32 || im.Get("os_hash_algo") != "sha512" || fmt.Sprint(im.Get("size")) != "10" {
		t.Errorf("image %+v", im.Attributes)
	}
	props := im.Properties.Keys()
	// self is dropped, as glanceclient does; the rest are properties.
	sort.Strings(props)
	if got := strings.Join(props, " "); got != "direct_url hw_arch kernel_id os_hidden ramdisk_id virtual_size" {
		t.Errorf("properties %s", got)
	}
	if im.DirectURL() != "swift+http://example/glance/"+imgID {
		t.Errorf("direct_url %q", im.DirectURL())
	}
	if _, err := c.Show(ctx, "glance://"+imgID); err != nil {
		t.Errorf("glance:// href: %v", err)
	}

	for _, tc := range []struct {
		name  string
		ctx   context.Context
		href  string
		class ironic.Class
		msg   string
	}{
		{"missing", ctx, "4b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", ironic.ImageNotFound, "Image 4b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d could not be found."},
		{"private, no project", ctx, privID, ironic.ImageNotFound, "Image " + privID + " could not be found."},
		{"queued", ctx, queuedID, ironic.ImageUnacceptable, "Image " + queuedID + " is unacceptable: The image is required to be in an active state."},
		{"bad href", ctx, "glance://nope", ironic.InvalidImageRef, "Invalid image href glance://nope."},
		{"private, owner", ironic.WithRequestContext(ctx, &ironic.RequestContext{ProjectID: project}), privID, "", ""},
		{"private, another project's token", ironic.WithRequestContext(ctx, &ironic.RequestContext{AuthToken: "t", ProjectID: "other"}), privID,
			ironic.ImageNotFound, "Image " + privID + " could not be found."},
		{"private, admin's token", ironic.WithRequestContext(ctx, &ironic.RequestContext{AuthToken: "t", Roles: []string{"admin"}}), privID, "", ""},
	} {
		_, err := c.Show(tc.ctx, tc.href)
		if classOf(err) != tc.class || (err != nil && err.Error() != tc.msg) {
			t.Errorf("%s: %v (%s), want %s %q", tc.name, err, classOf(err), tc.class, tc.msg)
		}
	}
}

func TestShowAuthAndRetries(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, fakeglance.Options{Token: "secret"})
	c := glance.New(config(srv.URL), nil, nil)
	if _, err := c.Show(ctx, imgID); classOf(err) != ironic.ImageNotAuthorized || err.Error() != "Not authorized for image "+imgID+"." {
		t.Errorf("without a token: %v", err)
	}

	// A Glance that is down: num_retries more attempts, a second apart
	// (through the injected sleeper), then GlanceConnectionFailed.
	cfg := config("http://127.0.0.1:1")
	cfg.NumRetries = 2
	c = glance.New(cfg, nil, nil)
	var slept []time.Duration
	c.SetClock(time.Now, func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil })
	_, err := c.Show(ctx, imgID)
	if classOf(err) != ironic.GlanceConnectionFailed || !strings.HasPrefix(err.Error(), "Connection to glance endpoint http://127.0.0.1:1/ failed: ") {
		t.Errorf("down: %v", err)
	}
	if len(slept) != 2 || slept[0] != time.Second {
		t.Errorf("slept %v", slept)
	}
}

func TestSwiftTempURL(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1767225600, 0)
	srv := newServer(t, fakeglance.Options{TempURLKey: "k3y", Now: func() time.Time { return now }})
	cfg := config(srv.URL)
	cfg.SwiftTempURLKey = "k3y"
	cfg.SwiftEndpointURL = srv.URL + "/v1/AUTH_" + project
	cfg.SwiftAccount = "AUTH_" + project
	c := glance.New(cfg, nil, nil)
	c.SetClock(func() time.Time { return now }, nil)
	im, err := c.Show(ctx, imgID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.SwiftTempURL(ctx, im)
	if err != nil {
		t.Fatal(err)
	}
	// The endpoint's /v1/AUTH_<project> is stripped; the path is
	// /v1/<account>/glance/<id>; the signature is swiftclient's (from
	// python3-swiftclient: generate_temp_url(path, 1767226800, "k3y",
	// "GET", absolute=True)).
	want := srv.URL + "/v1/AUTH_" + project + "/glance/" + imgID +
		"?temp_url_sig=" + "d649c5105420ad43240d55b814b155c25401bd4ebc3efdce34dee19784d874a4" + "&temp_url_expires=1767226800"
	if u != want {
		t.Errorf("temp URL\n%s\nwant\n%s", u, want)
	}
	resp, err := http.Get(u) //nolint:gosec,noctx // the URL under test
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("fake Swift answered %d", resp.StatusCode)
	}
	pu, _ := url.Parse(u)
	if glance.ValidTempURL(pu, "GET", "other", now) {
		t.Error("signature valid with another key")
	}

	// Multiple containers: glance_<first 3 characters of the id>.
	cfg.SwiftStoreMultipleContainersSeed = 3
	if u, _ := glance.New(cfg, nil, nil).SwiftTempURL(ctx, im); !strings.Contains(u, "/glance_3a1/"+imgID+"?") {
		t.Errorf("seed 3: %s", u)
	}
	cfg.SwiftStoreMultipleContainersSeed = 9
	if u, _ := glance.New(cfg, nil, nil).SwiftTempURL(ctx, im); !strings.Contains(u, "/glance_3a1b2c3d-4/"+imgID+"?") {
		t.Errorf("seed 9: %s", u)
	}

	for _, tc := range []struct {
		name  string
		edit  func(*glance.Config)
		class ironic.Class
		msg   string
	}{
		{"duration", func(c *glance.Config) { c.SwiftTempURLExpectedDownloadStartDelay = 1201 }, ironic.InvalidParameterValue,
			`"swift_temp_url_duration" must be greater than or equal to "[glance]swift_temp_url_expected_download_start_delay" option, otherwise the Swift temporary URL may expire before the download starts.`},
		{"seed", func(c *glance.Config) { c.SwiftStoreMultipleContainersSeed = 33 }, ironic.InvalidParameterValue,
			"An integer value between 0 and 32 is required for swift_store_multiple_containers_seed."},
		{"no swift", func(c *glance.Config) { c.SwiftEndpointURL = "" }, ironic.MissingParameterValue,
			`Swift temporary URLs require a Swift endpoint URL, but it was not found in the service catalog. You must provide "swift_endpoint_url" as a config option.`},
	} {
		c := cfg
		c.SwiftStoreMultipleContainersSeed = 0
		tc.edit(&c)
		_, err := glance.New(c, nil, nil).SwiftTempURL(ctx, im)
		if classOf(err) != tc.class || err.Error() != tc.msg {
			t.Errorf("%s: %v", tc.name, err)
		}
	}

	// The key and account from the [swift] account when [glance] has none.
	cfg.SwiftStoreMultipleContainersSeed = 0
	cfg.SwiftTempURLKey, cfg.SwiftAccount, cfg.SwiftEndpointURL = "", "", ""
	c = glance.New(cfg, fakeAccount{url: srv.URL + "/v1/AUTH_" + project, key: "k3y"}, nil)
	c.SetClock(func() time.Time { return now }, nil)
	if u, err := c.SwiftTempURL(ctx, im); err != nil || u != want {
		t.Errorf("from [swift]: %v\n%s\nwant\n%s", err, u, want)
	}
	c = glance.New(cfg, fakeAccount{url: srv.URL + "/v1/AUTH_" + project}, nil)
	if _, err := c.SwiftTempURL(ctx, im); classOf(err) != ironic.MissingParameterValue || !strings.HasPrefix(err.Error(), "Swift temporary URLs require a shared secret") {
		t.Errorf("no key: %v", err)
	}
}

func TestSwiftTempURLCache(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1767225600, 0)
	cfg := config("http://unused")
	cfg.SwiftTempURLKey, cfg.SwiftEndpointURL, cfg.SwiftAccount = "k", "http://swift:8080", "AUTH_a"
	cfg.SwiftTempURLCacheEnabled = true
	cfg.SwiftTempURLExpectedDownloadStartDelay = 600
	c := glance.New(cfg, nil, nil)
	c.SetClock(func() time.Time { return now }, nil)
	im := glance.Image{ID: imgID}
	first, _ := c.SwiftTempURL(ctx, im)
	now = now.Add(500 * time.Second)
	if again, _ := c.SwiftTempURL(ctx, im); again != first {
		t.Errorf("not cached: %s", again)
	}
	now = now.Add(200 * time.Second) // expires in 500 s < 600 s delay
	if again, _ := c.SwiftTempURL(ctx, im); again == first {
		t.Error("an URL expiring before the expected download start was reused")
	}
}

type fakeAccount struct{ url, key string }

func (f fakeAccount) AccountInfo(context.Context) (string, string, error) { return f.url, f.key, nil }

func TestDownload(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, fakeglance.Options{})
	c := glance.New(config(srv.URL), nil, nil)
	var b strings.Builder
	if err := c.Download(ctx, "glance://"+imgID, &b); err != nil || b.String() != "disk image" {
		t.Errorf("download: %q, %v", b.String(), err)
	}
	err := c.Download(ctx, queuedID, &b)
	if classOf(err) != ironic.ImageDownloadFailed || err.Error() != "Failed to download image "+queuedID+", reason: image contains no data." {
		t.Errorf("no data: %v", err)
	}
}
