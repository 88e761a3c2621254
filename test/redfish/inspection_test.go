package redfish

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/redfishbmc"
)

// inspectionGolden holds the reference's results of
// TestVirtualMediaInspection.
const inspectionGolden = "testdata/inspection.json"

// callbackRoot is [inspector]callback_endpoint_override: the ramdisk's
// inspector (a loopback address is refused as a callback URL).
const callbackRoot = "http://192.0.2.1:5050"

// TestVirtualMediaInspection inspects redfish nodes with
// boot_interface=redfish-virtual-media and inspect_interface=inspector,
// with the real ironic-inspector 11.1, on ours against the emulated BMC,
// and compares with what Python Ironic 21.4 did in the same scenario
// (testdata/inspection.json, recorded with -update), step by step: the
// BMC's requests, the nodes' fields, the requests each
// way between the service and inspector, the images published under
// [deploy]http_root, the virtual CD and the kernel command line of the
// published ISO (isolinux.cfg, read with isoinfo): ports pre-created from
// the BMC's NICs, the ISO built with the inspection callback and
// inserted, boot once from the CD, inspector started with
// manage_boot=False, the node powered on; the played ramdisk's data
// posted to inspector's /v1/continue; the status check ejects the CD,
// removes the ISO, powers the node off and stores the inventory. A BMC
// refusing InsertMedia fails the inspection with 21.4's message and
// leaves nothing inserted or published. Re-record the reference with
//
//	go test -count=1 -p 1 ./test/redfish -run TestVirtualMediaInspection -update
func TestVirtualMediaInspection(t *testing.T) {
	bin := cluster.RequireCLI(t)
	inspector.Require(t)
	for _, f := range []string{"/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"} {
		if _, err := os.Stat(f); err != nil {
			cluster.Missing(t, cluster.RequirePythonEnv, fmt.Sprintf("%v (apt-get install isolinux syslinux-common)", err))
		}
	}
	if _, err := exec.LookPath("isoinfo"); err != nil {
		cluster.Missing(t, cluster.RequirePythonEnv, "isoinfo is missing (apt-get install genisoimage)")
	}
	cluster.Build(t, cluster.AllInOne)
	if *update {
		cluster.RequirePython(t, "ironic.cmd.singleprocess, sushy", "python3-ironic python3-sushy")
	}
	// The reference runs live only when re-recorded (it takes half the
	// test's time, most of it Python's start and retries).
	ref := loadGoldenAt(t, inspectionGolden)
	if *update {
		ref = runInspectionScenario(t, bin, true)
		writeGoldenAt(t, inspectionGolden, ref)
	}
	ours := runInspectionScenario(t, bin, false)
	compareWith(t, ref, ours, inspectionDepartures)
}

// inspectionDepartures are the steps of TestVirtualMediaInspection where
// ours differs on purpose (docs/departures.md).
var inspectionDepartures = map[string]func(ref, ours stepResult) error{
	// The first BIOS caching reads the BMC's registries, which Debian's
	// python3-sushy can't (departures' "manage").
	"manage vm1": func(ref, ours stepResult) error { return departures["manage"](ref, ours) },
}

// inspEnv is the inspection scenario's env with inspector and the
// recording proxies each way.
type inspEnv struct {
	*env
	insp                  *inspector.Inspector
	toInspector, toIronic *inspector.Proxy
	httpRoot              string
	// rest181 reads inventories (API 1.81).
	rest181 *cluster.Client
}

func runInspectionScenario(t *testing.T, bin string, python bool) *run {
	t.Helper()
	ctx := cluster.TestContext(t, budget, 30*defaultMargin)
	impl := map[bool]string{true: "python", false: "go"}[python]
	inspPort, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	toInspector := inspector.NewProxy(t, fmt.Sprintf("http://127.0.0.1:%d", inspPort))
	var httpRoot, httpURL string
	srv := startServer(ctx, t, python, func(dir string) cluster.INI {
		httpRoot = filepath.Join(dir, "http")
		hs := httptest.NewServer(http.FileServer(http.Dir(httpRoot)))
		t.Cleanup(hs.Close)
		httpURL = hs.URL
		return cluster.INI{
			"DEFAULT": {"isolinux_bin": "/usr/lib/ISOLINUX/isolinux.bin", "enabled_inspect_interfaces": "no-inspect,redfish,inspector"},
			"deploy":  {"http_root": httpRoot, "http_url": hs.URL, "iso_master_path": filepath.Join(dir, "master_iso"), "default_boot_mode": "bios"},
			"redfish": {"use_swift": "false"},
			"inspector": {"endpoint_override": toInspector.URL, "callback_endpoint_override": callbackRoot,
				"status_check_period": "1", "extra_kernel_params": "ipa-inspection-collectors=default,logs"},
		}
	})
	toIronic := inspector.NewProxy(t, srv.URL)
	insp := inspector.Start(ctx, t, inspector.Options{IronicURL: toIronic.URL, Port: inspPort})
	bmc := newEmulator(t)
	e := &inspEnv{env: &env{
		t: t, ctx: ctx, impl: impl, bmc: bmc,
		cli:     osc.New(ctx, bin, t.TempDir(), srv.URL, apiVersion),
		rest:    cluster.NewClient(srv.URL, apiVersion),
		out:     &run{},
		nodeIDs: map[string]string{},
	}, insp: insp, toInspector: toInspector, toIronic: toIronic, httpRoot: httpRoot,
		rest181: cluster.NewClient(srv.URL, "1.81")}
	e.sys = bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff, BootMode: "Legacy"})
	img := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("image " + r.URL.Path))
	}))
	t.Cleanup(img.Close)
	e.images = img.URL
	e.extra = append(e.extra, [2]string{img.URL, "http://IMAGES"}, [2]string{httpURL, "http://HTTP"})
	inspectionScenario(e)
	return e.out
}

func inspectionScenario(e *inspEnv) {
	t := e.t
	vm1 := e.enrollForInspection("vm1", e.sys)
	e.step("inspect vm1", vm1, func() any {
		r := e.cli.Run(t, "node", "inspect", vm1)
		e.waitNode(vm1, "inspect wait", func(n map[string]any) bool {
			s, _ := n["provision_state"].(string)
			return s == "inspect wait" || strings.HasSuffix(s, "failed")
		})
		out := e.media(r)
		out["kernel_params"] = e.isoKernelParams()
		out["ports"] = e.portAddresses(vm1)
		out["to_inspector"] = e.exchange(e.toInspector)
		return out
	})
	e.step("ramdisk data vm1", vm1, func() any {
		data := inspector.Machine{MACs: e.sys.MACs(), DiskSizes: []int64{20 << 30, 10 << 30}, CPUs: 2, MemoryMB: 2048}.Data()
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, data)
		if err != nil {
			t.Fatalf("/v1/continue: %v", err)
		}
		e.waitNode(vm1, "manageable", func(n map[string]any) bool {
			s, _ := n["provision_state"].(string)
			return s == "manageable" || strings.HasSuffix(s, "failed")
		})
		e.inventoryFetched(vm1)
		e.quiet()
		out := e.media(osc.Result{})
		out["continue"] = map[string]any{"status": status, "body": e.normalize(body)}
		var inv map[string]any
		e.rest181.JSON(e.ctx, t, 200, "GET", "/v1/nodes/"+vm1+"/inventory", nil, &inv)
		cpu, _ := inv["inventory"].(map[string]any)["cpu"].(map[string]any)
		out["inventory_cpus"] = cpu["count"]
		out["ports"] = e.portAddresses(vm1)
		out["to_inspector"] = e.exchange(e.toInspector)
		out["to_ironic"] = e.exchange(e.toIronic)
		return out
	})

	// A BMC refusing InsertMedia (500): inspect failed, nothing left.
	refusing := e.bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff, BootMode: "Legacy", RefuseInsertMedia: http.StatusInternalServerError})
	vm2 := e.enrollForInspection("vm2", refusing)
	e.step("inspect vm2 refused", vm2, func() any {
		r := e.cli.Run(t, "node", "inspect", vm2)
		e.waitNode(vm2, "inspect failed", func(n map[string]any) bool {
			s, _ := n["provision_state"].(string)
			return s == "manageable" || s == "inspect wait" || strings.HasSuffix(s, "failed")
		})
		e.quiet()
		out := e.media(r)
		cd, _ := refusing.VirtualMedia("Cd")
		out["cd"] = map[string]any{"inserted": cd.Inserted, "image": e.normalize(cd.Image)}
		out["to_inspector"] = e.exchange(e.toInspector)
		return out
	})
}

// enrollForInspection creates a redfish node on sys with the virtual
// media boot and inspector inspect interfaces, and manages it.
func (e *inspEnv) enrollForInspection(name string, sys *redfishbmc.System) string {
	t := e.t
	var uuid string
	e.step("create "+name, "", func() any {
		uuid = e.createNode(name, map[string]string{"redfish_system_id": sys.Path()})
		return nil
	})
	e.step("set inspection "+name, uuid, func() any {
		return e.cliResult(e.cli.Run(t, "node", "set", uuid, "--boot-interface", "redfish-virtual-media", "--inspect-interface", "inspector",
			"--driver-info", "deploy_kernel="+e.images+"/vmlinuz", "--driver-info", "deploy_ramdisk="+e.images+"/initrd"))
	})
	e.step("manage "+name, uuid, func() any {
		r := e.cli.Run(t, "node", "manage", uuid)
		e.provisionSettled(uuid, "manageable")
		return e.cliResult(r)
	})
	return uuid
}

// media is a step's CLI result with what is published and in vm1's CD.
func (e *inspEnv) media(r osc.Result) map[string]any {
	out := e.cliResult(r)
	out["published"] = e.published(e.httpRoot)
	cd, _ := e.sys.VirtualMedia("Cd")
	out["cd"] = map[string]any{"inserted": cd.Inserted, "image": e.normalize(cd.Image)}
	return out
}

var (
	pubIDRE = regexp.MustCompile(`^ir_pub_id=[0-9a-f-]{36}$`)
	tokenRE = regexp.MustCompile(`^ipa-agent-token=\S+$`)
)

// isoKernelParams is the kernel command line of the one ISO published
// under http_root/redfish (isolinux.cfg's append line), its words sorted
// (docs/departures.md: ours writes the ramdisk parameters in key order),
// the publisher id and token normalised.
func (e *inspEnv) isoKernelParams() []string {
	e.t.Helper()
	isos, _ := filepath.Glob(filepath.Join(e.httpRoot, "redfish", "*.iso"))
	if len(isos) != 1 {
		return []string{fmt.Sprintf("%d ISOs published", len(isos))}
	}
	cfg, err := exec.CommandContext(e.ctx, "isoinfo", "-R", "-i", isos[0], "-x", "/isolinux/isolinux.cfg").Output()
	if err != nil {
		e.t.Fatalf("isoinfo -x /isolinux/isolinux.cfg: %v", err)
	}
	var words []string
	for _, line := range strings.Split(string(cfg), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "append "); ok {
			words = strings.Fields(rest)
		}
	}
	for i, w := range words {
		switch {
		case pubIDRE.MatchString(w):
			words[i] = "ir_pub_id=ID"
		case tokenRE.MatchString(w):
			words[i] = "ipa-agent-token=TOKEN"
		default:
			words[i] = e.normalize(w)
		}
	}
	sort.Strings(words)
	return words
}

// portAddresses are the node's ports' MACs, sorted.
func (e *inspEnv) portAddresses(uuid string) []string {
	var body struct {
		Ports []struct {
			Address string `json:"address"`
		} `json:"ports"`
	}
	e.rest.JSON(e.ctx, e.t, 200, "GET", "/v1/ports?node="+uuid, nil, &body)
	out := []string{}
	for _, p := range body.Ports {
		out = append(out, p.Address)
	}
	sort.Strings(out)
	return out
}

// inventoryFetched waits (bounded) until the service has fetched
// inspector's data for the node and stored it.
func (e *inspEnv) inventoryFetched(uuid string) {
	path := "/v1/introspection/" + uuid + "/data"
	cluster.Eventually(e.ctx, e.t, settle, "GET "+path, func() (bool, string) {
		for _, r := range e.toInspector.Requests() {
			if r.Method == "GET" && r.Path == path {
				return true, ""
			}
		}
		return false, ""
	})
	cluster.Eventually(e.ctx, e.t, settle, "the inventory stored", func() (bool, string) {
		r, err := e.rest181.Do(e.ctx, "GET", "/v1/nodes/"+uuid+"/inventory", nil)
		if err != nil {
			return false, err.Error()
		}
		return r.Status == http.StatusOK, fmt.Sprint(r.Status)
	})
}

var (
	anyUUIDRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	pollRE     = regexp.MustCompile(`^GET /v1/introspection/[^/]+$`)
	stampRE    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?`)
	loopbackRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// exchange is what p saw since the last call, as Request.Line lines with the nodes named and other UUIDs, times and
// loopback URLs replaced; the status polls (timing) and a line repeating
// the one before are dropped.
func (e *inspEnv) exchange(p *inspector.Proxy) []string {
	reqs := p.Requests()
	p.Reset()
	out := []string{}
	for _, r := range reqs {
		if pollRE.MatchString(e.normalize(r.Method + " " + r.Path)) {
			continue
		}
		line := e.normalize(r.Line())
		line = anyUUIDRE.ReplaceAllString(stampRE.ReplaceAllString(line, "TIME"), "UUID")
		line = loopbackRE.ReplaceAllString(line, "http://HOST")
		if len(out) > 0 && out[len(out)-1] == line {
			continue
		}
		out = append(out, line)
	}
	return out
}
