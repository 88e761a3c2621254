package boot_test

import (
	"context"
	"log/slog"

	"github.com/goironic/ironic/agent/boot"
)

// The agent's main, when it is the ramdisk's /init: set the machine up,
// hand the kernel parameters to the agent, and power off at the end
// (PID 1 must never return).
func Example() {
	if !boot.IsInit() {
		return // on a host: flags instead of /proc/cmdline
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(boot.Console(), nil))
	setup := boot.Linux(log)
	res, err := setup.Run(ctx)
	if err != nil {
		log.ErrorContext(ctx, "ramdisk set-up", "err", err) // no address: lookup will fail and say so
	}
	go setup.KeepLeases(ctx, res.Interfaces) // renew the DHCP leases while the agent runs
	_ = res.Params.APIURL                    // ipa-api-url
	_ = res.Params.AgentToken                // ipa-agent-token
	_ = res.Addr()                           // the DHCP address, to advertise
	// ... run the agent; standby.power_off ends with:
	if err := (boot.LinuxPower{}).PowerOff(); err != nil {
		log.ErrorContext(ctx, "power off", "err", err)
	}
	select {} // never return: the kernel panics when init exits
}
