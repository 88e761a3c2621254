package redfish

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTransportsSharedPerVerification: BMCs with the same
// redfish_verify_ca share one client; each distinct setting (true, false,
// a CA bundle as it is on disk) has its own, and at most maxTransports are
// kept.
func TestTransportsSharedPerVerification(t *testing.T) {
	ts := newTransports(0)
	get := func(verify any) any {
		t.Helper()
		c, err := ts.client(verify)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if get(true) != get(true) || get(false) != get(false) || get(true) == get(false) {
		t.Fatal("one client per boolean setting")
	}
	if get(nil) != get(true) {
		t.Error("no setting verifies, as true does")
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	first := get(ca)
	if get(ca) != first || first == get(true) {
		t.Error("one client per CA bundle")
	}
	if err := os.WriteFile(ca, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(ca, time.Now(), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if get(ca) == first {
		t.Error("a changed CA bundle keeps its old client")
	}
	if _, err := ts.client(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing CA bundle is accepted")
	}
	tr := get(true)
	for i := range maxTransports + 4 {
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		get(p)
		get(true) // the most recently used stays
	}
	if len(ts.clients) != maxTransports || len(ts.order) != maxTransports {
		t.Errorf("%d clients (%d in order), want at most %d", len(ts.clients), len(ts.order), maxTransports)
	}
	if get(true) != tr {
		t.Error("the most recently used client was dropped")
	}
}
