package tempest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Outcome is how one test ended, as the harness counts it.
type Outcome string

const (
	Pass Outcome = "PASS" // success, or an expected failure
	Fail Outcome = "FAIL" // failure, unexpected success, or no result at all
	Skip Outcome = "SKIP"
)

// Result is one test's outcome and, for a failure or a skip, its one-line
// reason: the last line of the traceback, or the skip reason.
type Result struct {
	ID      string
	Outcome Outcome
	Reason  string
}

// Counts are a run's totals, per test.
type Counts struct {
	Passed, Failed, Skipped int
}

func (c Counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

// Results are the outcomes of one run, sorted by test id.
type Results []Result

// Counts totals r.
func (r Results) Counts() Counts {
	var c Counts
	for _, x := range r {
		switch x.Outcome {
		case Pass:
			c.Passed++
		case Fail:
			c.Failed++
		case Skip:
			c.Skipped++
		}
	}
	return c
}

// Select returns the results whose test id starts with prefix.
func (r Results) Select(prefix string) Results {
	var out Results
	for _, x := range r {
		if strings.HasPrefix(x.ID, prefix) {
			out = append(out, x)
		}
	}
	return out
}

// testRecord accumulates a test's packets.
type testRecord struct {
	status Status
	files  map[string][]byte
}

// ParseResults reads a run's subunit v2 stream and returns one result per
// test. listed, when not empty, is every test the run selected (tempest
// run --list-tests): a class whose setUpClass failed or skipped reports
// that once, as "setUpClass (module.Class)", and each of its listed tests
// gets that outcome; a listed test without any outcome (its worker died)
// is a failure. A setUpClass that failed for a class none of whose tests
// was listed stays a result of its own.
func ParseResults(stream io.Reader, listed []string) (Results, error) {
	recs := map[string]*testRecord{}
	err := ReadSubunit(stream, func(p Packet) error {
		if p.TestID == "" {
			return nil
		}
		rec := recs[p.TestID]
		if rec == nil {
			rec = &testRecord{files: map[string][]byte{}}
			recs[p.TestID] = rec
		}
		if p.FileName != "" {
			rec.files[p.FileName] = append(rec.files[p.FileName], p.File...)
		}
		if p.Status > StatusInProgress {
			rec.status = p.Status
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	final := map[string]Result{}
	classLevel := map[string]Result{} // "module.Class" → its setUpClass
	for id, rec := range recs {
		res := Result{ID: id, Outcome: outcomeOf(rec.status), Reason: reasonOf(rec)}
		if cls, ok := strings.CutPrefix(id, "setUpClass ("); ok && strings.HasSuffix(cls, ")") {
			classLevel[strings.TrimSuffix(cls, ")")] = res
			continue
		}
		if rec.status <= StatusInProgress && len(listed) > 0 && !slices.Contains(listed, id) {
			continue // enumerated or started only, and not selected
		}
		final[id] = res
	}
	listedClasses := map[string]bool{}
	for _, id := range listed {
		cls := classOf(id)
		listedClasses[cls] = true
		if _, ok := final[id]; ok {
			continue
		}
		if c, ok := classLevel[cls]; ok {
			final[id] = Result{ID: id, Outcome: c.Outcome, Reason: "setUpClass: " + c.Reason}
			continue
		}
		final[id] = Result{ID: id, Outcome: Fail, Reason: "no result recorded (worker died?)"}
	}
	for cls, c := range classLevel {
		if c.Outcome != Pass && !listedClasses[cls] {
			id := "setUpClass (" + cls + ")"
			final[id] = Result{ID: id, Outcome: c.Outcome, Reason: c.Reason}
		}
	}
	out := make(Results, 0, len(final))
	for _, r := range final {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Result) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func outcomeOf(s Status) Outcome {
	switch s {
	case StatusSuccess, StatusExpectedFailure:
		return Pass
	case StatusSkip:
		return Skip
	}
	return Fail
}

// reasonOf is the last non-empty line of the traceback or of the skip
// reason.
func reasonOf(rec *testRecord) string {
	for _, name := range []string{"traceback", "reason"} {
		lines := strings.Split(strings.TrimSpace(string(rec.files[name])), "\n")
		if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
			return last
		}
	}
	return ""
}

// classOf is the "module.Class" of a test id
// ("module.Class.test_x[id-...,tag]").
func classOf(id string) string {
	id, _, _ = strings.Cut(id, "[")
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return id
}

// WriteFiles writes the harness's result files into dir: results.txt
// ("PASS|FAIL|SKIP <test id>", sorted, so that two runs diff),
// failures.txt and skips.txt ("<test id> | <reason>").
func (r Results) WriteFiles(dir string) error {
	var all, fails, skips strings.Builder
	for _, x := range r {
		fmt.Fprintf(&all, "%s %s\n", x.Outcome, x.ID)
		switch x.Outcome {
		case Fail:
			fmt.Fprintf(&fails, "%s | %s\n", x.ID, x.Reason)
		case Skip:
			fmt.Fprintf(&skips, "%s | %s\n", x.ID, x.Reason)
		}
	}
	for name, text := range map[string]string{
		"results.txt": all.String(), "failures.txt": fails.String(), "skips.txt": skips.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
