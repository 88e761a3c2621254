package redfish_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/pyjson"
)

func task(info *pyjson.Dict) *fake.Task {
	return &fake.Task{Node: &fake.Node{UUID: "u", Driver: "redfish", DriverInfo: info}}
}

func TestParseDriverInfo(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		info    *pyjson.Dict
		address string
		prefix  string
		verify  any
		bad     string
	}{
		{info: pyjson.DictOf("redfish_address", "bmc.example.com"), address: "https://bmc.example.com", verify: true},
		{info: pyjson.DictOf("redfish_address", "http://10.0.0.1:8000/redfish/v1/", "redfish_verify_ca", "no"), address: "http://10.0.0.1:8000", prefix: "/redfish/v1/", verify: false},
		{info: pyjson.DictOf("redfish_address", "fe80::1", "redfish_verify_ca", ca), address: "https://[fe80::1]", verify: ca},

		{info: pyjson.DictOf("redfish_address", 5), bad: "Invalid Redfish address 5 set in driver_info/redfish_address on node u"},
	}
	for _, tt := range tests {
		info, err := redfish.ParseDriverInfo(task(tt.info), redfish.DefaultConfig())
		if tt.bad != "" {
			if !ironic.IsClass(err, ironic.InvalidParameterValue) || err.Error() != tt.bad {
				t.Errorf("%v: %v", tt.info, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.info, err)
			continue
		}
		if info.Address != tt.address || info.RootPrefix != tt.prefix || info.VerifyCA != tt.verify || info.AuthType != "auto" {
			t.Errorf("%v: %+v", tt.info, info)
		}
	}
}

func TestVendorValidate(t *testing.T) {
	ctx := context.Background()
	v := drivers.NewDriver("redfish", redfish.Implementations(redfish.DefaultConfig())...).Vendor
	tk := task(pyjson.DictOf("redfish_address", "https://bmc"))
	tests := []struct {
		method string
		args   map[string]any
		msg    string
	}{
		{"create_subscription", map[string]any{"Destination": "https://listener:8080/events"}, ""},
		{"create_subscription", map[string]any{"Destination": "not a uri"}, "Destination not a uri is not a valid URI"},
		{"create_subscription", map[string]any{"Destination": "https://l", "Context": 5}, "Context 5 is not a valid string"},
		{"create_subscription", map[string]any{"Destination": "https://l", "HttpHeaders": "x"}, "HttpHeaders x is not a list of headers"},
		{"delete_subscription", map[string]any{}, "id can't be None"},
		{"delete_subscription", map[string]any{"id": "../x"}, "Invalid BMC subscription ID value: '../x'"},
		{"delete_subscription", map[string]any{"id": "sub-1"}, ""},
		{"get_all_subscriptions", nil, ""},
	}
	for _, tt := range tests {
		err := v.Validate(ctx, tk, tt.method, "POST", tt.args)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s %v: %v", tt.method, tt.args, err)
			}
			continue
		}
		if !ironic.IsClass(err, ironic.InvalidParameterValue) || err.Error() != tt.msg {
			t.Errorf("%s %v: %v", tt.method, tt.args, err)
		}
	}
}

// TestAddressValidity follows Python's rfc3986 (recorded with Ironic's
// redfish_utils.parse_driver_info).
func TestAddressValidity(t *testing.T) {
	valid := map[string]string{
		"https://bmc/a b":             "https://bmc",
		"https://bmc/?q=a b|":         "https://bmc",
		"https://bm_c":                "https://bm_c",
		"https://bm%41c":              "https://bm%41c",
		"https://bmc:99999":           "https://bmc:99999",
		"1.2.3.4:443":                 "https://1.2.3.4:443",
		"https://user:pa:ss@bmc":      "https://user:pa:ss@bmc",
		"https://bmc/a%zz?x=%zz#%zz":  "https://bmc",
		"https://bmc:":                "https://bmc:",
		"https://listener:8080/event": "https://listener:8080",
		"https://:80":                 "https://:80",
		"host.example:8000":           "https://host.example:8000",
		"https:///x":                  "https://https:",
		"https://[fe80::1%25eth0]":    "https://[fe80::1%25eth0]",
	}
	for addr, want := range valid {
		info, err := redfish.ParseDriverInfo(task(pyjson.DictOf("redfish_address", addr)), redfish.DefaultConfig())
		if err != nil || info.Address != want {
			t.Errorf("%q: %v %v", addr, info, err)
		}
	}
	invalid := map[string]string{
		"https://us er@bmc": "https://us er@bmc",
		"https://bmc:port":  "https://bmc:port",
		"https://bm%zzc":    "https://bm%zzc",
		"https://[zz]":      "https://[zz]",
		"https://[::1":      "https://[::1",
		"ht tp://x":         "https://ht tp://x",
		"https://ü.com":     "https://ü.com",
		"https://@bmc":      "https://@bmc",
		"https://999.1.1.1": "https://999.1.1.1",
	}
	for addr, shown := range invalid {
		_, err := redfish.ParseDriverInfo(task(pyjson.DictOf("redfish_address", addr)), redfish.DefaultConfig())
		want := "Invalid Redfish address " + shown + " set in driver_info/redfish_address on node u"
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v", addr, err)
		}
	}
}
