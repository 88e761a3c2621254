package ramdisk

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ulikunitz/xz"

	"github.com/goironic/ironic/agent/boot"
	"github.com/goironic/ironic/agent/ramdisk"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

const (
	requireEnv = "IRONIC_TEST_REQUIRE_QEMU"
	// vmTimeout bounds one VM run (a boot takes about 15 s under TCG).
	vmTimeout = 150 * time.Second
	// Size limits: IPA's ramdisks are ~400 MB; ours must stay a few MB.
	maxInitramfs = 12 << 20
	maxKernel    = 16 << 20
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(requireEnv) == "1" {
				t.Fatalf("%s not found (%s=1): %v", tool, requireEnv, err)
			}
			t.Skipf("%s not installed (scripts/install-test-deps.sh)", tool)
		}
	}
}

// built is the ramdisk every test of the package shares, built once.
type built struct {
	kernel ramdisk.Kernel
	spec   ramdisk.Spec
	out    ramdisk.Output
	err    error
}

var (
	buildOnce sync.Once
	shared    built
	sharedDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "goironic-ramdisk-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build makes the test ramdisk: testinit as /init, Debian's kernel and
// the default modules.
func build(t *testing.T) built {
	t.Helper()
	need(t, "apt-get", "apt-cache", "dpkg-deb")
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		initPath := filepath.Join(sharedDir, "testinit")
		if shared.err = ramdisk.BuildStatic(ctx, ".", "./testinit", initPath); shared.err != nil {
			return
		}
		init, err := os.ReadFile(initPath)
		if err != nil {
			shared.err = err
			return
		}
		cache, err := ramdisk.DefaultCacheDir()
		if err != nil {
			shared.err = err
			return
		}
		fetcher := ramdisk.KernelFetcher{Run: ramdisk.ExecRunner{}, CacheDir: cache}
		shared.kernel, shared.err = fetcher.Fetch(ctx, "")
		if shared.err != nil && os.Geteuid() == 0 {
			// Stale package lists name a kernel the mirror no longer has:
			// refresh them, as scripts/install-test-deps.sh does, and retry.
			if out, err := exec.CommandContext(ctx, "apt-get", "update", "-q").CombinedOutput(); err != nil {
				shared.err = fmt.Errorf("%w; apt-get update: %w\n%s", shared.err, err, out)
				return
			}
			shared.kernel, shared.err = fetcher.Fetch(ctx, "")
		}
		if shared.err != nil {
			return
		}
		shared.spec = ramdisk.Spec{Init: init}
		shared.out, shared.err = ramdisk.Write(filepath.Join(sharedDir, "out"), "deploy", shared.kernel, shared.spec)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared
}

func TestSizesAndReproducible(t *testing.T) {
	b := build(t)
	t.Logf("kernel %s: %d bytes; initramfs: %d bytes, %d modules", b.kernel.Package, b.out.KernelSize, b.out.InitramfsSize, len(b.out.Manifest.Modules))
	if b.out.InitramfsSize > maxInitramfs || b.out.InitramfsSize < 1<<20 {
		t.Errorf("initramfs is %d bytes, want 1 MiB to %d", b.out.InitramfsSize, maxInitramfs)
	}
	if b.out.KernelSize > maxKernel || b.out.KernelSize < 1<<20 {
		t.Errorf("kernel is %d bytes, want 1 MiB to %d", b.out.KernelSize, maxKernel)
	}
	// Same inputs, same bytes.
	spec := b.spec
	spec.ModulesDir, spec.KernelVersion = b.kernel.ModulesDir, b.kernel.Version
	h := sha256.New()
	if _, err := spec.WriteInitramfs(h); err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(b.out.Initramfs)
	if err != nil {
		t.Fatal(err)
	}
	first := sha256.Sum256(f)
	if again := h.Sum(nil); !bytes.Equal(again, first[:]) {
		t.Errorf("a second build differs: %s vs %s", hex.EncodeToString(again), hex.EncodeToString(first[:]))
	}
}

// TestDebianCPIOListsTheRamdisk reads the gzip'd archive with gzip and
// Debian's cpio: /init, the device nodes, every module and the load
// list, each module after the modules its .modinfo depends on.
func TestDebianCPIOListsTheRamdisk(t *testing.T) {
	need(t, "cpio")
	b := build(t)
	archive := gunzip(t, b.out.Initramfs)
	dir := t.TempDir()
	cmd := exec.Command("cpio", "-i", "-d", "--quiet", "--no-absolute-filenames", "init", "etc/*", "lib/*")
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(archive)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cpio -i: %v\n%s", err, out)
	}
	cmd = exec.Command("cpio", "-t", "-v", "--quiet", "--numeric-uid-gid")
	cmd.Stdin = bytes.NewReader(archive)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	listing, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?m)^crw------- +1 0 +0 +5, +1 .* dev/console$`,
		`(?m)^crw-rw-rw- +1 0 +0 +1, +3 .* dev/null$`,
		`(?m)^-rwxr-xr-x +1 0 +0 .* init$`,
		`(?m)^drwxrwxrwt .* tmp$`,
	} {
		if !regexp.MustCompile(re).Match(listing) {
			t.Errorf("cpio -t -v: no line matching %s", re)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, "init"))
	if err != nil || !bytes.Equal(got, b.spec.Init) {
		t.Errorf("/init differs from testinit (%v)", err)
	}
	list, err := os.ReadFile(filepath.Join(dir, boot.ModuleList))
	if err != nil {
		t.Fatal(err)
	}
	// One module a line: its path, then its parameters if it has any.
	var paths []string
	params := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		p, o, _ := strings.Cut(line, " ")
		paths = append(paths, p)
		params[strings.TrimSuffix(filepath.Base(p), ".ko")] = o
	}
	if params["bonding"] != "max_bonds=0" {
		t.Errorf("bonding loads with %q, want max_bonds=0 (no bond0 of its own)", params["bonding"])
	}
	if len(paths) != len(b.out.Manifest.Modules) {
		t.Fatalf("load list has %d modules, manifest %d", len(paths), len(b.out.Manifest.Modules))
	}
	pos := map[string]int{}
	for i, p := range paths {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("listed module %s not in the archive", p)
		}
		pos[strings.ReplaceAll(strings.TrimSuffix(filepath.Base(p), ".ko"), "-", "_")] = i
	}
	for _, want := range []string{"virtio_net", "virtio_pci", "virtio_blk", "virtio_scsi", "ata_piix", "ahci", "sd_mod", "sr_mod", "cdrom", "isofs", "vfat", "fat", "nls_utf8", "efivarfs", "e1000", "8021q", "bonding"} {
		if _, ok := pos[want]; !ok {
			t.Errorf("module %s not in the ramdisk", want)
		}
	}
	// Dependencies as the modules declare them (checked with the kernel's
	// own modinfo data, read back from the extracted files).
	for before, after := range map[string]string{"virtio": "virtio_net", "virtio_ring": "virtio_pci", "net_failover": "virtio_net", "libata": "ata_piix", "libahci": "ahci", "scsi_mod": "sd_mod", "cdrom": "isofs", "fat": "vfat", "t10_pi": "sd_mod"} {
		if pos[before] >= pos[after] {
			t.Errorf("%s loads at %d, not before %s at %d", before, pos[before], after, pos[after])
		}
	}
}

// TestCompressedModules: a tree of .ko.xz modules gives the same
// modules, decompressed, as the plain tree.
func TestCompressedModules(t *testing.T) {
	b := build(t)
	plain, err := ramdisk.OpenModuleTree(b.kernel.ModulesDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Resolve([]string{"vfat", "isofs"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, m := range want {
		p := filepath.Join(dir, m.Path+".xz")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := xz.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.Data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	xzTree, err := ramdisk.OpenModuleTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := xzTree.Resolve([]string{"vfat", "isofs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d modules from .ko.xz, %d from .ko", len(got), len(want))
	}
	for i := range got {
		if got[i].Name != want[i].Name || got[i].Path != want[i].Path || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("module %d: %s %s differs from %s %s", i, got[i].Name, got[i].Path, want[i].Name, want[i].Path)
		}
	}
	if _, err := plain.Resolve([]string{"no_such_module"}); err == nil || !strings.Contains(err.Error(), "no_such_module: not in") {
		t.Errorf("unknown module: %v", err)
	}
}

func TestBootsInQEMU(t *testing.T) {
	need(t, "qemu-system-x86_64")
	b := build(t)

	token := make([]byte, 8)
	_, _ = rand.Read(token)
	hello := "hello-" + hex.EncodeToString(token)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.URL.Path != "/hello" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, hello)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := l.Addr().(*net.TCPAddr).Port

	// The kernel command line is the one our ipxe_config gives a node
	// in deploy wait (Ironic 21.4's ipxe_config.template); iPXE gives
	// BOOTIF=${mac} (the e1000 run), pxelinux 01-aa-bb-... (virtio).
	cases := []struct {
		nic, mac, bootif, module string
	}{
		{"virtio-net-pci", "52:54:00:6a:00:01", "01-52-54-00-6a-00-01", "virtio_net"},
		{"e1000", "52:54:00:6a:00:02", "52:54:00:6a:00:02", "e1000"},
	}
	t.Run("BOOTIF of no NIC", func(t *testing.T) {
		// The set-up fails and says why, the agent finds no address, and
		// the VM still powers off.
		cmdline := deployCmdline(t, port, "52:54:00:6a:00:99")
		console, elapsed, _, exited := runVM(t, b.out, "virtio-net-pci", "52:54:00:6a:00:03", cmdline)
		for _, want := range []string{
			`msg="ramdisk set-up" err="no network interface with BOOTIF's MAC 52:54:00:6a:00:99 after 5s (interfaces: lo= eth0=52:54:00:6a:00:03)"`,
			"GOIRONIC-RAMDISK-FAIL attempt=2 no NIC with BOOTIF's MAC 52:54:00:6a:00:99",
		} {
			if !strings.Contains(console, want) {
				t.Errorf("console lacks %q:\n%s", want, tail(console, 4000))
			}
		}
		if !exited || !strings.Contains(console, "reboot: Power down") {
			t.Errorf("the VM did not power itself off (exited %v)", exited)
		}
		t.Logf("failed and powered off in %s", elapsed.Round(time.Millisecond))
	})
	for _, c := range cases {
		t.Run(c.nic, func(t *testing.T) {
			cmdline := deployCmdline(t, port, c.mac)
			if c.bootif != c.mac {
				// pxelinux's form instead of iPXE's ${mac}.
				cmdline = strings.Replace(cmdline, "BOOTIF="+c.mac, "BOOTIF="+c.bootif, 1)
			}
			t.Logf("kernel command line: %s", cmdline)
			console, elapsed, toMarker, exited := runVM(t, b.out, c.nic, c.mac, cmdline)
			m := regexp.MustCompile(`GOIRONIC-RAMDISK-OK attempt=2 hello=(\S+) addr=(\S+) iface=(\S+) mac=(\S+) bootif=(\S+) api=(\S+) loaded=(\d+)/(\d+) modules=(\S+)`).FindStringSubmatch(console)
			if m == nil {
				t.Fatalf("no marker within %s (exited: %v); console:\n%s", vmTimeout, exited, tail(console, 6000))
			}
			initAt := "?"
			if im := regexp.MustCompile(`\[\s*([0-9.]+)\] Run /init as init process`).FindStringSubmatch(console); im != nil {
				initAt = im[1] + " s"
			}
			t.Logf("%s: /init started at %s (guest clock), marker after %s, VM ran %s; %s", c.nic, initAt, toMarker.Round(time.Millisecond), elapsed.Round(time.Millisecond), m[0][:min(len(m[0]), 200)])
			if m[1] != hello {
				t.Errorf("the guest got %q from /hello, want %q", m[1], hello)
			}
			if m[2] != "10.0.2.15/24" {
				t.Errorf("DHCP address %s, want QEMU's 10.0.2.15/24", m[2])
			}
			if m[4] != c.mac || m[5] != c.mac {
				t.Errorf("configured mac %s bootif %s, want %s", m[4], m[5], c.mac)
			}
			if m[6] != "http://10.0.2.2:6385" {
				t.Errorf("ipa-api-url %s", m[6])
			}
			mods := strings.Split(m[9], ",")
			// Every listed module loads but efivarfs, whose init finds no
			// UEFI firmware under SeaBIOS (ENODEV, logged at info level).
			n, want := len(b.out.Manifest.Modules), len(b.out.Manifest.Modules)
			if slices.Contains(b.out.Manifest.Modules, "efivarfs") {
				want--
				if !regexp.MustCompile(`level=INFO msg="module not for this machine" module=\S*efivarfs\.ko err=.*no such device`).MatchString(console) {
					t.Errorf("the console does not show efivarfs refused with ENODEV")
				}
			}
			if m[7] != fmt.Sprint(want) || m[8] != fmt.Sprint(n) {
				t.Errorf("%s of %s listed modules loaded, want %d of %d", m[7], m[8], want, n)
			}
			// PID 1 supervised the agent: the first run crashed, leaving an
			// orphan PID 1 reaped, and was started again.
			for _, re := range []string{
				`GOIRONIC-RAMDISK-CRASH attempt=1`,
				`msg="agent ended" exit="pid \d+ exited with status 3" attempt=1`,
				`msg="orphan reaped" exit="pid \d+ exited with status 0"`,
				`msg="restarting the agent" after=1s`,
				`msg="agent started" attempt=2 pid=\d+`,
			} {
				if !regexp.MustCompile(re).MatchString(console) {
					t.Errorf("console: nothing matches %s", re)
				}
			}
			for _, want := range []string{c.module, "virtio_pci", "sd_mod", "sr_mod", "isofs", "vfat", "ata_piix"} {
				if !slices.Contains(mods, want) {
					t.Errorf("module %s not loaded: %v", want, mods)
				}
			}
			if !exited || !strings.Contains(console, "reboot: Power down") {
				t.Errorf("the VM did not power itself off (exited %v); console end:\n%s", exited, tail(console, 2000))
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(strings.Join(asked, " "), "/hello"); n != len(cases) {
		t.Errorf("the server saw %v, want /hello once per VM", asked)
	}
}

// runVM boots kernel and initramfs with a NIC of model nic; it returns
// the serial console, how long QEMU ran, when the marker appeared, and
// whether QEMU ended by itself (the guest powered off) rather than being
// killed at vmTimeout.
func runVM(t *testing.T, o ramdisk.Output, nic, mac, cmdline string) (string, time.Duration, time.Duration, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), vmTimeout)
	defer cancel()
	serial := filepath.Join(t.TempDir(), "console.log")
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", "-machine", "accel=tcg", "-m", "512",
		"-nographic", "-no-reboot", "-nodefaults", "-serial", "file:"+serial,
		"-kernel", o.Kernel, "-initrd", o.Initramfs, "-append", cmdline,
		"-netdev", "user,id=n0", "-device", nic+",netdev=n0,mac="+mac)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var toMarker time.Duration
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	ended := false
loop:
	for {
		select {
		case err := <-exited:
			ended = err == nil
			if err != nil {
				t.Logf("qemu: %v\n%s", err, out.String())
			}
			break loop
		case <-tick.C:
			if toMarker == 0 {
				if b, _ := os.ReadFile(serial); bytes.Contains(b, []byte("GOIRONIC-RAMDISK-")) {
					toMarker = time.Since(start)
				}
			}
		}
	}
	elapsed := time.Since(start)
	b, _ := os.ReadFile(serial)
	if toMarker == 0 && bytes.Contains(b, []byte("GOIRONIC-RAMDISK-")) {
		toMarker = elapsed
	}
	return string(b), elapsed, toMarker, ended && ctx.Err() == nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestCommand runs cmd/ironic-ramdisk as a user would: it prints the
// sizes and writes the same bytes as the library; its mistakes are
// reported, not built.
func TestCommand(t *testing.T) {
	b := build(t)
	bin := filepath.Join(t.TempDir(), "ironic-ramdisk")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/ironic-ramdisk").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cache, err := ramdisk.DefaultCacheDir() // where build fetched the kernel
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command(bin, "build", "-o", out, "-name", "n1", "-agent", filepath.Join(sharedDir, "testinit"), "-cache", cache, "-kernel-version", b.kernel.Version)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("ironic-ramdisk build: %v\n%s", err, errOut(err))
	}
	for _, re := range []string{
		`(?m)^kernel +` + regexp.QuoteMeta(filepath.Join(out, "n1.kernel")) + ` +` + fmt.Sprint(b.out.KernelSize) + ` bytes \(` + b.kernel.Package + `, `,
		`(?m)^initramfs +` + regexp.QuoteMeta(filepath.Join(out, "n1.initramfs")) + ` +` + fmt.Sprint(b.out.InitramfsSize) + ` bytes \(43 modules: virtio_ring `,
	} {
		if !regexp.MustCompile(re).Match(stdout) {
			t.Errorf("output lacks %s:\n%s", re, stdout)
		}
	}
	for _, f := range [][2]string{{b.out.Kernel, "n1.kernel"}, {b.out.Initramfs, "n1.initramfs"}} {
		want, _ := os.ReadFile(f[0])
		got, err := os.ReadFile(filepath.Join(out, f[1]))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the library's build (%v)", f[1], err)
		}
	}

	// Without -agent, in a source tree with cmd/ironic-agent, the command
	// builds that package static and makes it /init.
	src := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":                   "module example.com/agentsrc\n\ngo 1.22\n",
		"cmd/ironic-agent/main.go": "package main\n\nfunc main() { println(\"agent-from-source\") }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd = exec.Command(bin, "build", "-o", out, "-name", "src", "-cache", cache, "-kernel-version", b.kernel.Version, "-modules", "isofs")
	cmd.Dir = src
	if stdout, err := cmd.Output(); err != nil || !strings.Contains(string(stdout), "(2 modules: cdrom isofs)") {
		t.Fatalf("build from source: %v %s\n%s", err, stdout, errOut(err))
	}
	if names := cpioNames(t, filepath.Join(out, "src.initramfs")); !slices.Contains(names, "init") || !slices.Contains(names, "lib/modules/"+b.kernel.Version+"/kernel/fs/isofs/isofs.ko") {
		t.Errorf("src.initramfs holds %v", names)
	}
	if init := cpioFile(t, filepath.Join(out, "src.initramfs"), "init"); !bytes.Contains(init, []byte("agent-from-source")) || ramdisk.CheckStatic(init) != nil {
		t.Errorf("/init is not the static build of ./cmd/ironic-agent (%d bytes)", len(init))
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "usage: ironic-ramdisk build -o DIR"},
		{[]string{"build"}, "usage: ironic-ramdisk build -o DIR"},
		{[]string{"build", "-o", out}, "no -agent given and no ./cmd/ironic-agent here"},
		{[]string{"build", "-o", out, "-agent", "/bin/ls", "-cache", cache, "-kernel-version", b.kernel.Version}, "dynamically linked"},
		{[]string{"build", "-o", out, "-agent", filepath.Join(sharedDir, "testinit"), "-cache", cache, "-kernel-version", b.kernel.Version, "-modules", "vfat,no_such_mod"}, "module no_such_mod: not in"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("ironic-ramdisk %v: %v, %q; want an error with %q", c.args, err, out, c.want)
		}
	}
}

func errOut(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// cpioNames lists an initramfs with Debian's cpio.
func cpioNames(t *testing.T, initramfs string) []string {
	t.Helper()
	need(t, "cpio")
	cmd := exec.Command("cpio", "-t", "--quiet")
	cmd.Stdin = bytes.NewReader(gunzip(t, initramfs))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cpio -t: %v", err)
	}
	return strings.Fields(string(out))
}

// cpioFile extracts one file of an initramfs with Debian's cpio.
func cpioFile(t *testing.T, initramfs, name string) []byte {
	t.Helper()
	need(t, "cpio")
	dir := t.TempDir()
	cmd := exec.Command("cpio", "-i", "-d", "--quiet", "--no-absolute-filenames", name)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(gunzip(t, initramfs))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cpio -i: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gunzip(t *testing.T, p string) []byte {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deployCmdline renders the iPXE script drivers/pxe serves a node in
// deploy wait ([pxe]kernel_append_params with the serial console and
// the test server's port) and returns its kernel line's parameters as
// iPXE passes them to the kernel, ${mac} expanded to mac.
func deployCmdline(t *testing.T, port int, mac string) string {
	t.Helper()
	s, err := pxe.NewScripter(pxe.ScriptConfig{
		HTTPURL:            "http://10.0.2.2:8080",
		KernelAppendParams: fmt.Sprintf("nofb nomodeset console=ttyS0 goironic-test-port=%d", port),
		APIURL:             "http://10.0.2.2:6385",
	})
	if err != nil {
		t.Fatal(err)
	}
	script := s.Render(pxe.ScriptNode{UUID: "6a6a6a6a-0000-4000-8000-000000000001", ProvisionState: states.DeployWait,
		DeployInterface: "direct", DriverInfo: pyjson.DictOf("deploy_kernel", "http://10.0.2.2:8080/deploy.kernel", "deploy_ramdisk", "http://10.0.2.2:8080/deploy.initramfs")})
	if script.Problem != "" {
		t.Fatalf("ipxe_config: %s", script.Problem)
	}
	for _, l := range strings.Split(script.Body, "\n") {
		if rest, ok := strings.CutPrefix(l, "kernel http://10.0.2.2:8080/deploy.kernel "); ok {
			params, _, _ := strings.Cut(rest, " || ")
			return strings.ReplaceAll(params, "${mac}", mac)
		}
	}
	t.Fatalf("no kernel line in the deploy script:\n%s", script.Body)
	return ""
}
