// Command testinit is test/ramdisk's /init: it runs agent/boot's PID-1
// set-up, fetches http://<router>:<goironic-test-port>/hello from the
// server the test runs on the host, prints one marker line with what it
// got, its address, its BOOTIF and the loaded modules to the console,
// and powers the VM off.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic/agent/boot"
)

func main() {
	console := boot.Console()
	log := slog.New(slog.NewTextHandler(console, &slog.HandlerOptions{Level: slog.LevelDebug}))
	start := time.Now()
	err := run(console, log)
	if err != nil {
		fmt.Fprintf(console, "GOIRONIC-RAMDISK-FAIL %v\n", err)
	}
	log.Info("powering off", "after", time.Since(start).Round(time.Millisecond))
	if err := (boot.LinuxPower{}).PowerOff(); err != nil {
		log.Error("power off", "err", err)
	}
	// PID 1 must never exit: the kernel would panic.
	select {}
}

func run(console io.Writer, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	setup := boot.Linux(log)
	// A BOOTIF no NIC has fails the test's VM in seconds, not the
	// default's half minute.
	setup.LinkWait = 5 * time.Second
	r, err := setup.Run(ctx)
	if err != nil {
		return fmt.Errorf("set-up: %w", err)
	}
	iface := r.Interfaces[0]
	url := fmt.Sprintf("http://%s:%s/hello", iface.Lease.Router, r.Params.All["goironic-test-port"])
	c := &http.Client{Timeout: 30 * time.Second}
	res, err := c.Get(url)
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
	mods, err := os.ReadFile("/proc/modules")
	if err != nil {
		return err
	}
	var names []string
	for _, l := range strings.Split(string(mods), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	slices.Sort(names)
	fmt.Fprintf(console, "GOIRONIC-RAMDISK-OK hello=%s addr=%s iface=%s mac=%s bootif=%s api=%s loaded=%d modules=%s\n",
		strings.TrimSpace(string(body)), iface.Lease.Addr, iface.Name, iface.MAC, r.Params.BootIF, r.Params.APIURL,
		len(r.Modules), strings.Join(names, ","))
	return nil
}
