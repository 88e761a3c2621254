package swift_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/swift"
	"github.com/goironic/ironic/internal/swift/swifttest"
)

func TestCreateTempURLDelete(t *testing.T) {
	ctx := context.Background()
	fake := swifttest.New()
	defer fake.Close()
	fake.Token = "tok"
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fake.Now = func() time.Time { return now }

	c := swift.New(swift.Config{Options: keystoneauth.Options{EndpointOverride: fake.AccountURL()}}, nil)
	// Without the token the fake answers 401: a SwiftOperationError.
	err := c.CreateObject(ctx, "cont", "obj", []byte("x"), 60)
	if classOf(err) != ironic.SwiftOperationError || !strings.Contains(err.Error(), "Swift operation 'put container' failed") {
		t.Fatalf("no token: %v", err)
	}
	fake.Token = ""
	if err := c.CreateObject(ctx, "cont", "obj", []byte("payload"), 1800); err != nil {
		t.Fatal(err)
	}
	o := fake.Object("cont", "obj")
	if o == nil || string(o.Data) != "payload" || !o.DeleteAt.Equal(now.Add(1800*time.Second)) {
		t.Fatalf("stored: %+v", o)
	}
	// A second create re-PUTs the container (202) and replaces the object.
	if err := c.CreateObject(ctx, "cont", "obj", []byte("payload2"), 0); err != nil {
		t.Fatal(err)
	}

	// No account key: Ironic's MissingParameterValue.
	c.SetClock(func() time.Time { return now })
	_, err = c.TempURL(ctx, "cont", "obj", 1800*time.Second)
	if classOf(err) != ironic.MissingParameterValue || !strings.Contains(err.Error(), "Swift temporary URLs require a shared secret") {
		t.Fatalf("no key: %v", err)
	}
	fake.SetAccountKey("secret")
	u, err := c.TempURL(ctx, "cont", "obj", 1800*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := fake.AccountURL() + "/cont/obj?temp_url_sig="
	if !strings.HasPrefix(u, want) || !strings.HasSuffix(u, "&temp_url_expires=1767324845") {
		t.Fatalf("temp url %s", u)
	}
	// The URL works without a token (the fake checks the HMAC-SHA256 the
	// way Swift's tempurl middleware does), and not once expired.
	fake.Token = "tok"
	get := func() (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(); code != 200 || body != "payload2" {
		t.Fatalf("GET temp url: %d %q", code, body)
	}
	now = now.Add(1801 * time.Second)
	if code, _ := get(); code != http.StatusUnauthorized {
		t.Fatalf("expired temp url: %d", code)
	}
	fake.Token = ""

	if err := c.DeleteObject(ctx, "cont", "obj"); err != nil {
		t.Fatal(err)
	}
	err = c.DeleteObject(ctx, "cont", "obj")
	if classOf(err) != ironic.SwiftObjectNotFoundError {
		t.Fatalf("second delete: %v", err)
	}
	if err.Error() != "Swift object obj from container cont not found. Operation 'delete object' failed." {
		t.Errorf("message: %s", err)
	}
}

func TestNoEndpoint(t *testing.T) {
	err := swift.New(swift.Config{}, nil).CreateObject(context.Background(), "c", "o", nil, 0)
	if classOf(err) != ironic.CatalogNotFound {
		t.Fatalf("%v", err)
	}
}

func classOf(err error) ironic.Class {
	if err == nil {
		return ""
	}
	return ironic.AsFault(err).Class
}
