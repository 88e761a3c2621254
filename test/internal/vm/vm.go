// Package vm is the end-to-end tests' bare-metal node: a QEMU machine
// (TCG, SeaBIOS, an e1000 NIC with iPXE's ROM and a MAC the test picks,
// an IDE disk from a file, SMBIOS UUID = the node's UUID) driven by a
// real BMC, the Redfish emulator of test/redfishbmc with its QEMU
// backend. Power on/off/reboot start and stop QEMU; the boot device
// (Pxe, Hdd, Cd) is QEMU's boot order at the next power on, so "boot
// device disk + power cycle" really boots the disk, and a guest that
// powers itself off reads as power off. (ipmi_sim's VM mode was the
// alternative; its startcmd is one fixed QEMU command line, so the
// boot device set through IPMI never reaches the machine.)
//
// QEMU's user network gives the guest 10.0.2.15; the host's loopback
// is 10.0.2.2, where the guest reaches the API, the image server and
// the ipxe_config script its DHCP bootfile names (Options.BootFile).
// Options.AgentPort forwards 127.0.0.1:<AgentPort> on the host to the
// guest's port 9999, where the agent listens: the agent advertises
// 127.0.0.1:<AgentPort> (ipa-advertise-host/-port).
//
// Every VM run is bounded by the caller's context and the machine is
// killed when the test ends.
//
// The end-to-end deploy (test/vm TestIronicDrivesTheVM is its skeleton)
// joins the parts thus:
//
//	img := diskimage.ForTest(ctx, t)                 // the image to deploy
//	files := vm.ServeFiles(t, map[string]string{     // or Glance (wt-glance)
//		"/deploy.kernel": <agent kernel>, "/deploy.initrd": <agent ramdisk>,
//		"/disk.qcow2": img.QCOW2})
//	node := vm.Start(t, vm.Options{UUID: uuid, MAC: mac,
//		Disk: vm.BlankDisk(t, dir, 256<<20), BootFile: vm.IPXEConfigURL(apiPort, "redfish"), AgentPort: agentPort})
//	conf := vm.Conf{..., KernelAppend: "ipa-advertise-host=127.0.0.1 ipa-advertise-port=<agentPort>"}
//	// node: driver redfish, boot ipxe, deploy direct, node.DriverInfo() + deploy_kernel/_ramdisk,
//	// properties capabilities boot_mode:bios; instance_info image_source files.URL+"/disk.qcow2",
//	// image_os_hash_algo sha256, image_os_hash_value diskimage.SHA256(img.QCOW2);
//	// deploy with a configdrive {"meta_data": {"uuid": uuid}}; wait for active, then
//	node.WaitConsole(ctx, func(c string) bool { _, ok := diskimage.Find(c, "DEPLOYED"); return ok })
//
// and asserts the DEPLOYED marker's two UUIDs are the node's (the
// config drive's meta_data uuid is what Ironic writes).
package vm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/redfishbmc"
)

// RequireEnv, set to 1, turns a missing QEMU into a failure.
const RequireEnv = "IRONIC_TEST_REQUIRE_QEMU"

// GuestHost is the host as the guest sees it.
const GuestHost = "10.0.2.2"

// AgentGuestPort is the port the agent listens on in the guest.
const AgentGuestPort = 9999

// Options configure a node.
type Options struct {
	// UUID is the SMBIOS system UUID (the Ironic node's UUID); required.
	UUID string
	// MAC is the NIC's; required (the node's port).
	MAC string
	// Disk is a raw disk image file the machine boots from as Hdd (and
	// the agent writes to); optional.
	Disk string
	// BootFile is the URL the DHCP server hands iPXE, usually
	// IPXEConfigURL.
	BootFile string
	// AgentPort, when not zero, is the host port forwarded to the
	// guest's AgentGuestPort.
	AgentPort int
	// NetNS, when set, puts the machine on the namespace's segment: QEMU
	// runs in it (ip netns exec) with its NIC on the namespace's tap,
	// not on QEMU's user network (BootFile and AgentPort are unused).
	NetNS *NetNS
	// OVMFCode and OVMFVars, when set, make the machine UEFI (OVMF; a
	// copy of OVMFVars is its variable store) and the BMC's boot mode
	// "UEFI"; SeaBIOS and "Legacy" otherwise.
	OVMFCode, OVMFVars string
	// MemoryMiB defaults to 512 (the agent's ramdisk lives in memory).
	MemoryMiB int
	// Log receives the machine's and the BMC's events; nil discards.
	Log *slog.Logger
}

// Node is a running BMC with its (initially powered-off) machine.
type Node struct {
	// Machine is QEMU; its ConsoleLog is the guest's serial console of
	// the current (or last) power-on.
	Machine *redfishbmc.QEMU
	// System is the BMC's view of the machine.
	System *redfishbmc.System
	// RedfishURL is the BMC's root, "http://127.0.0.1:PORT".
	RedfishURL string
	// Username and Password are the BMC's credentials.
	Username, Password string
	opts               Options
	// varsFile is the machine's copy of OVMFVars ("" for BIOS).
	varsFile string
}

// Require skips t (fails it with RequireEnv=1) unless QEMU is installed.
func Require(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		cluster.Missing(t, RequireEnv, "qemu-system-x86_64 not installed (scripts/install-test-deps.sh)")
	}
	return bin
}

// IPXEConfigURL is the URL of driver's ipxe_config endpoint on the API
// at apiPort as the guest reaches it; iPXE expands ${mac}.
func IPXEConfigURL(apiPort int, driver string) string {
	return fmt.Sprintf("http://%s:%d/v1/drivers/%s/vendor_passthru/ipxe_config?port_address=${mac}", GuestHost, apiPort, driver)
}

// Start runs the BMC and sets up the (powered-off) machine for t; the
// machine is killed and the BMC stopped when t ends.
func Start(t testing.TB, opts Options) *Node {
	t.Helper()
	bin := Require(t)
	if opts.UUID == "" || opts.MAC == "" {
		t.Fatal("vm.Start: UUID and MAC are required")
	}
	if opts.MemoryMiB == 0 {
		opts.MemoryMiB = 512
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	// A short directory: QMP's Unix socket path is at most 107 bytes.
	dir, err := os.MkdirTemp("", "govm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	var userNet []string
	if opts.BootFile != "" {
		userNet = append(userNet, "bootfile="+opts.BootFile)
	}
	if opts.AgentPort != 0 {
		userNet = append(userNet, fmt.Sprintf("hostfwd=tcp:127.0.0.1:%d-:%d", opts.AgentPort, AgentGuestPort))
	}
	qo := redfishbmc.QEMUOptions{
		Binary: bin, Dir: dir, MemoryMiB: opts.MemoryMiB, MAC: opts.MAC, Disk: opts.Disk,
		UserNet: strings.Join(userNet, ","), ExtraArgs: []string{"-uuid", opts.UUID}, Log: opts.Log,
	}
	if opts.NetNS != nil {
		qo.Tap, qo.Wrapper, qo.UserNet = opts.NetNS.Tap, []string{"ip", "netns", "exec", opts.NetNS.Name}, ""
	}
	bootMode := "Legacy"
	if opts.OVMFCode != "" {
		vars := filepath.Join(dir, "OVMF_VARS.fd")
		raw, err := os.ReadFile(opts.OVMFVars)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vars, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		qo.OVMFCode, qo.OVMFVars, bootMode = opts.OVMFCode, vars, "UEFI"
	}
	m, err := redfishbmc.NewQEMU(qo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ts := redfishbmc.ForTest(t, redfishbmc.Options{Log: opts.Log})
	sys := ts.AddSystem(redfishbmc.SystemSpec{UUID: opts.UUID, BootMode: bootMode, Machine: m,
		NICs: []redfishbmc.NIC{{ID: "NIC1", MAC: opts.MAC}}})
	return &Node{Machine: m, System: sys, RedfishURL: ts.URL, Username: "admin", Password: "password", opts: opts, varsFile: qo.OVMFVars}
}

// UEFIVariables is the content of the machine's OVMF variable store (its
// NVRAM: the boot entries the firmware and the agent wrote); an error
// for a BIOS machine.
func (n *Node) UEFIVariables() ([]byte, error) {
	if n.varsFile == "" {
		return nil, errors.New("not a UEFI machine")
	}
	return os.ReadFile(n.varsFile)
}

// DriverInfo is the node's driver_info for the redfish hardware type.
func (n *Node) DriverInfo() map[string]any {
	return map[string]any{
		"redfish_address":   n.RedfishURL,
		"redfish_system_id": "/redfish/v1/Systems/" + n.System.ID(),
		"redfish_username":  n.Username,
		"redfish_password":  n.Password,
	}
}

// AgentURL is where the host reaches the guest's agent.
func (n *Node) AgentURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d", n.opts.AgentPort)
}

// Console is the serial console of the current (or last) power-on.
func (n *Node) Console() string {
	raw, _ := os.ReadFile(n.Machine.ConsoleLog())
	return string(raw)
}

// ClearConsole removes the console and firmware logs of the last
// power-on, so that the next one's are read alone; call it while the
// machine is off (QEMU writes them anew at power on).
func (n *Node) ClearConsole() error {
	if n.Machine.Running() {
		return fmt.Errorf("machine %s is running", n.opts.UUID)
	}
	for _, p := range []string{n.Machine.ConsoleLog(), n.Machine.FirmwareLog()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WaitConsole waits until done holds for the console or ctx ends; it
// returns the console either way, and ctx's error on timeout.
func (n *Node) WaitConsole(ctx context.Context, done func(console string) bool) (string, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		c := n.Console()
		if done(c) {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return c, fmt.Errorf("console of %s: %w", n.opts.UUID, ctx.Err())
		case <-tick.C:
		}
	}
}

// WaitOff waits until the machine has stopped (the guest powered off)
// or ctx ends.
func (n *Node) WaitOff(ctx context.Context) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for n.Machine.Running() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("machine %s still running: %w", n.opts.UUID, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// FreePort returns a free TCP port of 127.0.0.1 in [lo, hi] (0, 0: any).
func FreePort(lo, hi int) (int, error) {
	l, err := Listen(lo, hi)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Listen listens on the first free TCP port of 127.0.0.1 in [lo, hi]
// (0, 0: any), for a server the test runs itself.
func Listen(lo, hi int) (net.Listener, error) {
	if lo == 0 {
		return net.Listen("tcp", "127.0.0.1:0")
	}
	for p := lo; p <= hi; p++ {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no free port in %d-%d", lo, hi)
}

// BlankDisk creates an empty (sparse) raw disk of size bytes in dir:
// the disk the agent writes the image to.
func BlankDisk(t testing.TB, dir string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, "blank-disk.raw")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// CopyDisk copies a raw image to a new file in dir (the node's disk: a
// test writes into it, not into the shared image).
func CopyDisk(t testing.TB, src, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "node-disk.raw")
	if err := os.WriteFile(dst, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
