package policy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const samplePath = "../../etc/ironic/policy.yaml.sample"

// TestSampleGolden checks that the committed sample is the generated
// one. Run `go test ./apiv1/policy -run TestSample -update` after
// regenerating the defaults.
func TestSampleGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSample(&buf); err != nil {
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
		t.Fatalf("%v (run go test ./apiv1/policy -run TestSample -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s is out of date; run go test ./apiv1/policy -run TestSample -update", samplePath)
	}
}

// TestSampleMatchesOslo compares the sample with the one
// oslopolicy-sample-generator writes from Python Ironic, where that is
// installed.
func TestSampleMatchesOslo(t *testing.T) {
	gen, err := exec.LookPath("oslopolicy-sample-generator")
	if err != nil || testing.Short() {
		t.Skip("oslopolicy-sample-generator not installed (or -short)")
	}
	out := filepath.Join(t.TempDir(), "policy.yaml.sample")
	if msg, err := exec.Command(gen, "--namespace", "ironic.api", "--output-file", out).CombinedOutput(); err != nil {
		t.Skipf("oslopolicy-sample-generator: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteSample(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got.Bytes(), []byte("\n"))
		for i := 0; i < len(wl) && i < len(gl); i++ {
			if !bytes.Equal(wl[i], gl[i]) {
				t.Fatalf("line %d: oslo %q, ours %q", i+1, wl[i], gl[i])
			}
		}
		t.Fatalf("oslo's sample has %d lines, ours %d", len(wl), len(gl))
	}
}

// TestTextWrap checks textWrap against Python's textwrap.wrap(s, 16,
// initial_indent="# ", subsequent_indent="# ").
func TestTextWrap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a driver-specific thing", []string{"# a driver-", "# specific thing"}},
		{"aaaa bbbb cccc-dddd", []string{"# aaaa bbbb", "# cccc-dddd"}},
		{"xxxxx driver-specific", []string{"# xxxxx driver-", "# specific"}},
		{"two  spaces kept", []string{"# two  spaces", "# kept"}},
		{"one  two", []string{"# one  two"}},
		{"abcdefghijklmnopqrstuvwxyz", []string{"# abcdefghijklmn", "# opqrstuvwxyz"}},
	} {
		got := textWrap(tc.in, 16, "# ")
		if !equalStrings(got, tc.want) {
			t.Errorf("textWrap(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
