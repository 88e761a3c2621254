package amqp_test

import (
	"context"
	"crypto/fips140"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
)

// tlsConfig is testConfig on the broker's TLS listener with
// [oslo_messaging_rabbit]ssl and the given CA and client certificate.
func tlsConfig(b *rabbittest.Broker, caFile, certFile, keyFile string) amqp.Config {
	cfg := testConfig(b)
	cfg.TransportURL = b.TLSTransportURL()
	cfg.SSL, cfg.SSLCAFile, cfg.SSLCertFile, cfg.SSLKeyFile = true, caFile, certFile, keyFile
	return cfg
}

// TestTLS: with ssl, server and client speak TLS to the broker, verify
// its certificate against ssl_ca_file and present ssl_cert_file.
func TestTLS(t *testing.T) {
	b := rabbittest.Shared(t)
	cfg := tlsConfig(b, b.TLS.CAFile, b.TLS.ClientCertFile, b.TLS.ClientKeyFile)
	cfg.SSLVersion = "TLSv1_2"
	_, api, _ := setup(t, b, "cond-tls", cfg)
	ctx := rabbittest.Context(t, 60*time.Second)
	if err := api.DestroyNode(ctx, rpc.Topic+".cond-tls", "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"); err != nil {
		t.Fatalf("call over TLS: %v", err)
	}
}

// TestTLSRefused: a broker whose certificate does not chain to the CA
// (here: the system's roots, without ssl_ca_file), no client certificate
// or one the broker does not trust (the test broker requires one), or
// plain AMQP on the TLS port, never connect.
func TestTLSRefused(t *testing.T) {
	b := rabbittest.Shared(t)
	dir := t.TempDir()
	foreignCert, foreignKey := filepath.Join(dir, "c.pem"), filepath.Join(dir, "c.key")
	if _, _, err := rabbittest.NewCert(nil, nil, "stranger", foreignCert, foreignKey); err != nil {
		t.Fatal(err)
	}
	plain := testConfig(b)
	plain.TransportURL = b.TLSTransportURL()
	for name, cfg := range map[string]amqp.Config{
		"system roots":          tlsConfig(b, "", b.TLS.ClientCertFile, b.TLS.ClientKeyFile),
		"no client certificate": tlsConfig(b, b.TLS.CAFile, "", ""),
		"untrusted client":      tlsConfig(b, b.TLS.CAFile, foreignCert, foreignKey),
		"plain on the TLS port": plain,
	} {
		t.Run(name, func(t *testing.T) {
			cl, err := amqp.NewClient(cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if err := cl.WaitConnected(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("connected (%v)", err)
			}
		})
	}
}

// TestTLSOptions: bad TLS options stop the client at once.
func TestTLSOptions(t *testing.T) {
	for name, tt := range map[string]struct {
		cfg  amqp.Config
		want string
	}{
		"version":   {amqp.Config{SSL: true, SSLVersion: "SSLv3"}, "Invalid SSL version : SSLv3"},
		"CA file":   {amqp.Config{SSL: true, SSLCAFile: "/nonexistent/ca.pem"}, "ssl_ca_file"},
		"cert file": {amqp.Config{SSL: true, SSLCertFile: "/nonexistent/c.pem"}, "ssl_cert_file"},
	} {
		if _, err := amqp.NewClient(tt.cfg, nil, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tt.want)
		}
	}
}

// TestTLSFIPSMode: ssl_enforce_fips_mode stops start-up unless Go's FIPS
// 140-3 module is on. The test runs itself again with GODEBUG=fips140=on
// to see the other answer.
func TestTLSFIPSMode(t *testing.T) {
	cfg := amqp.Config{SSL: true, SSLEnforceFIPSMode: true}
	_, err := amqp.NewClient(cfg, nil, nil)
	if fips140.Enabled() {
		if err != nil {
			t.Fatalf("FIPS on: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "GODEBUG=fips140=on") {
		t.Fatalf("FIPS off: err = %v, want the FIPS refusal", err)
	}
	if _, err := amqp.NewClient(amqp.Config{SSLEnforceFIPSMode: true}, nil, nil); err != nil {
		t.Errorf("without ssl the option is not read (as oslo.messaging): %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTLSFIPSMode$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=fips140=on")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestTLSFIPSMode") {
		t.Fatalf("with GODEBUG=fips140=on: %v\n%s", err, out)
	}
}
