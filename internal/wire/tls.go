package wire

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/goironic/ironic/internal/certpool"
)

// sslVersions are the [ssl]version values oslo.service's sslutils takes
// (the protocols Python's ssl module has; SSLv2 and SSLv3 it no longer
// has), as the versions a Go server then accepts: a named protocol is
// that version only, as Python's PROTOCOL_TLSv1_x is; sslv23 negotiates.
var sslVersions = map[string][2]uint16{
	"tlsv1":   {tls.VersionTLS10, tls.VersionTLS10},
	"tlsv1_1": {tls.VersionTLS11, tls.VersionTLS11},
	"tlsv1_2": {tls.VersionTLS12, tls.VersionTLS12},
	"sslv23":  {tls.VersionTLS10, tls.VersionTLS13},
}

// apiTLS is the API's TLS configuration as oslo.service's sslutils
// builds it for [api]enable_ssl_api: cert_file and key_file both
// required and present (its is_enabled checks and messages), the server
// certificate from them; with ca_file, client certificates signed by
// that CA are required (CERT_REQUIRED), and only then do version and
// ciphers apply, as in sslutils.wrap. [ssl]ciphers is an OpenSSL cipher
// list that Go's TLS cannot take: set with a ca_file it stops start-up.
func apiTLS(c listenConfig) (*tls.Config, error) {
	for _, f := range []struct{ name, path string }{{"cert_file", c.CertFile}, {"ca_file", c.CAFile}, {"key_file", c.KeyFile}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return nil, fmt.Errorf("[ssl]%s: Unable to find %s : %s", f.name, f.name, f.path)
		}
	}
	if c.CertFile == "" || c.KeyFile == "" {
		return nil, errors.New("[api]enable_ssl_api: When running server in SSL mode, you must specify both a cert_file and key_file option value in your configuration file")
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("[ssl]cert_file, key_file: %w", err)
	}
	// Go's default minimum, TLS 1.2, is what Debian's OpenSSL gives
	// Python's server unless version says otherwise.
	t := &tls.Config{Certificates: []tls.Certificate{cert}}
	if c.CAFile == "" {
		return t, nil
	}
	pool, err := certpool.Load(c.CAFile)
	if err != nil {
		return nil, fmt.Errorf("[ssl]ca_file: %w", err)
	}
	t.ClientCAs, t.ClientAuth = pool, tls.RequireAndVerifyClientCert
	if c.Version != "" {
		v, ok := sslVersions[strings.ToLower(c.Version)]
		if !ok {
			return nil, fmt.Errorf("[ssl]version: Invalid SSL version : %s", c.Version)
		}
		t.MinVersion, t.MaxVersion = v[0], v[1]
	}
	if c.Ciphers != "" {
		return nil, fmt.Errorf("[ssl]ciphers = %s: OpenSSL cipher lists are not supported by this service (Go's TLS chooses its own secure suites); remove the option", c.Ciphers)
	}
	return t, nil
}
