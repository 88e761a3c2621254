package main

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic/agent"
	"github.com/goironic/ironic/agent/boot"
	"github.com/goironic/ironic/agent/disk"
)

// ramdiskConfig sets cfg from IPA's kernel parameters (boot.ParseCmdline)
// and returns ipa-debug and BOOTIF.
func ramdiskConfig(p boot.Params, cfg *agent.Config) (debug bool, bootIF string) {
	cfg.APIURL = p.APIURL
	cfg.AgentToken = p.AgentToken
	cfg.AgentTokenRequired = p.AgentTokenRequired
	cfg.GlobalRequestID = p.GlobalRequestID
	cfg.AdvertiseHost = p.AdvertiseHost
	cfg.AdvertisePort = p.AdvertisePort
	cfg.ListenAddress = net.JoinHostPort(p.ListenHost, strconv.Itoa(p.ListenPort))
	cfg.LookupTimeout = p.LookupTimeout
	cfg.LookupInterval = p.LookupInterval
	cfg.InspectionCallbackURL = p.InspectionCallbackURL
	cfg.BootIF = p.BootIF
	// Parameters IPA 9.4 reads that boot.Params does not type.
	cfg.InspectionCollectors = p.All["ipa-inspection-collectors"]
	cfg.InspectionDHCPWaitTimeout = 60 * time.Second
	if v, ok := p.All["ipa-inspection-dhcp-wait-timeout"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			cfg.InspectionDHCPWaitTimeout = time.Duration(n) * time.Second
		}
	}
	cfg.InspectionDHCPAllInterfaces = isTrue(p.All["ipa-inspection-dhcp-all-interfaces"])
	cfg.IronicAPIVersion = p.All["ipa-ironic-api-version"]
	cfg.IgnoreBootloaderFailure = isTrue(p.All["ipa-ignore-bootloader-failure"])
	if p.Debug != nil {
		debug = *p.Debug
	}
	return debug, p.BootIF
}

// isTrue is a boolean kernel parameter (oslo.config's true forms).
func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// ramdiskDeps gives the agent the machine: agent/disk's Manager (told
// the node's UUID at lookup), boot.LinuxPower, the kernel log and the
// ramdisk's shadow file.
func ramdiskDeps(cfg *agent.Config) {
	disks := disk.New(disk.DefaultConfig(), disk.WithLogger(cfg.Logger))
	cfg.Disks = disks
	cfg.UEFI = disks
	cfg.OnLookup = disks.SetNodeUUID
	cfg.Power = power{boot.LinuxPower{}}
	cfg.Dmesg = agent.KernelLog
	cfg.ShadowFile = "/etc/shadow"
}

// power adapts agent/boot's Power to the agent's (which takes a
// context).
type power struct{ p boot.Power }

func (p power) PowerOff(context.Context) error { return p.p.PowerOff() }
func (p power) Reboot(context.Context) error   { return p.p.Reboot() }
