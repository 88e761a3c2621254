package amqp

import (
	"crypto/fips140"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	"github.com/goironic/ironic/internal/certpool"
)

// tlsConfig is the TLS of [oslo_messaging_rabbit]ssl = true, as
// oslo.messaging asks py-amqp for it: the broker's certificate chain is
// verified (against SSLCAFile, else the system's roots), its host name
// only with SSLEnforceHostnameVerification and a CA file; SSLCertFile and
// SSLKeyFile are the client's certificate; SSLVersion pins the protocol.
// nil without SSL.
func (c Config) tlsConfig() (*tls.Config, error) {
	if !c.SSL {
		return nil, nil
	}
	if c.SSLEnforceFIPSMode && !fips140.Enabled() {
		return nil, errors.New("[oslo_messaging_rabbit]ssl_enforce_fips_mode: FIPS mode is not enabled in this process. " +
			"Start it with GODEBUG=fips140=on (Go's FIPS 140-3 module) or set " +
			"'[oslo_messaging_rabbit] ssl_enforce_fips_mode' to 'False'")
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	switch strings.ToLower(c.SSLVersion) {
	case "", "sslv23":
	case "tlsv1":
		tc.MinVersion, tc.MaxVersion = tls.VersionTLS10, tls.VersionTLS10
	case "tlsv1_1":
		tc.MinVersion, tc.MaxVersion = tls.VersionTLS11, tls.VersionTLS11
	case "tlsv1_2":
		tc.MinVersion, tc.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	default:
		return nil, fmt.Errorf("[oslo_messaging_rabbit]ssl_version: Invalid SSL version : %s", c.SSLVersion)
	}
	if c.SSLCAFile != "" {
		pool, err := certpool.Load(c.SSLCAFile)
		if err != nil {
			return nil, fmt.Errorf("[oslo_messaging_rabbit]ssl_ca_file: %w", err)
		}
		tc.RootCAs = pool
	}
	if c.SSLCertFile != "" {
		key := c.SSLKeyFile
		if key == "" {
			key = c.SSLCertFile // the key may follow the certificate
		}
		cert, err := tls.LoadX509KeyPair(c.SSLCertFile, key)
		if err != nil {
			return nil, fmt.Errorf("[oslo_messaging_rabbit]ssl_cert_file: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if c.SSLCAFile != "" && c.SSLEnforceHostnameVerification {
		return tc, nil
	}
	// The chain is verified, not the name (py-amqp's check_hostname is
	// off without a server_hostname).
	roots := tc.RootCAs
	tc.InsecureSkipVerify = true //nolint:gosec // verified below, without the host name
	tc.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the broker sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
	return tc, nil
}
