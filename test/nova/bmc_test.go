package nova

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/ipmisim"
	"github.com/goironic/ironic/test/redfishbmc"
)

// bmcConfig is the ironic.conf of a node on a BMC: hardware type hw with
// its power and management interface, PXE boot and direct deploy (Nova
// does not deploy these nodes: it takes them as they are), no periodic
// power sync, so that only Nova's calls reach the BMC.
func bmcConfig(hw, power, management string) cluster.INI {
	return cluster.INI{
		"DEFAULT": {
			"host":                          "goironic-nova-" + hw,
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "none",
			"debug":                         "true",
			"enabled_hardware_types":        hw,
			"enabled_bios_interfaces":       "no-bios",
			"enabled_boot_interfaces":       "pxe",
			"enabled_console_interfaces":    "no-console",
			"enabled_deploy_interfaces":     "direct",
			"enabled_inspect_interfaces":    "no-inspect",
			"enabled_management_interfaces": management,
			"enabled_network_interfaces":    "noop",
			"default_network_interface":     "noop",
			"enabled_power_interfaces":      power,
			"enabled_raid_interfaces":       "no-raid",
			"enabled_rescue_interfaces":     "no-rescue",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "no-vendor",
		},
		"api":       {"host_ip": "127.0.0.1"},
		"dhcp":      {"dhcp_provider": "none"},
		"conductor": {"automated_clean": "false", "sync_power_state_interval": "0", "power_state_change_timeout": "30"},
		"ipmi":      {"min_command_interval": "1", "command_retry_timeout": "3"},
		"redfish":   {"connection_attempts": "2", "connection_retry_interval": "1"},
	}
}

// bmcStep is what a BMC must have seen after one of Nova's calls: the
// actions it received since the previous step, and its power.
type bmcStep struct {
	actions []string
	on      bool
}

// bmcScenario is Nova's life with a node on a BMC: the resource tracker
// reports it, an instance is bound to it (prepare_for_spawn: Nova does
// not deploy here), powered on and off, rebooted soft and hard, powered
// off softly, its crash dump triggered, and destroyed (which unbinds
// it). actions returns what the BMC received since its last call;
// expect maps each power step to what it must have received then, and
// on reports the BMC's power. nmi checks trigger_crash_dump's outcome.
func bmcScenario(s *session, node nodeSpec, actions func() []string, on func() bool, expect map[string]bmcStep, nmi func(nerr *novaError)) {
	t := s.t
	s.enroll(node)
	if on() {
		t.Fatalf("the BMC is on after the node was powered off")
	}
	actions() // enrolment's

	resourceTracker(s, []string{node.UUID}, map[string]int{node.UUID: 0})
	inst := map[string]any{"instance": instance}
	s.do("create_instance (Nova's database)", "create_instance",
		map[string]any{"uuid": instance, "node": node.UUID, "name": "vm-1", "flavor": flavor})
	s.do("", "prepare_for_spawn", inst)
	want(t, "instance_exists", s.do("", "instance_exists", inst), true, equal)
	want(t, "get_info", s.do("", "get_info", map[string]any{"instance": instance, "use_cache": false}), "shutdown", equal)
	if got := actions(); len(got) != 0 {
		t.Fatalf("Nova's reads reached the BMC: %q", got)
	}

	powerCycle(s, func(step string) {
		t.Helper()
		w, ok := expect[step]
		if !ok {
			t.Fatalf("no expectation for %s", step)
		}
		if got := actions(); !slices.Equal(got, w.actions) {
			t.Fatalf("after %s the BMC received %q, want %q", step, got, w.actions)
		}
		if on() != w.on {
			t.Fatalf("after %s the BMC's power is on=%v, want %v", step, on(), w.on)
		}
	})

	res, nerr := s.record("", "trigger_crash_dump", inst)
	t.Logf("trigger_crash_dump: %s %v", res, errOrNil(nerr))
	nmi(nerr)

	s.do("", "destroy", inst)
	n := s.node(node.UUID)
	if n["instance_uuid"] != nil || n["provision_state"] != "available" {
		t.Errorf("after destroy: instance_uuid %v provision_state %v", n["instance_uuid"], n["provision_state"])
	}
	want(t, "instance_exists after destroy", s.do("instance_exists after destroy", "instance_exists", inst), false, equal)
	if !on() {
		t.Errorf("destroy of an instance Nova did not deploy powered the BMC off")
	}
}

// TestRedfish runs Nova's power calls on a redfish node on the Redfish
// BMC emulator; every call must reach the emulated system as the reset
// Ironic 21.4 sends for it (reboot is ForceOff then On).
func TestRedfish(t *testing.T) {
	requireNova(t)
	ctx := cluster.TestContext(t, budget, 20*time.Second)
	cluster.Build(t, cluster.AllInOne)
	var ids atomic.Int64
	emu := redfishbmc.ForTest(t, redfishbmc.Options{
		NewID: func() string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids.Add(1)) },
	})
	sys := emu.AddSystem(redfishbmc.SystemSpec{ID: "1", PowerState: redfishbmc.PowerOff})
	s := startNoauth(ctx, t, false, bmcConfig("redfish", "redfish", "redfish"))

	node := goldNode(nodeA, "nova-redfish-1", "redfish")
	node.DriverInfo = map[string]any{
		"redfish_address": emu.URL, "redfish_system_id": sys.Path(),
		"redfish_username": "admin", "redfish_password": "password",
	}
	seen := 0
	actions := func() []string {
		all := sys.Resets()
		var out []string
		for _, r := range all[seen:] {
			out = append(out, string(r))
		}
		seen = len(all)
		return out
	}
	on := func() bool { return sys.PowerState() == redfishbmc.PowerOn }
	nmis := 0
	bmcScenario(s, node, actions, on, map[string]bmcStep{
		"power_on":       {[]string{"On"}, true},
		"power_off":      {[]string{"ForceOff"}, false},
		"reboot SOFT":    {[]string{"GracefulRestart"}, true},
		"reboot HARD":    {[]string{"ForceOff", "On"}, true},
		"power_off soft": {[]string{"GracefulShutdown"}, false},
	}, func(nerr *novaError) {
		if nerr != nil {
			t.Fatalf("trigger_crash_dump: %v", nerr)
		}
		if got := actions(); !slices.Equal(got, []string{"Nmi"}) || sys.NMIs() != nmis+1 {
			t.Fatalf("trigger_crash_dump: the BMC received %q (%d NMIs), want one Nmi", got, sys.NMIs())
		}
	})
}

// ipmiChassis names IPMI's chassis control commands (Chassis Control,
// NetFn 0x00 command 0x02) as ipmitool's power subcommands do.
var ipmiChassis = map[byte]string{0x00: "off", 0x01: "on", 0x02: "cycle", 0x03: "reset", 0x04: "diag", 0x05: "soft"}

// TestIPMI runs Nova's power calls on an ipmi node on OpenIPMI's
// ipmi_sim; every call must reach the simulator as the chassis control
// commands Ironic 21.4's ipmitool driver sends (reboot is off then on,
// soft reboot soft off then on), and ipmi_sim's chassis must be in the
// power state Nova asked for.
func TestIPMI(t *testing.T) {
	requireNova(t)
	ipmisim.Require(t)
	ctx := cluster.TestContext(t, budget, 20*time.Second)
	cluster.Build(t, cluster.AllInOne)
	bmc := ipmisim.Start(t, ipmisim.Options{})
	s := startNoauth(ctx, t, false, bmcConfig("ipmi", "ipmitool", "ipmitool"))

	node := goldNode(nodeA, "nova-ipmi-1", "ipmi")
	node.DriverInfo = map[string]any{
		"ipmi_address": bmc.Address, "ipmi_port": strconv.Itoa(bmc.Port),
		"ipmi_username": bmc.User, "ipmi_password": bmc.Password,
	}
	seen := 0
	actions := func() []string {
		reqs, err := bmc.Requests()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range reqs[seen:] {
			if r.NetFn == 0x00 && r.Cmd == 0x02 && len(r.Data) == 1 {
				a := ipmiChassis[r.Data[0]]
				if r.Completion != 0 {
					a += fmt.Sprintf(" (completion 0x%02x)", r.Completion)
				}
				out = append(out, a)
			}
		}
		seen = len(reqs)
		return out
	}
	bmcScenario(s, node, actions, bmc.PowerOn, map[string]bmcStep{
		"power_on":       {[]string{"on"}, true},
		"power_off":      {[]string{"off"}, false},
		"reboot SOFT":    {[]string{"soft", "on"}, true},
		"reboot HARD":    {[]string{"off", "on"}, true},
		"power_off soft": {[]string{"soft"}, false},
	}, func(nerr *novaError) {
		// ipmi_sim refuses the diagnostic interrupt; Nova sees Ironic's
		// IPMIFailure, the BMC saw the request (ipmitool retries it
		// within command_retry_timeout).
		got := actions()
		refused := len(got) > 0 && !slices.ContainsFunc(got, func(a string) bool { return !strings.HasPrefix(a, "diag (completion") })
		if nerr == nil || nerr.Class != "InternalServerError" || !strings.Contains(nerr.Message, "IPMI call failed: power diag") || !refused {
			t.Fatalf("trigger_crash_dump: %v, the BMC received %q; want the NMI refused", nerr, got)
		}
	})
	if s.node(nodeA)["maintenance"] == true {
		t.Errorf("the refused NMI put the node in maintenance")
	}
}
