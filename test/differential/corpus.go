// Package differential replays a corpus of HTTP requests against an
// Ironic-compatible endpoint and compares the normalised answers with
// answers recorded once from the reference Python Ironic 21.4 (API 1.82).
//
// It is a black-box test over HTTP: nothing in here imports the server's
// packages. The corpus runner ([Runner]) and the normaliser ([Normalizer],
// [UUIDMap]) serve this package's suites (the v1 API, provisioning
// actions, MariaDB), each with its own corpus; building and starting the
// server is test/internal/cluster's.
package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
)

// DefaultVersionHeader is the microversion header every entry sends unless it
// overrides or omits it.
const DefaultVersionHeader = "X-OpenStack-Ironic-API-Version"

// DefaultVersion is the microversion sent when an entry says nothing.
const DefaultVersion = "1.82"

// Entry is one request of a corpus. Entries run in order and may depend on
// the state left by earlier ones (a node created by one is patched by the
// next); values taken from a response with Capture are available to later
// entries as {{name}} in Path, Headers, Body and RawBody.
type Entry struct {
	// ID names the entry; it is unique in a corpus and names its golden file.
	ID string `json:"id"`
	// Comment says what the entry checks, for readers of the corpus.
	Comment string `json:"comment,omitempty"`
	// Method is the HTTP method (GET when empty).
	Method string `json:"method,omitempty"`
	// Path is the request path with its query string, e.g. "/v1/nodes?limit=1".
	Path string `json:"path"`
	// Version, when set, is sent as X-OpenStack-Ironic-API-Version instead of
	// DefaultVersion. Headers wins over it.
	Version string `json:"version,omitempty"`
	// Headers are extra request headers. A null value removes the header,
	// e.g. {"X-OpenStack-Ironic-API-Version": null} sends no version at all.
	Headers map[string]*string `json:"headers,omitempty"`
	// Body is a JSON value sent as the request body, with Content-Type
	// application/json unless Headers says otherwise.
	Body json.RawMessage `json:"body,omitempty"`
	// RawBody is sent verbatim (for malformed JSON); it excludes Body.
	RawBody *string `json:"raw_body,omitempty"`
	// Pad, when positive, replaces the text {{pad}} in Body or RawBody by
	// that many 'x' characters, to build oversized bodies without storing them.
	Pad int `json:"pad,omitempty"`
	// Capture maps a variable name to a path in the JSON response body:
	// dot-separated keys and array indexes ("uuid", "ports.0.uuid"), or
	// "header:Location" for a response header.
	Capture map[string]string `json:"capture,omitempty"`
	// Mask lists dot-separated paths in the response body (after the
	// error_message string is parsed) whose values the reference does not
	// produce deterministically, e.g. a description that depends on Python's
	// set iteration order. They are replaced by "<masked>" on both sides.
	Mask []string `json:"mask,omitempty"`
	// KeyOrder, when set, compares the key order of every JSON object of
	// the answer too (Response.Order): the reference returns the dicts
	// clients give it (extra, properties, driver_info, ...) in their
	// order, and the conductor's additions after them.
	KeyOrder bool `json:"key_order,omitempty"`
	// Wait, when set, repeats the request (a GET) until the answer's body
	// has the given top-level values, because actions such as deploy or
	// clean finish asynchronously on both servers. The answer compared is
	// the last one.
	Wait *Wait `json:"wait,omitempty"`
}

// Wait says how long to poll an entry and for what.
type Wait struct {
	// Until maps top-level keys of the JSON answer to the values they must
	// have (compared as decoded JSON; null matches null or absence).
	Until map[string]json.RawMessage `json:"until"`
	// Timeout is the longest wait in seconds; 0 means DefaultWaitTimeout.
	Timeout float64 `json:"timeout,omitempty"`
}

// DefaultWaitTimeout bounds a Wait that gives no timeout.
const DefaultWaitTimeout = 30 * time.Second

// waitInterval is the pause between two polls of a Wait.
const waitInterval = 100 * time.Millisecond

// timeout is the Wait's bound.
func (w *Wait) timeout() time.Duration {
	if w.Timeout <= 0 {
		return DefaultWaitTimeout
	}
	return time.Duration(w.Timeout * float64(time.Second))
}

// Matches reports whether a JSON body has every value of Until, and if
// not, which key differs.
func (w *Wait) Matches(body []byte) (bool, string) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return false, "answer is not a JSON object"
	}
	keys := make([]string, 0, len(w.Until))
	for k := range w.Until {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var want any
		d := json.NewDecoder(bytes.NewReader(w.Until[k]))
		d.UseNumber()
		if err := d.Decode(&want); err != nil {
			return false, fmt.Sprintf("until.%s is not JSON", k)
		}
		if !reflect.DeepEqual(doc[k], want) {
			got, _ := json.Marshal(doc[k])
			return false, fmt.Sprintf("%s is %s, waiting for %s", k, got, w.Until[k])
		}
	}
	return true, ""
}

// Corpus is an ordered list of entries.
type Corpus []Entry

var entryIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// LoadCorpus reads every *.json file of dir in lexical order (each a JSON
// array of entries) and returns their concatenation. It checks that ids are
// well formed and unique and that every entry has a path.
func LoadCorpus(dir string) (Corpus, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no corpus files in %s", dir)
	}
	sort.Strings(files)
	var c Corpus
	for _, f := range files {
		part, err := loadCorpusFile(f)
		if err != nil {
			return nil, err
		}
		c = append(c, part...)
	}
	return c, c.Validate()
}

func loadCorpusFile(path string) (Corpus, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Corpus
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks ids, methods and paths, and that every {{var}} an entry
// uses is captured by an earlier entry.
func (c Corpus) Validate() error {
	seen := make(map[string]bool, len(c))
	captured := map[string]bool{"pad": true}
	for i, e := range c {
		if !entryIDPattern.MatchString(e.ID) {
			return fmt.Errorf("entry %d: invalid id %q (want %s)", i, e.ID, entryIDPattern)
		}
		if seen[e.ID] {
			return fmt.Errorf("entry %d: duplicate id %q", i, e.ID)
		}
		seen[e.ID] = true
		if !strings.HasPrefix(e.Path, "/") {
			return fmt.Errorf("entry %s: path %q does not start with /", e.ID, e.Path)
		}
		if e.RawBody != nil && len(e.Body) > 0 {
			return fmt.Errorf("entry %s: both body and raw_body", e.ID)
		}
		texts := []string{e.Path, string(e.Body)}
		if e.RawBody != nil {
			texts = append(texts, *e.RawBody)
		}
		for _, v := range e.Headers {
			if v != nil {
				texts = append(texts, *v)
			}
		}
		for _, t := range texts {
			for _, m := range varPattern.FindAllStringSubmatch(t, -1) {
				if !captured[m[1]] {
					return fmt.Errorf("entry %s: {{%s}} is not captured by an earlier entry", e.ID, m[1])
				}
			}
		}
		if e.Wait != nil {
			if e.Method != "" && e.Method != "GET" {
				return fmt.Errorf("entry %s: wait polls, so the request must be a GET", e.ID)
			}
			if len(e.Wait.Until) == 0 {
				return fmt.Errorf("entry %s: wait without until", e.ID)
			}
			for k, v := range e.Wait.Until {
				if !json.Valid(v) {
					return fmt.Errorf("entry %s: wait.until.%s is not JSON", e.ID, k)
				}
			}
		}
		for name := range e.Capture {
			captured[name] = true
		}
	}
	return nil
}

// IDs returns the entry ids in order.
func (c Corpus) IDs() []string {
	ids := make([]string, len(c))
	for i, e := range c {
		ids[i] = e.ID
	}
	return ids
}

// RequestLine is "METHOD path" with the variables left as written, for
// humans reading goldens.
func (e Entry) RequestLine() string {
	m := e.Method
	if m == "" {
		m = "GET"
	}
	return m + " " + e.Path
}

var varPattern = regexp.MustCompile(`\{\{([A-Za-z0-9_]+)\}\}`)
