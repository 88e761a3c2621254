package ironic_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestNoCommittedBinaries keeps build products out of the repository: no
// tracked file is an executable (ELF) or a pid file. `go build ./cmd/x`
// run in the root writes ./x; the tests and scripts build with -o into a
// temporary directory, and .gitignore lists the names.
func TestNoCommittedBinaries(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	files := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	if len(files) < 100 {
		t.Fatalf("git ls-files listed only %d files", len(files))
	}
	for _, f := range files {
		name := string(f)
		if name == "pid" || bytes.HasSuffix(f, []byte(".pid")) {
			t.Errorf("%s is a pid file", name)
			continue
		}
		head := make([]byte, 4)
		fh, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree but not yet from the index
		}
		n, _ := fh.Read(head)
		fh.Close()
		if bytes.Equal(head[:n], []byte("\x7fELF")) {
			t.Errorf("%s is an executable (ELF); build with -o into a temporary directory", name)
		}
	}
}
