package rpc

import (
	"encoding/json"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

func TestThroughKeepsNumbersAndTimes(t *testing.T) {
	n := &models.Node{UUID: "u", Extra: models.JSONDict{"i": json.Number("1"), "f": json.Number("1.0")}}
	got, err := through(n)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pyjson.Marshal(map[string]any(got.Extra))
	if string(b) != `{"f": 1.0, "i": 1}` {
		t.Errorf("numbers changed: %s", b)
	}
	if got == n {
		t.Error("through returned the same pointer")
	}
}

func TestRemoteKeepsFaultClass(t *testing.T) {
	err := remote(ironic.Errorf(ironic.NodeLocked, "locked"))
	if !ironic.IsClass(err, ironic.NodeLocked) || err.Error() != "locked" {
		t.Errorf("got %v", err)
	}
}
