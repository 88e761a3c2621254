package boot

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// renewFake answers each Lease call with the next result and ends the
// run after the last; Sleep records how long it was asked to wait.
type renewFake struct {
	results    []error // nil: a lease with addr and time
	addr       []string
	calls      int
	sleeps     []time.Duration
	configured []string
	cancel     context.CancelFunc
}

func (f *renewFake) Lease(ctx context.Context, iface string) (Lease, error) {
	i := f.calls
	f.calls++
	if i == len(f.results)-1 {
		defer f.cancel()
	}
	if f.results[i] != nil {
		return Lease{}, f.results[i]
	}
	return Lease{Addr: netip.MustParsePrefix(f.addr[i]), Time: time.Hour}, nil
}

func (f *renewFake) List() ([]Link, error) { return nil, nil }
func (f *renewFake) Up(string) error       { return nil }
func (f *renewFake) Configure(name string, l Lease) error {
	f.configured = append(f.configured, name+" "+l.Addr.String())
	return nil
}

func TestKeepLeases(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &renewFake{
		results: []error{nil, errors.New("no answer"), errors.New("no answer"), nil},
		addr:    []string{"10.0.2.15/24", "", "", "10.0.2.16/24"},
		cancel:  cancel,
	}
	s := &Setup{
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), DHCP: f, Links: f, DHCPTimeout: time.Minute,
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.sleeps = append(f.sleeps, d)
			return ctx.Err()
		},
	}
	s.KeepLeases(ctx, []Interface{
		{Link: Link{Name: "eth0"}, Lease: Lease{Addr: netip.MustParsePrefix("10.0.2.15/24"), Time: 2 * time.Hour}},
		{Link: Link{Name: "eth1"}, Lease: Lease{Addr: netip.MustParsePrefix("10.0.3.15/24")}}, // no lease time: kept as is
	})
	// T1 of the first lease (1 h of 2), renewed to a 1 h lease; its T1
	// (30 min); two failures at half of what is left each time; then a
	// new address.
	want := []time.Duration{time.Hour, 30 * time.Minute, 15 * time.Minute, 7*time.Minute + 30*time.Second}
	if d := cmp.Diff(want, f.sleeps); d != "" {
		t.Errorf("sleeps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"eth0 10.0.2.15/24", "eth0 10.0.2.16/24"}, f.configured); d != "" {
		t.Errorf("configured (-want +got):\n%s", d)
	}
	if f.calls != 4 {
		t.Errorf("%d DHCP exchanges, want 4", f.calls)
	}
}
