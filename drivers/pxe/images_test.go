package pxe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/pyjson"
)

const glanceKernel = "6c8ea7a6-3f7b-4a5e-9d6e-0a0b2f1c9d11"

// fakeGlance serves one image and counts downloads.
type fakeGlance struct {
	data      []byte
	downloads int
}

// uuid5 is Python's uuid.uuid5(uuid.NAMESPACE_URL, s).
func uuid5(t *testing.T, s string) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys, uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, sys.argv[1]))", s).Output()
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func (g *fakeGlance) Show(_ context.Context, href string) (glance.Image, error) {
	if !strings.HasSuffix(href, glanceKernel) {
		return glance.Image{}, ironic.Errorf(ironic.ImageNotFound, "Image %s could not be found.", href)
	}
	return glance.Image{}, nil
}

func (g *fakeGlance) Download(ctx context.Context, href string, w io.Writer) error {
	if _, err := g.Show(ctx, href); err != nil {
		return err
	}
	g.downloads++
	_, err := w.Write(g.data)
	return err
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestPrepareRamdiskFetchesImages: deploy images given as Glance images
// or file:// paths are fetched into <http_root>/<node>/<label>, where the
// iPXE script loads them, through one master copy per image; a changed
// image is fetched again; clean-up removes the node's copies.
func TestPrepareRamdiskFetchesImages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "images")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	ramdisk := filepath.Join(src, "deploy.initramfs")
	if err := os.WriteFile(ramdisk, []byte("initramfs v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &fakeGlance{data: []byte("kernel bytes")}
	root, master := filepath.Join(dir, "httpboot"), filepath.Join(dir, "master")
	cfg := pxe.Config{HTTPURL: "http://h", HTTPRoot: root, TFTPMasterPath: master,
		FileURLAllowedPaths: []string{src}, Glance: g, AutomatedClean: true}
	b := pxe.NewBoot(cfg, true)
	di := pyjson.DictOf("deploy_kernel", glanceKernel, "deploy_ramdisk", "file://"+ramdisk)
	tk := task(di, nil)
	tk.Drv = &drivers.Driver{Management: &recMgmt{}}
	if err := b.PrepareRamdisk(ctx, tk, nil, "deploy"); err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]string{"deploy_kernel": "kernel bytes", "deploy_ramdisk": "initramfs v1"} {
		got, err := os.ReadFile(filepath.Join(root, "u", label))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", label, got, err, want)
		}
	}
	masters, _ := os.ReadDir(master)
	if len(masters) != 2 {
		t.Errorf("master copies: %v", masters)
	}

	// A second node shares the master copies: no download, same inode.
	tk2 := task(di, nil)
	tk2.Node.UUID = "v"
	tk2.Drv = &drivers.Driver{Management: &recMgmt{}}
	if err := b.PrepareRamdisk(ctx, tk2, nil, "deploy"); err != nil {
		t.Fatal(err)
	}
	if g.downloads != 1 {
		t.Errorf("Glance downloads: %d, want 1", g.downloads)
	}
	if inode(t, filepath.Join(root, "u", "deploy_kernel")) != inode(t, filepath.Join(root, "v", "deploy_kernel")) {
		t.Error("the nodes' kernels are not links of one master copy")
	}

	// The file changes: its mtime is after the master copy's, which is
	// fetched again. A Glance image can't change (Ironic never refreshes
	// it): new bytes behind the same ID are not fetched.
	g.data = []byte("kernel v2")
	if err := os.WriteFile(ramdisk, []byte("initramfs v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(ramdisk, future, future); err != nil {
		t.Fatal(err)
	}
	if err := b.PrepareRamdisk(ctx, tk, nil, "deploy"); err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]string{"deploy_kernel": "kernel bytes", "deploy_ramdisk": "initramfs v2"} {
		got, _ := os.ReadFile(filepath.Join(root, "u", label))
		if string(got) != want {
			t.Errorf("after the change, %s: %q, want %q", label, got, want)
		}
	}
	// The other node's copies are untouched (they are its own links).
	if got, _ := os.ReadFile(filepath.Join(root, "v", "deploy_ramdisk")); !bytes.Equal(got, []byte("initramfs v1")) {
		t.Errorf("node v's ramdisk: %q", got)
	}
	// Master names are Ironic's: the Glance ID, the href's UUID v5.
	for _, name := range []string{glanceKernel, uuid5(t, "file://"+ramdisk)} {
		if _, err := os.Stat(filepath.Join(master, name)); err != nil {
			t.Errorf("master %s: %v", name, err)
		}
	}

	if err := b.CleanUpRamdisk(ctx, tk, "deploy"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "u")); !errors.Is(err, os.ErrNotExist) {
		ls, _ := os.ReadDir(filepath.Join(root, "u"))
		t.Errorf("node u's directory after clean-up: %v %v", err, ls)
	}
}

// TestPrepareRamdiskImageErrors: Ironic's errors for images that can't be
// fetched, and nothing left behind.
func TestPrepareRamdiskImageErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "httpboot")
	cfg := pxe.Config{HTTPURL: "http://h", HTTPRoot: root, FileURLAllowedPaths: []string{filepath.Join(dir, "ok")},
		Glance: &fakeGlance{}, AutomatedClean: true}
	b := pxe.NewBoot(cfg, true)
	other := filepath.Join(dir, "elsewhere")
	for _, tc := range []struct {
		name, kernel string
		class        ironic.Class
		msg          string
	}{
		{"unknown Glance image", "0b8f9b2e-2a8e-4f55-8f3a-5d9a1b8e6c01", ironic.ImageNotFound,
			"Image 0b8f9b2e-2a8e-4f55-8f3a-5d9a1b8e6c01 could not be found."},
		{"file outside the allowed paths", "file://" + other, ironic.ImageRefValidationFailed,
			"Validation of image href file://" + other + " failed, reason: Security: Path " + other + " is not allowed for image source file URLs"},
		{"no scheme", "kernel", ironic.ImageRefValidationFailed,
			"Validation of image href kernel failed, reason: Scheme-less image href is not a UUID."},
		{"unsupported scheme", "ftp://h/k", ironic.ImageRefValidationFailed,
			"Validation of image href ftp://h/k failed, reason: Image download protocol ftp is not supported."},
	} {
		tk := task(pyjson.DictOf("deploy_kernel", tc.kernel, "deploy_ramdisk", "http://i/r"), nil)
		tk.Drv = &drivers.Driver{Management: &fake.Management{}}
		err := b.PrepareRamdisk(ctx, tk, nil, "deploy")
		if !ironic.IsClass(err, tc.class) || err.Error() != tc.msg {
			t.Errorf("%s: %v", tc.name, err)
		}
		if files, _ := filepath.Glob(filepath.Join(root, "u", "*")); len(files) != 0 {
			t.Errorf("%s: left %v", tc.name, files)
		}
	}
}

// TestIPXEUseSwiftSkipsGlanceImages: with [pxe]ipxe_use_swift Ironic
// gives iPXE Swift temporary URLs for Glance deploy images and fetches
// nothing; file:// images are still fetched.
func TestIPXEUseSwiftSkipsGlanceImages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r"), []byte("r"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &fakeGlance{data: []byte("k")}
	b := pxe.NewBoot(pxe.Config{HTTPURL: "http://h", HTTPRoot: filepath.Join(dir, "root"), IPXEUseSwift: true,
		FileURLAllowedPaths: []string{dir}, Glance: g, AutomatedClean: true}, true)
	tk := task(pyjson.DictOf("deploy_kernel", glanceKernel, "deploy_ramdisk", "file://"+filepath.Join(dir, "r")), nil)
	tk.Drv = &drivers.Driver{Management: &fake.Management{}}
	if err := b.PrepareRamdisk(ctx, tk, nil, "deploy"); err != nil {
		t.Fatal(err)
	}
	if g.downloads != 0 {
		t.Errorf("Glance downloads: %d", g.downloads)
	}
	if _, err := os.Stat(filepath.Join(dir, "root", "u", "deploy_ramdisk")); err != nil {
		t.Errorf("ramdisk: %v", err)
	}
}
