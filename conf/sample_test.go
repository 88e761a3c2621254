package conf_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/internal/wire"
)

var update = flag.Bool("update", false, "rewrite etc/ironic/ironic.conf.sample")

const samplePath = "../etc/ironic/ironic.conf.sample"

// TestSampleGolden checks that the committed sample is the generated one.
// Run `go test ./conf -update` after changing the option table.
func TestSampleGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := conf.WriteSample(&buf, implemented(t)); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(samplePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(samplePath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatalf("%v (run go test ./conf -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s is out of date; run go test ./conf -update", samplePath)
	}
}

func TestSampleContent(t *testing.T) {
	var buf bytes.Buffer
	if err := conf.WriteSample(&buf, implemented(t)); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.HasPrefix(s, "[DEFAULT]\n\n#\n# From ironic\n#\n") {
		t.Errorf("sample does not start with [DEFAULT] and the ironic namespace:\n%.200s", s)
	}
	for _, want := range []string{
		"\n#auth_strategy = keystone\n",
		"\n# noauth - no authentication\n",
		"\n#host = localhost\n",
		"\n#my_ip = 127.0.0.1\n",
		"\n#enabled_hardware_types = ipmi,redfish\n",
		"\n#enabled_power_interfaces = <None>\n",
		"\n[api]\n",
		"\n# Minimum value: 0\n# Maximum value: 65535\n#port = 6385\n",
		"\n#connection = sqlite:///$state_path/ironic.sqlite\n",
		"\n# Deprecated group/name - [pxe]/pxe_append_params\n",
		"\n#clean_step_priority_override =\n",
		"\n#policy_dirs = policy.d\n",
		"# Not implemented by this service: accepted and ignored.\n#pecan_debug = false\n",
		"\n# This option is deprecated for removal",
		"\n[keystone_authtoken]\n",
		"\n#password = <None>\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("sample lacks %q", want)
		}
	}
	// Sections: DEFAULT first, then sorted.
	var secs []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "[") {
			secs = append(secs, line)
		}
	}
	for i := 2; i < len(secs); i++ {
		if secs[i-1] >= secs[i] {
			t.Errorf("sections out of order: %s before %s", secs[i-1], secs[i])
		}
	}
}

// implemented is what this build implements: the options its
// components bind with the defaults.
func implemented(t *testing.T) []string {
	t.Helper()
	cfg, err := conf.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	impl, err := wire.Implemented(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return impl
}
