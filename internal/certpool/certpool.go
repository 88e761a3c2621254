// Package certpool reads the PEM CA files ironic.conf names into
// certificate pools, refusing a file that holds no certificate (a pool
// left empty would trust nothing and fail later, far from the cause).
package certpool

import (
	"crypto/x509"
	"fmt"
	"os"
)

// Load returns the pool of the certificates in the PEM file at path. The
// error is the read error, or says that path holds no certificate; the
// caller names the option.
func Load(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in %s", path)
	}
	return pool, nil
}
