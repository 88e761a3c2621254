package oslo

import (
	"encoding/json"
	"fmt"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/objects"
)

// argError is a request whose arguments don't fit the method: Python
// raises TypeError (or the field's ValueError) before the method runs.
type argError struct {
	class string
	msg   string
}

func (e *argError) Error() string { return e.msg }

// args reads a request's arguments by name, keeping the first error.
type args struct {
	method string
	o      rawjson.Object
	err    error
}

func (a *args) fail(class, format string, v ...any) {
	if a.err == nil {
		a.err = &argError{class: class, msg: fmt.Sprintf(format, v...)}
	}
}

// raw returns the argument, or nil (after recording a TypeError) when a
// required one is missing.
func (a *args) raw(name string, required bool) []byte {
	r := a.o.Get(name)
	if r == nil && required {
		a.fail("TypeError", "%s() missing 1 required positional argument: '%s'", a.method, name)
	}
	return r
}

func (a *args) wrap(name string, err error) {
	if err != nil {
		a.fail("ValueError", "%s(%s): %v", a.method, name, err)
	}
}

func (a *args) str(name string) string {
	r := a.raw(name, true)
	if r == nil {
		return ""
	}
	s, err := rawjson.DecodeOptString(r)
	a.wrap(name, err)
	return models.Deref(s)
}

func (a *args) optStr(name string) *string {
	r := a.raw(name, false)
	if r == nil {
		return nil
	}
	s, err := rawjson.DecodeOptString(r)
	a.wrap(name, err)
	return s
}

func (a *args) boolean(name string, required bool) bool {
	r := a.raw(name, required)
	if r == nil || rawjson.IsNull(r) {
		return false
	}
	b, err := rawjson.DecodeBool(r)
	a.wrap(name, err)
	return b
}

func (a *args) optBool(name string) *bool {
	r := a.raw(name, false)
	if r == nil {
		return nil
	}
	b, err := rawjson.DecodeOptBool(r)
	a.wrap(name, err)
	return b
}

func (a *args) integer(name string, required bool) int {
	r := a.raw(name, required)
	if r == nil || rawjson.IsNull(r) {
		return 0
	}
	n, err := rawjson.DecodeInt(r)
	a.wrap(name, err)
	return int(n)
}

func (a *args) anyValue(name string, required bool) any {
	r := a.raw(name, required)
	if r == nil {
		return nil
	}
	v, err := rawjson.DecodeAny(r)
	a.wrap(name, err)
	return v
}

func (a *args) dict(name string, required bool) *pyjson.Dict {
	r := a.raw(name, required)
	if r == nil {
		return nil
	}
	d, err := rawjson.DecodeDict(r)
	a.wrap(name, err)
	return d
}

func (a *args) strings(name string, required bool) []string {
	r := a.raw(name, required)
	if r == nil {
		return nil
	}
	s, err := rawjson.DecodeStrings(r)
	a.wrap(name, err)
	return s
}

// dictList reads a list of dicts (steps) or null.
func (a *args) dictList(name string, required bool) []*pyjson.Dict {
	r := a.raw(name, required)
	if r == nil || rawjson.IsNull(r) {
		return nil
	}
	elems, err := rawjson.SplitArray(r)
	if err != nil {
		a.wrap(name, err)
		return nil
	}
	out := make([]*pyjson.Dict, len(elems))
	for i, e := range elems {
		d, err := rawjson.DecodeDict(e)
		if err != nil {
			a.wrap(name, err)
			return nil
		}
		out[i] = d
	}
	return out
}

func objectArg[T any](a *args, d *objects.Def[T], name string) objects.Object[T] {
	r := a.raw(name, true)
	if r == nil {
		return objects.Object[T]{}
	}
	o, err := d.Decode(r)
	a.wrap(name, err)
	return o
}

// objValue is an object argument or result, written as its primitive.
type objValue[T any] struct {
	def  *objects.Def[T]
	v    *T
	opts objects.EncodeOpts
}

func (o objValue[T]) AppendPyJSON(dst []byte) ([]byte, error) {
	if o.v == nil {
		return append(dst, "null"...), nil
	}
	return o.def.Append(dst, o.v, o.opts)
}

// encodeResult writes a method's result.
func encodeResult(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return pyjson.Append(make([]byte, 0, 256), v)
}

// decodeInto reads a JSON result into a Go value, numbers kept as
// json.Number inside untyped values.
func decodeInto[T any](raw []byte) (T, error) {
	var out T
	if raw == nil {
		return out, nil
	}
	err := pyjson.Unmarshal(raw, &out)
	return out, err
}

var _ = json.Number("")
