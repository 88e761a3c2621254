package tempest

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sample.subunit is python-subunit's own encoding (testdata/make-sample.py).
func readSample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/sample.subunit")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadSubunit(t *testing.T) {
	var got []string
	var big int
	err := ReadSubunit(bytes.NewReader(readSample(t)), func(p Packet) error {
		if p.FileName == "stdout" {
			big += len(p.File)
			return nil
		}
		s := p.TestID + " " + p.Status.String()
		if p.FileName != "" {
			s += " " + p.FileName + "=" + strings.TrimSpace(string(p.File))
			if p.EOF {
				s += " <eof>"
			}
		}
		if len(p.Tags) > 0 {
			s += " tags=" + strings.Join(p.Tags, ",")
		}
		if p.Route != "" {
			s += " route=" + p.Route
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const a = "pkg.test_a.TestA."
	want := []string{
		a + "test_ok[id-1,smoke] inprogress",
		a + "test_ok[id-1,smoke] success tags=worker-0 route=0",
		a + "test_skip[id-2] inprogress",
		a + "test_skip[id-2] undefined reason=not enabled <eof>",
		a + "test_skip[id-2] skip",
		a + "test_fail[id-3] inprogress",
		a + "test_fail[id-3] undefined traceback=Traceback (most recent call last):\n  File \"x.py\"",
		a + "test_fail[id-3] undefined traceback=AssertionError: 404 != 200 <eof>",
		a + "test_fail[id-3] fail",
		a + "test_xfail[id-4] xfail",
		a + "test_uxsuccess[id-5] uxsuccess",
		a + "test_died[id-6] inprogress",
		"setUpClass (pkg.test_b.TestB) undefined traceback=Traceback\nkeystoneauth1.exceptions.Unauthorized: 401 <eof>",
		"setUpClass (pkg.test_b.TestB) fail",
		"setUpClass (pkg.test_c.TestC) undefined reason=Neutron is not enabled <eof>",
		"setUpClass (pkg.test_c.TestC) skip",
		"setUpClass (pkg.test_d.TestD) fail",
		"pkg.test_e.TestE.test_big success",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packets (-want +got):\n%s", diff)
	}
	if big != 20000 {
		t.Errorf("big attachment: %d bytes, want 20000", big)
	}
}

func TestReadSubunitDamaged(t *testing.T) {
	data := readSample(t)
	// A stream cut mid-packet ends quietly after the whole packets.
	n := 0
	if err := ReadSubunit(bytes.NewReader(data[:len(data)-10]), func(Packet) error { n++; return nil }); err != nil {
		t.Fatalf("truncated: %v", err)
	}
	if n != 18 {
		t.Errorf("truncated: %d packets, want 18", n)
	}
	// A flipped bit is a checksum error.
	bad := bytes.Clone(data)
	bad[20] ^= 1
	if err := ReadSubunit(bytes.NewReader(bad), func(Packet) error { return nil }); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt: %v, want a checksum error", err)
	}
}

func TestParseResults(t *testing.T) {
	const a = "pkg.test_a.TestA."
	listed := []string{
		a + "test_died[id-6]", a + "test_fail[id-3]", a + "test_ok[id-1,smoke]", a + "test_skip[id-2]",
		a + "test_uxsuccess[id-5]", a + "test_xfail[id-4]",
		"pkg.test_b.TestB.test_one[id-7]", "pkg.test_b.TestB.test_two[id-8]",
		"pkg.test_c.TestC.test_vif[id-9]",
		"pkg.test_e.TestE.test_big", "pkg.test_f.TestF.test_never[id-10]",
	}
	got, err := ParseResults(bytes.NewReader(readSample(t)), listed)
	if err != nil {
		t.Fatal(err)
	}
	want := Results{
		{a + "test_died[id-6]", Fail, ""},
		{a + "test_fail[id-3]", Fail, "AssertionError: 404 != 200"},
		{a + "test_ok[id-1,smoke]", Pass, ""},
		{a + "test_skip[id-2]", Skip, "not enabled"},
		{a + "test_uxsuccess[id-5]", Fail, ""},
		{a + "test_xfail[id-4]", Pass, ""},
		{"pkg.test_b.TestB.test_one[id-7]", Fail, "setUpClass: keystoneauth1.exceptions.Unauthorized: 401"},
		{"pkg.test_b.TestB.test_two[id-8]", Fail, "setUpClass: keystoneauth1.exceptions.Unauthorized: 401"},
		{"pkg.test_c.TestC.test_vif[id-9]", Skip, "setUpClass: Neutron is not enabled"},
		{"pkg.test_e.TestE.test_big", Pass, ""},
		{"pkg.test_f.TestF.test_never[id-10]", Fail, "no result recorded (worker died?)"},
		{"setUpClass (pkg.test_d.TestD)", Fail, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if c := got.Counts(); c != (Counts{Passed: 3, Failed: 7, Skipped: 2}) {
		t.Errorf("counts %v", c)
	}
	if c := got.Select("pkg.test_a.").Counts(); c != (Counts{Passed: 2, Failed: 3, Skipped: 1}) {
		t.Errorf("pkg.test_a counts %v", c)
	}

	dir := t.TempDir()
	if err := got.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	skips, _ := os.ReadFile(dir + "/skips.txt")
	if string(skips) != a+"test_skip[id-2] | not enabled\npkg.test_c.TestC.test_vif[id-9] | setUpClass: Neutron is not enabled\n" {
		t.Errorf("skips.txt:\n%s", skips)
	}
}
