package certpool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
)

func TestLoad(t *testing.T) {
	d := t.TempDir()
	ca := filepath.Join(d, "ca.pem")
	if _, _, err := rabbittest.NewCert(nil, nil, "CA", ca, filepath.Join(d, "ca.key")); err != nil {
		t.Fatal(err)
	}
	if pool, err := Load(ca); err != nil || pool == nil {
		t.Errorf("Load(ca) = %v, %v", pool, err)
	}
	if _, err := Load(filepath.Join(d, "missing.pem")); err == nil || !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want a not-exist error", err)
	}
	empty := filepath.Join(d, "empty.pem")
	if err := os.WriteFile(empty, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no certificate in "+empty) {
		t.Errorf("a file without certificates: %v", err)
	}
}
