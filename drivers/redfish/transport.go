package redfish

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The shared transports' connection limits: a BMC is asked by one
// operation at a time, so two idle connections per BMC let consecutive
// requests reuse theirs; idle connections close after idleConnTimeout
// (sooner than a power sync interval, so a pass doesn't keep one to every
// BMC open until the next), and at most maxIdleConns stay open in all.
const (
	maxIdleConnsPerHost = 2
	maxIdleConns        = 256
	idleConnTimeout     = 30 * time.Second
	// maxTransports bounds the distinct redfish_verify_ca settings that
	// keep a transport: the least recently used one beyond it is closed.
	maxTransports = 16
)

// transports are the HTTP clients of the BMC connections, one per
// distinct certificate verification (redfish_verify_ca true, false, or a
// CA bundle path as it is on disk), shared by every BMC with that setting:
// a connection holds a client, not a transport of its own, so a thousand
// BMCs cost one connection pool and one TLS configuration. It is safe for
// concurrent use.
type transports struct {
	idleTimeout time.Duration

	mu      sync.Mutex
	clients map[string]*http.Client
	order   []string // least recently used first
}

func newTransports(idleTimeout time.Duration) *transports {
	if idleTimeout <= 0 {
		idleTimeout = idleConnTimeout
	}
	return &transports{idleTimeout: idleTimeout, clients: map[string]*http.Client{}}
}

// client returns the client for redfish_verify_ca verify (a bool, or a CA
// bundle file or directory, read again when it changes on disk).
func (t *transports) client(verify any) (*http.Client, error) {
	key, err := verifyKey(verify)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.clients[key]; ok {
		t.touch(key)
		return c, nil
	}
	tr, err := newTransport(verify, t.idleTimeout)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	t.clients[key] = c
	t.order = append(t.order, key)
	for len(t.order) > maxTransports {
		oldest := t.order[0]
		t.order = t.order[1:]
		// Requests in flight on it finish; its idle connections close.
		t.clients[oldest].CloseIdleConnections()
		delete(t.clients, oldest)
	}
	return c, nil
}

func (t *transports) touch(key string) {
	for i, k := range t.order {
		if k == key {
			t.order = append(append(t.order[:i:i], t.order[i+1:]...), key)
			return
		}
	}
}

// verifyKey names a verification setting: a CA path with its size and
// modification time, so that a changed bundle makes a new transport.
func verifyKey(verify any) (string, error) {
	switch v := verify.(type) {
	case bool:
		return fmt.Sprint(v), nil
	case string:
		st, err := os.Stat(v)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("ca:%d:%d:%s", st.Size(), st.ModTime().UnixNano(), v), nil
	}
	return "true", nil
}

// newTransport is a transport verifying certificates as redfish_verify_ca
// says (a bool, or a CA bundle file or directory).
func newTransport(verify any, idleTimeout time.Duration) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = maxIdleConns
	tr.MaxIdleConnsPerHost = maxIdleConnsPerHost
	tr.IdleConnTimeout = idleTimeout
	switch v := verify.(type) {
	case bool:
		if !v {
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // redfish_verify_ca=False asks for it
		}
	case string:
		pool, err := loadCAs(v)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return tr, nil
}

// loadCAs reads a CA bundle file, or every file of a directory.
func loadCAs(p string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	files := []string{p}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, e := range entries {
			if !e.IsDir() {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	for _, f := range files {
		pem, err := os.ReadFile(f) //nolint:gosec // the operator's CA path
		if err != nil {
			return nil, err
		}
		pool.AppendCertsFromPEM(pem)
	}
	return pool, nil
}
