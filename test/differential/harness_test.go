package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/cluster"
)

// TestGoldensConsistent checks the recorded material without any server:
// one golden per entry and no other, deviations that name entries and
// sources that exist, and a deviation for every 5xx of the reference.
func TestGoldensConsistent(t *testing.T) {
	checkSuite(t, apiSuite())
}

// TestActionsGoldensConsistent is TestGoldensConsistent for the actions
// suite.
func TestActionsGoldensConsistent(t *testing.T) {
	checkSuite(t, actionsSuite())
}

// TestOrderGoldensConsistent is TestGoldensConsistent for the key-order
// suite.
func TestOrderGoldensConsistent(t *testing.T) {
	checkSuite(t, orderSuite())
}

// TestRunnerWait checks the corpus wait: the request is repeated until the
// answer matches, and a wait that never matches gives up with an error
// that says what it waited for.
func TestRunnerWait(t *testing.T) {
	polls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		polls++
		state := "deploying"
		if polls >= 3 && r.URL.Path == "/ok" {
			state = "active"
		}
		fmt.Fprintf(w, `{"provision_state": %q, "target_provision_state": null}`, state)
	}))
	defer srv.Close()
	r := NewRunner(srv.URL, 5*time.Second)
	until := map[string]json.RawMessage{"provision_state": json.RawMessage(`"active"`), "target_provision_state": json.RawMessage(`null`)}
	ex := r.Do(context.Background(), Entry{ID: "w", Path: "/ok", Wait: &Wait{Until: until, Timeout: 5}})
	if ex.Err != nil || polls != 3 || !strings.Contains(string(ex.Body), `"active"`) {
		t.Fatalf("wait: err=%v polls=%d body=%s", ex.Err, polls, ex.Body)
	}
	polls = 0
	start := time.Now()
	ex = r.Do(context.Background(), Entry{ID: "w2", Path: "/never", Wait: &Wait{Until: until, Timeout: 0.3}})
	if ex.Err == nil || !strings.Contains(ex.Err.Error(), `provision_state is "deploying", waiting for "active"`) {
		t.Fatalf("timeout: %v", ex.Err)
	}
	if time.Since(start) > 3*time.Second || polls < 2 {
		t.Fatalf("timeout took %s over %d polls", time.Since(start), polls)
	}
	bad := Corpus{{ID: "p", Method: "POST", Path: "/x", Wait: &Wait{Until: until}}}
	if err := bad.Validate(); err == nil {
		t.Fatal("a polled POST validated")
	}
}

// checkSuite is TestGoldensConsistent for any suite.
func checkSuite(t *testing.T, s suite) {
	t.Helper()
	corpus, err := LoadCorpus(s.CorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	deviations := map[string]Deviation{}
	if s.DeviationsFile != "" {
		if deviations, err = LoadDeviations(s.DeviationsFile); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]bool{}
	for _, id := range corpus.IDs() {
		ids[id] = true
	}
	for id, d := range deviations {
		if !ids[id] {
			t.Errorf("deviation %q names no corpus entry", id)
		}
		if d.BodyFrom != "" && !ids[d.BodyFrom] {
			t.Errorf("deviation %q: body_from %q names no corpus entry", id, d.BodyFrom)
		}
	}
	files, err := filepath.Glob(filepath.Join(s.GoldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if id := strings.TrimSuffix(filepath.Base(f), ".json"); !ids[id] {
			t.Errorf("golden %s belongs to no corpus entry (re-record to remove it)", f)
		}
	}
	succeeded, failed := 0, 0
	for _, e := range corpus {
		g, err := ReadGolden(GoldenPath(s.GoldenDir, e.ID))
		if err != nil {
			t.Errorf("%s: %v (record with -record -target <fresh reference>)", e.ID, err)
			continue
		}
		if g.ID != e.ID || g.Request != e.RequestLine() {
			t.Errorf("%s: golden was recorded for %s %q; re-record", e.ID, g.ID, g.Request)
		}
		if g.Response.Error != "" {
			t.Errorf("%s: golden holds a transport error: %s", e.ID, g.Response.Error)
		}
		if g.Response.Status >= 500 {
			if _, ok := deviations[e.ID]; !ok {
				t.Errorf("%s: the reference answers %d; add a deviation with the right 4xx to %s",
					e.ID, g.Response.Status, s.DeviationsFile)
			}
		}
		if g.Response.Status >= 400 {
			failed++
		} else {
			succeeded++
		}
	}
	t.Logf("%d entries: the reference answered %d with 1xx-3xx and %d with 4xx/5xx; %d deviations",
		len(corpus), succeeded, failed, len(deviations))
}

// TestServerLifecycle starts a stand-in for our server (testdata/fakeserver)
// with the configuration rendered from the template, through the cluster
// harness's process helpers: it must answer the runner and stop.
func TestServerLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := cluster.GoBuild(ctx, dir+"/", "./testdata/fakeserver"); err != nil {
		t.Fatal(err)
	}
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cfg := serverConfig{Host: "h", Port: port, StateDir: dir}
	text, err := renderConfig(apiSuite().ConfTemplate, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"host = h\n", fmt.Sprintf("port = %d\n", port), "connection = sqlite:///" + cfg.DBPath() + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered config lacks %q", want)
		}
	}
	conf := filepath.Join(dir, "ironic.conf")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	proc, err := cluster.StartProcess(filepath.Join(dir, "fakeserver"), []string{"--config-file", conf}, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := cluster.WaitHTTP(ctx, url+"/", 10*time.Second, proc); err != nil {
		t.Fatal(err)
	}
	ex := NewRunner(url, 5*time.Second).Do(ctx, Entry{ID: "x", Path: "/"})
	if ex.Err != nil || ex.Status != http.StatusOK {
		t.Fatalf("GET / = %d, %v", ex.Status, ex.Err)
	}
	if err := proc.Stop(5 * time.Second); err != nil {
		t.Logf("stop: %v", err)
	}
	if done, _ := proc.Exited(); !done {
		t.Fatal("process still running after Stop")
	}
}

func TestRunnerHeadersBodiesCaptures(t *testing.T) {
	type seen struct {
		Method, Path string
		Header       http.Header
		Body         string
	}
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(strings.Builder)
		if r.Body != nil {
			_, _ = fmt.Fprint(body, readAll(r))
		}
		got = append(got, seen{r.Method, r.URL.RequestURI(), r.Header.Clone(), body.String()})
		w.Header().Set("Location", "http://x/loc")
		_, _ = fmt.Fprint(w, `{"uuid": "u-1", "items": [{"n": 7}]}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	r := NewRunner(srv.URL, 5*time.Second)
	first := r.Do(ctx, Entry{ID: "a", Method: "POST", Path: "/v1/things", Body: json.RawMessage(`{"a": 1}`),
		Capture: map[string]string{"id": "uuid", "n": "items.0.n", "loc": "header:Location", "none": "nope"}})
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	if want := map[string]string{"id": "u-1", "n": "7", "loc": "http://x/loc"}; !cmp.Equal(r.Vars, want) {
		t.Errorf("captured %v, want %v", r.Vars, want)
	}
	second := r.Do(ctx, Entry{ID: "b", Path: "/v1/things/{{id}}?n={{n}}", Version: "1.50",
		Headers: map[string]*string{"X-Extra": ptr("{{loc}}")}})
	third := r.Do(ctx, Entry{ID: "c", Method: "PUT", Path: "/p", RawBody: ptr(`{"p": "{{pad}}"}`), Pad: 3,
		Headers: map[string]*string{DefaultVersionHeader: nil, "x-lower": ptr("1"), "Content-Type": ptr("text/plain")}})
	missing := r.Do(ctx, Entry{ID: "d", Path: "/v1/{{nope}}"})
	if second.Err != nil || third.Err != nil {
		t.Fatal(second.Err, third.Err)
	}
	if missing.Err == nil {
		t.Error("an unresolved variable should fail the request")
	}
	if len(got) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(got))
	}
	checks := []struct{ name, got, want string }{
		{"first content type", got[0].Header.Get("Content-Type"), "application/json"},
		{"first version", got[0].Header.Get(DefaultVersionHeader), DefaultVersion},
		{"first body", got[0].Body, `{"a": 1}`},
		{"second path", got[1].Path, "/v1/things/u-1?n=7"},
		{"second version", got[1].Header.Get(DefaultVersionHeader), "1.50"},
		{"second header", got[1].Header.Get("X-Extra"), "http://x/loc"},
		{"second content type", got[1].Header.Get("Content-Type"), ""},
		{"third version", got[2].Header.Get(DefaultVersionHeader), ""},
		{"third content type", got[2].Header.Get("Content-Type"), "text/plain"},
		{"third body", got[2].Body, `{"p": "xxx"}`},
		{"third method", got[2].Method, "PUT"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func readAll(r *http.Request) string {
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func ptr(s string) *string { return &s }

func TestNormalize(t *testing.T) {
	const base = "http://127.0.0.1:6391"
	inner := `{"faultcode": "Client", "faultstring": "Node 4f0e4a5e-1c2d-4e5f-8a9b-0c1d2e3f4a5b on ref-host at 2026-12-02T14:24:16.170544+00:00 <x.Y object at 0x7f90159232d0> req-0e8f1a9c-2b3d-4c5e-9f6a-7b8c9d0e1f2a", "debuginfo": null}`
	var body strings.Builder
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"error_message": inner}); err != nil {
		t.Fatal(err)
	}
	// Go writes a compact object and a newline; rewrite to Python's style.
	raw := strings.Replace(strings.TrimSuffix(body.String(), "\n"), `{"error_message":"`, `{"error_message": "`, 1)
	ex := Exchange{
		Entry:  Entry{ID: "x", Mask: []string{"masked"}},
		Status: 404,
		Header: http.Header{
			"Content-Type":                   {"application/json"},
			"Openstack-Request-Id":           {"req-0e8f1a9c-2b3d-4c5e-9f6a-7b8c9d0e1f2a"},
			"X-Openstack-Ironic-Api-Version": {"1.82"},
			"Location":                       {base + "/v1/nodes/4f0e4a5e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"},
			"Date":                           {"whatever"},
		},
		Body: []byte(raw),
	}
	n := Normalizer{BaseURL: base, Hosts: []string{"ref-host"}}
	got, style := n.Normalize(ex)
	if len(style) != 0 {
		t.Errorf("style problems in Python-style JSON: %v", style)
	}
	uuids := NewUUIDMap()
	uuids.Assign(&got)
	want := Response{
		Status: 404,
		Headers: map[string]string{
			"Content-Type":                   "application/json",
			"Openstack-Request-Id":           "<request-id>",
			"X-OpenStack-Ironic-API-Version": "1.82",
			"Location":                       "<url>/v1/nodes/<uuid:1>",
		},
		Body: map[string]any{"error_message": map[string]any{
			"faultcode":   "Client",
			"faultstring": "Node <uuid:1> on <host> at <time> <x.Y object at 0x<addr>> <request-id>",
			"debuginfo":   nil,
		}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Normalize (-want +got):\n%s", d)
	}

	ex.Body = []byte(`{"masked":"a","enabled_boot_interfaces":["pxe","fake"]}`)
	got, style = n.Normalize(ex)
	if len(style) == 0 {
		t.Error("Go-style separators not reported")
	}
	wantBody := map[string]any{"masked": "<masked>", "enabled_boot_interfaces": []any{"fake", "pxe"}}
	if d := cmp.Diff(wantBody, got.Body); d != "" {
		t.Errorf("mask/sort (-want +got):\n%s", d)
	}
}

// TestNormalizeKeyOrder: an entry with key_order lists the key order of
// every object of two keys or more, outer before inner, in document
// order, UUIDs numbered as in the body; masked objects are left out.
func TestNormalizeKeyOrder(t *testing.T) {
	body := `{"uuid": "4f0e4a5e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "extra": {"z": 1, "a": {"y": [{"q": 1, "p": 2}], "b": {}}},` +
		` "one": {"k": 1}, "masked": {"b": 1, "a": 2}, "list": [{"d": 1, "c": 2}]}`
	ex := Exchange{Entry: Entry{ID: "x", KeyOrder: true, Mask: []string{"masked"}}, Status: 200, Body: []byte(body)}
	got, _ := Normalizer{}.Normalize(ex)
	NewUUIDMap().Assign(&got)
	want := []string{
		".: uuid, extra, one, masked, list",
		"extra: z, a",
		"extra.a: y, b",
		"extra.a.y.0: q, p",
		"list.0: d, c",
	}
	if d := cmp.Diff(want, got.Order); d != "" {
		t.Errorf("Order (-want +got):\n%s", d)
	}
	ex.Entry.KeyOrder = false
	if got, _ := (Normalizer{}).Normalize(ex); got.Order != nil {
		t.Errorf("Order without key_order: %v", got.Order)
	}
}

func TestUUIDMapLearnsByPosition(t *testing.T) {
	const (
		a = "aaaaaaaa-0000-4000-8000-000000000001"
		b = "bbbbbbbb-0000-4000-8000-000000000002"
		c = "cccccccc-0000-4000-8000-000000000003"
		x = "eeeeeeee-0000-4000-8000-000000000009"
	)
	rec := NewUUIDMap()
	golden := []Response{
		{Body: map[string]any{"uuid": a}},
		{Body: map[string]any{"uuid": b, "msg": "Node " + a + " has " + b}},
		{Body: []any{a, b}},
	}
	for i := range golden {
		rec.Assign(&golden[i])
	}
	if d := cmp.Diff(map[string]any{"uuid": "<uuid:2>", "msg": "Node <uuid:1> has <uuid:2>"}, golden[1].Body); d != "" {
		t.Fatalf("Assign (-want +got):\n%s", d)
	}
	// Another server: different UUIDs, and one extra UUID in the first
	// answer that must not shift the placeholders of later answers.
	ours := []Response{
		{Body: map[string]any{"uuid": c, "extra": x}},
		{Body: map[string]any{"uuid": x, "msg": "Node " + c + " has " + x}},
		{Body: []any{c, x}},
	}
	cmpMap := NewUUIDMap()
	for i := range ours {
		cmpMap.Learn(golden[i], ours[i])
		cmpMap.Render(&ours[i])
	}
	if d := cmp.Diff(map[string]any{"uuid": "<uuid:1>", "extra": "<uuid:?1>"}, ours[0].Body); d != "" {
		t.Errorf("first (-want +got):\n%s", d)
	}
	// x, unmatched in the first answer, is bound where the golden first
	// names <uuid:2>: the difference shows in the first answer only.
	for i, want := range []any{
		map[string]any{"uuid": "<uuid:2>", "msg": "Node <uuid:1> has <uuid:2>"},
		[]any{"<uuid:1>", "<uuid:2>"},
	} {
		if d := cmp.Diff(want, ours[i+1].Body); d != "" {
			t.Errorf("answer %d (-want +got):\n%s", i+2, d)
		}
	}
}

func TestCheckPythonStyle(t *testing.T) {
	tests := []struct {
		raw string
		ok  bool
	}{
		{`{"a": 1, "b": [1, 2, {"c": null}], "d": "caf\u00e9 \n \\ \" /"}`, true},
		{`{}`, true},
		{`[]`, true},
		{`{"a":1}`, false},
		{`{"a": 1,"b": 2}`, false},
		{`{"a": 1 }`, false},
		{"{\"a\": 1}\n", false},
		{`{"a": "\u003c"}`, false},
		{`{"a": "\u00E9"}`, false},
		{`{"a": "\/"}`, false},
		{`{"a": "\u000a"}`, false},
		{"{\"a\": \"é\"}", false},
		{`{"a": "\u007f \u001b"}`, true},
	}
	for _, tt := range tests {
		err := CheckPythonStyle([]byte(tt.raw))
		if (err == nil) != tt.ok {
			t.Errorf("CheckPythonStyle(%q) = %v, want ok=%v", tt.raw, err, tt.ok)
		}
	}
}

func TestShorten(t *testing.T) {
	r := Response{Body: map[string]any{
		"runs": "Schema error: '" + strings.Repeat("x", 4097) + "' is too long",
		"long": strings.Repeat("ab", 600),
		"ok":   "short",
	}}
	Shorten(&r, DefaultMaxString)
	body := r.Body.(map[string]any)
	if body["runs"] != "Schema error: '<x*4097>' is too long" || body["ok"] != "short" ||
		!strings.HasPrefix(body["long"].(string), "<long-string len=1200 sha256=") {
		t.Errorf("Shorten = %v", body)
	}
}

func TestDeviationApply(t *testing.T) {
	golden := Response{Status: 500, Headers: map[string]string{"A": "1", "B": "2"}, Body: "x"}
	source := Response{Body: map[string]any{"k": "v"}}
	got := Deviation{Status: 200, Headers: map[string]*string{"A": nil, "C": ptr("3")}, BodyFrom: "s"}.Apply(golden, &source)
	want := Response{Status: 200, Headers: map[string]string{"B": "2", "C": "3"}, Body: map[string]any{"k": "v"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Apply (-want +got):\n%s", d)
	}
	if golden.Headers["A"] != "1" {
		t.Error("Apply modified the golden")
	}
	_, err := LoadDeviations(filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadDeviations(missing) = %v", err)
	}
}
