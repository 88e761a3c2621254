package bootiso

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The benchmarks build the BIOS ISO of an 8 MiB kernel and a 32 MiB
// ramdisk: in process (BenchmarkBuild), with genisoimage alone on the
// tree 21.4 lays out (BenchmarkGenisoimage), and with 21.4's
// create_isolinux_image_for_bios (BenchmarkReference: tree copy +
// genisoimage). Run: go test ./drivers/bootiso -run XXX -bench . -benchtime 5x
func benchFixture(b *testing.B) *fixture {
	b.Helper()
	f := newFixture(b)
	for p, n := range map[string]int{f.kernel: 8 << 20, f.ramdisk: 32 << 20} {
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = byte(i ^ i>>11)
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

func BenchmarkBuild(b *testing.B) {
	needIsolinux(b)
	f := benchFixture(b)
	bl := testBuilder()
	out := filepath.Join(f.dir, "bench.iso")
	b.ResetTimer()
	for range b.N {
		if err := bl.Build(context.Background(), out, f.spec("bios", "pub")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenisoimage(b *testing.B) {
	needTools(b, "genisoimage")
	f := benchFixture(b)
	tree := filepath.Join(f.dir, "tree")
	copyTo := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	copyTo(f.kernel, filepath.Join(tree, "vmlinuz"))
	copyTo(f.ramdisk, filepath.Join(tree, "initrd"))
	copyTo(testIsolinux, filepath.Join(tree, "isolinux/isolinux.bin"))
	copyTo("/usr/lib/syslinux/modules/bios/ldlinux.c32", filepath.Join(tree, "isolinux/ldlinux.c32"))
	for p, local := range f.injectFiles {
		copyTo(local, filepath.Join(tree, p))
	}
	if err := os.WriteFile(filepath.Join(tree, "isolinux/isolinux.cfg"), []byte("default boot"), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(f.dir, "bench.iso")
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command("genisoimage", "-quiet", "-r", "-V", "config-2", "-J", "-l", "-publisher", "pub", "-no-emul-boot",
			"-boot-load-size", "4", "-boot-info-table", "-b", "isolinux/isolinux.bin", "-o", out, tree)
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, o)
		}
	}
}

func BenchmarkReference(b *testing.B) {
	needReference(b)
	f := benchFixture(b)
	b.ResetTimer()
	var best float64
	for range b.N {
		_, s := f.reference(b, "bios", "pub", 1)
		secs, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		if best == 0 || secs < best {
			best = secs
		}
	}
	b.ReportMetric(best*1e3, "ms/build-in-python")
}
