package redfishbmc_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/redfishbmc"
)

// bootMarker is what the test ISO's boot sector writes to the serial
// port.
const bootMarker = "GOIRONIC-REDFISH-ISO-BOOTED"

// bootSector is an El Torito no-emulation boot image: real-mode code
// that writes bootMarker to COM1 (0x3F8) and halts, wherever the BIOS
// loaded it (it finds its message through call/pop).
func bootSector() []byte {
	code := []byte{
		0xE8, 0x00, 0x00, // call next
		0x5E,       // next: pop si
		0x8C, 0xC8, // mov ax, cs
		0x8E, 0xD8, // mov ds, ax
		0x83, 0xC6, 23, // add si, msg-next
		0xBA, 0xF8, 0x03, // mov dx, 0x3F8
		0xAC,       // l: lodsb
		0x84, 0xC0, // test al, al
		0x74, 0x03, // jz done
		0xEE,       // out dx, al
		0xEB, 0xF8, // jmp l
		0xFA,       // done: cli
		0xF4,       // hlt
		0xEB, 0xFD, // jmp hlt
	}
	code = append(code, "\r\n"+bootMarker+"\r\n\x00"...)
	return append(code, make([]byte, 2048-len(code))...)
}

// bootableISO builds an ISO that boots into bootSector.
func bootableISO(t *testing.T, genisoimage string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "boot.bin"), bootSector(), 0o644); err != nil {
		t.Fatal(err)
	}
	iso := filepath.Join(t.TempDir(), "boot.iso")
	out, err := exec.Command(genisoimage, "-quiet", "-o", iso, "-b", "boot.bin", "-no-emul-boot",
		"-boot-load-size", "4", "-V", "GOIRONIC", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("genisoimage: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(iso)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestQEMU drives a QEMU machine through Redfish: an ISO inserted as
// virtual media (downloaded by the BMC) boots when the boot override
// says Cd once and the system is powered on; NMI and ForceOff reach the
// machine; the next boot follows the machine's own order again.
func TestQEMU(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		cluster.Missing(t, "IRONIC_TEST_REQUIRE_QEMU", "qemu-system-x86_64 not installed (scripts/install-test-deps.sh)")
	}
	geniso, err := exec.LookPath("genisoimage")
	if err != nil {
		cluster.Missing(t, "IRONIC_TEST_REQUIRE_QEMU", "genisoimage not installed (scripts/install-test-deps.sh)")
	}
	iso := bootableISO(t, geniso)
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(iso) }))
	t.Cleanup(images.Close)

	dir, err := os.MkdirTemp("", "rfq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	m, err := redfishbmc.NewQEMU(redfishbmc.QEMUOptions{Binary: qemu, Dir: dir, MAC: "52:54:00:12:34:56"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	sys := ts.AddSystem(redfishbmc.SystemSpec{Machine: m, NICs: []redfishbmc.NIC{{ID: "NIC1", MAC: "52:54:00:12:34:56"}}})

	c := connect(t, ts.URL, false)
	s := oneSystem(t, c)
	if s.PowerState != schemas.OffPowerState {
		t.Fatalf("power %s before power on", s.PowerState)
	}
	managers, err := s.ManagedBy()
	if err != nil {
		t.Fatal(err)
	}
	media, err := managers[0].VirtualMedia()
	if err != nil {
		t.Fatal(err)
	}
	for _, vm := range media {
		if vm.ID != "Cd" {
			continue
		}
		if _, err := vm.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: images.URL + "/boot.iso"}); err != nil {
			t.Fatal(err)
		}
	}
	if raw, err := os.ReadFile(m.MediaFile("Cd")); err != nil || !bytes.Equal(raw, iso) {
		t.Fatalf("the machine's CD image: %v (%d bytes of %d)", err, len(raw), len(iso))
	}
	if err := s.SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.CdBootSource,
		BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reset(schemas.OnResetType); err != nil {
		t.Fatal(err)
	}
	waitFile(t, m.ConsoleLog(), bootMarker)
	if first := firstBoot(t, m); first != "Booting from DVD/CD..." {
		t.Errorf("the firmware booted %q", first)
	}
	if !m.Running() || sys.PowerState() != redfishbmc.PowerOn {
		t.Fatalf("running %v, power %s", m.Running(), sys.PowerState())
	}
	if b := sys.Boot(); b.Enabled != "Disabled" {
		t.Errorf("the Once override survived the boot: %+v", b)
	}
	s = oneSystem(t, c)
	if _, err := s.Reset(schemas.NmiResetType); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reset(schemas.ForceOffResetType); err != nil {
		t.Fatal(err)
	}
	if m.Running() || sys.PowerState() != redfishbmc.PowerOff {
		t.Fatalf("after ForceOff: running %v, power %s", m.Running(), sys.PowerState())
	}

	// The network, every time.
	s = oneSystem(t, c)
	if err := s.SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.PxeBootSource,
		BootSourceOverrideEnabled: schemas.ContinuousBootSourceOverrideEnabled}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reset(schemas.OnResetType); err != nil {
		t.Fatal(err)
	}
	waitFile(t, m.FirmwareLog(), "Booting from")
	if first := firstBoot(t, m); first != "Booting from ROM..." {
		t.Errorf("the firmware booted %q, want the NIC's ROM", first)
	}
	s = oneSystem(t, c)
	if _, err := s.Reset(schemas.ForceOffResetType); err != nil {
		t.Fatal(err)
	}
	boots := sys.Boots()
	if len(boots) != 2 || boots[0].Target != "Cd" || boots[0].Media["Cd"] != images.URL+"/boot.iso" || boots[1].Target != "Pxe" {
		t.Fatalf("boots %+v", boots)
	}
}

// firstBoot is the first "Booting from" line of the firmware log.
func firstBoot(t *testing.T, m *redfishbmc.QEMU) string {
	t.Helper()
	waitFile(t, m.FirmwareLog(), "Booting from")
	raw, _ := os.ReadFile(m.FirmwareLog())
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "Booting from") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// waitFile waits (bounded) for want in the file.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for {
		raw, _ := os.ReadFile(path)
		if strings.Contains(string(raw), want) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%q not in %s after 90s:\n%s", want, path, raw)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
