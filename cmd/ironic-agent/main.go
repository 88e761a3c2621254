// Command ironic-agent is goironic's deploy ramdisk agent: the Ironic
// Python Agent's API and behaviour (package agent). As the initramfs's
// /init (PID 1) it sets the machine up and supervises itself run again
// as the agent (agent/boot's Init); that child reads IPA's kernel
// parameters from /proc/cmdline (boot.ParseCmdline), drives the disks
// with agent/disk and powers off with boot.LinuxPower. Run on a host
// (tests, development), it takes the same settings as flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/goironic/ironic/agent"
	"github.com/goironic/ironic/agent/boot"
	"github.com/goironic/ironic/agent/hardware"
)

func main() {
	if boot.IsInit() {
		// PID 1: mounts, modules, DHCP, then this binary again as the
		// agent, restarted when it ends. Never returns.
		console := boot.Console()
		boot.Init(context.Background(), slog.New(slog.NewTextHandler(console, nil)), boot.InitConfig{})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], boot.InRamdisk(), os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ironic-agent:", err)
		os.Exit(1)
	}
}

// run is the agent: in the ramdisk (the child agent/boot's Init
// starts, inRamdisk) configured from its kernel parameters
// (boot.ReadCmdline: /proc/cmdline with virtual media's), else from flags.
// It returns when ctx ends or the agent fails (the supervisor restarts
// it in the ramdisk).
func run(ctx context.Context, args []string, inRamdisk bool, stderr io.Writer) error {
	var cfg agent.Config
	var debug bool
	var bootIF, logFile string
	var paramErr error
	if inRamdisk {
		cmdline, err := boot.ReadCmdline(os.ReadFile)
		if err != nil {
			return err
		}
		var p boot.Params
		p, paramErr = boot.ParseCmdline(cmdline)
		debug, bootIF = ramdiskConfig(p, &cfg)
		logFile = "/var/log/ironic-agent.log"
	} else {
		fs := flag.NewFlagSet("ironic-agent", flag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.StringVar(&cfg.APIURL, "api-url", "", "Ironic API URL (ipa-api-url); empty serves the command API only")
		fs.StringVar(&cfg.AgentToken, "agent-token", "", "agent token (ipa-agent-token)")
		fs.StringVar(&cfg.AdvertiseHost, "advertise-host", "", "host of the callback URL (ipa-advertise-host; default the route to the API)")
		fs.IntVar(&cfg.AdvertisePort, "advertise-port", 9999, "port of the callback URL (ipa-advertise-port)")
		fs.StringVar(&cfg.ListenAddress, "listen", "", "command API address (default :<advertise-port>)")
		macs := fs.String("macs", "", "comma-separated MAC addresses to look up with (default the inventory's)")
		fs.StringVar(&cfg.NodeUUID, "node-uuid", "", "node UUID sent with the lookup")
		fs.StringVar(&cfg.GlobalRequestID, "global-request-id", "", "X-OpenStack-Request-ID (ipa-global-request-id)")
		fs.StringVar(&cfg.IronicAPIVersion, "ironic-api-version", "", "Ironic API version to assume (ipa-ironic-api-version)")
		fs.DurationVar(&cfg.LookupTimeout, "lookup-timeout", 600*time.Second, "how long to retry the lookup (ipa-lookup-timeout)")
		fs.DurationVar(&cfg.LookupInterval, "lookup-interval", time.Second, "first lookup retry interval (ipa-lookup-interval)")
		fs.StringVar(&cfg.Root, "root", "/", "root of the /proc and /sys trees the inventory reads")
		fs.StringVar(&cfg.RescuePasswordFile, "rescue-password-file", "", "where finalize_rescue writes the password hash")
		fs.StringVar(&bootIF, "bootif", "", "BOOTIF (pxe_interface)")
		fs.StringVar(&cfg.InspectionCallbackURL, "inspection-callback-url", "", "inspect first and post the data here (ipa-inspection-callback-url)")
		fs.StringVar(&cfg.InspectionCollectors, "inspection-collectors", agent.DefaultInspectionCollectors, "inspection collectors (ipa-inspection-collectors)")
		fs.StringVar(&logFile, "log-file", "", "the agent's log file (also sent by collect_system_logs)")
		cmdLog := fs.String("command-log", "", "file recording every command request as JSON lines")
		fs.BoolVar(&cfg.IgnoreBootloaderFailure, "ignore-bootloader-failure", false, "carry on when no boot loader can be installed (ipa-ignore-bootloader-failure)")
		fs.BoolVar(&debug, "debug", false, "debug logging (ipa-debug)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if *macs != "" {
			cfg.MACs = strings.Split(*macs, ",")
		}
		if *cmdLog != "" {
			f, err := os.OpenFile(*cmdLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			cfg.CommandLog = f
		}
		// A host process does not power its host off: standby.power_off
		// ends the agent, as the machine going down would.
		cfg.Power = exitPower{}
	}
	out := io.Writer(stderr)
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		out = io.MultiWriter(stderr, f)
		cfg.LogFile = logFile
	}
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	if paramErr != nil {
		// IPA logs a malformed parameter and goes on with its default.
		cfg.Logger.WarnContext(ctx, "kernel parameters", "error", paramErr)
	}
	if inRamdisk {
		ramdiskDeps(&cfg)
	}
	inv := hardware.Reader{Root: cfg.Root, BootIF: bootIF}
	if cfg.Disks != nil {
		// The inventory's disks (inspection's root_disk and local_gb).
		inv.Disks = cfg.Disks
	}
	cfg.Inventory = inv
	if cfg.BootIF == "" && bootIF != "" {
		cfg.BootIF, _ = boot.NormalizeBootIF(bootIF)
	}
	err := agent.New(cfg).Run(ctx, nil)
	if err == nil || errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}

// exitPower ends the process after a short delay (the command's result
// is recorded first).
type exitPower struct{}

func (exitPower) PowerOff(context.Context) error {
	go func() { time.Sleep(200 * time.Millisecond); os.Exit(0) }()
	return nil
}

func (p exitPower) Reboot(ctx context.Context) error { return p.PowerOff(ctx) }
