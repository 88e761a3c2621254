package conf

import (
	"testing"

	"github.com/goironic/ironic/option"
)

// bindAs binds the option key ("section.name") onto a field of the Go
// type its option type suggests and returns the value: string, int,
// float64, bool, []string or map[string]string.
func bindAs(c *Config, key string) (any, error) {
	idx := option.NewIndex(option.Table())
	o, ok := idx.Lookup(key)
	if !ok {
		panic("no option " + key)
	}
	b := option.NewBinder(c.Values())
	var v any
	switch o.Type {
	case option.String, option.HostAddress, option.IPAddress:
		var s string
		b.String(&s, o.Section, o.Name)
		v = s
	case option.Integer, option.Port, option.Octal:
		var n int
		b.Int(&n, o.Section, o.Name)
		v = n
	case option.Float:
		var f float64
		b.Float(&f, o.Section, o.Name)
		v = f
	case option.Boolean:
		var x bool
		b.Bool(&x, o.Section, o.Name)
		v = x
	case option.List, option.MultiString:
		var l []string
		b.List(&l, o.Section, o.Name)
		v = l
	case option.Dict:
		var m map[string]string
		b.Dict(&m, o.Section, o.Name)
		v = m
	}
	return v, b.Err()
}

// get is bindAs for a value that must bind.
func get(t *testing.T, c *Config, key string) any {
	t.Helper()
	v, err := bindAs(c, key)
	if err != nil {
		t.Errorf("binding %s: %v", key, err)
	}
	return v
}
