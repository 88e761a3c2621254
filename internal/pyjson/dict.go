package pyjson

import (
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"slices"
)

// Dict is a JSON object that keeps its keys in insertion order, as a Python
// dict does. Ironic stores the dicts clients give it (extra, properties,
// driver_info, instance_info, network_data, ...) with json.dumps and
// returns them in the order the client wrote them; a Go map would sort
// them. Setting an existing key keeps its position, setting a new one
// appends it, deleting one closes the gap: Python's dict semantics.
//
// A *Dict is a reference, like a map: copies of the pointer share the
// dict. A nil *Dict reads as empty; writing to it panics, as writing to a
// nil map does. Nested objects read by this package are *Dict too.
type Dict struct {
	members []Member
	// index maps a key to its position once the dict is large enough for
	// a linear search to cost more than the map; nil below that.
	index map[string]int
}

// indexThreshold is the size from which a Dict keeps an index. Most of
// Ironic's dicts have a handful of keys, for which scanning is cheaper
// than hashing.
const indexThreshold = 16

// NewDict returns an empty dict with room for n keys.
func NewDict(n int) *Dict {
	return &Dict{members: make([]Member, 0, n)}
}

// DictOf builds a dict from alternating keys and values, in that order:
// DictOf("a", 1, "b", 2). A key that repeats keeps its first position and
// its last value. It panics on an odd count or a non-string key (a
// programming error).
func DictOf(kv ...any) *Dict {
	if len(kv)%2 != 0 {
		panic("pyjson.DictOf: odd number of arguments")
	}
	d := NewDict(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			panic("pyjson.DictOf: key is not a string")
		}
		d.Set(k, kv[i+1])
	}
	return d
}

// DictFromMap builds a dict from a Go map, keys sorted (a map has no order
// to keep). Nested maps become dicts.
func DictFromMap(m map[string]any) *Dict {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := NewDict(len(keys))
	for _, k := range keys {
		d.members = append(d.members, Member{Key: k, Value: Ordered(m[k])})
	}
	d.reindex()
	return d
}

// Ordered returns v with every object in it (Object, map[string]any) as a
// *Dict: an Object keeps its order, a map is sorted. Lists are copied
// only where an element changes; other values are returned as they are.
func Ordered(v any) any {
	switch x := v.(type) {
	case *Dict:
		return x
	case Object:
		d := NewDict(len(x))
		for _, m := range x {
			d.Set(m.Key, Ordered(m.Value))
		}
		return d
	case map[string]any:
		return DictFromMap(x)
	case []any:
		var out []any
		for i, e := range x {
			o := Ordered(e)
			if out == nil {
				if sameValue(o, e) {
					continue
				}
				out = slices.Clone(x)
			}
			out[i] = o
		}
		if out != nil {
			return out
		}
		return x
	}
	return v
}

// sameValue reports whether Ordered left a value as it was (only
// containers can change, and they change type or identity).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case map[string]any, Object:
		return false
	}
	switch b.(type) {
	case map[string]any, Object, []any, *Dict:
		return false
	}
	return true
}

func (d *Dict) reindex() {
	if len(d.members) < indexThreshold {
		d.index = nil
		return
	}
	d.index = make(map[string]int, len(d.members))
	for i, m := range d.members {
		d.index[m.Key] = i
	}
}

func (d *Dict) find(k string) int {
	if d == nil {
		return -1
	}
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range d.members {
		if d.members[i].Key == k {
			return i
		}
	}
	return -1
}

// Len is the number of keys.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.members)
}

// Lookup returns the value of k and whether k is present.
func (d *Dict) Lookup(k string) (any, bool) {
	i := d.find(k)
	if i < 0 {
		return nil, false
	}
	return d.members[i].Value, true
}

// Get returns the value of k, nil when absent (Python's dict.get(k)).
func (d *Dict) Get(k string) any {
	v, _ := d.Lookup(k)
	return v
}

// Has reports whether k is present.
func (d *Dict) Has(k string) bool { return d.find(k) >= 0 }

// Set sets k to v: in place if k is present, at the end if not.
func (d *Dict) Set(k string, v any) {
	if i := d.find(k); i >= 0 {
		d.members[i].Value = v
		return
	}
	d.members = append(d.members, Member{Key: k, Value: v})
	if d.index != nil {
		d.index[k] = len(d.members) - 1
	} else if len(d.members) >= indexThreshold {
		d.reindex()
	}
}

// SetDefault is Python's dict.setdefault: it sets k to v if k is absent
// and returns the value k then has.
func (d *Dict) SetDefault(k string, v any) any {
	if i := d.find(k); i >= 0 {
		return d.members[i].Value
	}
	d.Set(k, v)
	return v
}

// Delete removes k and returns its value and whether it was present
// (Python's dict.pop(k, None)). The keys after it keep their order.
func (d *Dict) Delete(k string) (any, bool) {
	i := d.find(k)
	if i < 0 {
		return nil, false
	}
	v := d.members[i].Value
	d.members = slices.Delete(d.members, i, i+1)
	if d.index != nil {
		d.reindex()
	}
	return v, true
}

// Clear removes every key.
func (d *Dict) Clear() {
	d.members = d.members[:0]
	d.index = nil
}

// Update sets every key of o in d, in o's order (Python's dict.update).
func (d *Dict) Update(o *Dict) {
	for _, m := range o.Members() {
		d.Set(m.Key, m.Value)
	}
}

// Keys returns the keys in order.
func (d *Dict) Keys() []string {
	if d == nil {
		return nil
	}
	keys := make([]string, len(d.members))
	for i, m := range d.members {
		keys[i] = m.Key
	}
	return keys
}

// All iterates over the keys and values in order. The dict must not be
// changed during the iteration.
func (d *Dict) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		if d == nil {
			return
		}
		for _, m := range d.members {
			if !yield(m.Key, m.Value) {
				return
			}
		}
	}
}

// Members returns the members in order. The slice is the dict's own: the
// caller must not change it.
func (d *Dict) Members() []Member {
	if d == nil {
		return nil
	}
	return d.members
}

// Clone returns a shallow copy (Python's dict.copy()); nil for nil.
func (d *Dict) Clone() *Dict {
	if d == nil {
		return nil
	}
	c := &Dict{members: slices.Clone(d.members)}
	c.reindex()
	return c
}

// DeepClone returns a copy in which nested dicts and lists are copied too
// (Python's copy.deepcopy of decoded JSON).
func (d *Dict) DeepClone() *Dict {
	if d == nil {
		return nil
	}
	c := NewDict(len(d.members))
	for _, m := range d.members {
		c.members = append(c.members, Member{Key: m.Key, Value: DeepCopy(m.Value)})
	}
	c.reindex()
	return c
}

// DeepCopy copies decoded JSON: dicts, maps and lists are copied, other
// values are shared (they are immutable).
func DeepCopy(v any) any {
	switch x := v.(type) {
	case *Dict:
		return x.DeepClone()
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = DeepCopy(e)
		}
		return m
	case Object:
		o := make(Object, len(x))
		for i, m := range x {
			o[i] = Member{Key: m.Key, Value: DeepCopy(m.Value)}
		}
		return o
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = DeepCopy(e)
		}
		return l
	}
	return v
}

// Map returns the dict as a Go map, nested dicts included (order is lost:
// for code that only reads). A nil dict gives a nil map.
func (d *Dict) Map() map[string]any {
	if d == nil {
		return nil
	}
	m := make(map[string]any, len(d.members))
	for _, mem := range d.members {
		m[mem.Key] = Unordered(mem.Value)
	}
	return m
}

// Unordered returns v with every *Dict and Object in it as a map.
func Unordered(v any) any {
	switch x := v.(type) {
	case *Dict:
		return x.Map()
	case Object:
		m := make(map[string]any, len(x))
		for _, mem := range x {
			m[mem.Key] = Unordered(mem.Value)
		}
		return m
	case []any:
		var out []any
		for i, e := range x {
			switch e.(type) {
			case *Dict, Object, []any:
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = Unordered(e)
			}
		}
		if out != nil {
			return out
		}
	}
	return v
}

// Equal reports whether o holds the same keys in the same order, with
// identical values (nested dicts compared the same way, other values as
// reflect.DeepEqual does): stricter than Python's ==, which the function
// Equal implements. A nil dict equals only a nil dict. go-cmp uses this
// method, so tests comparing structs that hold dicts see order.
func (d *Dict) Equal(o *Dict) bool {
	if d == nil || o == nil {
		return d == o
	}
	if len(d.members) != len(o.members) {
		return false
	}
	for i, m := range d.members {
		if m.Key != o.members[i].Key || !identical(m.Value, o.members[i].Value) {
			return false
		}
	}
	return true
}

// identical is Dict.Equal's comparison of values.
func identical(a, b any) bool {
	switch x := a.(type) {
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !identical(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Equal reports whether two decoded JSON values are equal as Python's ==
// sees them: dicts compare without regard to order (a *Dict, an Object
// and a map may be compared with each other), lists element by element,
// numbers by value (1 == 1.0).
func Equal(a, b any) bool {
	if da, ok := asDict(a); ok {
		db, ok := asDict(b)
		if !ok || da.Len() != db.Len() {
			return false
		}
		for k, va := range da.All() {
			vb, ok := db.Lookup(k)
			if !ok || !Equal(va, vb) {
				return false
			}
		}
		return true
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number, float64, int, int64:
		fa, oka := Number(a)
		fb, okb := Number(b)
		return oka && okb && fa == fb
	}
	switch b.(type) {
	case *Dict, Object, map[string]any, []any:
		return false
	}
	return a == b
}

// Number reads a decoded JSON number (json.Number, float64, int, int64)
// as a float64; false for anything else.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// asDict views an object of any of the three representations as a *Dict.
func asDict(v any) (*Dict, bool) {
	switch x := v.(type) {
	case *Dict:
		return x, true
	case Object:
		d, _ := Ordered(x).(*Dict)
		return d, true
	case map[string]any:
		return DictFromMap(x), true
	}
	return nil, false
}

// AsDict returns v as a *Dict when it is a JSON object (a *Dict, an
// Object or a map), for code that reads nested objects out of decoded JSON.
func AsDict(v any) (*Dict, bool) { return asDict(v) }

// AppendPyJSON writes the dict in Python's json.dumps format, keys in
// order; a nil dict is written as {}.
func (d *Dict) AppendPyJSON(dst []byte) ([]byte, error) {
	if d == nil {
		return append(dst, "{}"...), nil
	}
	return appendObject(dst, Object(d.members))
}

// String is the dict in json.dumps format, for messages and test output.
func (d *Dict) String() string {
	b, err := d.AppendPyJSON(nil)
	if err != nil {
		return fmt.Sprintf("<pyjson.Dict: %v>", err)
	}
	return string(b)
}

// MarshalJSON writes the dict with its keys in order (compact, as
// encoding/json writes).
func (d *Dict) MarshalJSON() ([]byte, error) {
	if d == nil {
		return []byte("{}"), nil
	}
	buf := []byte{'{'}
	for i, m := range d.members {
		if i > 0 {
			buf = append(buf, ',')
		}
		kb, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		buf = append(buf, kb...)
		buf = append(buf, ':')
		vb, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		buf = append(buf, vb...)
	}
	return append(buf, '}'), nil
}

// UnmarshalJSON reads a JSON object, keeping its key order (nested objects
// become *Dict, numbers json.Number).
func (d *Dict) UnmarshalJSON(b []byte) error {
	v, err := DecodeDict(b)
	if err != nil {
		return err
	}
	*d = *v
	return nil
}

// DecodeDict decodes a JSON document that must be an object, as
// json.loads would into a dict (see Load): keys in order (a repeated key
// keeps its first position and last value), nested objects as *Dict,
// numbers as json.Number.
func DecodeDict(b []byte) (*Dict, error) {
	v, err := Load(b)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*Dict)
	if !ok {
		return nil, &json.UnmarshalTypeError{Value: jsonKind(v), Type: reflect.TypeFor[Dict]()}
	}
	return d, nil
}

// jsonKind names a decoded JSON value's kind as encoding/json's errors do.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}
