package bootiso

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the ISOs this builder makes")

// The oracle: Ironic 21.4's image functions with genisoimage, run by
// /usr/bin/python3 (Debian's python3-ironic), and isoinfo/blkid/mtools
// to read the ISOs. A missing tool (or isolinux.bin) skips, unless
// IRONIC_TEST_REQUIRE_TOOLS=1 (IRONIC_TEST_REQUIRE_PYTHON=1 for Python
// Ironic) turns it into a failure, as ./test.sh sets them.
func missing(t testing.TB, env, what string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf("%s=1: %s missing (scripts/install-test-deps.sh)", env, what)
	}
	t.Skipf("%s missing (scripts/install-test-deps.sh)", what)
}

func needTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, "IRONIC_TEST_REQUIRE_TOOLS", tool)
		}
	}
}

func needIsolinux(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(testIsolinux); err != nil {
		missing(t, "IRONIC_TEST_REQUIRE_TOOLS", testIsolinux+" (Debian's isolinux)")
	}
}

func needReference(t testing.TB) {
	t.Helper()
	needTools(t, "genisoimage")
	if err := exec.Command("/usr/bin/python3", "-c", "import ironic.common.images").Run(); err != nil {
		missing(t, "IRONIC_TEST_REQUIRE_PYTHON", "python3-ironic (/usr/bin/python3)")
	}
}

const testIsolinux = "/usr/lib/ISOLINUX/isolinux.bin"

// fixture is a kernel, a ramdisk, an ESP image and injected files, with
// made-up deterministic bytes.
type fixture struct {
	dir                  string
	kernel, ramdisk, esp string
	params               []string
	inject               map[string][]byte
	injectFiles          map[string]string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, params: []string{"console=ttyS0", "ipa-api-url=http://192.0.2.1:6385", "boot_method=vmedia"},
		inject: map[string][]byte{
			"openstack/latest/network_data.json": []byte(`{"links": [], "networks": [], "services": []}`),
			"openstack/latest/meta_data.json":    []byte(`{"uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}`),
		},
		injectFiles: map[string]string{}}
	write := func(name string, n int, seed byte) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7) ^ seed ^ byte(i>>9)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.kernel, f.ramdisk, f.esp = write("kernel", 300001, 1), write("ramdisk", 500000, 2), write("esp.img", 1440*1024, 3)
	for p, d := range f.inject {
		local := filepath.Join(dir, strings.ReplaceAll(p, "/", "_"))
		if err := os.WriteFile(local, d, 0o644); err != nil {
			t.Fatal(err)
		}
		f.injectFiles[p] = local
	}
	return f
}

func (f *fixture) spec(mode, publisher string) Spec {
	s := Spec{BootMode: mode, Kernel: f.kernel, Ramdisk: f.ramdisk, KernelParams: f.params, InjectFiles: f.inject, PublisherID: publisher}
	if mode == "uefi" {
		s.ESPImage = f.esp
	}
	return s
}

func testBuilder() *Builder {
	cfg := DefaultConfig()
	cfg.IsolinuxBin = testIsolinux
	b := New(cfg, nil)
	b.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return b
}

func (f *fixture) ours(t testing.TB, mode, publisher string) string {
	t.Helper()
	out := filepath.Join(f.dir, "ours-"+mode+".iso")
	if err := testBuilder().Build(context.Background(), out, f.spec(mode, publisher)); err != nil {
		t.Fatal(err)
	}
	return out
}

// reference builds 21.4's ISO for the same inputs and returns its path and
// the seconds the best of repeat builds took.
func (f *fixture) reference(t testing.TB, mode, publisher string, repeat int) (string, string) {
	t.Helper()
	out := filepath.Join(f.dir, "reference-"+mode+".iso")
	req := map[string]any{"mode": mode, "out": out, "kernel": f.kernel, "ramdisk": f.ramdisk, "params": f.params,
		"inject": f.injectFiles, "esp": f.esp, "isolinux_bin": testIsolinux, "repeat": repeat}
	if publisher != "" {
		req["publisher"] = publisher
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	reqFile := filepath.Join(f.dir, "request.json")
	if err := os.WriteFile(reqFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := exec.Command("/usr/bin/python3", "testdata/reference.py", reqFile).CombinedOutput()
	if err != nil {
		t.Fatalf("21.4's build: %v\n%s", err, o)
	}
	return out, strings.TrimSpace(string(o))
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	o, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(o)
}

var (
	extentRe   = regexp.MustCompile(`\[\s*\d+ \d+\]`)
	dateRe     = regexp.MustCompile(`[A-Z][a-z]{2} [ \d]\d \d{4}`)
	catalogRe  = regexp.MustCompile(`boot catalog is in sector \d+`)
	bootoffRe  = regexp.MustCompile(`Bootoff [0-9A-Fa-f]+ \d+`)
	uuidRe     = regexp.MustCompile(`UUID=\S+`)
	nonLayoutD = []string{"Application id:", "Volume size is:", "APPLICATION_ID=", "DEVNAME="}
)

// layoutFree drops what depends on where files lie and when the ISO was
// made: extents, dates, the catalogue's and boot image's sectors, the
// volume size, the application id, blkid's UUID (the time stamp).
func layoutFree(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		skip := false
		for _, p := range nonLayoutD {
			skip = skip || strings.HasPrefix(l, p)
		}
		if skip {
			continue
		}
		l = extentRe.ReplaceAllString(l, "[extent]")
		l = dateRe.ReplaceAllString(l, "DATE")
		l = catalogRe.ReplaceAllString(l, "boot catalog is in sector N")
		l = bootoffRe.ReplaceAllString(l, "Bootoff N")
		l = uuidRe.ReplaceAllString(l, "UUID=U")
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// views are what the comparison reads of an ISO: isoinfo -d, the ISO
// 9660, Rock Ridge and (BIOS) Joliet listings, blkid.
func views(t testing.TB, iso string, joliet bool) map[string]string {
	v := map[string]string{
		"isoinfo -d":    run(t, "isoinfo", "-d", "-i", iso),
		"isoinfo -l":    run(t, "isoinfo", "-l", "-i", iso),
		"isoinfo -l -R": run(t, "isoinfo", "-l", "-R", "-i", iso),
		"blkid":         run(t, "blkid", "-p", "-o", "export", iso),
	}
	if joliet {
		v["isoinfo -l -R -J"] = run(t, "isoinfo", "-l", "-R", "-J", "-i", iso)
	}
	return v
}

// files are the Rock Ridge tree's files: path -> content.
func files(t testing.TB, iso string) map[string][]byte {
	out := map[string][]byte{}
	dir := ""
	for _, l := range strings.Split(run(t, "isoinfo", "-l", "-R", "-i", iso), "\n") {
		if d, ok := strings.CutPrefix(l, "Directory listing of "); ok {
			dir = d
			continue
		}
		if !strings.HasPrefix(l, "-") {
			continue
		}
		name := strings.TrimSpace(l[strings.LastIndex(l, "]")+1:])
		p := dir + name
		o, err := exec.Command("isoinfo", "-R", "-i", iso, "-x", p).Output()
		if err != nil {
			t.Fatalf("isoinfo -x %s: %v", p, err)
		}
		out[p] = o
	}
	return out
}

// TestMatchesReference builds the ISO of the same inputs with 21.4 and
// with the builder, in both boot modes, and compares what isoinfo and
// blkid read of them, the El Torito catalogue, and every file's bytes
// (but for the sectors the boot info table and the catalogue name).
func TestMatchesReference(t *testing.T) {
	needTools(t, "isoinfo", "blkid")
	needReference(t)
	needIsolinux(t)
	for _, c := range []struct{ mode, publisher string }{{"bios", ""}, {"bios", "11111111-2222-3333-4444-555555555555"}, {"uefi", "pub-1"}, {"uefi", ""}} {
		t.Run(c.mode+"/"+c.publisher, func(t *testing.T) {
			f := newFixture(t)
			ours := f.ours(t, c.mode, c.publisher)
			ref, _ := f.reference(t, c.mode, c.publisher, 1)
			joliet := c.mode == "bios"
			ov, rv := views(t, ours, joliet), views(t, ref, joliet)
			for k := range rv {
				if got, want := layoutFree(ov[k]), layoutFree(rv[k]); got != want {
					t.Errorf("%s differs:\n--- ours\n%s\n--- 21.4\n%s", k, got, want)
				}
			}
			of, rf := files(t, ours), files(t, ref)
			if len(of) != len(rf) {
				t.Errorf("files: ours %d, 21.4 %d", len(of), len(rf))
			}
			for p, want := range rf {
				got, ok := of[p]
				if !ok {
					t.Errorf("%s missing", p)
					continue
				}
				switch p {
				case "/isolinux/isolinux.bin":
					// bi_file, the sector it lies at.
					got, want = mask(got, 12, 16), mask(want, 12, 16)
				case "/boot.catalog":
					// The default entry's load RBA.
					got, want = mask(got, 40, 44), mask(want, 40, 44)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes differ from 21.4's %d (%q... vs %q...)", p, len(got), len(want), head(got), head(want))
				}
			}
		})
	}
}

func mask(b []byte, from, to int) []byte {
	b = append([]byte(nil), b...)
	if len(b) >= to {
		clear(b[from:to])
	}
	return b
}

func head(b []byte) []byte { return b[:min(len(b), 64)] }

// TestGolden pins our own ISOs, extents and all, at a fixed time: the
// listings and catalogue in testdata/{bios,uefi}.golden.
// Regenerate: go test ./drivers/bootiso -run TestGolden -update
func TestGolden(t *testing.T) {
	needTools(t, "isoinfo")
	needIsolinux(t)
	for _, mode := range []string{"bios", "uefi"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			iso := f.ours(t, mode, "11111111-2222-3333-4444-555555555555")
			var b strings.Builder
			for _, args := range [][]string{{"-d"}, {"-l"}, {"-l", "-R"}, {"-l", "-J"}} {
				if mode == "uefi" && args[len(args)-1] == "-J" {
					continue
				}
				b.WriteString("$ isoinfo " + strings.Join(args, " ") + "\n")
				b.WriteString(run(t, "isoinfo", append(args, "-i", iso)...))
			}
			golden := filepath.Join("testdata", mode+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs (go test ./drivers/bootiso -run TestGolden -update, and review the diff):\n%s", golden, b.String())
			}
		})
	}
}
