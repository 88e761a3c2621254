package ironic_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection keeps the layering of DESIGN.md: leaves at the
// bottom (option among them: components bind their options through it,
// never through conf), db/drivers/rpc above them, the conductor above
// those, the API beside the conductor, and only the wiring (cmd/*,
// internal/wire) seeing everything.
//
// The conductor/drivers boundary is declared, not incidental: the
// conductor sees drivers only through package drivers (no concrete
// driver package: implementations reach it through the registry and
// interfaces it declares) and RPC only through package rpc (no codec or
// transport); drivers never see the conductor. Ironic's objects
// (package objects, field tables and as_dict) and internal/rawjson are
// leaves that both rpc/oslo and the conductor use. states, the typed
// vocabulary of node states, is below all of them: the models, objects,
// rpc, drivers, the conductor and the API use its types.
//
// A forbidden entry ending in "/" forbids the packages below it but not
// the package itself ("/drivers/": drivers/pxe, not drivers).
func TestImportDirection(t *testing.T) {
	const mod = "github.com/goironic/ironic"
	out, err := exec.Command("go", "list", "-deps=false", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := map[string][]string{
		"":                  {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/states", "/internal", "/objects"},
		"/microversions":    {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/states", "/objects"},
		"/states":           {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/objects"},
		"/db/models":        {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/objects"},
		"/db":               {"/apiv1", "/conductor", "/drivers", "/rpc", "/conf", "/objects"},
		"/objects":          {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions"},
		"/internal/rawjson": {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/states", "/objects"},
		"/drivers":          {"/apiv1", "/conductor", "/db", "/rpc", "/conf"},
		"/rpc":              {"/apiv1", "/conductor", "/drivers", "/conf"},
		"/conductor":        {"/apiv1", "/conf", "/drivers/", "/rpc/"},
		"/apiv1":            {"/conductor", "/drivers", "/conf"},
		"/conf":             {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/objects"},
		// The option table and Binder: a leaf every component binds its
		// options through, where /conf (the loader) may not be imported.
		"/option": {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/states", "/internal", "/objects"},
		// The agent ramdisk (agent, agent/disk, cmd/ironic-agent's code)
		// runs on the machine being deployed: it speaks to the service
		// over IPA's HTTP API only, and shares none of its packages.
		"/agent": {"/apiv1", "/conductor", "/db", "/drivers", "/rpc", "/conf", "/microversions", "/states", "/objects", "/option"},
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, mod)
		// Test fakes (test/fakeneutron, ...) serve tests only.
		if !strings.HasPrefix(rel, "/test/") {
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, mod+"/test/") {
					t.Errorf("%s imports %s, a test helper", p.ImportPath, imp)
				}
			}
		}
		// A package follows the rule of its nearest listed ancestor.
		rule, ruleFor := []string(nil), ""
		for prefix, r := range forbidden {
			if (rel == prefix || strings.HasPrefix(rel, prefix+"/")) && len(prefix) >= len(ruleFor) {
				if prefix == "" && rel != "" {
					continue
				}
				rule, ruleFor = r, prefix
			}
		}
		if rule == nil {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			irel := strings.TrimPrefix(imp, mod)
			for _, bad := range rule {
				below := strings.HasSuffix(bad, "/")
				if (below && strings.HasPrefix(irel, bad)) || (!below && (irel == bad || strings.HasPrefix(irel, bad+"/"))) {
					// drivers may see the node rows; the API may use the db
					// package's filter types and the models.
					if bad == "/db" && irel == "/db/models" && ruleFor != "/microversions" && ruleFor != "/states" {
						continue
					}
					if bad == "/internal" && ruleFor != "/option" {
						continue
					}
					t.Errorf("%s imports %s, which its layer must not", p.ImportPath, imp)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked", checked)
	}
}
