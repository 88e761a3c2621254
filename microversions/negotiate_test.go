package microversions

import "testing"

func TestNegotiate(t *testing.T) {
	// Each row was answered the same way by the reference Ironic 21.4.
	r := Default()
	cases := []struct {
		value    string
		present  bool
		want     Version
		fault    string
		rangeHdr bool
	}{
		{"", false, 1, "", false},
		{"1.5", true, 5, "", false},
		{" 1.5 ", true, 5, "", false},
		{"1.05", true, 5, "", false},
		{"01.5", true, 5, "", false},
		{"+1.5", true, 5, "", false},
		{"1.5_0", true, 50, "", false},
		{"LaTeSt", true, 82, "", false},
		{"1._5", true, 0, "Invalid value for X-OpenStack-Ironic-API-Version header", false},
		{"1", true, 0, "Invalid value for X-OpenStack-Ironic-API-Version header", false},
		{"1.2.3", true, 0, "Invalid value for X-OpenStack-Ironic-API-Version header", false},
		{"1.٥", true, 0, "Invalid value for X-OpenStack-Ironic-API-Version header", false},
		{"1.-1", true, 0, "Version 1.-1 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].", true},
		{"1.83", true, 0, "Version 1.83 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].", true},
		{"1.0", true, 0, "Version 1.0 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].", true},
		{"2.0", true, 0, "Mutually exclusive versions requested. Version 2.0 requested but not supported by this service. The supported version range is: [1.1, 1.82].", true},
	}
	for _, c := range cases {
		n := r.Negotiate(c.value, c.present)
		if c.fault == "" {
			if n.Fault != nil || n.Version != c.want {
				t.Errorf("%q: got %v %v, want %v", c.value, n.Version, n.Fault, c.want)
			}
			continue
		}
		if n.Fault == nil || n.Fault.Message != c.fault || n.RangeHeaders != c.rangeHdr || n.Fault.HTTPStatus() != 406 {
			t.Errorf("%q: got %+v", c.value, n)
		}
	}
}

func TestPinnedRange(t *testing.T) {
	max, ok := ReleaseMax("zed")
	if !ok || max != ProjectCreateDeleteNode {
		t.Fatalf("zed: %v %v", max, ok)
	}
	r := Range{Min: Min, Max: max}
	if n := r.Negotiate("latest", true); n.Version != 80 {
		t.Errorf("latest under pin: %v", n.Version)
	}
	if n := r.Negotiate("1.81", true); n.Fault == nil {
		t.Error("1.81 accepted under a zed pin")
	}
}
