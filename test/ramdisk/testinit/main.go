// Command testinit is test/ramdisk's /init. As PID 1 it runs
// agent/boot's Init (set-up, DHCP, the supervisor) with a short restart
// delay; started again by it as the "agent", it plays one: the first
// run leaves an orphan behind and crashes (exit 3), the second fetches
// http://<router>:<goironic-test-port>/hello from the server the test
// runs on the host, prints one marker line with what it got, its
// address, its BOOTIF and the loaded modules to the console, and powers
// the VM off.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic/agent/boot"
)

const (
	orphanEnv = "TESTINIT_ORPHAN"
	attempts  = "/run/testinit-attempts"
)

func main() {
	if os.Getenv(orphanEnv) == "1" {
		time.Sleep(time.Second) // outlive the "agent" that started it
		return
	}
	console := boot.Console()
	log := slog.New(slog.NewTextHandler(console, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx := context.Background()
	if boot.IsInit() {
		boot.Init(ctx, log, boot.InitConfig{RestartDelay: time.Second, Starts: 3, LinkWait: 5 * time.Second})
	}
	if !boot.InRamdisk() {
		fmt.Fprintln(os.Stderr, "testinit runs as a ramdisk's /init only")
		os.Exit(2)
	}
	n := attempt()
	if n == 1 {
		if err := leaveOrphan(); err != nil {
			fmt.Fprintf(console, "GOIRONIC-RAMDISK-FAIL orphan: %v\n", err)
		}
		fmt.Fprintf(console, "GOIRONIC-RAMDISK-CRASH attempt=%d\n", n)
		os.Exit(3)
	}
	if err := run(ctx, console, n); err != nil {
		fmt.Fprintf(console, "GOIRONIC-RAMDISK-FAIL attempt=%d %v\n", n, err)
	}
	if err := (boot.LinuxPower{}).PowerOff(); err != nil {
		log.Error("power off", "err", err)
	}
}

// attempt counts the agent's runs in a file on /run (tmpfs).
func attempt() int {
	b, _ := os.ReadFile(attempts)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	_ = os.WriteFile(attempts, []byte(strconv.Itoa(n)), 0o644)
	return n
}

func leaveOrphan() error {
	p, err := os.StartProcess("/proc/self/exe", os.Args, &os.ProcAttr{
		Env: append(os.Environ(), orphanEnv+"=1"), Files: []*os.File{nil, os.Stdout, os.Stderr}})
	if err != nil {
		return err
	}
	return p.Release()
}

func run(ctx context.Context, console io.Writer, n int) error {
	cmdline, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return err
	}
	params, err := boot.ParseCmdline(string(cmdline))
	if err != nil {
		return err
	}
	name, mac, addr, router, err := bootifAddr(params.BootIF)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s:%s/hello", router, params.All["goironic-test-port"])
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 4096))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	loaded, listed, names, err := modules()
	if err != nil {
		return err
	}
	fmt.Fprintf(console, "GOIRONIC-RAMDISK-OK attempt=%d hello=%s addr=%s iface=%s mac=%s bootif=%s api=%s loaded=%d/%d modules=%s\n",
		n, strings.TrimSpace(string(body)), addr, name, mac, params.BootIF, params.APIURL, loaded, listed, strings.Join(names, ","))
	return nil
}

// bootifAddr finds the NIC whose MAC is BOOTIF (its name, MAC and IPv4
// address) and the default gateway (the host, in QEMU's user network)
// from /proc/net/route.
func bootifAddr(bootif string) (name, mac, addr, gw string, err error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "", "", "", "", err
	}
	for _, i := range ifaces {
		if i.HardwareAddr.String() != bootif {
			continue
		}
		addrs, err := i.Addrs()
		if err != nil {
			return "", "", "", "", err
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				gw, err := defaultGateway()
				return i.Name, i.HardwareAddr.String(), ipn.String(), gw, err
			}
		}
		return "", "", "", "", fmt.Errorf("no IPv4 address on %s (%s)", i.Name, bootif)
	}
	return "", "", "", "", fmt.Errorf("no NIC with BOOTIF's MAC %s", bootif)
}

func defaultGateway() (string, error) {
	b, err := os.ReadFile("/proc/net/route")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) > 2 && f[1] == "00000000" {
			v, err := strconv.ParseUint(f[2], 16, 32)
			if err != nil {
				return "", err
			}
			return net.IPv4(byte(v), byte(v>>8), byte(v>>16), byte(v>>24)).String(), nil
		}
	}
	return "", errors.New("no default route")
}

// modules counts the listed modules that are loaded and names every
// loaded module.
func modules() (int, int, []string, error) {
	procMods, err := os.ReadFile("/proc/modules")
	if err != nil {
		return 0, 0, nil, err
	}
	var names []string
	for _, l := range strings.Split(string(procMods), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	slices.Sort(names)
	list, err := os.ReadFile(boot.ModuleList)
	if err != nil {
		return 0, 0, nil, err
	}
	loaded, listed := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		p, _, _ := strings.Cut(l, " ") // the path, then the parameters
		listed++
		if slices.Contains(names, strings.ReplaceAll(strings.TrimSuffix(filepath.Base(p), ".ko"), "-", "_")) {
			loaded++
		}
	}
	return loaded, listed, names, nil
}
