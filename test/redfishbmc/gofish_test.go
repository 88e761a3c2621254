package redfishbmc_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"

	"github.com/goironic/ironic/test/redfishbmc"
)

// connect opens a gofish session (or basic auth) to endpoint.
func connect(t *testing.T, endpoint string, basic bool) *gofish.APIClient {
	t.Helper()
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: endpoint, Username: "admin", Password: "password", BasicAuth: basic})
	if err != nil {
		t.Fatalf("gofish.Connect: %v", err)
	}
	t.Cleanup(c.Logout)
	return c
}

func oneSystem(t *testing.T, c *gofish.APIClient) *schemas.ComputerSystem {
	t.Helper()
	systems, err := c.Service.Systems()
	if err != nil {
		t.Fatalf("Systems: %v", err)
	}
	if len(systems) != 1 {
		t.Fatalf("%d systems, want 1", len(systems))
	}
	return systems[0]
}

func TestGofishPowerAndBoot(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	sys := ts.AddSystem(redfishbmc.SystemSpec{})
	for _, basic := range []bool{false, true} {
		c := connect(t, ts.URL, basic)
		s := oneSystem(t, c)
		if s.ID != sys.ID() || s.UUID != sys.UUID() {
			t.Errorf("system %s/%s, want %s/%s", s.ID, s.UUID, sys.ID(), sys.UUID())
		}
		if got, _ := s.GetSupportedResetTypes(); len(got) != len(redfishbmc.AllResetTypes()) {
			t.Errorf("reset types %v", got)
		}
	}
	c := connect(t, ts.URL, false)
	s := oneSystem(t, c)
	if s.PowerState != schemas.OffPowerState {
		t.Fatalf("power %q, want Off", s.PowerState)
	}
	if _, err := s.Reset(schemas.OnResetType); err != nil {
		t.Fatalf("Reset On: %v", err)
	}
	if got := sys.PowerState(); got != redfishbmc.PowerOn {
		t.Fatalf("emulator power %q, want On", got)
	}
	// gofish sends the ETag it read: the power change made it stale.
	err := s.SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.PxeBootSource})
	var rerr *schemas.Error
	if !errors.As(err, &rerr) || rerr.HTTPReturnedStatusCode != 412 {
		t.Fatalf("SetBoot with a stale ETag: %v", err)
	}
	s = oneSystem(t, c)
	err = s.SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.PxeBootSource,
		BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled})
	if err != nil {
		t.Fatalf("SetBoot: %v", err)
	}
	if b := sys.Boot(); b.Target != "Pxe" || b.Enabled != "Once" || b.Mode != "UEFI" {
		t.Fatalf("boot %+v", b)
	}
	if _, err := s.Reset(schemas.ForceRestartResetType); err != nil {
		t.Fatalf("Reset ForceRestart: %v", err)
	}
	boots := sys.Boots()
	if len(boots) != 2 || boots[1].Target != "Pxe" || boots[0].Target != "None" {
		t.Fatalf("boots %+v", boots)
	}
	if b := sys.Boot(); b.Enabled != "Disabled" {
		t.Fatalf("a Once override survived the boot: %+v", b)
	}
	s = oneSystem(t, c)
	err = s.SetBoot(&schemas.Boot{BootSourceOverrideTarget: "Tape"})
	if err == nil {
		t.Fatal("SetBoot Tape: no error")
	}
	if !errors.As(err, &rerr) || rerr.HTTPReturnedStatusCode != 400 {
		t.Fatalf("SetBoot Tape: %v", err)
	}
	managers, err := c.Service.Managers()
	if err != nil || len(managers) != 1 {
		t.Fatalf("Managers: %v %v", managers, err)
	}
	chassis, err := c.Service.Chassis()
	if err != nil || len(chassis) != 1 {
		t.Fatalf("Chassis: %v %v", chassis, err)
	}
	if chassis[0].PowerState != schemas.OnPowerState {
		t.Errorf("chassis power %q", chassis[0].PowerState)
	}
}

func TestSlowPowerTransition(t *testing.T) {
	clk := newClock()
	ts := redfishbmc.ForTest(t, redfishbmc.Options{Now: clk.Now})
	sys := ts.AddSystem(redfishbmc.SystemSpec{PowerDelay: 10 * time.Second})
	c := connect(t, ts.URL, false)
	s := oneSystem(t, c)
	if _, err := s.Reset(schemas.OnResetType); err != nil {
		t.Fatal(err)
	}
	if got := sys.PowerState(); got != redfishbmc.PowerOff {
		t.Fatalf("power %q right after On, want Off until the delay passes", got)
	}
	clk.Advance(10 * time.Second)
	if got := sys.PowerState(); got != redfishbmc.PowerOn {
		t.Fatalf("power %q after the delay, want On", got)
	}
}

// clock is a settable clock for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

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
