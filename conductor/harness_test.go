package conductor_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
)

// harness is the conductor tree's one test harness: a registered
// conductor on a real store (SQLite and MariaDB, see dbtest.RunBoth) with
// the fake drivers, configured by options.
type harness struct {
	m     *conductor.Manager
	store *db.Store
}

type harnessOpt func(*harnessCfg)

type harnessCfg struct {
	host    string
	clock   ironic.Clock
	fake    fake.Config
	drivers drivers.Config
	impls   []drivers.Implementation
	added   []drivers.Implementation
	methods []drivers.DriverMethod
	tune    []func(*conductor.Config)
}

// fakeHardwareOnly enables the fake-hardware type with its fake
// interfaces (noop network and storage): the default.
func fakeHardwareOnly() drivers.Config {
	return drivers.Config{
		EnabledHardwareTypes: []string{"fake-hardware"},
		Enabled: map[string][]string{
			"bios": {"fake"}, "boot": {"fake"}, "console": {"fake"}, "deploy": {"fake"},
			"inspect": {"fake"}, "management": {"fake"}, "network": {"noop"}, "power": {"fake"},
			"raid": {"fake"}, "rescue": {"fake"}, "storage": {"noop"}, "vendor": {"fake"},
		},
	}
}

// withManualManagement also enables the manual-management hardware type
// and the generic interfaces its nodes default to (noop management,
// no-console, no-raid, no-vendor, ...).
func withManualManagement() harnessOpt {
	return func(c *harnessCfg) {
		c.drivers = drivers.Config{
			EnabledHardwareTypes: []string{"fake-hardware", "manual-management"},
			Enabled: map[string][]string{
				"bios": {"fake", "no-bios"}, "boot": {"fake", "pxe"}, "console": {"fake", "no-console"}, "deploy": {"fake", "direct"},
				"inspect": {"fake", "no-inspect"}, "management": {"fake", "noop"}, "network": {"noop"}, "power": {"fake"},
				"raid": {"fake", "no-raid"}, "rescue": {"fake", "no-rescue"}, "storage": {"noop"}, "vendor": {"fake", "no-vendor"},
			},
		}
	}
}

// withHost names the conductor ("c1" by default).
func withHost(host string) harnessOpt { return func(c *harnessCfg) { c.host = host } }

// withClock runs the conductor on cl (the system clock by default); the
// store takes its clock from dbtest.RunBoth's db.WithClock.
func withClock(cl ironic.Clock) harnessOpt { return func(c *harnessCfg) { c.clock = cl } }

// withFake configures the fake implementations (delays, sleep).
func withFake(fc fake.Config) harnessOpt { return func(c *harnessCfg) { c.fake = fc } }

// withImpl replaces the fake (or generic) implementation of the same kind
// and name.
func withImpl(k drivers.Kind, name string, impl any) harnessOpt {
	return func(c *harnessCfg) {
		c.impls = append(c.impls, drivers.Implementation{Kind: k, Name: name, Impl: impl})
	}
}

// withDriverMethod registers a driver method for every hardware type
// (ipxe_config, ...).
func withDriverMethod(dm drivers.DriverMethod) harnessOpt {
	return func(c *harnessCfg) { c.methods = append(c.methods, dm) }
}

// withWorkers sets [conductor]workers_pool_size.
func withWorkers(n int) harnessOpt {
	return withConfig(func(c *conductor.Config) { c.WorkersPoolSize = n })
}

// withConfig adjusts the conductor's configuration, which starts as
// conductor.DefaultConfig() with host "c1" and node lock retries of
// 2 × 10 ms.
func withConfig(tune func(*conductor.Config)) harnessOpt {
	return func(c *harnessCfg) { c.tune = append(c.tune, tune) }
}

// newHarness registers a conductor over store. Its start-up work (the
// resumption of allocations) has finished when newHarness returns, and
// its workers are waited for when the test ends.
func newHarness(t testing.TB, store *db.Store, opts ...harnessOpt) *harness {
	t.Helper()
	hc := harnessCfg{host: "c1", drivers: fakeHardwareOnly()}
	for _, o := range opts {
		o(&hc)
	}
	impls := append(fake.Implementations(hc.fake), generic.Implementations()...)
	for _, o := range hc.impls {
		i := slices.IndexFunc(impls, func(im drivers.Implementation) bool { return im.Kind == o.Kind && im.Name == o.Name })
		if i < 0 {
			t.Fatalf("no %s implementation %q to replace", o.Kind, o.Name)
		}
		impls[i] = o
	}
	impls = append(impls, hc.added...)
	reg, err := drivers.NewRegistry(hc.drivers, impls...)
	if err != nil {
		t.Fatal(err)
	}
	for _, dm := range hc.methods {
		if err := reg.RegisterDriverMethod(dm); err != nil {
			t.Fatal(err)
		}
	}
	cfg := conductor.DefaultConfig()
	cfg.Configdrive = configdrive.Builder{}
	cfg.Host, cfg.NodeLockedRetryAttempts, cfg.NodeLockedRetryInterval = hc.host, 2, 10*time.Millisecond
	for _, tune := range hc.tune {
		tune(&cfg)
	}
	m := conductor.New(cfg, store, reg, hc.clock, nil)
	if err := m.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Register starts resuming allocations on a worker; with a small pool
	// that worker would otherwise race the test for a slot.
	m.Wait()
	t.Cleanup(m.Wait)
	return &harness{m: m, store: store}
}

// node creates a node of the hardware type with the given column values.
func (h *harness) node(t testing.TB, driver string, vals db.Values) *models.Node {
	t.Helper()
	ctx := context.Background()
	n, err := h.m.CreateNode(ctx, "", &models.Node{Driver: driver})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) > 0 {
		if n, err = h.store.UpdateNode(ctx, db.ByID(n.ID), vals); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// reload reads the node back.
func (h *harness) reload(t testing.TB, n *models.Node) *models.Node {
	t.Helper()
	got, err := h.store.GetNodeByID(context.Background(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// byUUID reads a node by UUID.
func (h *harness) byUUID(t testing.TB, uuid string) *models.Node {
	t.Helper()
	n, err := h.store.GetNodeByUUID(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lockElsewhere makes another conductor hold the node's lock until the
// test ends (or release is called).
func (h *harness) lockElsewhere(t testing.TB, n *models.Node) (release func()) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.store.ReserveNode(ctx, "other-host", db.ByID(n.ID)); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if err := h.store.ReleaseNode(ctx, "other-host", db.ByID(n.ID)); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// wantFault checks err's class and message.
func wantFault(t testing.TB, what string, err error, class ironic.Class, msg string) {
	t.Helper()
	f := ironic.AsFault(err)
	if err == nil || f.Class != class || f.Message != msg {
		t.Errorf("%s: got %v (%s), want %s %q", what, err, f.Class, class, msg)
	}
}

// clock is a settable clock tests move by hand, shared by the store
// (db.WithClock) and the conductor (withClock).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
