package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestDetectFormat: magic numbers, and qcow2 images with a backing file
// or an external data file refused, as 21.4's format inspector refuses
// them (the images are made by qemu-img).
func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	iso := make([]byte, 0x8010)
	copy(iso[0x8001:], "CD001")
	for name, want := range map[string]string{
		write("raw", []byte("plain bytes")): "raw",
		write("iso", iso):                   "iso",
		write("vmdk", []byte("KDMV....")):   "vmdk",
	} {
		if got, err := detectFormat(name); err != nil || got != want {
			t.Errorf("%s: %s, %v", name, got, err)
		}
	}
	if _, err := exec.LookPath("qemu-img"); err != nil {
		t.Skip("qemu-img is not installed")
	}
	qemuImg := func(args ...string) {
		if out, err := exec.Command("qemu-img", args...).CombinedOutput(); err != nil {
			t.Fatalf("qemu-img %v: %v\n%s", args, err, out)
		}
	}
	base := filepath.Join(dir, "base.qcow2")
	qemuImg("create", "-q", "-f", "qcow2", base, "1M")
	if got, err := detectFormat(base); err != nil || got != "qcow2" {
		t.Errorf("qcow2: %s, %v", got, err)
	}
	backed := filepath.Join(dir, "backed.qcow2")
	qemuImg("create", "-q", "-f", "qcow2", "-b", base, "-F", "qcow2", backed)
	datafile := filepath.Join(dir, "datafile.qcow2")
	qemuImg("create", "-q", "-f", "qcow2", "-o", "data_file="+filepath.Join(dir, "data.raw"), datafile, "1M")
	for _, p := range []string{backed, datafile} {
		if _, err := detectFormat(p); !ironic.IsClass(err, ironic.InvalidImage) {
			t.Errorf("%s: %v, want InvalidImage", p, err)
		}
	}
}

func TestChecksumAndAlgo(t *testing.T) {
	for _, tc := range []struct {
		ii             *pyjson.Dict
		checksum, algo string
		fails          bool
	}{
		{pyjson.DictOf("image_os_hash_value", "v", "image_os_hash_algo", "sha512", "image_checksum", "c"), "v", "sha512", false},
		{pyjson.DictOf("image_checksum", "0123456789abcdef0123456789abcdef"), "0123456789abcdef0123456789abcdef", "", false},
		{pyjson.DictOf("image_checksum", string(make([]byte, 64))), string(make([]byte, 64)), "sha256", false},
		{pyjson.DictOf("image_checksum", "http://example/SHA256SUMS"), "", "", true},
		{pyjson.DictOf(), "", "", false},
	} {
		c, a, err := checksumAndAlgo(tc.ii)
		if c != tc.checksum || a != tc.algo || (err != nil) != tc.fails {
			t.Errorf("%v: %q %q %v", tc.ii, c, a, err)
		}
	}
}

func TestValidateFileURL(t *testing.T) {
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	if err := os.MkdirAll(filepath.Join(allowed, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(allowed, "img"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{FileURLAllowedPaths: []string{allowed}}
	for href, want := range map[string]string{
		"file://" + allowed + "/img":  "",
		"file://" + allowed + "/sub":  "Validation of image href file://" + allowed + "/sub failed, reason: Specified image file not found.",
		"file://" + allowed + "x/img": "Validation of image href file://" + allowed + "x/img failed, reason: Security: Path " + allowed + "x/img is not allowed for image source file URLs",
		"file:///etc/passwd":          "Validation of image href file:///etc/passwd failed, reason: Security: Path /etc/passwd is not allowed for image source file URLs",
	} {
		err := c.validateFileURL(href)
		if (want == "" && err != nil) || (want != "" && (err == nil || err.Error() != want)) {
			t.Errorf("%s: %v\nwant %s", href, err, want)
		}
	}
	if err := (Config{}).validateFileURL("file://" + allowed + "/img"); err == nil {
		t.Error("an empty file_url_allowed_paths allowed a file")
	}
}
