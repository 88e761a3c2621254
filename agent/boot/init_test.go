package boot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeProcs plays the agent's starts and the children's ends: each
// start takes the next PID (or fails), and WaitAny hands out the
// scripted ends in order.
type fakeProcs struct {
	nextPID   int
	startErrs []error
	starts    int
	ends      []Exit
	sleeps    []time.Duration
	files     map[string]string
	onStart   func(n int)
}

func (f *fakeProcs) StartAgent() (int, error) {
	f.starts++
	if f.onStart != nil {
		f.onStart(f.starts)
	}
	if len(f.startErrs) >= f.starts && f.startErrs[f.starts-1] != nil {
		return 0, f.startErrs[f.starts-1]
	}
	f.nextPID++
	return f.nextPID, nil
}

func (f *fakeProcs) WaitAny() (Exit, error) {
	if len(f.ends) == 0 {
		return Exit{}, errors.New("no child processes")
	}
	e := f.ends[0]
	f.ends = f.ends[1:]
	return e, nil
}

func (f *fakeProcs) ReadFile(name string) ([]byte, error) {
	if v, ok := f.files[name]; ok {
		return []byte(v), nil
	}
	return nil, fs.ErrNotExist
}

func (f *fakeProcs) WriteFile(string, []byte, fs.FileMode) error { return nil }

func supervisorFor(f *fakeProcs, starts int) *Supervisor {
	return &Supervisor{
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Starter: f, Reaper: f, Files: f,
		Sleep:        func(ctx context.Context, d time.Duration) error { f.sleeps = append(f.sleeps, d); return ctx.Err() },
		RestartDelay: DefaultRestartDelay, Starts: starts,
	}
}

func TestSupervisorRestartsAndReaps(t *testing.T) {
	f := &fakeProcs{nextPID: 100, ends: []Exit{
		{PID: 300, Code: 0},          // an orphan
		{PID: 101, Code: 2},          // the first agent crashes
		{PID: 301, Signal: "killed"}, // another orphan
		{PID: 102, Signal: "segmentation fault"},
		{PID: 103, Code: 0},
	}}
	reaped, err := supervisorFor(f, 3).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.starts != 3 || reaped != 2 {
		t.Errorf("starts %d reaped %d, want 3 and 2", f.starts, reaped)
	}
	// IPA's unit: RestartSec=30s between starts, none after the last.
	if d := cmp.Diff([]time.Duration{30 * time.Second, 30 * time.Second}, f.sleeps); d != "" {
		t.Errorf("sleeps (-want +got):\n%s", d)
	}
}

func TestSupervisorRetriesAFailedStart(t *testing.T) {
	f := &fakeProcs{nextPID: 100, startErrs: []error{errors.New("exec format error")}, ends: []Exit{{PID: 101}}}
	if _, err := supervisorFor(f, 2).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.starts != 2 || len(f.sleeps) != 1 {
		t.Errorf("starts %d, sleeps %v", f.starts, f.sleeps)
	}
}

func TestSupervisorStopsOnceRescued(t *testing.T) {
	f := &fakeProcs{nextPID: 100, files: map[string]string{}, ends: []Exit{{PID: 101}}}
	// rescue.finalize_rescue writes the marker while the first agent runs.
	f.onStart = func(n int) { f.files[RescuedMarker] = "" }
	if _, err := supervisorFor(f, 0).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.starts != 1 {
		t.Errorf("the agent was started %d times after the rescue, want once", f.starts)
	}
}

func TestSupervisorStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeProcs{nextPID: 100, ends: []Exit{{PID: 101}}}
	f.onStart = func(int) { cancel() }
	_, err := supervisorFor(f, 0).Run(ctx)
	if !errors.Is(err, context.Canceled) || f.starts != 1 {
		t.Errorf("err %v after %d starts", err, f.starts)
	}
}

func TestExitString(t *testing.T) {
	if got := (Exit{PID: 7, Code: 3}).String(); got != "pid 7 exited with status 3" {
		t.Error(got)
	}
	if got := (Exit{PID: 7, Signal: "killed"}).String(); got != "pid 7 killed by killed" {
		t.Error(got)
	}
}
