// Package ipmi holds the black-box test of the ipmi hardware type: the
// same `openstack baremetal` scenario run against Python Ironic 21.4 and
// against ours, each driving its own ipmi_sim (test/ipmisim) through
// Debian's ipmitool, with an ipmitool wrapper first on PATH that records
// every command line (the password file shown as <pwfile>, its content
// never). The ipmitool command lines, the BMC's state (power, boot
// device, boot flags) and the node's fields after each step are compared
// with the reference's, recorded in testdata/reference.json:
//
//	go test -count=1 -p 1 ./test/ipmi -run TestAgainstReference -update
//
// runs the scenario against Python Ironic first and rewrites that file
// (then compares ours with it).
package ipmi

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/ipmisim"
)

var update = flag.Bool("update", false, "run the scenario against Python Ironic 21.4 and rewrite testdata/reference.json")

func TestMain(m *testing.M) { cluster.Main(m) }

const (
	// budget bounds each implementation's run of the scenario.
	budget = 6 * time.Minute
	// settleTimeout bounds the wait for one action to finish.
	settleTimeout = 90 * time.Second
	// consolePorts is [console]port_range: part of this package's ports.
	consolePorts = "6515:6519"
	// nodeName names the scenario's node.
	nodeName = "ipmi-node"
)

// step is what one step of the scenario did.
type step struct {
	Name string `json:"name"`
	// CLI is the command run ("" for a restart or a wait).
	CLI string `json:"cli,omitempty"`
	// Exit and Stderr are the CLI's (Stderr without the CLI's own
	// warnings).
	Exit   int    `json:"exit"`
	Stderr string `json:"stderr,omitempty"`
	// Output is the decoded JSON output of a -f json command.
	Output any `json:"output,omitempty"`
	// IPMITool are the ipmitool command lines run during the step.
	IPMITool []string `json:"ipmitool"`
	// Node are the node's fields after the step.
	Node map[string]any `json:"node"`
	// BMC is the simulator's state after the step.
	BMC map[string]any `json:"bmc"`
}

// run is one implementation's pass through the scenario.
type run struct {
	t       *testing.T
	ctx     context.Context
	python  bool
	dir     string
	db      string
	bmc     *ipmisim.BMC
	svc     *cluster.Service
	cli     *osc.CLI
	rest    *cluster.Client
	argvLog string
	cliPath string
	seen    int // lines of argvLog already reported
	uuid    string
	steps   []step
	// periodic is set once the periodic tasks run: what a step runs is
	// then only known as the set of commands since the last wait.
	periodic bool
}

// TestAgainstReference runs the scenario against ours and compares each
// step with the reference's (with -update, against Python Ironic first).
// Nothing differs: the departures of docs/departures.md's IPMI section
// are outside the scenario.
func TestAgainstReference(t *testing.T) {
	ipmisim.Require(t)
	cliBin := cluster.RequireCLI(t)
	golden := filepath.Join("testdata", "reference.json")
	var want []step
	if *update {
		cluster.RequirePython(t, "ironic.drivers.modules.ipmitool", "python3-ironic")
		want = scenario(t, cliBin, true)
		b, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	}
	cluster.Build(t, cluster.AllInOne)
	got := scenario(t, cliBin, false)
	if len(got) != len(want) {
		t.Fatalf("%d steps, the reference has %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Name != g.Name {
			t.Fatalf("step %d is %q, the reference's %q", i, g.Name, w.Name)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("step %q (-reference +ours):\n%s", g.Name, diff)
		}
	}
}

// scenario runs the scenario against Python Ironic (python) or ours and
// returns its steps.
func scenario(t *testing.T, cliBin string, python bool) []step {
	t.Helper()
	ctx := cluster.TestContext(t, budget, 30*time.Second)
	r := &run{t: t, ctx: ctx, python: python, dir: t.TempDir(), cliPath: cliBin}
	r.db = filepath.Join(r.dir, "ironic.sqlite")
	r.argvLog = filepath.Join(r.dir, "ipmitool.log")
	r.installWrapper()
	r.bmc = ipmisim.Start(t, ipmisim.Options{})
	impl := "go"
	if python {
		impl = "python"
		r.dbsync()
	}
	t.Logf("running the scenario against %s Ironic", impl)
	r.start(false)

	bmcInfo := []string{
		"--driver-info", "ipmi_address=" + r.bmc.Address,
		"--driver-info", "ipmi_port=" + strconv.Itoa(r.bmc.Port),
		"--driver-info", "ipmi_username=" + r.bmc.User,
		"--driver-info", "ipmi_password=" + r.bmc.Password,
		"--driver-info", "ipmi_cipher_suite=3",
	}
	r.do("create", append([]string{"node", "create", "--driver", "ipmi", "--name", nodeName,
		"--console-interface", "ipmitool-socat", "--deploy-interface", "direct", "--boot-interface", "pxe"}, bmcInfo...)...)
	r.doJSON("validate", "node", "validate", nodeName)
	r.do("manage", "node", "manage", nodeName, "--wait", "120")
	r.do("power on", "node", "power", "on", nodeName)
	r.do("power on again", "node", "power", "on", nodeName)
	r.do("power off", "node", "power", "off", nodeName)
	r.do("reboot from off", "node", "reboot", nodeName)
	r.do("reboot from on", "node", "reboot", nodeName)
	r.do("soft power off", "node", "power", "off", "--soft", nodeName)
	r.do("power on to soft reboot", "node", "power", "on", nodeName)
	r.do("soft reboot", "node", "reboot", "--soft", nodeName)
	r.do("boot device pxe", "node", "boot", "device", "set", nodeName, "pxe")
	r.doJSON("boot device show", "node", "boot", "device", "show", nodeName)
	r.do("boot device disk persistent", "node", "boot", "device", "set", nodeName, "disk", "--persistent")
	r.do("boot device cdrom", "node", "boot", "device", "set", nodeName, "cdrom")
	r.doJSON("supported boot devices", "node", "boot", "device", "show", "--supported", nodeName)
	r.do("boot mode set", "node", "boot", "mode", "set", nodeName, "bios")
	r.do("legacy boot capability", "node", "set", nodeName, "--property", "capabilities=boot_mode:bios")
	r.do("legacy boot device pxe persistent", "node", "boot", "device", "set", nodeName, "pxe", "--persistent")
	r.do("inject nmi", "node", "inject", "nmi", nodeName)
	r.do("send raw", "node", "passthru", "call", nodeName, "send_raw", "--arg", "raw_bytes=0x06 0x01")
	r.do("bmc reset cold", "node", "passthru", "call", nodeName, "bmc_reset", "--arg", "warm=false")
	r.do("bmc reset warm", "node", "passthru", "call", nodeName, "bmc_reset")
	r.do("console enable", "node", "console", "enable", nodeName)
	r.doJSON("console show", "node", "console", "show", nodeName)
	r.do("console disable", "node", "console", "disable", nodeName)
	// A BMC that stops answering: each ipmitool times out, the retries
	// end after command_retry_timeout, the node says why.
	r.bmc.Pause()
	r.do("power off with a hung BMC", "node", "power", "off", nodeName)
	r.bmc.Resume()
	r.do("wrong password", "node", "set", nodeName, "--driver-info", "ipmi_password=wrong")
	r.do("power off with a wrong password", "node", "power", "off", nodeName)
	r.do("reboot with a wrong password", "node", "reboot", nodeName)

	// The power sync, every 2 s: the BMC refuses the password, so the
	// node goes to maintenance after power_state_sync_max_retries; with
	// the password right again, the power failure recovery takes it out.
	r.restart(true)
	r.periodic = true
	r.wait("power sync fails", func(n map[string]any) bool { return n["maintenance"] == true })
	r.do("right password", "node", "set", nodeName, "--driver-info", "ipmi_password="+r.bmc.Password)
	r.wait("power failure recovery", func(n map[string]any) bool { return n["maintenance"] == false })
	return r.steps
}

// installWrapper puts an ipmitool first on PATH that logs its command
// line (the password file as <pwfile>) and runs Debian's.
func (r *run) installWrapper() {
	bin := filepath.Join(r.dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		r.t.Fatal(err)
	}
	real := "/usr/bin/ipmitool"
	script := `#!/bin/sh
line="ipmitool"
prev=""
for a in "$@"; do
	if [ "$prev" = "-f" ]; then a="<pwfile>"; fi
	line="$line $a"
	prev=$a
done
echo "$line" >> ` + r.argvLog + `
exec ` + real + ` "$@"
`
	if err := os.WriteFile(filepath.Join(bin, "ipmitool"), []byte(script), 0o755); err != nil {
		r.t.Fatal(err)
	}
	r.t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
}

// config is the ironic.conf of both implementations; sync turns the
// power sync and power failure recovery on (every 2 s, maintenance after
// one failed retry).
func (r *run) config(port int, sync bool) string {
	interval := "0"
	if sync {
		interval = "2"
	}
	return cluster.INI{
		"DEFAULT": {
			"host": "ipmi-test", "auth_strategy": "noauth", "rpc_transport": "none", "debug": "true",
			"enabled_hardware_types":        "ipmi",
			"enabled_bios_interfaces":       "no-bios",
			"enabled_boot_interfaces":       "pxe",
			"enabled_console_interfaces":    "ipmitool-socat,no-console",
			"enabled_deploy_interfaces":     "direct",
			"enabled_inspect_interfaces":    "no-inspect",
			"enabled_management_interfaces": "ipmitool",
			"enabled_network_interfaces":    "noop",
			"enabled_power_interfaces":      "ipmitool",
			"enabled_raid_interfaces":       "no-raid",
			"enabled_rescue_interfaces":     "no-rescue",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "ipmitool,no-vendor",
			"tempdir":                       r.dir,
		},
		"api":      {"host_ip": "127.0.0.1", "port": strconv.Itoa(port)},
		"database": {"connection": "sqlite:///" + r.db},
		"dhcp":     {"dhcp_provider": "none"},
		"ipmi":     {"min_command_interval": "1", "command_retry_timeout": "3"},
		"console":  {"port_range": consolePorts, "socat_address": "127.0.0.1", "terminal_pid_dir": filepath.Join(r.dir, "pids")},
		"conductor": {
			"automated_clean":                 "false",
			"sync_power_state_interval":       interval,
			"power_failure_recovery_interval": interval,
			"power_state_sync_max_retries":    "1",
		},
	}.Merged(cluster.StateConfig(r.t, r.dir)).String()
}

func (r *run) program() cluster.Program {
	if r.python {
		return cluster.Python(cluster.AllInOne)
	}
	return cluster.Ours(cluster.AllInOne)
}

// dbsync creates Python's schema.
func (r *run) dbsync() {
	conf := filepath.Join(r.dir, "dbsync.conf")
	if err := os.WriteFile(conf, []byte(r.config(0, false)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	res := cluster.Run(r.ctx, r.t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", conf, "create_schema")
	if res.Code != 0 {
		r.t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
	}
}

// start starts the implementation's all-in-one.
func (r *run) start(sync bool) {
	name := "ironic"
	if sync {
		name = "ironic-sync"
	}
	r.svc = cluster.Start(r.ctx, r.t, cluster.Spec{Program: r.program(), Name: name, Dir: r.dir, LogTail: 8000,
		Config: func(port int) string { return r.config(port, sync) }})
	home := filepath.Join(r.dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		r.t.Fatal(err)
	}
	r.cli = osc.New(r.ctx, r.cliPath, home, r.svc.URL, "1.78")
	r.rest = cluster.NewClient(r.svc.URL, "1.82")
	r.rest.HTTP.Timeout = 30 * time.Second
}

// restart stops the all-in-one and starts it again, with the power sync
// on or off.
func (r *run) restart(sync bool) {
	if err := r.svc.Stop(); err != nil {
		r.t.Logf("stopping: %v", err)
	}
	r.start(sync)
}

// do runs one CLI step and records it once the node has settled.
func (r *run) do(name string, args ...string) { r.record(name, false, args) }

// doJSON is do for a command with JSON output.
func (r *run) doJSON(name string, args ...string) { r.record(name, true, args) }

var warning = regexp.MustCompile(`(?m)^.*(Warning|warn\(|DeprecationWarning).*\n?`)

func (r *run) record(name string, asJSON bool, args []string) {
	r.t.Helper()
	if asJSON {
		args = append(args, "-f", "json")
	}
	res := r.cli.Run(r.t, args...)
	s := step{Name: name, CLI: r.normalize("openstack baremetal " + strings.Join(args, " ")), Exit: res.Code,
		Stderr: r.normalize(strings.TrimSpace(warning.ReplaceAllString(res.Stderr, "")))}
	if asJSON && res.Code == 0 {
		if err := json.Unmarshal([]byte(r.normalize(res.Stdout)), &s.Output); err != nil {
			r.t.Fatalf("%s: %v\n%s", name, err, res.Stdout)
		}
	}
	if name == "create" {
		var n map[string]any
		r.rest.JSON(r.ctx, r.t, 200, "GET", "/v1/nodes/"+nodeName, nil, &n)
		r.uuid, _ = n["uuid"].(string)
	}
	r.settle(&s)
	r.steps = append(r.steps, s)
}

// wait waits until the node satisfies cond and records a step.
func (r *run) wait(name string, cond func(map[string]any) bool) {
	r.t.Helper()
	var n map[string]any
	cluster.Eventually(r.ctx, r.t, settleTimeout, name, func() (bool, string) {
		n = r.node()
		return cond(n), fmt.Sprint(n)
	})
	s := step{Name: name}
	r.settle(&s)
	// The periodic tasks keep running: compare which commands ran since
	// the last wait, not how often.
	s.IPMITool = slices.Compact(slices.Sorted(slices.Values(r.newCommands())))
	r.steps = append(r.steps, s)
}

// settle waits until the node holds no lock, no power target and no
// transitional provision state, then fills in the ipmitool commands run
// since the last step, the node's fields and the BMC's state.
func (r *run) settle(s *step) {
	r.t.Helper()
	var n map[string]any
	cluster.Eventually(r.ctx, r.t, settleTimeout, s.Name+" settles", func() (bool, string) {
		n = r.node()
		if n == nil {
			return true, "no node"
		}
		ps, _ := n["provision_state"].(string)
		return n["reservation"] == nil && n["target_power_state"] == nil && n["target_provision_state"] == nil &&
			!strings.HasSuffix(ps, "ing"), fmt.Sprint(n)
	})
	if r.periodic {
		s.IPMITool = []string{}
	} else {
		s.IPMITool = r.newCommands()
	}
	s.Node = r.fields(n)
	flags, ok, err := r.bmc.LastBootFlags()
	if err != nil {
		r.t.Fatal(err)
	}
	s.BMC = map[string]any{"power_on": r.bmc.PowerOn(), "boot_device": r.bmc.BootDevice()}
	if ok {
		s.BMC["boot_flags"] = fmt.Sprintf("%+v", flags)
	}
}

func (r *run) node() map[string]any {
	if r.uuid == "" {
		return nil
	}
	resp, err := r.rest.Do(r.ctx, "GET", "/v1/nodes/"+r.uuid, nil)
	if err != nil || resp.Status != 200 {
		return nil
	}
	var n map[string]any
	if err := json.Unmarshal(resp.Body, &n); err != nil {
		return nil
	}
	return n
}

// fields are the node fields compared, normalized: the node's UUID and
// the BMC's port, which differ between runs, replaced.
func (r *run) fields(n map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"power_state", "target_power_state", "provision_state", "last_error", "maintenance",
		"maintenance_reason", "fault", "console_enabled", "properties", "driver_internal_info", "boot_mode"} {
		out[k] = n[k]
	}
	if dii, ok := out["driver_internal_info"].(map[string]any); ok {
		delete(dii, "last_power_state_change")
	}
	b, _ := json.Marshal(out)
	var norm map[string]any
	_ = json.Unmarshal([]byte(r.normalize(string(b))), &norm)
	return norm
}

func (r *run) normalize(s string) string {
	if r.uuid != "" {
		s = strings.ReplaceAll(s, r.uuid, "<node>")
	}
	port := strconv.Itoa(r.bmc.Port)
	s = strings.ReplaceAll(s, "ipmi_port="+port, "ipmi_port=<bmc-port>")
	return strings.ReplaceAll(s, "-p "+port+" ", "-p <bmc-port> ")
}

// newCommands returns the ipmitool command lines logged since the last
// call, without the option probes ("ipmitool ... -h") Ironic runs when
// its drivers load.
func (r *run) newCommands() []string {
	b, _ := os.ReadFile(r.argvLog)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	var out []string
	for _, l := range lines[min(r.seen, len(lines)):] {
		if strings.HasSuffix(l, " -h") {
			continue
		}
		out = append(out, r.normalize(l))
	}
	r.seen = len(lines)
	if out == nil {
		out = []string{}
	}
	return out
}
