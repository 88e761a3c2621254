package powersync_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/dev/bmcload/plainget"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

// load is what a setup serves: how many BMCs, how slow, how many fail
// and how.
type load struct {
	nodes   int
	latency time.Duration
	// failEvery makes every failEvery-th BMC (the last of each
	// failEvery) fail with fault; 0 none.
	failEvery int
	fault     redfishbmc.Fault
	// tune adjusts the conductor's configuration (conductor.DefaultConfig
	// with ForcePowerStateDuringSync off) and redfish the driver's
	// (redfish.DefaultConfig).
	tune    func(*conductor.Config)
	redfish func(*redfish.Config)
}

// setup is one conductor with the redfish power and management
// interfaces, on SQLite, and an in-process emulator whose BMCs each
// listen on a loopback port of their own, one node per BMC.
type setup struct {
	emu   *redfishbmc.TestServer
	m     *conductor.Manager
	store *db.Store
	// nodes[i] is BMC bmcs[i]'s node; failing[i] says whether it fails.
	nodes   []*models.Node
	bmcs    []*redfishbmc.BMC
	urls    []string
	failing []bool
}

// newSetup enrolls l.nodes redfish nodes as a manage would leave them:
// manageable, vendor, boot mode and secure boot cached, power state
// recorded. The emulator's systems are Off; every tenth node (the first
// included) is recorded "power on", so a pass has nodes to correct, and
// failing BMCs' nodes are recorded "power off".
func newSetup(t testing.TB, l load) *setup {
	t.Helper()
	ctx := context.Background()
	emu := redfishbmc.ForTest(t, redfishbmc.Options{Latency: l.latency, RequestLogLimit: 16 * l.nodes})
	s := &setup{emu: emu, store: dbtest.SQLite(t)}
	for i := range l.nodes {
		b, err := emu.AddBMC(strconv.Itoa(i), redfishbmc.BMCSpec{})
		if err != nil {
			t.Fatal(err)
		}
		b.AddSystem(redfishbmc.SystemSpec{})
		fails := l.failEvery > 0 && i%l.failEvery == l.failEvery-1
		if fails {
			b.SetFault(l.fault)
		}
		url := emu.ListenBMC(b)
		recorded := states.PowerOff
		if i%10 == 0 {
			recorded = states.PowerOn
		}
		n, err := s.store.CreateNode(ctx, &models.Node{
			UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Name: models.Ptr("psync-" + strconv.Itoa(i)),
			Driver:         "redfish",
			ProvisionState: models.Ptr(states.Manageable), PowerState: models.Ptr(recorded),
			DriverInfo: models.DictOf("redfish_address", url, "redfish_system_id", "/redfish/v1/Systems/1",
				"redfish_username", "admin", "redfish_password", "password"),
			Properties: models.DictOf("vendor", "goironic"), BootMode: models.Ptr("uefi"), SecureBoot: models.Ptr(false),
			BIOSInterface: models.Ptr("no-bios"), BootInterface: models.Ptr("ipxe"), ConsoleInterface: models.Ptr("no-console"),
			DeployInterface: models.Ptr("direct"), InspectInterface: models.Ptr("no-inspect"),
			ManagementInterface: models.Ptr("redfish"), NetworkInterface: models.Ptr("noop"), PowerInterface: models.Ptr("redfish"),
			RAIDInterface: models.Ptr("no-raid"), RescueInterface: models.Ptr("no-rescue"), StorageInterface: models.Ptr("noop"),
			VendorInterface: models.Ptr("no-vendor"),
		})
		if err != nil {
			t.Fatal(err)
		}
		s.nodes, s.bmcs, s.urls, s.failing = append(s.nodes, n), append(s.bmcs, b), append(s.urls, url), append(s.failing, fails)
	}
	rc := redfish.DefaultConfig()
	if l.redfish != nil {
		l.redfish(&rc)
	}
	impls := append(generic.Implementations(), redfish.Implementations(rc)...)
	reg, err := drivers.NewRegistry(drivers.Config{
		EnabledHardwareTypes: []string{"redfish"},
		Enabled: map[string][]string{
			"bios": {"no-bios"}, "boot": {"ipxe"}, "console": {"no-console"}, "deploy": {"direct"},
			"inspect": {"no-inspect"}, "management": {"redfish"}, "network": {"noop"}, "power": {"redfish"},
			"raid": {"no-raid"}, "rescue": {"no-rescue"}, "storage": {"noop"}, "vendor": {"no-vendor"},
		},
	}, impls...)
	if err != nil {
		t.Fatal(err)
	}
	cc := conductor.DefaultConfig()
	cc.Host = "psync"
	cc.ForcePowerStateDuringSync = false
	if l.tune != nil {
		l.tune(&cc)
	}
	s.m = conductor.New(cc, s.store, reg, nil, slog.New(slog.DiscardHandler))
	if err := s.m.Register(ctx); err != nil {
		t.Fatal(err)
	}
	s.m.Wait()
	t.Cleanup(s.m.Wait)
	return s
}

// pass runs one power sync pass and returns how long it took and how
// many requests the BMCs received meanwhile.
func (s *setup) pass(t testing.TB) (time.Duration, int64) {
	t.Helper()
	before := s.emu.RequestCount()
	start := time.Now()
	if err := s.m.SyncPowerStates(context.Background()); err != nil {
		t.Fatal(err)
	}
	return time.Since(start), s.emu.RequestCount() - before
}

// stale counts the nodes of healthy BMCs whose recorded power state is
// not their system's.
func (s *setup) stale(t testing.TB) int {
	t.Helper()
	n := 0
	for i, node := range s.nodes {
		if s.failing[i] {
			continue
		}
		got, err := s.store.GetNodeByID(context.Background(), node.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := states.PowerOff
		if s.bmcs[i].Systems()[0].PowerState() == redfishbmc.PowerOn {
			want = states.PowerOn
		}
		if models.Deref(got.PowerState) != want {
			n++
		}
	}
	return n
}

// sentToEveryBMC fails t when a pass sent fewer requests than there are
// healthy BMCs (each of their nodes needs at least its system read): a
// pass that skipped nodes or failed them before any request.
func (s *setup) sentToEveryBMC(t testing.TB, requests int64) {
	t.Helper()
	healthy := 0
	for _, f := range s.failing {
		if !f {
			healthy++
		}
	}
	if requests < int64(healthy) {
		t.Fatalf("the pass sent %d requests to %d healthy BMCs", requests, healthy)
	}
}

// plainLoop sends requests GETs of the BMCs' systems, round robin, from
// workers goroutines, as directly as Go can (dev/bmcload's loop): the
// time the same number of requests takes at the same concurrency and
// latency, without Ironic.
func (s *setup) plainLoop(t testing.TB, requests, workers int) time.Duration {
	t.Helper()
	targets := make([]string, len(s.urls))
	for i, u := range s.urls {
		targets[i] = u + "/redfish/v1/Systems/1"
	}
	took, err := plainget.Run(context.Background(), &http.Client{Timeout: time.Minute}, plainget.Spec{
		Targets: targets, Requests: requests, Workers: workers, Username: "admin", Password: "password",
	})
	if err != nil {
		t.Error(err)
	}
	return took
}

// heapProfile names the file BenchmarkPowerSync1000 writes the heap
// profile of the first pass to.
var heapProfile = flag.String("heapprofile", "", "write the heap profile after BenchmarkPowerSync1000's first pass to this file")

// memAfter is the process's memory right after a pass.
type memAfter struct {
	// heapGrowth is the heap in use after a GC, in bytes (a difference
	// once the caller subtracts the figure before the pass).
	heapGrowth float64
	goroutines int
}

// measure collects garbage and reads the heap in use and the goroutines;
// profile, if set, receives the heap profile.
func measure(t testing.TB, profile string) memAfter {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if profile != "" {
		f, err := os.Create(profile) //nolint:gosec // the -heapprofile flag
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	return memAfter{heapGrowth: float64(ms.HeapInuse), goroutines: runtime.NumGoroutine()}
}
