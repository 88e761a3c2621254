package boot

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/netdata/*.golden")

// goldenNICs are the machine the goldens plan for: the MACs the
// examples name, and one NIC none names (DHCP fallback).
var goldenNICs = []Link{
	{Name: "eth0", MAC: "a0:36:9f:2c:e8:80"},
	{Name: "eth1", MAC: "a0:36:9f:2c:e8:81"},
	{Name: "eth2", MAC: "a0:36:9f:2c:e8:82"},
	{Name: "ens3", MAC: "52:54:00:12:34:56"},
	{Name: "ens9", MAC: "52:54:00:aa:aa:aa"},
}

// TestPlanNetworkGolden plans each testdata/netdata/*.json (the L3
// spec's example, 21.4's get_neutron_port_data output, bonds and VLANs,
// DHCP types and bad entries) on goldenNICs. Regenerate with
//
//	go test ./agent/boot -run TestPlanNetworkGolden -update
func TestPlanNetworkGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/netdata/*.json")
	if err != nil || len(inputs) < 4 {
		t.Fatalf("inputs: %v %v", inputs, err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			nd, err := ParseNetworkData(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := PlanNetwork(nd, goldenNICs).String()
			golden := strings.TrimSuffix(in, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("plan (-golden +got):\n%s", d)
			}
		})
	}
}

func TestParseNetworkDataErrors(t *testing.T) {
	for _, raw := range []string{
		`{"links": [}`,              // the spec's example has a trailing comma
		`{"links": [{"mtu": "x"}]}`, // not a number
		`{"links": [{"mtu": 1.5}]}`, // not an integer
		`{"networks": {"id": "x"}}`, // not a list
	} {
		if _, err := ParseNetworkData([]byte(raw)); err == nil {
			t.Errorf("ParseNetworkData(%s): no error", raw)
		}
	}
}

func TestMaskBits(t *testing.T) {
	for m, want := range map[string]int{"255.255.240.0": 20, "0.0.0.0": 0, "255.255.255.255": 32, "24": 24} {
		if got, err := maskBits(m, false); err != nil || got != want {
			t.Errorf("maskBits(%q) = %d, %v; want %d", m, got, err, want)
		}
	}
	for m, want := range map[string]int{"ffff:ffff:ffff:ffff::": 64, "::": 0, "::0": 0, "64": 64} {
		if got, err := maskBits(m, true); err != nil || got != want {
			t.Errorf("maskBits(%q, v6) = %d, %v; want %d", m, got, err, want)
		}
	}
	for _, m := range []string{"255.0.255.0", "33", "-1", "ffff::", "x"} {
		if _, err := maskBits(m, false); err == nil {
			t.Errorf("maskBits(%q): no error", m)
		}
	}
}
