package db_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 12, 2, 11, 51, 42, 332271000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// seqUUIDs mints predictable UUIDs.
type seqUUIDs struct {
	mu sync.Mutex
	n  int
}

func (u *seqUUIDs) NewUUID() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.n++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", u.n)
}

// env is one store under test with its clock.
type env struct {
	*db.Store
	clock   *fakeClock
	backend string
}

// both runs body on a fresh SQLite and a fresh MariaDB store.
func both(t *testing.T, body func(t *testing.T, e *env)) {
	t.Helper()
	for _, b := range dbtest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			c := newClock()
			s := b.Open(t, db.WithClock(c), db.WithUUIDs(&seqUUIDs{}))
			body(t, &env{Store: s, clock: c, backend: b.Name})
		})
	}
}

// wantFault checks that err is a fault of class c with message msg ("" to
// skip the message check).
func wantFault(t *testing.T, err error, c ironic.Class, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", c)
	}
	var f *ironic.Fault
	if !errors.As(err, &f) {
		t.Fatalf("got %T %v, want *ironic.Fault %s", err, err, c)
	}
	if f.Class != c {
		t.Fatalf("got fault %s (%q), want %s", f.Class, f.Message, c)
	}
	if msg != "" && f.Message != msg {
		t.Fatalf("got message %q, want %q", f.Message, msg)
	}
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
