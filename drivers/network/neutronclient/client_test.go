package neutronclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/test/fakeneutron"
)

func newClient(t *testing.T) (*Client, *fakeneutron.TestServer) {
	t.Helper()
	srv := fakeneutron.ForTest(t)
	return New(Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: srv.URL}}, nil), srv
}

// The errors read as openstacksdk's exceptions do (the texts Ironic puts
// in its messages); recorded with openstacksdk 0.101 (Debian 12) against
// the fake.
func TestErrorsReadAsOpenstacksdks(t *testing.T) {
	c, srv := newClient(t)
	ctx := context.Background()
	p, err := srv.CreatePort(map[string]any{"network_id": fakeneutron.CleaningNetworkID})
	if err != nil {
		t.Fatal(err)
	}
	id := p["id"].(string)
	for name, tc := range map[string]struct {
		call func() error
		want string
	}{
		"get port": {func() error { _, err := c.GetPort(ctx, "nope"); return err },
			"No Port found for nope: Client Error for url: URL/v2.0/ports/nope, Port nope could not be found."},
		"update port": {func() error { _, err := c.UpdatePort(ctx, "nope", map[string]any{"mac_address": "x"}); return err },
			"ResourceNotFound: 404: Client Error for url: URL/v2.0/ports/nope, Port nope could not be found."},
		"get network": {func() error { _, err := c.GetNetwork(ctx, "nope"); return err },
			"No Network found for nope: Client Error for url: URL/v2.0/networks/nope, Network nope could not be found."},
		"delete port": {func() error { return c.DeletePort(ctx, "nope") },
			"ResourceNotFound: 404: Client Error for url: URL/v2.0/ports/nope, Port nope could not be found."},
		"create port": {func() error { _, err := c.CreatePort(ctx, map[string]any{"network_id": "nope"}); return err },
			"ResourceNotFound: 404: Client Error for url: URL/v2.0/ports, Network nope could not be found."},
		"bad request": {func() error { _, err := c.UpdatePort(ctx, id, map[string]any{"mac_address": "zz"}); return err },
			"BadRequestException: 400: Client Error for url: URL/v2.0/ports/" + id + ", Invalid input for mac_address. Reason: 'zz' is not a valid MAC address."},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.call()
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want an APIError", err, err)
			}
			if got := strings.ReplaceAll(err.Error(), srv.URL, "URL"); got != tc.want {
				t.Errorf("error\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEndpointWithVersion(t *testing.T) {
	srv := fakeneutron.ForTest(t)
	c := New(Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: srv.URL + "/v2.0/"}}, nil)
	n, err := c.GetNetwork(context.Background(), fakeneutron.CleaningNetworkID)
	if err != nil || n.Name != fakeneutron.CleaningNetworkName {
		t.Fatalf("%+v %v", n, err)
	}
}

func TestDecodesPortsAndNetworks(t *testing.T) {
	c, srv := newClient(t)
	ctx := context.Background()
	net, _ := srv.CreateNetwork(map[string]any{"name": "segmented", "mtu": 9000,
		"segments": []any{map[string]any{"provider:physical_network": "p1"}, map[string]any{"provider:physical_network": nil}}})
	n, err := c.GetNetwork(ctx, net["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if n.MTU != 9000 || len(n.Segments) != 2 || n.Segments[0].PhysicalNetwork != "p1" {
		t.Errorf("network %+v", n)
	}
	p, err := c.CreatePort(ctx, map[string]any{"network_id": net["id"], "binding:vnic_type": "baremetal"})
	if err != nil {
		t.Fatal(err)
	}
	p, err = c.UpdatePort(ctx, p.ID, map[string]any{"binding:host_id": "h", "binding:profile": map[string]any{"a": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.HostID != "h" || p.VNICType != "baremetal" || p.Profile["a"] != "b" || p.NetworkID != net["id"] || p.MACAddress == "" {
		t.Errorf("port %+v", p)
	}
	l, err := c.ListPorts(ctx, map[string][]string{"network_id": {net["id"].(string)}, "mac_address": {p.MACAddress, "00:00:00:00:00:01"}})
	if err != nil || len(l) != 1 || l[0].ID != p.ID {
		t.Errorf("list %+v %v", l, err)
	}
	if err := c.DeletePort(ctx, p.ID); err != nil {
		t.Error(err)
	}
}

// 503 answers are retried status_code_retries times, as keystoneauth does.
func TestRetriesUnavailable(t *testing.T) {
	srv := fakeneutron.ForTest(t)
	var failures atomic.Int32
	failures.Store(2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failures.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		srv.ServeHTTP(w, r)
	})
	front := fakeneutron.ForTestHandler(t, h)
	var slept []time.Duration
	c := New(Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: front}, StatusCodeRetries: 2}, nil)
	c.sleep = func(d time.Duration) { slept = append(slept, d) }
	if _, err := c.GetNetwork(context.Background(), fakeneutron.CleaningNetworkID); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{500 * time.Millisecond, time.Second}, slept); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	failures.Store(1)
	c = New(Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: front}}, nil)
	_, err := c.GetNetwork(context.Background(), fakeneutron.CleaningNetworkID)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 {
		t.Errorf("without retries: %v", err)
	}
}
