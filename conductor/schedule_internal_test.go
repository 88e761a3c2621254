package conductor

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSchedule steps the periodic schedule on a fake clock: jobs come due
// one interval after the start and every interval after they ran, a
// disabled job never runs, a job still running when it comes due again
// is skipped that time, failures are reported, and step says how long to
// sleep.
func TestSchedule(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var ran []string
	record := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, name)
	}
	release := make(chan struct{})
	var failed []string
	s := newSchedule([]job{
		{"fast", 10 * time.Second, func(context.Context) error { record("fast"); return nil }},
		{"slow", 30 * time.Second, func(context.Context) error { record("slow"); <-release; return errors.New("boom") }},
		{"off", -1, func(context.Context) error { record("off"); return nil }},
	}, t0, func(_ context.Context, j job, err error) { failed = append(failed, j.name+": "+err.Error()) })
	step := func(at time.Duration, wantWait time.Duration, want ...string) {
		t.Helper()
		mu.Lock()
		ran = nil
		mu.Unlock()
		if wait := s.step(ctx, t0.Add(at)); wait != wantWait {
			t.Errorf("at %s: wait %s, want %s", at, wait, wantWait)
		}
		// Jobs run in their own goroutines; the fast ones finish at once.
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			got := slices.Clone(ran)
			mu.Unlock()
			slices.Sort(got)
			if slices.Equal(got, want) || time.Now().After(deadline) {
				if !slices.Equal(got, want) {
					t.Errorf("at %s: ran %v, want %v", at, got, want)
				}
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	step(0, 10*time.Second)
	step(9*time.Second, time.Second)
	step(10*time.Second, 10*time.Second, "fast")
	step(30*time.Second, 10*time.Second, "fast", "slow")
	// slow is still running at 60 s: skipped, due again at 90 s.
	step(60*time.Second, 10*time.Second, "fast")
	close(release)
	s.wait()
	if !slices.Equal(failed, []string{"slow: boom"}) {
		t.Errorf("failures %v", failed)
	}
	step(90*time.Second, 10*time.Second, "fast", "slow")
	s.wait()
}
