package boot_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/goironic/ironic/agent/boot"
)

// The agent's main when it is the ramdisk's /init. As PID 1, Init sets
// the machine up and runs the same binary again as the agent, which
// then reads IPA's parameters from /proc/cmdline.
func Example() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(boot.Console(), nil))
	if boot.IsInit() {
		boot.Init(ctx, log, boot.InitConfig{}) // never returns
	}
	if boot.InRamdisk() {
		cmdline, err := os.ReadFile("/proc/cmdline")
		if err != nil {
			log.ErrorContext(ctx, "kernel parameters", "err", err)
		}
		params, err := boot.ParseCmdline(string(cmdline))
		if err != nil {
			log.ErrorContext(ctx, "kernel parameters", "err", err) // the others still hold
		}
		_ = params.APIURL     // ipa-api-url
		_ = params.AgentToken // ipa-agent-token
		_ = params.BootIF     // the PXE NIC's MAC
	}
	// ... run the agent; standby.power_off ends with:
	if err := (boot.LinuxPower{}).PowerOff(); err != nil {
		log.ErrorContext(ctx, "power off", "err", err)
	}
}
