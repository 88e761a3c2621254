package redfishbmc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// QEMUOptions configure a QEMU machine.
type QEMUOptions struct {
	// Binary is qemu-system-x86_64's path; default found on PATH.
	Binary string
	// Dir holds the QMP socket, the serial console log and the media
	// files; it must exist. Keep its path short: a Unix socket path
	// has at most 107 bytes.
	Dir string
	// MemoryMiB defaults to 128.
	MemoryMiB int
	// MAC is the NIC's MAC address (user networking, an e1000 with
	// iPXE's ROM: Pxe boots from it); default QEMU's.
	MAC string
	// Disk, when set, is a disk image (raw) the machine boots from as
	// Hdd.
	Disk string
	// UserNet are options added to the NIC's user network
	// ("-netdev user,id=n0,<UserNet>"), e.g. the DHCP bootfile iPXE
	// chains and hostfwd rules.
	UserNet string
	// Tap, when set, is the NIC's backend instead of the user network:
	// the tap device of that name ("-netdev tap,ifname=<Tap>"), which
	// must exist where QEMU runs (see Wrapper); UserNet is then unused.
	Tap string
	// Wrapper, when set, is the command QEMU runs under, its arguments
	// first ("ip", "netns", "exec", "<ns>"): a wrapper that execs QEMU
	// in its own process, so that killing it kills QEMU.
	Wrapper []string
	// OVMFCode and OVMFVars, when set, make the machine UEFI: OVMF's
	// code (read-only) and a writable copy of its variable store as
	// pflash (SeaBIOS otherwise). The CD then boots through OVMF's
	// El Torito EFI loader, the disk through its EFI System Partition.
	OVMFCode, OVMFVars string
	// ExtraArgs are appended to QEMU's command line.
	ExtraArgs []string
	// Log receives the machine's start and stop; nil discards.
	Log *slog.Logger
}

// QEMU is a Machine: a qemu-system-x86_64 process (TCG, SeaBIOS) that
// is "on" while it runs, driven through QMP. Boot targets map to QEMU's
// boot order (Pxe: the NIC, Cd: the CD drive, Hdd: Disk, Floppy and Usb:
// the floppy drive, which takes the Floppy device's image); a Once
// override is QEMU's -boot once. The Cd device's media changes while
// the machine runs; the Floppy's at the next power on. The serial
// console goes to ConsoleLog.
type QEMU struct {
	opts QEMUOptions

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	qmp    *qmpConn
}

// NewQEMU returns a powered-off QEMU machine.
func NewQEMU(opts QEMUOptions) (*QEMU, error) {
	if opts.Binary == "" {
		bin, err := exec.LookPath("qemu-system-x86_64")
		if err != nil {
			return nil, err
		}
		opts.Binary = bin
	}
	if opts.Dir == "" {
		return nil, errors.New("redfishbmc: QEMUOptions.Dir is required")
	}
	if len(filepath.Join(opts.Dir, "qmp.sock")) > 107 {
		return nil, fmt.Errorf("redfishbmc: QEMU directory %s is too long for a Unix socket", opts.Dir)
	}
	if opts.MemoryMiB == 0 {
		opts.MemoryMiB = 128
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &QEMU{opts: opts}, nil
}

// ConsoleLog is the file the machine's serial console is written to
// (anew at each power on).
func (q *QEMU) ConsoleLog() string { return filepath.Join(q.opts.Dir, "console.log") }

// FirmwareLog is the file SeaBIOS's debug console is written to (anew at
// each power on): "Booting from DVD/CD...", "Booting from ROM..." (the
// NIC's iPXE) or "Booting from Hard Disk..." name the device it booted.
func (q *QEMU) FirmwareLog() string { return filepath.Join(q.opts.Dir, "firmware.log") }

// MediaFile implements Machine.
func (q *QEMU) MediaFile(device string) string {
	return filepath.Join(q.opts.Dir, strings.ToLower(device)+".img")
}

// Running implements Machine.
func (q *QEMU) Running() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.runningLocked()
}

func (q *QEMU) runningLocked() bool {
	if q.exited == nil {
		return false
	}
	select {
	case <-q.exited:
		return false
	default:
		return true
	}
}

// bootLetters are QEMU's -boot drive letters of the override targets.
var bootLetters = map[string]string{"Pxe": "n", "Cd": "d", "Hdd": "c", "Floppy": "a", "Usb": "a"}

// bootArg is QEMU's -boot value for boot: the machine's own order is
// disk, CD, network.
func bootArg(boot MachineBoot) string {
	const order = "cdn"
	l, ok := bootLetters[boot.Target]
	switch {
	case !ok:
		return "order=" + order
	case boot.Once:
		return "once=" + l + ",order=" + order
	default:
		return "order=" + l + strings.ReplaceAll(order, l, "")
	}
}

// args is QEMU's command line for boot.
func (q *QEMU) args(boot MachineBoot) []string {
	o := q.opts
	args := []string{
		"-machine", "pc,accel=tcg", "-m", fmt.Sprint(o.MemoryMiB), "-nodefaults", "-display", "none",
		"-serial", "file:" + q.ConsoleLog(),
		"-chardev", "file,id=fw,path=" + q.FirmwareLog(), "-device", "isa-debugcon,iobase=0x402,chardev=fw",
		"-qmp", "unix:" + filepath.Join(o.Dir, "qmp.sock") + ",server=on,wait=off",
		"-boot", bootArg(boot),
	}
	nic := "e1000,netdev=n0"
	if o.MAC != "" {
		nic += ",mac=" + o.MAC
	}
	netdev := "user,id=n0"
	switch {
	case o.Tap != "":
		netdev = "tap,id=n0,ifname=" + o.Tap + ",script=no,downscript=no"
	case o.UserNet != "":
		netdev += "," + o.UserNet
	}
	if o.OVMFCode != "" {
		args = append(args, "-drive", "if=pflash,format=raw,readonly=on,file="+o.OVMFCode,
			"-drive", "if=pflash,format=raw,file="+o.OVMFVars)
	}
	args = append(args, "-netdev", netdev, "-device", nic)
	cd := "if=ide,index=2,media=cdrom,id=cd0"
	for _, m := range boot.Media {
		switch m {
		case "Cd":
			cd += ",readonly=on,format=raw,file=" + q.MediaFile("Cd")
		case "Floppy":
			args = append(args, "-drive", "if=floppy,index=0,format=raw,file="+q.MediaFile("Floppy"))
		}
	}
	args = append(args, "-drive", cd)
	if o.Disk != "" {
		args = append(args, "-drive", "if=ide,index=0,format=raw,file="+o.Disk)
	}
	return append(args, o.ExtraArgs...)
}

// PowerOn implements Machine: it starts QEMU and connects to its QMP
// socket.
func (q *QEMU) PowerOn(ctx context.Context, boot MachineBoot) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.runningLocked() {
		return nil
	}
	q.closeQMPLocked() // of a machine that powered itself off
	sock := filepath.Join(q.opts.Dir, "qmp.sock")
	_ = os.Remove(sock)
	// The machine outlives the request that powers it on.
	argv := append(append(append([]string(nil), q.opts.Wrapper...), q.opts.Binary), q.args(boot)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	q.cmd, q.exited = cmd, exited
	q.opts.Log.InfoContext(ctx, "qemu started", "pid", cmd.Process.Pid, "boot", bootArg(boot), "media", boot.Media)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := dialQMP(ctx, sock)
		if err == nil {
			q.qmp = conn
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("qemu exited at start: %s", strings.TrimSpace(stderr.String()))
		case <-ctx.Done():
			q.killLocked()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			q.killLocked()
			return fmt.Errorf("qemu's QMP socket: %w", err)
		}
	}
}

// PowerOff implements Machine: system_powerdown (graceful) or quit.
func (q *QEMU) PowerOff(ctx context.Context, graceful bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.runningLocked() {
		return nil
	}
	if graceful {
		return q.qmp.execute(ctx, "system_powerdown", nil)
	}
	_ = q.qmp.execute(ctx, "quit", nil) // the answer may not come back
	select {
	case <-q.exited:
	case <-time.After(10 * time.Second):
		q.killLocked()
	}
	q.closeQMPLocked()
	return nil
}

// NMI implements Machine.
func (q *QEMU) NMI(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.runningLocked() {
		return errors.New("the machine is off")
	}
	return q.qmp.execute(ctx, "inject-nmi", nil)
}

// ChangeMedia implements Machine for the CD drive; the floppy takes its
// media at the next power on.
func (q *QEMU) ChangeMedia(ctx context.Context, device string, insert bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if device != "Cd" || !q.runningLocked() {
		return nil
	}
	if !insert {
		return q.qmp.execute(ctx, "eject", map[string]any{"device": "cd0", "force": true})
	}
	return q.qmp.execute(ctx, "blockdev-change-medium", map[string]any{
		"device": "cd0", "filename": q.MediaFile("Cd"), "format": "raw", "read-only-mode": "read-only",
	})
}

// Close stops the machine if it runs.
func (q *QEMU) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.killLocked()
}

func (q *QEMU) killLocked() {
	if q.runningLocked() {
		_ = q.cmd.Process.Kill()
		<-q.exited
	}
	q.closeQMPLocked()
}

func (q *QEMU) closeQMPLocked() {
	if q.qmp != nil {
		q.qmp.conn.Close()
		q.qmp = nil
	}
}

// qmpConn is a QMP connection in command mode.
type qmpConn struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialQMP(ctx context.Context, sock string) (*qmpConn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	q := &qmpConn{conn: conn, r: bufio.NewReader(conn)}
	if err := q.readGreeting(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	if err := q.execute(ctx, "qmp_capabilities", nil); err != nil {
		conn.Close()
		return nil, err
	}
	return q, nil
}

func (q *qmpConn) readGreeting(ctx context.Context) error {
	q.deadline(ctx)
	line, err := q.r.ReadBytes('\n')
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m["QMP"] == nil {
		return fmt.Errorf("qmp greeting %q", line)
	}
	return nil
}

func (q *qmpConn) deadline(ctx context.Context) {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Now().Add(10 * time.Second)
	}
	_ = q.conn.SetDeadline(d)
}

// execute runs one command and waits for its answer, skipping events.
func (q *qmpConn) execute(ctx context.Context, cmd string, args map[string]any) error {
	q.deadline(ctx)
	req := map[string]any{"execute": cmd}
	if args != nil {
		req["arguments"] = args
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := q.conn.Write(append(raw, '\n')); err != nil {
		return err
	}
	for {
		line, err := q.r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("qmp %s: %w", cmd, err)
		}
		var m struct {
			Return json.RawMessage `json:"return"`
			Error  *struct {
				Class, Desc string
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("qmp %s: answer %q: %w", cmd, line, err)
		}
		if m.Error != nil {
			return fmt.Errorf("qmp %s: %s: %s", cmd, m.Error.Class, m.Error.Desc)
		}
		if m.Return != nil {
			return nil
		}
	}
}
