package ramdisk

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/small.cpio (go test ./agent/ramdisk -run TestCPIOGolden -update)")

// smallTree covers every entry kind, an implied parent, names of every
// length modulo 4 and data of every length modulo 4.
func smallTree() *Tree {
	t := NewTree()
	t.Dir("tmp", 0o1777|os.ModeSticky)
	t.CharDev("dev/console", 0o600, 5, 1)
	t.CharDev("dev/null", 0o666, 1, 3)
	t.File("init", 0o755, []byte("#!/bin/sh\necho hi\n"))
	t.File("etc/a", 0o644, []byte("1"))
	t.File("etc/ab", 0o644, []byte("12"))
	t.File("etc/abc", 0o644, []byte("123"))
	t.File("etc/abcd", 0o600, []byte("1234"))
	t.File("etc/empty", 0o644, nil)
	t.File("a-b/x", 0o644, []byte("dash sorts before slash, parents still first\n"))
	t.Symlink("bin/sh", "/init")
	return t
}

func TestCPIOGolden(t *testing.T) {
	var b bytes.Buffer
	if err := smallTree().WriteCPIO(&b, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.cpio")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("archive differs from %s (go test ./agent/ramdisk -run TestCPIOGolden -update, then review):\n%s", golden,
			cmp.Diff(strings.Split(string(want), "\x00"), strings.Split(b.String(), "\x00")))
	}
	if b.Len()%4 != 0 {
		t.Errorf("archive length %d is not a multiple of 4", b.Len())
	}
	if !bytes.Contains(b.Bytes(), []byte("TRAILER!!!\x00")) {
		t.Error("no trailer")
	}
}

func TestTreeOrder(t *testing.T) {
	got := smallTree().Paths()
	want := []string{"a-b", "a-b/x", "bin", "bin/sh", "dev", "dev/console", "dev/null", "etc", "etc/a", "etc/ab", "etc/abc", "etc/abcd", "etc/empty", "init", "tmp"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
}

func TestCPIOWriterRejectsBadNames(t *testing.T) {
	c := NewCPIOWriter(&bytes.Buffer{}, time.Unix(0, 0))
	for _, n := range []string{"", "/etc", "a/../b", "a//b"} {
		if err := c.File(n, 0o644, nil); err == nil {
			t.Errorf("File(%q) accepted", n)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.File("late", 0o644, nil); err == nil {
		t.Error("File after Close accepted")
	}
}

// TestDebianCPIOReadsIt lists and unpacks the archive with Debian's
// cpio (GNU cpio 2.13): names, modes, device numbers, link target and
// contents as written.
func TestDebianCPIOReadsIt(t *testing.T) {
	cpio, err := exec.LookPath("cpio")
	if err != nil {
		if os.Getenv("IRONIC_TEST_REQUIRE_CPIO") == "1" {
			t.Fatal("cpio not installed")
		}
		t.Skip("cpio not installed (scripts/install-test-deps.sh)")
	}
	var b bytes.Buffer
	if err := smallTree().WriteCPIO(&b, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cpio, "-t", "-v", "--quiet", "--numeric-uid-gid")
	cmd.Stdin = bytes.NewReader(b.Bytes())
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -t: %v\n%s", err, out)
	}
	listing := string(out)
	for _, want := range []string{
		"drwxrwxrwt   2 0        0               0 Nov 14  2023 tmp",
		"crw-------   1 0        0          5,   1 Nov 14  2023 dev/console",
		"crw-rw-rw-   1 0        0          1,   3 Nov 14  2023 dev/null",
		"-rwxr-xr-x   1 0        0              18 Nov 14  2023 init",
		"-rw-------   1 0        0               4 Nov 14  2023 etc/abcd",
		"lrwxrwxrwx   1 0        0               5 Nov 14  2023 bin/sh -> /init",
	} {
		if !strings.Contains(listing, want+"\n") {
			t.Errorf("cpio -t -v lacks %q:\n%s", want, listing)
		}
	}
	if n := strings.Count(listing, "\n"); n != len(smallTree().Paths()) {
		t.Errorf("cpio -t lists %d entries, want %d:\n%s", n, len(smallTree().Paths()), listing)
	}

	dir := t.TempDir()
	// Regular files, directories and the link; device nodes need mknod
	// rights, which the listing above already checked.
	cmd = exec.Command(cpio, "-i", "-d", "--quiet", "--no-absolute-filenames", "--preserve-modification-time", "init", "etc/*", "a-b/*", "bin/*")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(b.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cpio -i: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"init": "#!/bin/sh\necho hi\n", "etc/abc": "123", "etc/empty": "", "a-b/x": "dash sorts before slash, parents still first\n"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "bin/sh")); err != nil || target != "/init" {
		t.Errorf("bin/sh -> %q, %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "init")); err != nil || fi.Mode().Perm() != 0o755 || fi.ModTime().Unix() != 1700000000 {
		t.Errorf("init: %v %v", fi, err)
	}
}
