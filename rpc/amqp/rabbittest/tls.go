package rabbittest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLS is the broker's TLS listener on 127.0.0.1:Port: its certificate
// (for 127.0.0.1 and localhost) is signed by the CA in CAFile, which also
// signed the client certificate ClientCertFile (key ClientKeyFile).
// Clients must present a certificate that chains to the CA.
type TLS struct {
	Port           int
	CAFile         string
	ClientCertFile string
	ClientKeyFile  string
}

// TLSTransportURL is the transport_url of the TLS listener (to use with
// [oslo_messaging_rabbit]ssl).
func (b *Broker) TLSTransportURL() string {
	return fmt.Sprintf("rabbit://guest:guest@127.0.0.1:%d/", b.TLS.Port)
}

// writeTLS writes a CA, the broker's certificate and a client
// certificate into dir, and returns the rabbitmq.conf lines of a TLS
// listener on port.
func writeTLS(dir string, port int) (TLS, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return TLS{}, "", err
	}
	ca, caKey, err := NewCert(nil, nil, "goironic test CA", filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca.key"))
	if err != nil {
		return TLS{}, "", err
	}
	if _, _, err := NewCert(ca, caKey, "127.0.0.1", filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key")); err != nil {
		return TLS{}, "", err
	}
	if _, _, err := NewCert(ca, caKey, "client", filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")); err != nil {
		return TLS{}, "", err
	}
	t := TLS{Port: port, CAFile: filepath.Join(dir, "ca.pem"),
		ClientCertFile: filepath.Join(dir, "client.pem"), ClientKeyFile: filepath.Join(dir, "client.key")}
	conf := fmt.Sprintf("listeners.ssl.1 = 127.0.0.1:%d\n"+
		"ssl_options.cacertfile = %s\nssl_options.certfile = %s\nssl_options.keyfile = %s\n"+
		"ssl_options.verify = verify_peer\nssl_options.fail_if_no_peer_cert = true\n",
		port, t.CAFile, filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"))
	return t, conf, nil
}

// NewCert writes a certificate for name (an IP address or a host name)
// and its key as PEM files, signed by parent (self-signed, a CA, when
// parent is nil).
func NewCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name, certFile, keyFile string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
		tmpl.DNSNames = []string{"localhost"}
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}
