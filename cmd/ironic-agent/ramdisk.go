package main

import (
	"context"
	"net"
	"strconv"

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
	// Parameters IPA 9.4 reads that boot.Params does not type.
	cfg.IronicAPIVersion = p.All["ipa-ironic-api-version"]
	if v, ok := p.All["ipa-ignore-bootloader-failure"]; ok {
		cfg.IgnoreBootloaderFailure = v == "1" || v == "true" || v == "True" || v == "yes" || v == "on"
	}
	if p.Debug != nil {
		debug = *p.Debug
	}
	return debug, p.BootIF
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
