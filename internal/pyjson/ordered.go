package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DecodeOrdered decodes one JSON document the way Python's json.loads does,
// except that objects become Object so that their key order survives: a
// repeated key keeps the position of its first occurrence and the value of
// its last one, as a Python dict built from the document would. Numbers are
// json.Number. Written back with Marshal, a document reads as json.dumps of
// json.loads of it (less float normalisation: numbers keep their text).
func DecodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrderedValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, errors.New("pyjson: extra data after JSON value")
		}
		return nil, err
	}
	return v, nil
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := Object{}
			var index map[string]int
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("pyjson: object key is %T", kt)
				}
				val, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				if i, dup := index[key]; dup {
					obj[i].Value = val
					continue
				}
				if index == nil {
					index = map[string]int{}
				}
				index[key] = len(obj)
				obj = append(obj, Member{Key: key, Value: val})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				val, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("pyjson: unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// PythonNumbers returns v (decoded JSON: nil, bool, string, json.Number,
// []any, *Dict, Object, map[string]any) with its numbers as json.loads holds
// them, so that Marshal writes what json.dumps(json.loads(...)) writes: a
// number with a fraction or an exponent is a float (1e5 is 100000.0,
// 1.50 is 1.5, 1e400 is Infinity), an integer keeps its digits ("-0" is
// 0). Containers are copied only where a number changes.
func PythonNumbers(v any) any {
	out, _ := pythonNumbers(v)
	return out
}

func pythonNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if bytes.ContainsAny([]byte(s), ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return v, false
			}
			return f, true
		}
		if s == "-0" {
			return json.Number("0"), true
		}
	case *Dict:
		var out *Dict
		for i, m := range x.Members() {
			if nv, changed := pythonNumbers(m.Value); changed {
				if out == nil {
					out = x.Clone()
				}
				out.members[i].Value = nv
			}
		}
		if out != nil {
			return out, true
		}
	case Object:
		var out Object
		for i, m := range x {
			if nv, changed := pythonNumbers(m.Value); changed {
				if out == nil {
					out = append(Object(nil), x...)
				}
				out[i].Value = nv
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if nv, changed := pythonNumbers(e); changed {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = nv
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if nv, changed := pythonNumbers(e); changed {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = nv
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}
