package agent

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

// serveImage serves img at /images/disk.raw until the test ends.
func serveImage(t *testing.T, img []byte) *httptest.Server {
	t.Helper()
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/images/disk.raw" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "disk.raw", time.Time{}, bytes.NewReader(img))
	}))
	t.Cleanup(files.Close)
	return files
}

// newMachine makes the node's machine in dir: a disk file of size bytes
// (0xAA) at dir/vda.img and the agent's log at dir/agent.log, which a
// failed test prints. The agent is halted when the test ends.
func newMachine(t *testing.T, dir, apiURL, mac string, size int64) *machine {
	t.Helper()
	diskPath := filepath.Join(dir, "vda.img")
	if err := os.WriteFile(diskPath, bytes.Repeat([]byte{0xAA}, int(size)), 0o600); err != nil {
		t.Fatal(err)
	}
	agentLog, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{t: t, apiURL: apiURL, mac: mac, disks: &fileDisks{path: diskPath, size: size}, dir: dir, logOut: agentLog}
	t.Cleanup(func() {
		m.halt()
		agentLog.Close()
		if t.Failed() {
			t.Logf("agent log:\n%s", cluster.Tail([]byte(m.agentLog()), 8000))
		}
	})
	return m
}

// agentLog is the agent's log so far.
func (m *machine) agentLog() string {
	data, _ := os.ReadFile(m.logOut.Name())
	return string(data)
}
