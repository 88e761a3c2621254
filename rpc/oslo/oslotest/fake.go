// Package oslotest has a fake conductor for transport tests: it records
// every call with its arguments and answers with canned results or faults.
package oslotest

import (
	"context"
	"sync"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/rpc"
)

// Call is one recorded call: the Go method name, the topic, the arguments
// after the topic, and the request context the conductor saw.
type Call struct {
	Method  string
	Topic   string
	Args    []any
	Context *ironic.RequestContext
}

// Fake implements rpc.ConductorAPI by recording calls.
type Fake struct {
	mu      sync.Mutex
	calls   []Call
	results map[string]any
	errs    map[string]error
	hook    func(ctx context.Context, method string) error
	notify  chan<- Call
}

// SetHook makes every call run hook (after recording it); a non-nil error
// from hook is returned. Tests use it to block or observe.
func (f *Fake) SetHook(hook func(ctx context.Context, method string) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hook = hook
}

// SetNotify makes every recorded call be sent on ch.
func (f *Fake) SetNotify(ch chan<- Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notify = ch
}

var _ rpc.ConductorAPI = (*Fake)(nil)

// New returns an empty fake.
func New() *Fake { return &Fake{results: map[string]any{}, errs: map[string]error{}} }

// SetResult makes method (the Go method name) return v.
func (f *Fake) SetResult(method string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.results[method] = v
}

// SetError makes method fail with err.
func (f *Fake) SetError(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs[method] = err
}

// Calls returns the calls so far.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Last returns the last call, or a zero Call.
func (f *Fake) Last() Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return Call{}
	}
	return f.calls[len(f.calls)-1]
}

func (f *Fake) record(ctx context.Context, method, topic string, args ...any) error {
	c := Call{Method: method, Topic: topic, Args: args, Context: ironic.FromContext(ctx)}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	err := f.errs[method]
	hook, notify := f.hook, f.notify
	f.mu.Unlock()
	if notify != nil {
		select {
		case notify <- c:
		case <-ctx.Done():
		}
	}
	if hook != nil {
		if herr := hook(ctx, method); herr != nil {
			return herr
		}
	}
	return err
}

func result[T any](f *Fake, method string) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, _ := f.results[method].(T)
	return v
}
