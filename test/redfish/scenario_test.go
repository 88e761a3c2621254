package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakeipa"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/redfishbmc"
)

// TestScenario runs the CLI scenario against Python Ironic (when it is
// installed) and against ours, each with a fresh emulated BMC, and
// compares what the BMC received and the nodes' fields, step by step.
func TestScenario(t *testing.T) {
	bin := cluster.RequireCLI(t)
	cluster.Build(t, cluster.AllInOne)
	var ref *run
	pythonOK := func() bool {
		if *update {
			cluster.RequirePython(t, "ironic.cmd.singleprocess, sushy", "python3-ironic python3-sushy")
			return true
		}
		return pythonAvailable("ironic.cmd.singleprocess, sushy")
	}()
	if pythonOK {
		ref = runScenario(t, bin, true)
		if *update {
			writeGolden(t, ref)
		} else {
			// The recorded reference must stay the reference's.
			golden := loadGolden(t)
			for i := range min(len(golden.Steps), len(ref.Steps)) {
				g, r := normalizeStep(golden.Steps[i]), normalizeStep(ref.Steps[i])
				if d := cmp.Diff(g, r); d != "" {
					t.Errorf("step %q: the reference differs from %s (re-record with -update) (-recorded +live):\n%s", g.Name, goldenPath, d)
				}
			}
			if len(golden.Steps) != len(ref.Steps) {
				t.Errorf("the reference ran %d steps, %s has %d (re-record with -update)", len(ref.Steps), goldenPath, len(golden.Steps))
			}
		}
	} else {
		t.Log("Python Ironic is not installed: comparing with the recorded reference")
		ref = loadGolden(t)
	}
	ours := runScenario(t, bin, false)
	compare(t, ref, ours)
}

// runScenario runs the scenario against one implementation.
func runScenario(t *testing.T, bin string, python bool) *run {
	t.Helper()
	ctx := cluster.TestContext(t, budget, 30*defaultMargin)
	impl := map[bool]string{true: "python", false: "go"}[python]
	srv := startServer(ctx, t, python)
	bmc := newEmulator(t)
	e := &env{
		t: t, ctx: ctx, impl: impl, bmc: bmc,
		cli:     osc.New(ctx, bin, t.TempDir(), srv.URL, apiVersion),
		rest:    cluster.NewClient(srv.URL, apiVersion),
		out:     &run{},
		nodeIDs: map[string]string{},
	}
	e.sys = bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff})
	img := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("image " + r.URL.Path))
	}))
	t.Cleanup(img.Close)
	e.images = img.URL
	e.extra = append(e.extra, [2]string{img.URL, "http://IMAGES"})
	scenario(e)
	return e.out
}

const defaultMargin = 1e9 // one second, as a time.Duration

// createNode enrolls a redfish node with the given driver_info overrides.
func (e *env) createNode(name string, info map[string]string) string {
	e.t.Helper()
	di := map[string]string{
		"redfish_address":   e.bmc.URL,
		"redfish_username":  "admin",
		"redfish_password":  "password",
		"redfish_system_id": e.sys.Path(),
	}
	for k, v := range info {
		if v == "" {
			delete(di, k)
		} else {
			di[k] = v
		}
	}
	args := []string{"node", "create", "--driver", "redfish", "--name", name}
	for _, k := range []string{"redfish_address", "redfish_username", "redfish_password", "redfish_system_id"} {
		if v, ok := di[k]; ok {
			args = append(args, "--driver-info", k+"="+v)
		}
	}
	n := e.cli.Object(e.t, args...)
	uuid, _ := n["uuid"].(string)
	e.nodeIDs[uuid] = strings.ToUpper(name)
	return uuid
}

// scenario is the CLI scenario of issue 12, step by step.
func scenario(e *env) {
	t := e.t
	var uuid string
	e.step("create", "", func() any { uuid = e.createNode("rf1", nil); return nil })
	e.step("validate", uuid, func() any {
		var rows []map[string]any
		e.cli.JSON(t, &rows, "node", "validate", uuid)
		out := map[string]any{}
		for _, r := range rows {
			if iface, _ := r["Interface"].(string); iface == "power" || iface == "management" || iface == "bios" || iface == "inspect" || iface == "raid" {
				out[iface] = r["Result"]
			}
		}
		return out
	})
	e.step("manage", uuid, func() any {
		r := e.cli.Run(t, "node", "manage", uuid)
		e.provisionSettled(uuid, "manageable")
		return e.cliResult(r)
	})
	power := func(name string, args ...string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, append(args, uuid)...)
			e.powerSettled(uuid)
			return e.cliResult(r)
		})
	}
	power("power on", "node", "power", "on")
	power("power off", "node", "power", "off")
	power("power on again", "node", "power", "on")
	power("soft power off", "node", "power", "off", "--soft")
	power("reboot when off", "node", "reboot")
	power("soft reboot", "node", "reboot", "--soft")
	power("reboot", "node", "reboot")
	cli := func(name string, args ...string) {
		e.step(name, uuid, func() any { return e.cliResult(e.cli.Run(t, args...)) })
	}
	show := func(name string, args ...string) {
		e.step(name, uuid, func() any {
			var v any
			r := e.cli.Run(t, append(args, "-f", "json")...)
			if r.Code != 0 {
				return e.cliResult(r)
			}
			_ = json.Unmarshal([]byte(r.Stdout), &v)
			return v
		})
	}
	cli("boot device pxe", "node", "boot", "device", "set", uuid, "pxe")
	show("boot device show", "node", "boot", "device", "show", uuid)
	cli("boot device disk persistent", "node", "boot", "device", "set", uuid, "disk", "--persistent")
	cli("boot device disk persistent again", "node", "boot", "device", "set", uuid, "disk", "--persistent")
	cli("boot device cdrom", "node", "boot", "device", "set", uuid, "cdrom")
	show("boot device show again", "node", "boot", "device", "show", uuid)
	show("boot devices supported", "node", "boot", "device", "show", "--supported", uuid)
	cli("boot mode bios", "node", "boot", "mode", "set", uuid, "bios")
	cli("boot mode uefi", "node", "boot", "mode", "set", uuid, "uefi")
	cli("inject nmi", "node", "inject", "nmi", uuid)
	e.step("indicators", uuid, func() any {
		var v any
		r, err := e.rest.Do(e.ctx, "GET", "/v1/nodes/"+uuid+"/management/indicators", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(e.normalize(string(r.Body))), &v)
		return map[string]any{"status": r.Status, "body": v}
	})

	show("bios settings", "node", "bios", "setting", "list", "--long", uuid)
	cli("secure boot on", "node", "secure", "boot", "on", uuid)
	cli("secure boot off", "node", "secure", "boot", "off", uuid)
	e.step("inspect", uuid, func() any {
		r := e.cli.Run(t, "node", "inspect", uuid)
		e.provisionSettled(uuid, "manageable")
		var ports []map[string]any
		e.cli.JSON(t, &ports, "port", "list", "--node", uuid, "--fields", "address", "pxe_enabled", "local_link_connection")
		return map[string]any{"cli": e.cliResult(r), "ports": ports}
	})
	passthru := func(name string, async bool, args ...string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, append([]string{"node", "passthru", "call"}, args...)...)
			if async {
				e.quiet()
			}
			out := e.cliResult(r)
			if r.Code == 0 && strings.TrimSpace(r.Stdout) != "" {
				var v any
				if json.Unmarshal([]byte(r.Stdout), &v) == nil {
					out["result"] = v
				} else {
					out["result"] = strings.TrimSpace(r.Stdout)
				}
			}
			return out
		})
	}
	passthru("eject vmedia", true, uuid, "eject_vmedia")
	passthru("eject vmedia cd", true, uuid, "eject_vmedia", "--arg", "boot_device=cd")
	passthru("create subscription", false, uuid, "create_subscription", "--arg", "Destination=https://listener.example:8443/events")
	passthru("create subscription with event types", false, uuid, "create_subscription",
		"--arg", "Destination=https://listener.example:8443/events", "--arg", `EventTypes=["Alert"]`)
	passthru("get all subscriptions", false, "--http-method", "GET", uuid, "get_all_subscriptions")
	// The CLI sends no arguments with GET and DELETE: the subscription's
	// id goes in the body of a REST call.
	passthru("get subscription without id", false, "--http-method", "GET", uuid, "get_subscription")
	rest := func(name, method, vendorMethod string, body any) {
		e.step(name, uuid, func() any {
			r, err := e.rest.Do(e.ctx, method, "/v1/nodes/"+uuid+"/vendor_passthru?method="+vendorMethod, body)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			_ = json.Unmarshal([]byte(e.normalize(string(r.Body))), &v)
			return map[string]any{"status": r.Status, "body": v}
		})
	}
	sub := e.firstSubscription()
	rest("get subscription", "GET", "get_subscription", map[string]any{"id": sub})
	rest("get subscription bad id", "GET", "get_subscription", map[string]any{"id": "../x"})
	rest("delete subscription", "DELETE", "delete_subscription", map[string]any{"id": sub})
	rest("delete missing subscription", "DELETE", "delete_subscription", map[string]any{"id": "nope"})

	biosApply(e, uuid)
	raidDeploy(e, uuid)

	var bad string
	e.step("create bad system id", "", func() any {
		bad = e.createNode("rf2", map[string]string{"redfish_system_id": "/redfish/v1/Systems/nope"})
		return nil
	})
	e.step("manage bad system id", bad, func() any {
		r := e.cli.Run(t, "node", "manage", bad)
		e.provisionSettled(bad, "manageable")
		return e.cliResult(r)
	})
	var wrong string
	e.step("create wrong password", "", func() any {
		wrong = e.createNode("rf3", map[string]string{"redfish_password": "wrong"})
		return nil
	})
	e.step("manage wrong password", wrong, func() any {
		r := e.cli.Run(t, "node", "manage", wrong)
		e.provisionSettled(wrong, "manageable")
		return e.cliResult(r)
	})
	// A BMC answering 500 to everything: sushy retries each GET ten
	// times, three seconds apart, before the verification fails.
	broken, err := e.bmc.AddBMC("broken", redfishbmc.BMCSpec{})
	if err != nil {
		t.Fatal(err)
	}
	broken.AddSystem(redfishbmc.SystemSpec{})
	brokenURL := e.bmc.ListenBMC(broken)
	e.extra = append(e.extra, [2]string{brokenURL, "http://BROKEN"}, [2]string{strings.TrimPrefix(brokenURL, "http://"), "BROKEN"})
	broken.SetFault(redfishbmc.Fault{Status: 500})
	var failing string
	e.step("create failing BMC", "", func() any {
		failing = e.createNode("rf4", map[string]string{"redfish_address": brokenURL})
		return nil
	})
	e.step("manage failing BMC", failing, func() any {
		r := e.cli.Run(t, "node", "manage", failing)
		e.provisionSettled(failing, "manageable")
		return e.cliResult(r)
	})
}

// compare reports, step by step, where ours differs from the reference,
// except for the departures we keep on purpose (departures: each checks
// that the difference is exactly the documented one).
func compare(t *testing.T, ref, ours *run) {
	t.Helper()
	if len(ref.Steps) != len(ours.Steps) {
		t.Errorf("%d steps, the reference has %d", len(ours.Steps), len(ref.Steps))
	}
	for i := range min(len(ref.Steps), len(ours.Steps)) {
		r, o := normalizeStep(ref.Steps[i]), normalizeStep(ours.Steps[i])
		if dep, ok := departures[r.Name]; ok {
			if err := dep(r, o); err != nil {
				t.Errorf("step %q: not the documented departure: %v\n(-reference +ours):\n%s", r.Name, err, cmp.Diff(r, o))
			}
			continue
		}
		if d := cmp.Diff(r, o); d != "" {
			t.Errorf("step %q differs from the reference (-reference +ours):\n%s", r.Name, d)
		}
	}
}

// setRE matches a Python set of enumeration members in a message.
var setRE = regexp.MustCompile(`\{(<[^{}]*>)\}`)

// normalizeStep sorts the members of Python sets shown in messages: their
// order changes with Python's hash seed.
// emulatorIDRE matches the IDs newEmulator hands out.
var emulatorIDRE = regexp.MustCompile(`00000000-0000-4000-8000-[0-9]{12}`)

func normalizeStep(s stepResult) stepResult {
	// The emulator numbers sessions, tasks and subscriptions from one
	// counter: a client that logs in once more (a session it lost under
	// load) shifts every later ID, so IDs compare as a placeholder.
	reqs := make([]string, len(s.Requests))
	for i, r := range s.Requests {
		reqs[i] = emulatorIDRE.ReplaceAllString(r, "<emulator-id>")
	}
	s.Requests = reqs
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s.Output)
	raw := buf.Bytes()
	fixed := setRE.ReplaceAllStringFunc(emulatorIDRE.ReplaceAllString(string(raw), "<emulator-id>"), func(m string) string {
		items := strings.Split(m[1:len(m)-1], ", ")
		sort.Strings(items)
		return "{" + strings.Join(items, ", ") + "}"
	})
	var out any
	_ = json.Unmarshal([]byte(fixed), &out)
	s.Output = out
	return s
}

// pythonAvailable reports whether Debian's Python can import modules.
func pythonAvailable(modules string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, cluster.PythonBin, "-c", "import "+modules).Run() == nil
}

// raidDeploy deploys the node with the ramdisk deploy interface and the
// redfish RAID interface's apply_configuration as a deploy step, tears
// it down, and deletes the volumes as a deploy step of a second deploy.
func raidDeploy(e *env, uuid string) {
	t := e.t
	e.step("set ramdisk deploy", uuid, func() any {
		return e.cliResult(e.cli.Run(t, "node", "set", uuid, "--deploy-interface", "ramdisk",
			"--instance-info", "kernel="+e.images+"/kernel", "--instance-info", "ramdisk="+e.images+"/initramfs"))
	})
	e.step("provide", uuid, func() any {
		r := e.cli.Run(t, "node", "provide", uuid)
		e.provisionSettled(uuid, "available")
		return e.cliResult(r)
	})
	deploy := func(name, steps string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, "node", "deploy", uuid, "--deploy-steps", steps)
			if r.Code != 0 {
				return e.cliResult(r)
			}
			e.provisionSettled(uuid, "active")
			return e.cliResult(r)
		})
	}
	undeploy := func(name string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, "node", "undeploy", uuid)
			e.provisionSettled(uuid, "available")
			return e.cliResult(r)
		})
	}
	deploy("deploy with RAID", `[{"interface": "raid", "step": "apply_configuration", "priority": 150, "args": {"raid_config": {"logical_disks": [{"size_gb": 100, "raid_level": "0", "is_root_volume": true}]}}}]`)
	undeploy("undeploy")
	deploy("deploy deleting RAID", `[{"interface": "raid", "step": "delete_configuration", "priority": 150, "args": {}}]`)
	undeploy("undeploy again")
}

// biosApply applies a BIOS setting and resets the BIOS by manual
// cleaning: the node boots a (fake) agent, the BIOS steps reboot it, and
// each step runs again when the agent is back.
func biosApply(e *env, uuid string) {
	t := e.t
	e.step("set deploy images", uuid, func() any {
		return e.cliResult(e.cli.Run(t, "node", "set", uuid,
			"--driver-info", "deploy_kernel="+e.images+"/deploy.kernel", "--driver-info", "deploy_ramdisk="+e.images+"/deploy.initramfs"))
	})
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	// The agent runs on the emulated machine: it sends nothing while the
	// machine is off (else a lookup between tear down's power off and the
	// end of cleaning would leave a token behind, at a moment that
	// depends on timing alone).
	agentHTTP := &http.Client{Timeout: 10 * time.Second, Transport: poweredTransport{sys: e.sys, next: http.DefaultTransport}}
	agent := fakeipa.New(fakeipa.Options{APIURL: e.rest.URL, MACs: e.sys.MACs(), Interval: time.Second, HTTP: agentHTTP})
	if err := agent.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, [2]string{agent.URL(), "http://AGENT"})
	clean := func(name, steps string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, "node", "clean", uuid, "--clean-steps", steps)
			if r.Code != 0 {
				return e.cliResult(r)
			}
			e.provisionSettled(uuid, "manageable")
			return e.cliResult(r)
		})
	}
	clean("clean: bios apply_configuration", `[{"interface": "bios", "step": "apply_configuration", "args": {"settings": [{"name": "ProcTurboMode", "value": "Disabled"}]}}]`)
	show := func(name string, args ...string) {
		e.step(name, uuid, func() any {
			var v map[string]any
			e.cli.JSON(t, &v, args...)
			for _, k := range []string{"created_at", "updated_at"} {
				if v[k] != nil {
					v[k] = "<set>"
				}
			}
			return v
		})
	}
	show("bios settings after apply", "node", "bios", "setting", "show", uuid, "ProcTurboMode")
	clean("clean: bios factory_reset", `[{"interface": "bios", "step": "factory_reset"}]`)
	show("bios settings after reset", "node", "bios", "setting", "show", uuid, "ProcTurboMode")
}

// poweredTransport sends requests only while the system is on.
type poweredTransport struct {
	sys  *redfishbmc.System
	next http.RoundTripper
}

func (p poweredTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if p.sys.PowerState() != redfishbmc.PowerOn {
		return nil, errors.New("the machine is off")
	}
	return p.next.RoundTrip(r)
}
