package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// Golden is the recorded, normalised answer of the reference to one entry.
type Golden struct {
	ID string `json:"id"`
	// Request is the entry's request line as written in the corpus, for
	// readers only.
	Request  string   `json:"request"`
	Response Response `json:"response"`
}

// GoldenPath is where the golden of entry id lives under dir.
func GoldenPath(dir, id string) string { return filepath.Join(dir, id+".json") }

// ReadGolden reads one golden file.
func ReadGolden(path string) (Golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Golden{}, err
	}
	var g Golden
	if err := decodeStrict(data, &g); err != nil {
		return Golden{}, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// WriteGolden writes one golden file: indented, keys sorted, no HTML
// escaping, so that diffs stay readable.
func WriteGolden(path string, g Golden) error {
	data, err := marshalReadable(g)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// RemoveStaleGoldens deletes the *.json files of dir whose name is not an
// id in keep, and returns their names.
func RemoveStaleGoldens(dir string, keep []string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(keep))
	for _, id := range keep {
		want[id] = true
	}
	var removed []string
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if want[id] {
			continue
		}
		if err := os.Remove(f); err != nil {
			return removed, err
		}
		removed = append(removed, filepath.Base(f))
	}
	return removed, nil
}

// Deviation is an entry where our server deliberately answers differently
// from the reference. Its expected response is the golden with Status,
// Headers and Body overridden where given.
type Deviation struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// Status replaces the golden's status when non-zero.
	Status int `json:"status,omitempty"`
	// Headers are merged into the golden's; a null value removes a header.
	Headers map[string]*string `json:"headers,omitempty"`
	// Body replaces the golden's body when non-null.
	Body any `json:"body,omitempty"`
	// BodyFrom names another entry whose golden body is expected instead
	// (when the right answer is one the reference gives elsewhere).
	BodyFrom string `json:"body_from,omitempty"`
}

// Apply returns the response expected from our server for this entry;
// source is the golden named by BodyFrom, if any.
func (d Deviation) Apply(golden Response, source *Response) Response {
	r := golden
	if d.Status != 0 {
		r.Status = d.Status
	}
	if d.Headers != nil {
		h := maps.Clone(golden.Headers)
		if h == nil {
			h = map[string]string{}
		}
		for k, v := range d.Headers {
			if v == nil {
				delete(h, k)
			} else {
				h[k] = *v
			}
		}
		r.Headers = h
	}
	switch {
	case d.Body != nil:
		r.Body = d.Body
		r.Text = ""
	case source != nil:
		r.Body = source.Body
		r.Text = source.Text
	}
	return r
}

// LoadDeviations reads a JSON array of deviations keyed by entry id.
func LoadDeviations(path string) (map[string]Deviation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Deviation
	if err := decodeStrict(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make(map[string]Deviation, len(list))
	for _, d := range list {
		if d.ID == "" || d.Reason == "" {
			return nil, fmt.Errorf("%s: deviation %q needs an id and a reason", path, d.ID)
		}
		if d.Body != nil && d.BodyFrom != "" {
			return nil, fmt.Errorf("%s: deviation %q has both body and body_from", path, d.ID)
		}
		if _, dup := out[d.ID]; dup {
			return nil, fmt.Errorf("%s: duplicate deviation %q", path, d.ID)
		}
		out[d.ID] = d
	}
	return out, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func marshalReadable(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
