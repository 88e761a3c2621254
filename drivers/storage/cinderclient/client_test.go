package cinderclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goironic/ironic/drivers/storage/cinderclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/test/fakecinder"
)

const vol = "00000000-0000-0000-0000-00000000000a"

// TestEndpointIsVersioned: as for cinderclient, endpoint_override is the
// versioned endpoint; with auth_type none a project ID in it is kept.
func TestEndpointIsVersioned(t *testing.T) {
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": vol}}})
	for _, ep := range []string{fc.URL + "/v3", fc.URL + "/v3/", fc.URL + "/v3/6d1b0b4a21bd4a6d8f1f5c0bd3c2a9e1"} {
		c := cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{EndpointOverride: ep}}, nil)
		v, err := c.GetVolume(context.Background(), vol)
		if err != nil || v.ID != vol || v.Status != "available" {
			t.Errorf("%s: GetVolume = %+v, %v", ep, v, err)
		}
	}
	for _, r := range fc.Requests() {
		if r.Path != "/v3/volumes/"+vol {
			t.Errorf("request path %s", r.Path)
		}
	}
	// Without /v3 the requests miss, as with Ironic's client.
	c := cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{EndpointOverride: fc.URL}}, nil)
	if _, err := c.GetVolume(context.Background(), vol); err == nil || !strings.Contains(err.Error(), "(HTTP 404)") {
		t.Errorf("unversioned endpoint: %v", err)
	}
}

func TestErrorsReadAsCinderclient(t *testing.T) {
	fc := fakecinder.ForTest(t)
	c := cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: fc.URL + "/v3"}}, nil)
	_, err := c.GetVolume(context.Background(), vol)
	var ae *cinderclient.APIError
	if !errors.As(err, &ae) || ae.Status != 404 ||
		!strings.HasPrefix(err.Error(), "Volume "+vol+" could not be found. (HTTP 404) (Request-ID: req-") {
		t.Errorf("GetVolume of a missing volume = %v", err)
	}
	// No endpoint and no catalog.
	_, err = cinderclient.New(cinderclient.Config{}, nil).GetVolume(context.Background(), vol)
	if err == nil || err.Error() != "Service type volumev3 with endpoint type internal not found in keystone service catalog." {
		t.Errorf("without endpoint: %v", err)
	}
	// Nothing listening: a connection error after [cinder]retries.
	c = cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{EndpointOverride: "http://127.0.0.1:1"}, Retries: 0}, nil)
	_, err = c.GetVolume(context.Background(), vol)
	var ce *cinderclient.ConnectError
	if !errors.As(err, &ce) {
		t.Errorf("unreachable Cinder: %v (%T)", err, err)
	}
}
