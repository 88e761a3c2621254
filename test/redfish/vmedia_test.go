package redfish

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakeipa"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/redfishbmc"
)

// vmediaGolden holds the reference's results of TestVirtualMediaScenario.
const vmediaGolden = "testdata/vmedia.json"

// TestVirtualMediaScenario deploys and undeploys ramdisk-deploy nodes
// with the redfish-virtual-media boot interface on Python Ironic (when it
// is installed) and on ours, against the same emulated BMC, and compares
// the BMC's requests, the nodes' fields and the images published under
// [deploy]http_root, step by step: a prebuilt boot ISO re-published
// ([deploy]ramdisk_image_download_source = local) and inserted, the
// vendor eject_vmedia, a BMC refusing InsertMedia (three attempts) and a
// published ISO the BMC cannot download. Re-record the reference with
//
//	go test -count=1 -p 1 ./test/redfish -run TestVirtualMediaScenario -update
func TestVirtualMediaScenario(t *testing.T) {
	bin := cluster.RequireCLI(t)
	cluster.Build(t, cluster.AllInOne)
	var ref *run
	pythonOK := pythonAvailable("ironic.cmd.singleprocess, sushy")
	if *update {
		cluster.RequirePython(t, "ironic.cmd.singleprocess, sushy", "python3-ironic python3-sushy")
	}
	golden := func() *run { return loadGoldenAt(t, vmediaGolden) }
	if pythonOK {
		ref = runVMediaScenario(t, bin, true)
		if *update {
			writeGoldenAt(t, vmediaGolden, ref)
		} else {
			g := golden()
			if d := cmp.Diff(normalizeRun(g), normalizeRun(ref)); d != "" {
				t.Errorf("the reference differs from %s (re-record with -update) (-recorded +live):\n%s", vmediaGolden, d)
			}
		}
	} else {
		t.Log("Python Ironic is not installed: comparing with the recorded reference")
		ref = golden()
	}
	ours := runVMediaScenario(t, bin, false)
	compareWith(t, ref, ours, vmediaDepartures)
}

func normalizeRun(r *run) *run {
	out := &run{}
	for _, s := range r.Steps {
		out.Steps = append(out.Steps, normalizeStep(s))
	}
	return out
}

// runVMediaScenario runs the virtual media scenario on one
// implementation.
func runVMediaScenario(t *testing.T, bin string, python bool) *run {
	t.Helper()
	ctx := cluster.TestContext(t, budget, 30*defaultMargin)
	impl := map[bool]string{true: "python", false: "go"}[python]
	var httpRoot, httpURL string
	srv := startServer(ctx, t, python, func(dir string) cluster.INI {
		httpRoot = filepath.Join(dir, "http")
		hs := httptest.NewServer(http.FileServer(http.Dir(httpRoot)))
		t.Cleanup(hs.Close)
		httpURL = hs.URL
		return cluster.INI{
			"deploy":  {"http_url": hs.URL, "iso_master_path": filepath.Join(dir, "master_iso"), "default_boot_mode": "bios"},
			"redfish": {"use_swift": "false"},
		}
	})
	bmc := newEmulator(t)
	e := &env{
		t: t, ctx: ctx, impl: impl, bmc: bmc,
		cli:     osc.New(ctx, bin, t.TempDir(), srv.URL, apiVersion),
		rest:    cluster.NewClient(srv.URL, apiVersion),
		out:     &run{},
		nodeIDs: map[string]string{},
	}
	e.sys = bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff})
	imgDir := t.TempDir()
	for _, f := range []string{"deploy.iso", "boot.iso"} {
		if err := os.WriteFile(filepath.Join(imgDir, f), []byte("ISO "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	img := httptest.NewServer(http.FileServer(http.Dir(imgDir)))
	t.Cleanup(img.Close)
	e.images = img.URL
	e.extra = append(e.extra, [2]string{img.URL, "http://IMAGES"}, [2]string{httpURL, "http://HTTP"})
	vmediaScenario(e, httpRoot)
	return e.out
}

// published lists [deploy]http_root/redfish, normalised.
func (e *env) published(root string) []string {
	entries, _ := os.ReadDir(filepath.Join(root, "redfish"))
	out := []string{}
	for _, en := range entries {
		out = append(out, e.normalize(en.Name()))
	}
	sort.Strings(out)
	return out
}

func vmediaScenario(e *env, httpRoot string) {
	t := e.t
	enroll := func(name string, sys *redfishbmc.System, extra ...string) string {
		var uuid string
		e.step("create "+name, "", func() any {
			uuid = e.createNode(name, map[string]string{"redfish_system_id": sys.Path()})
			return nil
		})
		e.step("set virtual media "+name, uuid, func() any {
			args := append([]string{"node", "set", uuid, "--boot-interface", "redfish-virtual-media", "--deploy-interface", "ramdisk",
				"--driver-info", "deploy_iso=" + e.images + "/deploy.iso", "--instance-info", "boot_iso=" + e.images + "/boot.iso"}, extra...)
			return e.cliResult(e.cli.Run(t, args...))
		})
		e.step("validate "+name, uuid, func() any {
			var rows []map[string]any
			e.cli.JSON(t, &rows, "node", "validate", uuid)
			out := map[string]any{}
			for _, r := range rows {
				if iface, _ := r["Interface"].(string); iface == "boot" || iface == "deploy" {
					out[iface] = r["Result"]
					if r["Reason"] != nil {
						out[iface+" reason"] = e.normalize(r["Reason"].(string))
					}
				}
			}
			return out
		})
		for _, verb := range []string{"manage", "provide"} {
			e.step(verb+" "+name, uuid, func() any {
				r := e.cli.Run(t, "node", verb, uuid)
				e.provisionSettled(uuid, map[string]string{"manage": "manageable", "provide": "available"}[verb])
				return e.cliResult(r)
			})
		}
		return uuid
	}
	provision := func(name, uuid, verb, state string) {
		e.step(name, uuid, func() any {
			r := e.cli.Run(t, "node", verb, uuid)
			if r.Code == 0 {
				e.provisionSettled(uuid, state)
			}
			out := e.cliResult(r)
			out["published"] = e.published(httpRoot)
			cd, _ := e.sys.VirtualMedia("Cd")
			out["cd"] = map[string]any{"inserted": cd.Inserted, "image": e.normalize(cd.Image)}
			return out
		})
	}
	vm1 := enroll("vm1", e.sys)
	provision("deploy vm1", vm1, "deploy", "active")
	e.step("eject vmedia vm1", vm1, func() any {
		r := e.cli.Run(t, "node", "passthru", "call", vm1, "eject_vmedia")
		e.quiet()
		out := e.cliResult(r)
		out["published"] = e.published(httpRoot)
		return out
	})
	provision("undeploy vm1 after eject", vm1, "undeploy", "available")
	vmediaClean(e, vm1, httpRoot)

	// A BMC refusing InsertMedia (500): three attempts, the deploy fails.
	refusing := e.bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff, RefuseInsertMedia: http.StatusInternalServerError})
	vm2 := enroll("vm2", refusing)
	provision("deploy vm2 refused", vm2, "deploy", "active")

	// The published ISO is served where the BMC can't reach it.
	vm3 := enroll("vm3", e.sys, "--driver-info", "external_http_url=http://127.0.0.1:9/nowhere")
	provision("deploy vm3 unreachable", vm3, "deploy", "active")
}

// vmediaDepartures are the steps of TestVirtualMediaScenario where ours
// differs on purpose (docs/departures.md, "redfish-virtual-media").
var vmediaDepartures = map[string]func(ref, ours stepResult) error{
	// The first BIOS caching reads the BMC's registries, which Debian's
	// python3-sushy can't (departures' "manage").
	"manage vm1": func(ref, ours stepResult) error { return departures["manage"](ref, ours) },
}

// compareWith is compare with its own departures.
func compareWith(t *testing.T, ref, ours *run, deps map[string]func(ref, ours stepResult) error) {
	t.Helper()
	if len(ref.Steps) != len(ours.Steps) {
		t.Errorf("%d steps, the reference has %d", len(ours.Steps), len(ref.Steps))
	}
	for i := range min(len(ref.Steps), len(ours.Steps)) {
		r, o := normalizeStep(ref.Steps[i]), normalizeStep(ours.Steps[i])
		if dep, ok := deps[r.Name]; ok {
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

// vmediaClean cleans vm1 manually with an agent step: prepare_ramdisk
// re-publishes the deploy ISO and boots the node from the virtual CD, a
// fake agent (running while the machine is on) looks up and runs the
// step, and clean_up_ramdisk ejects the CD and removes the ISO.
func vmediaClean(e *env, uuid, httpRoot string) {
	t := e.t
	e.step("manage vm1 for cleaning", uuid, func() any {
		r := e.cli.Run(t, "node", "manage", uuid)
		e.provisionSettled(uuid, "manageable")
		return e.cliResult(r)
	})
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	agentHTTP := &http.Client{Timeout: 10 * time.Second, Transport: poweredTransport{sys: e.sys, next: http.DefaultTransport}}
	agent := fakeipa.New(fakeipa.Options{APIURL: e.rest.URL, MACs: e.sys.MACs(), Interval: time.Second, HTTP: agentHTTP})
	if err := agent.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, [2]string{agent.URL(), "http://AGENT"})
	e.step("clean vm1 through the agent", uuid, func() any {
		r := e.cli.Run(t, "node", "clean", uuid, "--clean-steps", `[{"interface": "deploy", "step": "erase_devices_metadata"}]`)
		if r.Code == 0 {
			e.provisionSettled(uuid, "manageable")
		}
		out := e.cliResult(r)
		out["published"] = e.published(httpRoot)
		cd, _ := e.sys.VirtualMedia("Cd")
		out["cd"] = map[string]any{"inserted": cd.Inserted, "image": e.normalize(cd.Image)}
		return out
	})
}
