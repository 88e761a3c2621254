package option

import (
	"encoding"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Binder reads options straight onto the fields of a component's Config.
// Each component declares the options it reads in a Bind method next to
// the code that reads them, one call per option:
//
//	func (c *Config) Bind(b *option.Binder) {
//		b.Seconds(&c.HeartbeatTimeout, "conductor", "heartbeat_timeout")
//		b.Int(&c.WorkersPoolSize, "conductor", "workers_pool_size")
//	}
//
// A call stores the option's value at once: what the configuration sets,
// else the table's default, converted to the field's type and checked
// against the option's type, choices and bounds. A component never
// carries a default of its own; where its zero value means something
// else than the option's, the Bind method converts, once.
//
// The first bad value does not stop binding; Err reports every one. The
// options a Binder bound (Read) are what this service implements, and
// what Effective shows. A Binder is used at start-up, by one goroutine.
type Binder struct {
	vals      *Values
	component string
	st        *binderState
}

type binderState struct {
	errs  []error
	read  map[string]bool
	bound []binding
}

// binding is one option bound to a field.
type binding struct {
	component, key string
	field          any // the pointer given to the Binder
}

// NewBinder returns a Binder that reads from vals.
func NewBinder(vals *Values) *Binder {
	return &Binder{vals: vals, st: &binderState{read: map[string]bool{}}}
}

// Defaults returns a Binder over the table's defaults alone, as if
// ironic.conf were empty, with the sample file's values for the options
// whose default depends on the machine ([DEFAULT]host is "localhost",
// my_ip "127.0.0.1").
func Defaults() *Binder {
	v, err := NewValues(Sources{Defaults: hostDefaults()})
	if err != nil {
		panic(err) // no command line: cannot fail
	}
	return NewBinder(v)
}

// Default returns a component's Config bound to the table's defaults. It
// panics if the Config binds an option the table lacks or a field that
// cannot hold it: that is a programming error, which every component's
// tests catch.
func Default[C any, P interface {
	*C
	Bind(*Binder)
}]() C {
	var c C
	b := Defaults()
	P(&c).Bind(b)
	if err := b.Err(); err != nil {
		panic(err)
	}
	return c
}

// For returns a Binder for the named component that shares b's values,
// errors and records; Effective groups options by component.
func (b *Binder) For(component string) *Binder {
	return &Binder{vals: b.vals, component: component, st: b.st}
}

// Err returns the bad values and binding mistakes met so far, joined.
func (b *Binder) Err() error { return errors.Join(b.st.errs...) }

// Read returns the options bound so far, and those their values refer
// to through "$name" (e.g. [DEFAULT]state_path through [database]
// connection's default), as sorted "section.name" keys.
func (b *Binder) Read() []string {
	out := make([]string, 0, len(b.st.read))
	for k := range b.st.read {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Effective returns, per component, each bound option's value as the
// field it was bound to holds it now: strings, booleans, numbers
// (durations in seconds), lists and dicts as JSON would show them, nil
// for an unset optional value, the text of text-unmarshalled fields.
func (b *Binder) Effective() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, bd := range b.st.bound {
		m := out[bd.component]
		if m == nil {
			m = map[string]any{}
			out[bd.component] = m
		}
		m[bd.key] = current(bd.field)
	}
	return out
}

// current is the value a bound field holds, for Effective.
func current(field any) any {
	switch p := field.(type) {
	case *string:
		return *p
	case *bool:
		return *p
	case *int:
		return *p
	case **int:
		if *p == nil {
			return nil
		}
		return **p
	case *float64:
		return *p
	case *time.Duration:
		return p.Seconds()
	case *[]string:
		return *p
	case *map[string]string:
		return *p
	case encoding.TextMarshaler:
		t, err := p.MarshalText()
		if err != nil {
			return fmt.Sprintf("<%v>", err)
		}
		return string(t)
	}
	return fmt.Sprintf("<%T>", field)
}

// IsSet tells whether ironic.conf or the command line sets the option;
// defaults do not count (e.g. oslo.policy falls back to policy.json only
// when policy_file is not set).
func (b *Binder) IsSet(section, name string) bool { return b.vals.IsSet(section, name) }

// String binds a String, HostAddress or IPAddress option.
func (b *Binder) String(p *string, section, name string) { b.bind(p, section, name) }

// Bool binds a Boolean option.
func (b *Binder) Bool(p *bool, section, name string) { b.bind(p, section, name) }

// Int binds an Integer, Port or Octal option; unset is 0.
func (b *Binder) Int(p *int, section, name string) { b.bind(p, section, name) }

// OptionalInt binds an Integer option without a default: nil when unset.
func (b *Binder) OptionalInt(p **int, section, name string) { b.bind(p, section, name) }

// Float binds a Float option.
func (b *Binder) Float(p *float64, section, name string) { b.bind(p, section, name) }

// Seconds binds an Integer or Float option counted in seconds; the sign
// is kept, so an option whose 0 or negative value disables something
// reads as a Duration that is 0 or negative.
func (b *Binder) Seconds(p *time.Duration, section, name string) { b.bind(p, section, name) }

// List binds a List option (comma-separated; never nil once set) or a
// MultiString option (every value, in the order written).
func (b *Binder) List(p *[]string, section, name string) { b.bind(p, section, name) }

// Dict binds a Dict option ("key:value" pairs).
func (b *Binder) Dict(p *map[string]string, section, name string) { b.bind(p, section, name) }

// Text binds a String option through the field's UnmarshalText, for
// options with a syntax of their own; the field should also implement
// encoding.TextMarshaler, for Effective. Unset is the zero value.
func (b *Binder) Text(p encoding.TextUnmarshaler, section, name string) { b.bind(p, section, name) }

func (b *Binder) bind(field any, section, name string) {
	key := NormalizeSection(section) + "." + name
	o, ok := b.vals.idx.Lookup(key)
	if !ok || o.Key() != key {
		b.fail(fmt.Errorf("conf: internal error: %s binds [%s] %s, which is not an option of the table (or not its current name)", b.name(), section, name))
		return
	}
	b.st.read[key] = true
	v, err := b.vals.r.resolve(o)
	if err == nil {
		err = assign(field, o, v)
	}
	if err != nil {
		b.fail(err)
		return
	}
	for _, r := range v.refs {
		b.st.read[r] = true
	}
	b.st.bound = append(b.st.bound, binding{component: b.component, key: key, field: field})
}

// fail records err once: components that bind the same bad value do not
// repeat it.
func (b *Binder) fail(err error) {
	for _, e := range b.st.errs {
		if e.Error() == err.Error() {
			return
		}
	}
	b.st.errs = append(b.st.errs, err)
}

func (b *Binder) name() string {
	if b.component == "" {
		return "a component"
	}
	return b.component
}
