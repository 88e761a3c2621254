package pyschema

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

// Values handled by this package are "canonical" decoded JSON: nil, bool,
// string, json.Number, []any and pyjson.Object. A json.Number stands for a
// Python int when its text has no '.', 'e' or 'E' and for a Python float
// otherwise, exactly as json.loads decides. The texts "Infinity",
// "-Infinity" and "NaN" (accepted by json.loads) are floats too.

// DecodeOrdered is pyjson.DecodeOrdered: objects become pyjson.Object,
// numbers json.Number.
func DecodeOrdered(data []byte) (any, error) { return pyjson.DecodeOrdered(data) }

// canonical converts a Go value into the canonical representation. Go maps
// have no order, so their keys are taken in sorted order (which is what a
// Python dict built by sorted insertion would hold). Types other than the
// usual decoded-JSON ones go through encoding/json, keeping struct field
// order.
func canonical(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		if x == "" {
			return json.Number("0"), nil
		}
		return x, nil
	case pyjson.Object:
		out := make(pyjson.Object, len(x))
		for i, m := range x {
			cv, err := canonical(m.Value)
			if err != nil {
				return nil, err
			}
			out[i] = pyjson.Member{Key: m.Key, Value: cv}
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(pyjson.Object, 0, len(x))
		for _, k := range keys {
			cv, err := canonical(x[k])
			if err != nil {
				return nil, err
			}
			out = append(out, pyjson.Member{Key: k, Value: cv})
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			cv, err := canonical(e)
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(pyjson.Object, 0, len(x))
		for _, k := range keys {
			out = append(out, pyjson.Member{Key: k, Value: x[k]})
		}
		return out, nil
	case float64:
		return json.Number(floatText(x)), nil
	case float32:
		return json.Number(floatText(float64(x))), nil
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case uint:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	}
	rv := reflect.ValueOf(v)
	if (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) && rv.IsNil() {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return DecodeOrdered(raw)
}

// floatText writes a float64 as a json.Number text that reads back as the
// same Python float.
func floatText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyFloatRepr(f)
}

// number is a Python int or float.
type number struct {
	isFloat bool
	f       float64
	i       *big.Int
}

// isFloatText reports whether json.loads would make a float of this text.
func isFloatText(s string) bool {
	return strings.ContainsAny(s, ".eEIN")
}

// toNumber converts a canonical JSON number (or bool, which Python treats
// as the int 0 or 1 in arithmetic) into a number.
func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		switch s {
		case "Infinity":
			return number{isFloat: true, f: math.Inf(1)}, true
		case "-Infinity":
			return number{isFloat: true, f: math.Inf(-1)}, true
		case "NaN":
			return number{isFloat: true, f: math.NaN()}, true
		}
		if isFloatText(s) {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return number{}, false
			}
			return number{isFloat: true, f: f}, true
		}
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return number{}, false
		}
		return number{i: i}, true
	case bool:
		if x {
			return number{i: big.NewInt(1)}, true
		}
		return number{i: big.NewInt(0)}, true
	}
	return number{}, false
}

func isNaN(n number) bool { return n.isFloat && math.IsNaN(n.f) }

// cmpNumbers compares two Python numbers exactly, as Python does between
// ints and floats. ok is false when either is NaN (every comparison false).
func cmpNumbers(a, b number) (c int, ok bool) {
	if isNaN(a) || isNaN(b) {
		return 0, false
	}
	if !a.isFloat && !b.isFloat {
		return a.i.Cmp(b.i), true
	}
	return bigFloat(a).Cmp(bigFloat(b)), true
}

func bigFloat(n number) *big.Float {
	if n.isFloat {
		return new(big.Float).SetFloat64(n.f)
	}
	return new(big.Float).SetInt(n.i)
}

func numLess(a, b number) bool {
	c, ok := cmpNumbers(a, b)
	return ok && c < 0
}

func numEqual(a, b number) bool {
	c, ok := cmpNumbers(a, b)
	return ok && c == 0
}

// float64Of converts an int to the nearest float as Python's float(int)
// does (round half to even).
func float64Of(n number) float64 {
	if n.isFloat {
		return n.f
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	return f
}

// isPyNumber reports whether v is a Python int or float (not a bool).
func isPyNumber(v any) bool {
	_, ok := v.(json.Number)
	return ok
}

// isPyNumeric reports whether v takes part in numeric comparisons: numbers
// and bools.
func isPyNumeric(v any) bool {
	switch v.(type) {
	case json.Number, bool:
		return true
	}
	return false
}

// pyEqual is Python's == between decoded JSON values: True == 1 == 1.0,
// dicts compare without regard to order.
func pyEqual(a, b any) bool {
	if isPyNumeric(a) && isPyNumeric(b) {
		na, ok1 := toNumber(a)
		nb, ok2 := toNumber(b)
		return ok1 && ok2 && numEqual(na, nb)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case pyjson.Object:
		y, ok := b.(pyjson.Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for _, m := range x {
			w, found := y.Get(m.Key)
			if !found || !pyEqual(m.Value, w) {
				return false
			}
		}
		return true
	}
	return false
}

// jsEqual is jsonschema's _utils.equal: like == but a bool never equals a
// number, at any depth.
func jsEqual(a, b any) bool {
	if _, ok := a.(string); ok {
		return pyEqual(a, b)
	}
	if _, ok := b.(string); ok {
		return pyEqual(a, b)
	}
	if x, ok := a.([]any); ok {
		if y, ok := b.([]any); ok {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !jsEqual(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	}
	if x, ok := a.(pyjson.Object); ok {
		if y, ok := b.(pyjson.Object); ok {
			if len(x) != len(y) {
				return false
			}
			for _, m := range x {
				w, found := y.Get(m.Key)
				if !found || !jsEqual(m.Value, w) {
					return false
				}
			}
			return true
		}
	}
	return unboolEqual(a, b)
}

// unboolEqual is unbool(a) == unbool(b): bools only equal the same bool.
func unboolEqual(a, b any) bool {
	ab, aIsBool := a.(bool)
	bb, bIsBool := b.(bool)
	if aIsBool || bIsBool {
		return aIsBool && bIsBool && ab == bb
	}
	return pyEqual(a, b)
}

// pyTruthy is Python's bool(v).
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case pyjson.Object:
		return len(x) > 0
	case json.Number:
		n, ok := toNumber(x)
		if !ok {
			return true
		}
		if n.isFloat {
			return n.f != 0
		}
		return n.i.Sign() != 0
	}
	return true
}

// errUnorderable is Python's TypeError from '<' between unorderable values.
var errUnorderable = errors.New("unorderable types")

// sentinel stands for the private objects jsonschema's unbool() puts in
// place of True and False; they cannot be ordered against anything.
type sentinel bool

// pyLess is Python's a < b between decoded JSON values.
func pyLess(a, b any) (bool, error) {
	if _, ok := a.(sentinel); ok {
		return false, errUnorderable
	}
	if _, ok := b.(sentinel); ok {
		return false, errUnorderable
	}
	if isPyNumeric(a) && isPyNumeric(b) {
		na, _ := toNumber(a)
		nb, _ := toNumber(b)
		return numLess(na, nb), nil
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x < y, nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if !pyEqualIdent(x[i], y[i]) {
					return pyLess(x[i], y[i])
				}
			}
			return len(x) < len(y), nil
		}
	}
	return false, errUnorderable
}

// pyEqualIdent is PyObject_RichCompareBool(..., Py_EQ), which also treats
// an object as equal to itself; for decoded JSON this differs from == only
// for NaN, which we cannot tell apart by identity, so it is ==.
func pyEqualIdent(a, b any) bool { return pyEqual(a, b) }

// pySort sorts items as CPython's list.sort does, reporting the TypeError
// that an unorderable comparison raises. For fewer than 64 items it makes
// exactly the comparisons CPython 3.11 makes (count_run, then binary
// insertion), so it fails on the same inputs; longer lists use a stable
// insertion sort that fails if any comparison it makes fails.
func pySort(items []any) ([]any, error) {
	out := slices.Clone(items)
	n := len(out)
	if n < 2 {
		return out, nil
	}
	if n >= 64 {
		for i := 1; i < n; i++ {
			for j := i; j > 0; j-- {
				lt, err := pyLess(out[j], out[j-1])
				if err != nil {
					return nil, err
				}
				if !lt {
					break
				}
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
		return out, nil
	}
	// count_run
	run := 2
	lt, err := pyLess(out[1], out[0])
	if err != nil {
		return nil, err
	}
	if lt {
		for ; run < n; run++ {
			lt, err := pyLess(out[run], out[run-1])
			if err != nil {
				return nil, err
			}
			if !lt {
				break
			}
		}
		slices.Reverse(out[:run])
	} else {
		for ; run < n; run++ {
			lt, err := pyLess(out[run], out[run-1])
			if err != nil {
				return nil, err
			}
			if lt {
				break
			}
		}
	}
	// binarysort
	for start := run; start < n; start++ {
		pivot := out[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)/2
			lt, err := pyLess(pivot, out[p])
			if err != nil {
				return nil, err
			}
			if lt {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(out[l+1:start+1], out[l:start])
		out[l] = pivot
	}
	return out, nil
}

// unbool replaces top-level bools by unorderable sentinels, as jsonschema's
// _utils.unbool does.
func unbool(v any) any {
	if b, ok := v.(bool); ok {
		return sentinel(b)
	}
	return v
}

// sentinelEqual is _utils.equal for values that may be sentinels.
func sentinelEqual(a, b any) bool {
	sa, aok := a.(sentinel)
	sb, bok := b.(sentinel)
	if aok || bok {
		return aok && bok && sa == sb
	}
	return jsEqual(a, b)
}

// uniq is jsonschema's _utils.uniq.
func uniq(items []any) bool {
	unbooled := make([]any, len(items))
	for i, e := range items {
		unbooled[i] = unbool(e)
	}
	sorted, err := pySort(unbooled)
	if err == nil {
		for i := 1; i < len(sorted); i++ {
			if sentinelEqual(sorted[i-1], sorted[i]) {
				return false
			}
		}
		return true
	}
	var seen []any
	for _, e := range unbooled {
		for _, s := range seen {
			if sentinelEqual(s, e) {
				return false
			}
		}
		seen = append(seen, e)
	}
	return true
}

// objectHas reports whether key is in the object.
func objectHas(o pyjson.Object, key string) bool {
	_, ok := o.Get(key)
	return ok
}

// pyIn is Python's `x in container` for a decoded JSON container: list
// membership by ==, dict membership by key, substring for strings.
func pyIn(x, container any) bool {
	switch c := container.(type) {
	case []any:
		for _, e := range c {
			if pyEqual(x, e) {
				return true
			}
		}
	case pyjson.Object:
		if k, ok := x.(string); ok {
			return objectHas(c, k)
		}
	case string:
		if s, ok := x.(string); ok {
			return strings.Contains(c, s)
		}
	}
	return false
}
