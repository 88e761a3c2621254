package ipmi_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/internal/pyjson"
)

// call is one command the fake runner ran: its argv with the password
// file's path shown as <pwfile>, and the file's content and mode as
// they were while it ran.
type call struct {
	Argv     []string
	Password string
	Mode     os.FileMode
	Timeout  time.Duration
	Codes    []int
}

func (c call) String() string { return strings.Join(c.Argv, " ") }

// fakeRunner records commands and answers them through answer (nil:
// every command succeeds with no output; "power status" says off).
// Option probes ("-h") succeed unless noProbes.
type fakeRunner struct {
	mu       sync.Mutex
	calls    []call
	answer   func(c call) (string, string, error)
	noProbes bool
	clock    *fakeClock // advanced by each run's duration, when set
	duration time.Duration
}

func (r *fakeRunner) Run(_ context.Context, argv []string, opts ipmi.RunOptions) (string, string, error) {
	if slices.Contains(argv, "-h") {
		if r.noProbes {
			return "", "", &ipmi.ExecError{Argv: argv, ExitCode: 1}
		}
		return "", "", nil
	}
	c := call{Argv: slices.Clone(argv), Timeout: opts.Timeout, Codes: opts.ExitCodes}
	if i := slices.Index(c.Argv, "-f"); i >= 0 && i+1 < len(c.Argv) {
		path := c.Argv[i+1]
		b, err := os.ReadFile(path)
		if err != nil {
			return "", "", fmt.Errorf("fake runner: password file: %w", err)
		}
		st, _ := os.Stat(path)
		c.Password, c.Mode = string(b), st.Mode().Perm()
		c.Argv[i+1] = "<pwfile>"
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	answer := r.answer
	r.mu.Unlock()
	if r.clock != nil {
		r.clock.advance(r.duration)
	}
	if answer != nil {
		return answer(c)
	}
	if strings.HasSuffix(c.String(), "power status") {
		return "Chassis Power is off\n", "", nil
	}
	return "", "", nil
}

func (r *fakeRunner) commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.String()
	}
	return out
}

func (r *fakeRunner) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// fakeClock is a clock that only sleeping moves.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep advances the clock and records d.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// zeroRand makes the polling jitter exactly oslo's mean (0.75).
type zeroRand struct{}

func (zeroRand) NormFloat64() float64 { return 0 }

// setup is the ipmitool interfaces over a fake runner and clock.
type setup struct {
	runner *fakeRunner
	clock  *fakeClock
	cfg    ipmi.Config
	power  *ipmi.Power
	mgmt   *ipmi.Management
	vendor *ipmi.Vendor
	socat  *ipmi.Console
	shell  *ipmi.Console
}

func newSetup(t *testing.T, configure ...func(*ipmi.Config)) *setup {
	t.Helper()
	s := &setup{runner: &fakeRunner{}, clock: newFakeClock()}
	s.runner.clock = s.clock
	cfg := ipmi.DefaultConfig()
	cfg.TempDir = t.TempDir()
	cfg.Runner, cfg.Clock, cfg.Sleeper, cfg.Rand = s.runner, s.clock, s.clock, zeroRand{}
	for _, c := range configure {
		c(&cfg)
	}
	s.use(cfg)
	return s
}

// use builds the interfaces from cfg.
func (s *setup) use(cfg ipmi.Config) {
	s.cfg = cfg
	for _, im := range ipmi.Implementations(cfg) {
		switch x := im.Impl.(type) {
		case *ipmi.Power:
			s.power = x
		case *ipmi.Management:
			s.mgmt = x
		case *ipmi.Vendor:
			s.vendor = x
		case *ipmi.Console:
			if im.Name == "ipmitool-socat" {
				s.socat = x
			} else {
				s.shell = x
			}
		}
	}
}

// task is a node with the given driver_info, driven by s's interfaces.
func (s *setup) task(info *pyjson.Dict) *fake.Task {
	return &fake.Task{
		Node: &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "ipmi", DriverInfo: info},
		Drv:  &drivers.Driver{HardwareType: "ipmi", Power: s.power, Management: s.mgmt, Vendor: s.vendor, Console: s.socat},
	}
}

// node is a typical node's driver_info.
func node(extra ...any) *pyjson.Dict {
	return pyjson.DictOf(append([]any{"ipmi_address", "10.1.2.3", "ipmi_port", "6230", "ipmi_username", "admin", "ipmi_password", "s3cret"}, extra...)...)
}
