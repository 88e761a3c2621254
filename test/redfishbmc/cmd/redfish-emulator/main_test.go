package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRun starts the command with three further BMCs on ports of their
// own, one of them failing, and reads each system through the addresses
// it wrote.
func TestRun(t *testing.T) {
	urls := filepath.Join(t.TempDir(), "urls")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-bmcs", "3", "-listen-each",
			"-fail-fraction", "0.5", "-fail-mode", "503", "-seed", "7", "-urls", urls})
	}()
	var lines []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, err := os.ReadFile(urls)
		if err == nil && strings.HasSuffix(string(raw), "\n") {
			lines = strings.Split(strings.TrimSpace(string(raw)), "\n")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no urls file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lines) != 4 {
		t.Fatalf("urls file: %q", lines)
	}
	statuses := map[int]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		// f: name, redfish_address, system path below that authority.
		req, _ := http.NewRequest(http.MethodGet, f[1]+f[2], nil)
		req.SetBasicAuth("admin", "password")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses[resp.StatusCode]++
	}
	if statuses[200] < 2 || statuses[503] < 1 || statuses[200]+statuses[503] != 4 {
		t.Errorf("statuses %v", statuses)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}

func TestParseFault(t *testing.T) {
	for _, bad := range []string{"200", "boom", ""} {
		if _, err := parseFault(bad); err == nil {
			t.Errorf("parseFault(%q): no error", bad)
		}
	}
}
