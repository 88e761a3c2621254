package apiv1

import (
	"encoding/json"
	"testing"

	"github.com/goironic/ironic"
)

// FuzzPatch parses and applies arbitrary patch bodies to a node-like
// document: every outcome is a patched document or a 4xx fault.
func FuzzPatch(f *testing.F) {
	for _, s := range []string{
		`[{"op": "add", "path": "/extra/a", "value": 1}]`,
		`[{"op": "remove", "path": "/extra/nokey"}]`,
		`[{"op": "add", "path": "/extra/l/-", "value": 1}, {"op": "replace", "path": "/extra/l/0", "value": 2}]`,
		`[{"op": "add", "path": "/name/0", "value": "x"}]`,
		`[{"op": "replace", "path": "/driver_info/a/b/c"}]`,
		`[{"op": "remove", "path": "/extra/l/5"}]`,
		`{"op": "add"}`,
		`[{"op": "test", "path": "/x"}]`,
	} {
		f.Add(s)
	}
	sch, err := compileSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		check := func(err error) {
			if err == nil {
				return
			}
			if code := ironic.AsFault(err).HTTPStatus(); code < 400 || code >= 500 {
				t.Fatalf("%q: %v (status %d)", body, err, code)
			}
		}
		a := &API{schemas: sch}
		doc, err := decodeBody([]byte(body))
		if err != nil {
			check(err)
			return
		}
		ops, err := a.patchOps(doc)
		if err != nil {
			check(err)
			return
		}
		node := map[string]any{
			"name":        "n",
			"extra":       map[string]any{"l": []any{json.Number("1"), "x"}, "d": map[string]any{"k": nil}},
			"driver_info": map[string]any{},
			"maintenance": false,
		}
		_, err = applyPatch(node, ops)
		check(err)
	})
}
