package wire

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
)

// pki is a CA, a server certificate for 127.0.0.1 and a client
// certificate signed by it, and a second CA that signed nothing here.
type pki struct{ dir, ca, otherCA, cert, key, clientCert, clientKey string }

func newPKI(t *testing.T) pki {
	t.Helper()
	d := t.TempDir()
	p := pki{dir: d, ca: filepath.Join(d, "ca.pem"), otherCA: filepath.Join(d, "other-ca.pem"),
		cert: filepath.Join(d, "api.pem"), key: filepath.Join(d, "api.key"),
		clientCert: filepath.Join(d, "client.pem"), clientKey: filepath.Join(d, "client.key")}
	ca, caKey, err := rabbittest.NewCert(nil, nil, "test CA", p.ca, filepath.Join(d, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(nil, nil, "other CA", p.otherCA, filepath.Join(d, "other-ca.key")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "127.0.0.1", p.cert, p.key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "client", p.clientCert, p.clientKey); err != nil {
		t.Fatal(err)
	}
	return p
}

// serveEndpoint loads ironic.conf text, builds the API's endpoint and
// serves a handler answering "ok" on it until the test ends; it returns
// the address.
func serveEndpoint(t *testing.T, text string) string {
	t.Helper()
	ep, err := endpointOf(t, text)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := ep.Listen()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

func endpointOf(t *testing.T, text string) (Endpoint, error) {
	t.Helper()
	cfg, err := conf.Load(nil, conf.WithText("ironic.conf", "[api]\nhost_ip = 127.0.0.1\nport = 0\n"+text))
	if err != nil {
		t.Fatal(err)
	}
	return APIEndpoint(cfg)
}

// get fetches url with a client trusting caFile (and presenting the
// client certificate when cert is set); it returns the body or the
// error.
func get(t *testing.T, url, caFile string, cert *tls.Certificate) (string, error) {
	t.Helper()
	tc := &tls.Config{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(pem)
	}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return string(b), err
}

// TestAPIServesTLS: with [api]enable_ssl_api the API answers HTTPS with
// [ssl]cert_file/key_file; a client trusting another CA is refused, and
// plain HTTP gets no answer from the API.
func TestAPIServesTLS(t *testing.T) {
	p := newPKI(t)
	addr := serveEndpoint(t, fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\n", p.cert, p.key))
	if body, err := get(t, "https://"+addr+"/", p.ca, nil); err != nil || body != "ok" {
		t.Fatalf("HTTPS with the right CA: %q, %v", body, err)
	}
	if _, err := get(t, "https://"+addr+"/", p.otherCA, nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client trusting another CA: %v, want a certificate error", err)
	}
	if body, err := get(t, "http://"+addr+"/", "", nil); err == nil {
		t.Errorf("plain HTTP to the TLS port answered %q", body)
	}
}

// TestAPIRequiresClientCertificates: with [ssl]ca_file, oslo.service
// requires a client certificate signed by that CA (CERT_REQUIRED).
func TestAPIRequiresClientCertificates(t *testing.T) {
	p := newPKI(t)
	addr := serveEndpoint(t, fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\nca_file = %s\nversion = TLSv1_2\n", p.cert, p.key, p.ca))
	if _, err := get(t, "https://"+addr+"/", p.ca, nil); err == nil {
		t.Error("a client without a certificate was served")
	}
	cert, err := tls.LoadX509KeyPair(p.clientCert, p.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	if body, err := get(t, "https://"+addr+"/", p.ca, &cert); err != nil || body != "ok" {
		t.Errorf("a client with a certificate of the CA: %q, %v", body, err)
	}
}

// TestAPITLSStartUpErrors: what oslo.service refuses at start-up stops
// ours there too, with its message; an option Go's TLS cannot honour
// ([ssl]ciphers) is refused rather than ignored; without enable_ssl_api
// the [ssl] options are not used (plain HTTP), as in Ironic.
func TestAPITLSStartUpErrors(t *testing.T) {
	p := newPKI(t)
	for _, tc := range []struct{ name, text, want string }{
		{"no files", "enable_ssl_api = true\n", "you must specify both a cert_file and key_file"},
		{"no key", fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\n", p.cert), "you must specify both a cert_file and key_file"},
		{"missing cert", "enable_ssl_api = true\n[ssl]\ncert_file = /nonexistent.pem\nkey_file = " + p.key + "\n", "Unable to find cert_file : /nonexistent.pem"},
		{"missing CA", fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\nca_file = /nonexistent-ca.pem\n", p.cert, p.key), "Unable to find ca_file : /nonexistent-ca.pem"},
		{"key of another certificate", fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\n", p.cert, p.clientKey), "private key does not match"},
		{"bad version", fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\nca_file = %s\nversion = SSLv3\n", p.cert, p.key, p.ca), "Invalid SSL version : SSLv3"},
		{"ciphers", fmt.Sprintf("enable_ssl_api = true\n[ssl]\ncert_file = %s\nkey_file = %s\nca_file = %s\nciphers = HIGH\n", p.cert, p.key, p.ca), "[ssl]ciphers = HIGH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := endpointOf(t, tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ep, err := endpointOf(t, fmt.Sprintf("[ssl]\ncert_file = %s\nkey_file = %s\n", p.cert, p.key))
	if err != nil || ep.TLS != nil {
		t.Errorf("without enable_ssl_api: %+v, %v; want plain HTTP", ep, err)
	}
}
