package apiv1_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/goironic/ironic/db/models"
)

func TestConductorsList(t *testing.T) {
	s := NewSetup(t)
	res := s.Must(http.StatusOK, "GET", "/v1/conductors", nil)
	cs := res.Field("conductors").([]any)
	if len(cs) != 1 {
		t.Fatalf("conductors: %s", res.Raw)
	}
	c := cs[0].(map[string]any)
	if got := drvKeys(c); !slices.Equal(got, []string{"alive", "conductor_group", "hostname", "links"}) {
		t.Errorf("default fields: %v", got)
	}
	if c["hostname"] != "test-host" || c["alive"] != true || c["conductor_group"] != "" {
		t.Errorf("conductor: %v", c)
	}
	d := s.Must(http.StatusOK, "GET", "/v1/conductors?detail=true", nil).Field("conductors").([]any)[0].(map[string]any)
	if drivers, _ := d["drivers"].([]any); !slices.Contains(drivers, any("fake-hardware")) || d["created_at"] == nil {
		t.Errorf("detail: %v", d)
	}

	s.Version = "1.48"
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/conductors", nil, "Resource could not be found.")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/conductors/test-host", nil, "Resource could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?limit=x", nil, "Expected an integer for limit: x")
	s.Version = "1.49"
	// Node fields newer than the request are refused for any resource.
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/conductors?fields=owner", nil, "Request not acceptable.")
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/conductors?sort_key=owner", nil, "Request not acceptable.")
	s.Version = "1.82"
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?fields=owner", nil, `Field(s) "owner" are not valid`)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?sort_key=alive", nil,
		"The sort_key value alive is an invalid field for sorting")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?sort_key=bogus", nil,
		`The sort_key value "bogus" is an invalid field for sorting`)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?marker=a%20b", nil, "Expected name for marker: a b")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/conductors?marker=nope", nil, "Conductor nope could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors?detail=true&fields=hostname", nil,
		"Can not specify ?detail=True and fields in the same request.")

	if _, err := s.Store.RegisterConductor(context.Background(), &models.Conductor{Hostname: "z-host", ConductorGroup: "g1"}, false); err != nil {
		t.Fatal(err)
	}
	page := s.Must(http.StatusOK, "GET", "/v1/conductors?limit=1&fields=hostname&detail=false", nil)
	next, _ := page.Field("next").(string)
	if !strings.HasSuffix(next, "/v1/conductors?sort_key=id&sort_dir=asc&detail=False&fields=hostname&limit=1&marker=test-host") {
		t.Errorf("next link %q", next)
	}
	rest := s.Must(http.StatusOK, "GET", "/v1/conductors?marker=test-host", nil).Field("conductors").([]any)
	if len(rest) != 1 || rest[0].(map[string]any)["hostname"] != "z-host" {
		t.Errorf("second page: %v", rest)
	}
	desc := s.Must(http.StatusOK, "GET", "/v1/conductors?sort_key=hostname&sort_dir=desc", nil).Field("conductors").([]any)
	if len(desc) != 2 || desc[0].(map[string]any)["hostname"] != "z-host" {
		t.Errorf("sorted desc: %v", desc)
	}
}

func TestConductorShow(t *testing.T) {
	s := NewSetup(t)
	c := s.Must(http.StatusOK, "GET", "/v1/conductors/test-host", nil)
	if got := drvKeys(c.JSON); !slices.Equal(got, []string{"alive", "conductor_group", "created_at", "drivers", "hostname", "links", "updated_at"}) {
		t.Errorf("fields: %v", got)
	}
	f := s.Must(http.StatusOK, "GET", "/v1/conductors/test-host?fields=hostname,alive", nil)
	if got := drvKeys(f.JSON); !slices.Equal(got, []string{"alive", "hostname", "links"}) {
		t.Errorf("fields=hostname,alive: %v", got)
	}
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors/test-host/extra", nil, `Field(s) "extra" are not valid`)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors/test-host?detail=true", nil, "Unexpected arguments: detail")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/conductors/detail", nil, "Conductor detail could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/conductors/a%20b", nil, "Expected name for hostname: a b")
	if r := s.Do("DELETE", "/v1/conductors/test-host", nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET" {
		t.Errorf("DELETE: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}
}
