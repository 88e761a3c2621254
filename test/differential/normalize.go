package differential

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Response is the normalised form of one answer: what is compared and what
// a golden file stores.
type Response struct {
	Status int `json:"status"`
	// Headers holds the kept headers under their canonical names
	// (see KeptHeaders), with normalised values.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the parsed JSON body (numbers as json.Number), with the inner
	// error_message string parsed too when it is JSON.
	Body any `json:"body,omitempty"`
	// Text is the body when it is not JSON.
	Text string `json:"text,omitempty"`
	// Order is the key order of the body's objects of two keys or more,
	// one "path: key, key, ..." line each in document order (path as in
	// Capture, "." for the body itself); only for entries with KeyOrder,
	// since Body, a map, does not keep it.
	Order []string `json:"order,omitempty"`
	// Error says why no answer was received (connection refused, timeout,
	// unresolved variable).
	Error string `json:"error,omitempty"`
}

// KeptHeaders are the response headers compared, by canonical name. Names
// are matched case-insensitively.
func KeptHeaders() []string {
	return []string{
		"Content-Type",
		"Location",
		"Openstack-Request-Id",
		"X-OpenStack-Ironic-API-Minimum-Version",
		"X-OpenStack-Ironic-API-Maximum-Version",
		"X-OpenStack-Ironic-API-Version",
	}
}

const uuidExpr = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`

var (
	uuidPattern        = regexp.MustCompile(uuidExpr)
	requestIDPattern   = regexp.MustCompile(`req-` + uuidExpr)
	requestIDExact     = regexp.MustCompile(`^req-` + uuidExpr + `$`)
	timestampPattern   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`)
	placeholderPattern = regexp.MustCompile(`<uuid:[^<>]+>`)
	// Python object reprs ("<... object at 0x7f90159232d0>") leak into a
	// few reference messages; the address changes from run to run.
	addressPattern = regexp.MustCompile(` at 0x[0-9a-f]{6,16}>`)
	// unorderedKeyPattern names the keys whose string lists the reference
	// builds from Python sets, so their order changes from run to run.
	unorderedKeyPattern = regexp.MustCompile(`^enabled_[a-z]+_interfaces$`)
)

// Normalizer turns an Exchange into a Response, replacing what differs
// between two servers or two runs by placeholders: the endpoint URL by
// <url>, conductor host names by <host>, request ids by <request-id>,
// timestamps by <time>, Python object addresses by 0x<addr>. The string
// lists of enabled_*_interfaces keys, built from Python sets by the
// reference, are sorted. UUIDs are left for a UUIDMap.
type Normalizer struct {
	// BaseURL is the endpoint ("http://127.0.0.1:6385"), replaced by <url>.
	BaseURL string
	// Hosts are the conductor host names, replaced by <host>.
	Hosts []string
}

// Normalize returns the normalised response and the problems found with the
// JSON style of the raw body (see CheckPythonStyle), if any.
func (n Normalizer) Normalize(ex Exchange) (Response, []string) {
	if ex.Err != nil {
		return Response{Error: n.str(ex.Err.Error())}, nil
	}
	r := Response{Status: ex.Status, Headers: map[string]string{}}
	for _, name := range KeptHeaders() {
		vals := ex.Header.Values(name)
		if len(vals) == 0 {
			continue
		}
		v := strings.Join(vals, ", ")
		switch name {
		case "Openstack-Request-Id":
			if requestIDExact.MatchString(v) {
				v = "<request-id>"
			} else {
				v = "malformed: " + v
			}
		case "Location":
			v = n.str(v)
		}
		r.Headers[name] = v
	}
	if len(r.Headers) == 0 {
		r.Headers = nil
	}
	if len(ex.Body) == 0 {
		return r, nil
	}
	doc, err := decodeJSON(ex.Body)
	if err != nil {
		r.Text = n.str(string(ex.Body))
		return r, nil
	}
	var style []string
	if err := CheckPythonStyle(ex.Body); err != nil {
		style = append(style, "body: "+err.Error())
	}
	if obj, ok := doc.(map[string]any); ok {
		if inner, ok := obj["error_message"].(string); ok {
			if parsed, err := decodeJSON([]byte(inner)); err == nil {
				obj["error_message"] = parsed
				if err := CheckPythonStyle([]byte(inner)); err != nil {
					style = append(style, "error_message: "+err.Error())
				}
			}
		}
	}
	r.Body = sortUnordered(n.walk(doc))
	for _, path := range ex.Entry.Mask {
		r.Body = maskPath(r.Body, strings.Split(path, "."))
	}
	if ex.Entry.KeyOrder {
		r.Order = n.keyOrder(ex.Body, ex.Entry.Mask)
	}
	return r, style
}

// keyOrder lists the key order of the objects of a JSON document (see
// Response.Order), leaving out what lies under a masked path.
func (n Normalizer) keyOrder(body []byte, mask []string) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out []string
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			var keys []string
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k := n.str(kt.(string))
				keys = append(keys, k)
				if err := walk(joinPath(path, k)); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			if len(keys) > 1 && !masked(path, mask) {
				shown := path
				if shown == "" {
					shown = "."
				}
				// Inner objects were listed on the way: this one goes
				// before them.
				out = slices.Insert(out, firstUnder(out, path), shown+": "+strings.Join(keys, ", "))
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(joinPath(path, strconv.Itoa(i))); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return []string{"invalid JSON: " + err.Error()}
	}
	return out
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// firstUnder is the index of the first line of out about path or below it.
func firstUnder(out []string, path string) int {
	for i, l := range out {
		p, _, _ := strings.Cut(l, ": ")
		if path == "" || p == path || strings.HasPrefix(p, path+".") {
			return i
		}
	}
	return len(out)
}

// masked reports whether path is a masked path or lies below one.
func masked(path string, mask []string) bool {
	for _, m := range mask {
		if path == m || strings.HasPrefix(path, m+".") {
			return true
		}
	}
	return false
}

// sortUnordered sorts the string lists found under unorderedKeyPattern keys.
func sortUnordered(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if list, ok := val.([]any); ok && unorderedKeyPattern.MatchString(k) {
				sort.SliceStable(list, func(i, j int) bool {
					a, aok := list[i].(string)
					b, bok := list[j].(string)
					return aok && bok && a < b
				})
				continue
			}
			x[k] = sortUnordered(val)
		}
	case []any:
		for i, val := range x {
			x[i] = sortUnordered(val)
		}
	}
	return v
}

// maskPath replaces the value at path (keys and array indexes) by "<masked>"
// when it exists.
func maskPath(v any, path []string) any {
	if len(path) == 0 {
		return "<masked>"
	}
	switch x := v.(type) {
	case map[string]any:
		if val, ok := x[path[0]]; ok {
			x[path[0]] = maskPath(val, path[1:])
		}
	case []any:
		if i, err := strconv.Atoi(path[0]); err == nil && i >= 0 && i < len(x) {
			x[i] = maskPath(x[i], path[1:])
		}
	}
	return v
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func (n Normalizer) walk(v any) any {
	return mapStrings(v, n.str)
}

func (n Normalizer) str(s string) string {
	s = requestIDPattern.ReplaceAllString(s, "<request-id>")
	if n.BaseURL != "" {
		s = strings.ReplaceAll(s, n.BaseURL, "<url>")
	}
	for _, h := range n.Hosts {
		if h != "" {
			s = strings.ReplaceAll(s, h, "<host>")
		}
	}
	s = addressPattern.ReplaceAllString(s, " at 0x<addr>>")
	return timestampPattern.ReplaceAllString(s, "<time>")
}

// mapStrings applies f to every string of a decoded JSON value (object keys
// included) and returns the new value; the input is not modified.
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[f(k)] = mapStrings(val, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = mapStrings(val, f)
		}
		return out
	default:
		return v
	}
}

// visitStrings calls f on every string of v (object keys included) in a
// deterministic order: object keys sorted, array elements in order.
func visitStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		keys := sortedKeys(x)
		for _, k := range keys {
			f(k)
			visitStrings(x[k], f)
		}
	case []any:
		for _, val := range x {
			visitStrings(val, f)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// UUIDMap replaces UUIDs by placeholders <uuid:N>, numbered by first
// appearance over a whole run, so that a UUID keeps its placeholder from the
// response that created the object to every later one that mentions it.
//
// When recording, Assign numbers new UUIDs. When comparing, Learn first binds
// the placeholders of the expected response to the UUIDs found at the same
// places in the actual one, then Render replaces bound UUIDs by their
// placeholders and unknown ones by <uuid:?K>. Binding by position rather
// than renumbering keeps one missing or extra UUID from shifting every later
// placeholder of the run.
type UUIDMap struct {
	toPlaceholder map[string]string // lower-case UUID → placeholder
	toUUID        map[string]string // placeholder → lower-case UUID
	next          int
	// unknown names the UUIDs Render met unbound; they stay free for a
	// later Learn to bind.
	unknown map[string]string
}

// NewUUIDMap returns an empty map.
func NewUUIDMap() *UUIDMap {
	return &UUIDMap{
		toPlaceholder: map[string]string{},
		toUUID:        map[string]string{},
		unknown:       map[string]string{},
	}
}

func (m *UUIDMap) bind(placeholder, uuid string) {
	uuid = strings.ToLower(uuid)
	if _, ok := m.toUUID[placeholder]; ok {
		return
	}
	if _, ok := m.toPlaceholder[uuid]; ok {
		return
	}
	m.toUUID[placeholder] = uuid
	m.toPlaceholder[uuid] = placeholder
}

// Assign replaces every UUID of r, numbering the ones not seen before.
func (m *UUIDMap) Assign(r *Response) {
	m.replace(r, func(uuid string) string {
		m.next++
		p := "<uuid:" + strconv.Itoa(m.next) + ">"
		m.bind(p, uuid)
		return p
	})
}

// Render replaces every UUID of r by its bound placeholder, or by
// <uuid:?K> (K stable over the run) when it is bound to none yet.
func (m *UUIDMap) Render(r *Response) {
	m.replace(r, func(uuid string) string {
		uuid = strings.ToLower(uuid)
		p, ok := m.unknown[uuid]
		if !ok {
			p = "<uuid:?" + strconv.Itoa(len(m.unknown)+1) + ">"
			m.unknown[uuid] = p
		}
		return p
	})
}

// replace substitutes UUIDs in a deterministic order (Location, then the
// body with sorted keys) so that numbering does not depend on key order.
func (m *UUIDMap) replace(r *Response, fresh func(string) string) {
	sub := func(s string) string {
		return uuidPattern.ReplaceAllStringFunc(s, func(u string) string {
			if p, ok := m.toPlaceholder[strings.ToLower(u)]; ok {
				return p
			}
			return fresh(u)
		})
	}
	if loc, ok := r.Headers["Location"]; ok {
		r.Headers["Location"] = sub(loc)
	}
	// Assign in deterministic order first, then rewrite.
	visitStrings(r.Body, func(s string) { sub(s) })
	r.Body = mapStrings(r.Body, sub)
	r.Text = sub(r.Text)
	r.Error = sub(r.Error)
	for i, l := range r.Order {
		r.Order[i] = sub(l)
	}
}

// Learn binds the placeholders of want to the UUIDs found at the same place
// in got: same object key, same array index, same header; inside a string,
// got must match want's text with each placeholder standing for a UUID.
// Placeholders or UUIDs that are already bound are left alone.
func (m *UUIDMap) Learn(want, got Response) {
	if w, ok := want.Headers["Location"]; ok {
		if g, ok := got.Headers["Location"]; ok {
			m.learnString(w, g)
		}
	}
	m.learnValue(want.Body, got.Body)
	m.learnString(want.Text, got.Text)
	for i := 0; i < len(want.Order) && i < len(got.Order); i++ {
		m.learnString(want.Order[i], got.Order[i])
	}
}

func (m *UUIDMap) learnValue(want, got any) {
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); ok {
			m.learnString(w, g)
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return
		}
		for _, k := range sortedKeys(w) {
			if gv, ok := g[k]; ok {
				m.learnValue(w[k], gv)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			m.learnValue(w[i], g[i])
		}
	}
}

func (m *UUIDMap) learnString(want, got string) {
	if !strings.Contains(want, "<uuid:") {
		return
	}
	locs := placeholderPattern.FindAllStringIndex(want, -1)
	var expr strings.Builder
	expr.WriteString("^")
	last := 0
	names := make([]string, 0, len(locs))
	for _, l := range locs {
		expr.WriteString(regexp.QuoteMeta(want[last:l[0]]))
		expr.WriteString("(" + uuidExpr + ")")
		names = append(names, want[l[0]:l[1]])
		last = l[1]
	}
	expr.WriteString(regexp.QuoteMeta(want[last:]))
	expr.WriteString("$")
	re, err := regexp.Compile(expr.String())
	if err != nil {
		return
	}
	match := re.FindStringSubmatch(got)
	if match == nil {
		return
	}
	for i, name := range names {
		m.bind(name, match[i+1])
	}
}

// Shorten makes long strings readable in goldens without losing content:
// a run of more than 32 copies of one character becomes <c*N> (oversized
// test values are such runs), and a string still longer than max characters
// becomes <long-string len=N sha256=PREFIX>.
func Shorten(r *Response, max int) {
	f := func(s string) string {
		s = compressRuns(s)
		if len(s) <= max {
			return s
		}
		sum := sha256.Sum256([]byte(s))
		return fmt.Sprintf("<long-string len=%d sha256=%s>", len(s), hex.EncodeToString(sum[:8]))
	}
	r.Body = mapStrings(r.Body, f)
	r.Text = f(r.Text)
}

// minRun is the shortest run of one character that compressRuns rewrites.
const minRun = 33

func compressRuns(s string) string {
	if len(s) < minRun {
		return s
	}
	var b strings.Builder
	runes := []rune(s)
	for i := 0; i < len(runes); {
		j := i
		for j < len(runes) && runes[j] == runes[i] {
			j++
		}
		if n := j - i; n >= minRun {
			fmt.Fprintf(&b, "<%c*%d>", runes[i], n)
		} else {
			b.WriteString(string(runes[i:j]))
		}
		i = j
	}
	return b.String()
}
