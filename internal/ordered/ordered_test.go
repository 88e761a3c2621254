package ordered_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/goironic/ironic/internal/ordered"
)

func TestMap(t *testing.T) {
	var m ordered.Map[any]
	if b, err := json.Marshal(&m); err != nil || string(b) != "{}" {
		t.Fatalf("empty: %s %v", b, err)
	}
	m.Set("z", 1)
	m.Set("a", []string{"x"})
	m.Set("m", nil)
	m.Set("z", "again") // keeps its place
	if got := m.Keys(); !slices.Equal(got, []string{"z", "a", "m"}) {
		t.Errorf("keys = %v", got)
	}
	if v, ok := m.Get("z"); !ok || v != "again" {
		t.Errorf("z = %v %v", v, ok)
	}
	if !m.Has("m") || m.Has("q") {
		t.Errorf("Has: m %v, q %v", m.Has("m"), m.Has("q"))
	}
	b, err := json.Marshal(&m)
	if err != nil || string(b) != `{"z":"again","a":["x"],"m":null}` {
		t.Errorf("json = %s %v", b, err)
	}
	bad := ordered.Map[any]{}
	bad.Set("f", func() {})
	if _, err := json.Marshal(&bad); err == nil {
		t.Error("an unencodable value gave no error")
	}
}
