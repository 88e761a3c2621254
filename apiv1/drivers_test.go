package apiv1_test

import (
	"cmp"
	"net/http"
	"slices"
	"testing"

	"github.com/goironic/ironic/internal/pyjson"
)

// drvFaultString is the faultstring of a wsme-shaped error answer.
func drvFaultString(t *testing.T, r Result) string {
	t.Helper()
	em, ok := r.Field("error_message").(string)
	if !ok {
		t.Fatalf("no error_message in %s", r.Raw)
	}
	var inner map[string]any
	if err := pyjson.Unmarshal([]byte(em), &inner); err != nil {
		t.Fatalf("error_message is not JSON: %q", em)
	}
	s, _ := inner["faultstring"].(string)
	return s
}

func drvWantFault(t *testing.T, s *Setup, status int, method, path string, body any, want string, headers ...string) {
	t.Helper()
	r := s.Must(status, method, path, body, headers...)
	if got := drvFaultString(t, r); got != want {
		t.Errorf("%s %s: faultstring %q, want %q", method, path, got, want)
	}
}

func drvKeys(m any) []string {
	o, _ := m.(map[string]any)
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestDriversList(t *testing.T) {
	s := NewSetup(t)
	res := s.Must(http.StatusOK, "GET", "/v1/drivers", nil)
	drivers, _ := res.Field("drivers").([]any)
	var names []string
	for _, d := range drivers {
		dm := d.(map[string]any)
		names = append(names, dm["name"].(string))
		if dm["type"] != "dynamic" {
			t.Errorf("type of %v: %v", dm["name"], dm["type"])
		}
		if hosts, _ := dm["hosts"].([]any); len(hosts) != 1 || hosts[0] != "test-host" {
			t.Errorf("hosts of %v: %v", dm["name"], dm["hosts"])
		}
		if got := drvKeys(dm); !slices.Equal(got, []string{"hosts", "links", "name", "properties", "type"}) {
			t.Errorf("keys of a non-detailed driver: %v", got)
		}
	}
	if !slices.Contains(names, "fake-hardware") || !slices.IsSorted(names) {
		t.Errorf("driver names %v", names)
	}

	s.Version = "1.1"
	old := s.Must(http.StatusOK, "GET", "/v1/drivers", nil)
	for _, d := range old.Field("drivers").([]any) {
		if got := drvKeys(d); !slices.Equal(got, []string{"hosts", "links", "name"}) {
			t.Errorf("keys at 1.1: %v", got)
		}
	}
	s.Version = "1.29"
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/drivers?detail=false", nil,
		"Request not acceptable. The minimal required API version should be 1.30")
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/drivers?type=dynamic", nil,
		"Request not acceptable. The minimal required API version should be 1.30")
	s.Version = "1.76"
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/drivers?fields=name", nil, "Request not acceptable.")
	s.Version = "1.82"

	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers?type=bogus", nil,
		`"type" filter must be one of "classic" or "dynamic", if specified.`)
	if d := s.Must(http.StatusOK, "GET", "/v1/drivers?type=classic", nil).Field("drivers").([]any); len(d) != 0 {
		t.Errorf("classic drivers: %v", d)
	}
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers?fields=name&detail=true", nil,
		"Can not specify ?detail=True and fields in the same request.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers?fields=name,bogus,zz", nil, `Field(s) "bogus, zz" are not valid`)
	// Without detail, the interface fields do not exist.
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers?fields=default_boot_interface", nil,
		`Field(s) "default_boot_interface" are not valid`)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers?bogus=1", nil, "Unexpected arguments: bogus")
	for _, d := range s.Must(http.StatusOK, "GET", "/v1/drivers?fields=name", nil).Field("drivers").([]any) {
		if got := drvKeys(d); !slices.Equal(got, []string{"links", "name"}) {
			t.Errorf("keys with fields=name: %v", got)
		}
	}
	detail := s.Must(http.StatusOK, "GET", "/v1/drivers?detail=true", nil).Field("drivers").([]any)
	if len(detail) == 0 || detail[0].(map[string]any)["default_boot_interface"] == nil {
		t.Errorf("detailed list: %v", detail)
	}
}

func TestDriverShow(t *testing.T) {
	s := NewSetup(t)
	d := s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware", nil)
	if d.Field("default_power_interface") != "fake" || d.Field("default_bios_interface") != "fake" {
		t.Errorf("defaults: %s", d.Raw)
	}
	enabled, _ := d.Field("enabled_boot_interfaces").([]any)
	if !slices.IsSortedFunc(enabled, func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }) || !slices.Contains(enabled, any("fake")) {
		t.Errorf("enabled boot interfaces %v", enabled)
	}
	for _, tc := range []struct {
		version string
		absent  string
		present string
	}{
		{"1.32", "default_storage_interface", "default_boot_interface"},
		{"1.37", "default_rescue_interface", "default_storage_interface"},
		{"1.39", "enabled_bios_interfaces", "default_rescue_interface"},
		{"1.40", "", "enabled_bios_interfaces"},
	} {
		s.Version = tc.version
		r := s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware", nil)
		m := r.JSON.(map[string]any)
		if _, ok := m[tc.absent]; ok && tc.absent != "" {
			t.Errorf("%s: %s shown", tc.version, tc.absent)
		}
		if _, ok := m[tc.present]; !ok {
			t.Errorf("%s: %s missing", tc.version, tc.present)
		}
	}
	s.Version = "1.82"
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/drivers/nope", nil,
		"Could not find the following driver(s) or hardware type(s): nope.")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/drivers/detail", nil,
		"Could not find the following driver(s) or hardware type(s): detail.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers/fake-hardware?detail=true", nil, "Unexpected arguments: detail")
	// pecan binds an extra path segment to the fields argument.
	f := s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware/name,hosts", nil)
	if got := drvKeys(f.JSON); !slices.Equal(got, []string{"hosts", "links", "name"}) {
		t.Errorf("fields from the path: %v", got)
	}
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers/fake-hardware/bogus", nil, `Field(s) "bogus" are not valid`)
	if r := s.Do("PUT", "/v1/drivers/fake-hardware", map[string]any{}); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET" {
		t.Errorf("PUT: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}
}

func TestDriverSubresources(t *testing.T) {
	s := NewSetup(t)
	props := s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware/properties", nil)
	if len(drvKeys(props.JSON)) == 0 {
		t.Errorf("no properties: %s", props.Raw)
	}
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/drivers/nope/properties", nil, "The driver 'nope' is unknown.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers/properties", nil, "Missing mandatory parameter: driver_name")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers/fake-hardware/properties?x=1", nil, "Unexpected arguments: x")

	s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware/raid/logical_disk_properties", nil)
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/drivers/nope/raid/logical_disk_properties", nil, "The driver 'nope' is unknown.")
	s.Version = "1.11"
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/drivers/fake-hardware/raid/logical_disk_properties", nil, "Request not acceptable.")
	s.Version = "1.82"
	if r := s.Do("GET", "/v1/drivers/fake-hardware/raid", nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "" {
		t.Errorf("raid controller: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}

	m := s.Must(http.StatusOK, "GET", "/v1/drivers/fake-hardware/vendor_passthru/methods", nil)
	if _, ok := m.JSON.(map[string]any); !ok {
		t.Errorf("methods: %s", m.Raw)
	}
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/drivers/fake-hardware/vendor_passthru", map[string]any{},
		"Missing mandatory parameter: method")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/drivers/fake-hardware/vendor_passthru", map[string]any{"method": "x"},
		"Missing mandatory parameter: method")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/drivers/fake-hardware/vendor_passthru?method=first&node_uuid=x", map[string]any{},
		"Unexpected arguments: node_uuid")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/drivers/fake-hardware/vendor_passthru?method=", nil, "Method not specified")
	drvWantFault(t, s, http.StatusNotFound, "POST", "/v1/drivers/nope/vendor_passthru?method=foo", nil, "The driver 'nope' is unknown.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/drivers/vendor_passthru?method=foo", nil, "Missing mandatory parameter: driver_name")
}
