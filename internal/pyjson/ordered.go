package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
