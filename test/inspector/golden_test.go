package inspector

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/inspector"
)

// record runs the scenarios on Python Ironic 21.4 and rewrites their
// goldens:
//
//	go test -count=1 -p 1 ./test/inspector -record
var record = flag.Bool("record", false, "run the scenarios on Python Ironic 21.4 and rewrite testdata/golden")

// exchange is what went between the service and inspector in one
// scenario, normalised.
type exchange struct {
	// ToInspector are the service's requests to inspector.
	ToInspector []string `json:"to_inspector"`
	// ToIronic are inspector's requests to the service.
	ToIronic []string `json:"to_ironic"`
	// LastError is the node's last_error at the end ("" for none),
	// normalised as the requests are.
	LastError string `json:"last_error,omitempty"`
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// Timestamps and request ids in bodies.
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?`)
	hostRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	// statusRE is a status poll's path.
	statusRE = regexp.MustCompile(`^/v1/introspection/[0-9a-f-]{36}$`)
)

// normalise writes each request as "METHOD path [version] body", UUIDs
// numbered in order of appearance, and drops the status polls (the
// scenarios check their effect) and a request that repeats the one
// before it.
func normalise(reqs []inspector.Request, ids map[string]string) []string {
	var out []string
	for _, r := range reqs {
		line := r.Line()
		line = uuidRE.ReplaceAllStringFunc(line, func(u string) string {
			if id, ok := ids[u]; ok {
				return id
			}
			id := "UUID" + string(rune('A'+len(ids)))
			ids[u] = id
			return id
		})
		line = hostRE.ReplaceAllString(timeRE.ReplaceAllString(line, "TIME"), "http://HOST")
		if len(out) > 0 && out[len(out)-1] == line {
			continue
		}
		// The status polls run on a timer: how many there are, and
		// where they fall among the other requests, is timing.
		if r.Method == "GET" && statusRE.MatchString(r.Path) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// check compares the scenario's exchange with its golden, or (with
// -record, on the reference) rewrites the golden. Departures are lines
// ours may differ by, documented in docs/departures.md: each maps a
// golden line to what ours sends instead ("" for nothing).
func (e *env) check(name string, departures map[string]string) {
	e.t.Helper()
	ids := map[string]string{}
	got := exchange{ToInspector: normalise(e.toInspector.Requests(), ids), ToIronic: normalise(e.toIronic.Requests(), ids)}
	if e.lastError != "" {
		got.LastError = strings.TrimPrefix(normalise([]inspector.Request{{Method: "last_error", Path: e.lastError}}, ids)[0], "last_error ")
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *record {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			e.t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatalf("%v (record it: go test -count=1 -p 1 ./test/inspector -record)", err)
	}
	var want exchange
	if err := json.Unmarshal(b, &want); err != nil {
		e.t.Fatal(err)
	}
	apply := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if d, ok := departures[l]; ok {
				if d != "" {
					out = append(out, d)
				}
				continue
			}
			out = append(out, l)
		}
		return out
	}
	want.ToInspector, want.ToIronic = apply(want.ToInspector), apply(want.ToIronic)
	if d, ok := departures[want.LastError]; ok {
		want.LastError = d
	}
	if d := cmp.Diff(want, got); d != "" {
		e.t.Errorf("%s: the requests differ from Python Ironic 21.4's (-reference +ours):\n%s", name, d)
	}
}
