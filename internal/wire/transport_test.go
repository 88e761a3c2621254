package wire

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/freeport"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	p, err := freeport.TCP()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loadText(t *testing.T, text string) *conf.Config {
	t.Helper()
	cfg, err := conf.Load(nil, conf.WithText("ironic.conf", text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestJSONRPCTransport: with rpc_transport = json-rpc the conductor
// serves JSON-RPC on [json_rpc]host_ip:port and the API's client reaches
// it from the conductor's host name, the hash ring's topic, with
// [json_rpc]port appended as ironic_lib's client does; a fault keeps
// its class and status; a cast arrives as a notification.
func TestJSONRPCTransport(t *testing.T) {
	port := freePort(t)
	cfg := loadText(t, fmt.Sprintf("[DEFAULT]\nhost = 127.0.0.1\nrpc_transport = json-rpc\nauth_strategy = noauth\n"+
		"[database]\nconnection = sqlite:///%s\n[json_rpc]\nhost_ip = 127.0.0.1\nport = %d\n",
		filepath.Join(t.TempDir(), "x.sqlite"), port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	store, err := OpenDB(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	fake := oslotest.New()
	srv, err := ConductorServer(cfg, fake, store, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	// A second conductor on the same address cannot start.
	again, err := ConductorServer(cfg, fake, store, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Listen(); err == nil || !strings.Contains(err.Error(), "[json_rpc]host_ip, port") {
		t.Errorf("a second listener on the port: %v", err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(sctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	}()

	client, calls, err := ConductorClient(cfg, store, log)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	fake.SetResult("GetSupportedBootDevices", []string{"pxe", "disk"})
	topic := rpc.Topic + ".127.0.0.1"
	devs, err := calls.GetSupportedBootDevices(ctx, topic, "1be26c0b-03f2-4d2e-ae87-c02d7f33c123")
	if err != nil || strings.Join(devs, ",") != "pxe,disk" {
		t.Fatalf("boot devices %v, %v", devs, err)
	}
	fake.SetError("InjectNMI", ironic.Errorf(ironic.NodeLocked, "Node x is locked by host 127.0.0.1, please retry after the current operation is completed."))
	if f := ironic.AsFault(calls.InjectNMI(ctx, topic, "1be26c0b-03f2-4d2e-ae87-c02d7f33c123")); f.Class != ironic.NodeLocked || f.HTTPStatus() != 409 {
		t.Errorf("fault %+v", f)
	}
	// A cast is a JSON-RPC notification, run by the conductor.
	seen := make(chan oslotest.Call, 1)
	fake.SetNotify(seen)
	if err := calls.ContinueNodeClean(ctx, topic, "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-seen:
		if c.Method != "ContinueNodeClean" {
			t.Errorf("cast arrived as %+v", c)
		}
	case <-ctx.Done():
		t.Fatal("cast never arrived")
	}
	// Another host name: another address, which nothing serves.
	_, err = calls.GetSupportedBootDevices(ctx, rpc.Topic+".127.0.0.2", "1be26c0b-03f2-4d2e-ae87-c02d7f33c123")
	if f := ironic.AsFault(err); f.Class != ironic.TemporaryFailure || !strings.Contains(f.Message, fmt.Sprintf("127.0.0.2:%d", port)) {
		t.Errorf("unserved conductor: %v", err)
	}
}

// TestRPCTransportRefused: the split binaries take oslo and json-rpc
// only; a json-rpc server whose authentication or TLS cannot be set up
// stops the conductor at start-up with the option's error.
func TestRPCTransportRefused(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cfg := loadText(t, "[DEFAULT]\nrpc_transport = none\n")
	if _, _, err := ConductorClient(cfg, nil, log); err == nil || !strings.Contains(err.Error(), `not "none"`) {
		t.Errorf("API, rpc_transport none: %v", err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"keystone by default", "[DEFAULT]\nrpc_transport = json-rpc\n", "[keystone_authtoken] auth_type"},
		{"http_basic", "[DEFAULT]\nrpc_transport = json-rpc\nauth_strategy = noauth\n[json_rpc]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = /nonexistent\n", "Problem reading auth user file"},
		{"use_ssl", "[DEFAULT]\nrpc_transport = json-rpc\nauth_strategy = noauth\n[json_rpc]\nuse_ssl = true\n", "[json_rpc]use_ssl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConductorServer(loadText(t, tc.text), nil, nil, log)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("conductor: %v, want %q", err, tc.want)
			}
		})
	}
}
