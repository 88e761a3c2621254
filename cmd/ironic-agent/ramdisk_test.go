package main

import (
	"testing"
	"time"

	"github.com/goironic/ironic/agent"
	"github.com/goironic/ironic/agent/boot"
)

// TestRamdiskConfig: IPA's kernel parameters, as boot.ParseCmdline reads
// them, into the agent's Config.
func TestRamdiskConfig(t *testing.T) {
	p, err := boot.ParseCmdline(`BOOT_IMAGE=/vmlinuz ipa-api-url=http://192.0.2.1:6385 ipa-agent-token=abc ipa-debug=1 ` +
		`BOOTIF=01-52-54-00-12-34-56 ipa-global-request-id=req-9 ipa-advertise-host=192.0.2.5 ipa-advertise-port=9998 ` +
		`ipa-lookup-timeout=30 ipa-ironic-api-version=1.68 ipa-ignore-bootloader-failure=true quiet` + "\n")
	if err != nil {
		t.Fatal(err)
	}
	var cfg agent.Config
	debug, bootIF := ramdiskConfig(p, &cfg)
	if cfg.APIURL != "http://192.0.2.1:6385" || cfg.AgentToken != "abc" || cfg.GlobalRequestID != "req-9" ||
		cfg.AdvertiseHost != "192.0.2.5" || cfg.AdvertisePort != 9998 || cfg.ListenAddress != ":9999" ||
		cfg.LookupTimeout != 30*time.Second || cfg.LookupInterval != time.Second || cfg.IronicAPIVersion != "1.68" ||
		!cfg.IgnoreBootloaderFailure || !debug || bootIF != "52:54:00:12:34:56" {
		t.Errorf("cfg %+v debug %v bootif %s", cfg, debug, bootIF)
	}
	p, _ = boot.ParseCmdline("ipa-listen-host=::1 ipa-listen-port=8000")
	cfg = agent.Config{}
	if debug, _ = ramdiskConfig(p, &cfg); debug || cfg.ListenAddress != "[::1]:8000" || cfg.AdvertisePort != 9999 {
		t.Errorf("cfg %+v debug %v", cfg, debug)
	}
}

// TestRamdiskInspectionConfig: the inspection parameters Ironic's
// managed inspection writes (ipa-inspection-callback-url, the
// collectors from [inspector]extra_kernel_params) and IPA's DHCP wait.
func TestRamdiskInspectionConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		cmdline                      string
		collectors, callback, bootIF string
		wait                         time.Duration
	}{
		"managed inspection": {cmdline: "ipa-inspection-callback-url=http://192.0.2.1:5050/v1/continue ipa-inspection-collectors=default,logs BOOTIF=52:54:00:12:34:56",
			callback: "http://192.0.2.1:5050/v1/continue", collectors: "default,logs", bootIF: "52:54:00:12:34:56", wait: 60 * time.Second},
		"dhcp wait": {cmdline: "ipa-inspection-dhcp-wait-timeout=0 ipa-inspection-dhcp-all-interfaces=yes"},
		"bad wait":  {cmdline: "ipa-inspection-dhcp-wait-timeout=x", wait: 60 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			p, _ := boot.ParseCmdline(tc.cmdline)
			var cfg agent.Config
			ramdiskConfig(p, &cfg)
			all := name == "dhcp wait"
			if cfg.InspectionCallbackURL != tc.callback || cfg.InspectionCollectors != tc.collectors || cfg.BootIF != tc.bootIF ||
				cfg.InspectionDHCPWaitTimeout != tc.wait || cfg.InspectionDHCPAllInterfaces != all {
				t.Errorf("cfg %+v", cfg)
			}
		})
	}
}
