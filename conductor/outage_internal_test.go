package conductor

import (
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// errDown is what the MySQL driver returns while the server is stopped.
var errDown = &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}

// outageStore is a Store whose node writes fail as a stopped database
// makes them fail while down is set.
type outageStore struct {
	Store
	mu       sync.Mutex
	down     bool
	releases int
}

func (s *outageStore) setDown(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = v
}

func (s *outageStore) isDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

func (s *outageStore) ReleaseNode(ctx context.Context, tag string, ref db.Ref) error {
	s.mu.Lock()
	s.releases++
	s.mu.Unlock()
	if s.isDown() {
		return fmt.Errorf("releasing: %w", errDown)
	}
	return s.Store.ReleaseNode(ctx, tag, ref)
}

func (s *outageStore) UpdateNode(ctx context.Context, ref db.Ref, vals db.Values) (*models.Node, error) {
	if s.isDown() {
		return nil, fmt.Errorf("updating: %w", errDown)
	}
	return s.Store.UpdateNode(ctx, ref, vals)
}

// pauses is an untilAvailable pause that records the waits and ends the
// outage after the n-th.
type pauses struct {
	store *outageStore
	n     int
	mu    sync.Mutex
	got   []time.Duration
}

func (p *pauses) pause(_ context.Context, d time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, d)
	if len(p.got) == p.n {
		p.store.setDown(false)
	}
	return nil
}

func outageManager(t *testing.T, s *db.Store) (*Manager, *outageStore, *pauses) {
	t.Helper()
	reg, err := drivers.NewRegistry(drivers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Host, cfg.NodeLockedRetryAttempts, cfg.NodeLockedRetryInterval = "c1", 1, time.Millisecond
	st := &outageStore{Store: s}
	m := New(cfg, st, reg, nil, nil)
	p := &pauses{store: st, n: 3}
	m.locks.pause = p.pause
	return m, st, p
}

// A release the database refuses for an outage does not keep its caller
// waiting; it is tried again, with growing pauses, until the database
// answers, and the node counts as held (not reconciled, not claimable by
// this conductor) until then.
func TestReleaseRetriedUntilTheDatabaseAnswers(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		m, st, p := outageManager(t, s)
		n, err := s.CreateNode(ctx, &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		gate := make(chan struct{})
		p.n = 3
		m.locks.pause = func(ctx context.Context, d time.Duration) error {
			<-gate
			return p.pause(ctx, d)
		}
		if _, err := m.locks.reserve(ctx, db.ByID(n.ID)); err != nil {
			t.Fatal(err)
		}
		st.setDown(true)
		m.locks.release(ctx, n.ID, n.UUID) // returns: the retry is in the background
		if !m.locks.holds(n.ID, n.UUID) {
			t.Error("the node is not held while its release is retried")
		}
		close(gate)
		m.Wait()
		if m.locks.holds(n.ID, n.UUID) {
			t.Error("the node is still held after its release")
		}
		got, err := s.GetNodeByID(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Reservation != nil {
			t.Errorf("reservation %q after the database came back", *got.Reservation)
		}
		want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
		if fmt.Sprint(p.got) != fmt.Sprint(want) || st.releases != 5 {
			t.Errorf("pauses %v, %d releases; want %v, 5 (the first, then one after each pause and one that succeeds)", p.got, st.releases, want)
		}
	})
}

// A conductor that stops ends the retries: what they leave is the next
// start's.
func TestReleaseRetryEndsWhenTheConductorStops(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		m, st, _ := outageManager(t, s)
		m.locks.pause = nil // the real timer, which stopRetries interrupts
		n, err := s.CreateNode(ctx, &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.locks.reserve(ctx, db.ByID(n.ID)); err != nil {
			t.Fatal(err)
		}
		st.setDown(true)
		m.locks.release(ctx, n.ID, n.UUID)
		m.locks.stopRetries()
		done := make(chan struct{})
		go func() { m.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the release retry outlived stopRetries")
		}
		if m.locks.holds(n.ID, n.UUID) {
			t.Error("the node is still held after the retry ended")
		}
	})
}

// A worker's task whose last save (its failure transition) the database
// refused saves again, once the database answers, before it releases the
// lock: the node ends in the failed state, unreserved, not in its
// transient state. A task nobody waits for is the only one that waits so.
func TestWorkerTaskSavesItsFailureBeforeRelease(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		m, st, p := outageManager(t, s)
		n, err := s.CreateNode(ctx, &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Deploying)})
		if err != nil {
			t.Fatal(err)
		}
		reserved, err := m.locks.reserve(ctx, db.ByID(n.ID))
		if err != nil {
			t.Fatal(err)
		}
		tk := &task{m: m, node: reserved, orig: snapshot(reserved), mode: exclusiveLock, worker: true}
		st.setDown(true)
		tk.node.ProvisionState = models.Ptr(states.DeployFailed)
		tk.node.LastError = models.Ptr("boom")
		if err := tk.Save(ctx); err == nil {
			t.Fatal("the save succeeded with the database down")
		}
		p.n = 2
		tk.release(ctx)
		m.Wait()
		got, err := s.GetNodeByID(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Reservation != nil || models.Deref(got.ProvisionState) != states.DeployFailed || models.Deref(got.LastError) != "boom" {
			t.Errorf("node after the outage: reservation %v state %s last_error %q; want none, deploy failed, boom",
				got.Reservation, models.Deref(got.ProvisionState), models.Deref(got.LastError))
		}
		if len(p.got) != 2 {
			t.Errorf("%d pauses, want 2", len(p.got))
		}

		// A synchronous task (an RPC handler) neither waits nor writes
		// later what its caller was told failed.
		n2, err := s.CreateNode(ctx, &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		reserved, err = m.locks.reserve(ctx, db.ByID(n2.ID))
		if err != nil {
			t.Fatal(err)
		}
		tk = &task{m: m, node: reserved, orig: snapshot(reserved), mode: exclusiveLock}
		st.setDown(true)
		tk.node.Extra = models.NewJSONDict()
		tk.node.Extra.Set("k", "v")
		if err := tk.Save(ctx); err == nil {
			t.Fatal("the save succeeded with the database down")
		}
		p.got, p.n = nil, 1
		tk.release(ctx)
		m.Wait()
		if got, err := s.GetNodeByID(ctx, n2.ID); err != nil || got.Reservation != nil || got.Extra.Get("k") != nil {
			t.Errorf("sync task's node: %v, reservation %v extra %v; want unreserved, extra not written", err, got.Reservation, got.Extra)
		}
	})
}
