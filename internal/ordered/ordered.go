// Package ordered is a string-keyed map that remembers the order its keys
// were first set in, as a Python dict does: for bodies and command lines
// whose order a peer sees (IPA's inspection data, a ramdisk's kernel
// parameters). A leaf.
package ordered

import (
	"bytes"
	"encoding/json"
)

// Map is an insertion-ordered map; the zero value is empty and ready.
type Map[V any] struct {
	keys []string
	vals map[string]V
}

// Set sets k to v; a new key goes last, an existing one keeps its place.
func (m *Map[V]) Set(k string, v V) {
	if m.vals == nil {
		m.vals = map[string]V{}
	}
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// Get returns k's value and whether k is set.
func (m *Map[V]) Get(k string) (V, bool) {
	v, ok := m.vals[k]
	return v, ok
}

// Has reports whether k is set.
func (m *Map[V]) Has(k string) bool {
	_, ok := m.vals[k]
	return ok
}

// Keys returns the keys in order; the caller must not change the slice.
func (m *Map[V]) Keys() []string { return m.keys }

// MarshalJSON writes a JSON object with the keys in order.
func (m *Map[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(m.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
