package apiv1_test

import (
	"net/http"
	"testing"
)

func TestFakePowerActions(t *testing.T) {
	s := NewSetup(t)
	s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "p1"})
	for _, c := range []struct{ target, want string }{
		{"power on", "power on"}, {"power off", "power off"}, {"rebooting", "power on"},
		{"power off", "power off"}, {"power off", "power off"},
	} {
		res := s.Must(http.StatusAccepted, "PUT", "/v1/nodes/p1/states/power", map[string]any{"target": c.target})
		if loc := res.Header.Get("Location"); loc == "" {
			t.Errorf("%s: no Location", c.target)
		}
		st := s.Must(http.StatusOK, "GET", "/v1/nodes/p1/states", nil)
		if st.Field("power_state") != c.want || st.Field("target_power_state") != nil || st.Field("last_error") != nil {
			t.Errorf("after %s: %s", c.target, st.Raw)
		}
	}
	bad := s.Do("PUT", "/v1/nodes/p1/states/power", map[string]any{"target": "sideways"})
	if bad.Status != http.StatusBadRequest {
		t.Errorf("bogus target: %d %s", bad.Status, bad.Raw)
	}
	old := s.Do("PUT", "/v1/nodes/p1/states/power", map[string]any{"target": "soft power off"}, "X-OpenStack-Ironic-API-Version", "1.26")
	if old.Status != http.StatusNotAcceptable {
		t.Errorf("soft power off at 1.26: %d", old.Status)
	}
}
