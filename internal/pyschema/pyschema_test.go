package pyschema

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/internal/pyjson"
)

// cases.json is written by testdata/gen_cases.py from Python's jsonschema
// and Ironic; see that script.
type caseFile struct {
	Schemas map[string]string `json:"schemas"`
	Cases   []struct {
		Name         string   `json:"name"`
		Schema       string   `json:"schema"`
		Instance     string   `json:"instance"`
		Error        *pyError `json:"error"`
		Ironic       *string  `json:"ironic"`
		SortedError  *pyError `json:"sorted_error"`
		SortedIronic *string  `json:"sorted_ironic"`
	} `json:"cases"`
	Repr []struct {
		Value string `json:"value"`
		Repr  string `json:"repr"`
	} `json:"repr"`
	Regex []struct {
		Pattern string `json:"pattern"`
		String  string `json:"string"`
		Match   bool   `json:"match"`
	} `json:"regex"`
}

type pyError struct {
	Message    string  `json:"message"`
	Validator  *string `json:"validator"`
	Path       []any   `json:"path"`
	SchemaPath []any   `json:"schema_path"`
	Context    int     `json:"context"`
	Crash      string  `json:"crash"`
	Verbose    string  `json:"verbose"`
}

func loadCases(t *testing.T) *caseFile {
	t.Helper()
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cf caseFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		t.Fatal(err)
	}
	return &cf
}

// describe puts a Go error in the shape gen_cases.py records.
func describe(e *ValidationError) *pyError {
	if e == nil {
		return nil
	}
	d := &pyError{Message: e.Message, Context: len(e.Context), Path: []any{}, SchemaPath: []any{}, Verbose: e.Verbose()}
	if e.Validator != "" {
		v := e.Validator
		d.Validator = &v
	}
	for _, p := range e.Path {
		d.Path = append(d.Path, jsonPathElem(p))
	}
	for _, p := range e.SchemaPath {
		d.SchemaPath = append(d.SchemaPath, jsonPathElem(p))
	}
	return d
}

// jsonPathElem makes an int index compare equal to one read from JSON.
func jsonPathElem(p any) any {
	if i, ok := p.(int); ok {
		return float64(i)
	}
	return p
}

// ironicOf is what Ironic's args._validate_schema reports: nothing for a
// null value (it skips validation) or a valid one.
func ironicOf(e *ValidationError, instance any) *string {
	if e == nil || instance == nil {
		return nil
	}
	s := e.IronicMessage("body")
	return &s
}

func TestPythonCases(t *testing.T) {
	cf := loadCases(t)
	compiled := map[string]*Schema{}
	for name, text := range cf.Schemas {
		s, err := Compile(text)
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		compiled[name] = s
	}
	if len(cf.Cases) < 150 {
		t.Fatalf("only %d cases", len(cf.Cases))
	}
	passed, crashes := 0, 0
	for _, c := range cf.Cases {
		ok := t.Run(c.Name, func(t *testing.T) {
			s := compiled[c.Schema]
			inst, err := DecodeOrdered([]byte(c.Instance))
			if err != nil {
				t.Fatal(err)
			}
			got := s.Validate(inst)
			if c.Error != nil && c.Error.Crash != "" {
				// jsonschema raised TypeError; we only must not panic.
				crashes++
				return
			}
			if diff := cmp.Diff(c.Error, describe(got)); diff != "" {
				t.Errorf("ordered instance %s: error mismatch (-python +go):\n%s", c.Instance, diff)
			}
			if diff := cmp.Diff(c.Ironic, ironicOf(got, inst)); diff != "" {
				t.Errorf("ironic message mismatch (-python +go):\n%s", diff)
			}

			// The same document decoded into Go maps: keys are taken in
			// sorted order, which the generator mirrors.
			var unordered any
			if err := pyjson.Unmarshal([]byte(c.Instance), &unordered); err != nil {
				t.Fatal(err)
			}
			wantErr, wantIronic := c.SortedError, c.SortedIronic
			if wantErr != nil && wantErr.Crash != "" {
				return
			}
			gotU := s.Validate(unordered)
			if diff := cmp.Diff(wantErr, describe(gotU)); diff != "" {
				t.Errorf("map instance: error mismatch (-python +go):\n%s", diff)
			}
			if diff := cmp.Diff(wantIronic, ironicOf(gotU, unordered)); diff != "" {
				t.Errorf("map instance: ironic message mismatch (-python +go):\n%s", diff)
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("%d/%d python cases pass (%d where jsonschema itself raises TypeError)", passed, len(cf.Cases), crashes)
}

func TestRepr(t *testing.T) {
	cf := loadCases(t)
	for _, c := range cf.Repr {
		v, err := DecodeOrdered([]byte(c.Value))
		if err != nil {
			t.Fatalf("%s: %v", c.Value, err)
		}
		if got := Repr(v); got != c.Repr {
			t.Errorf("Repr(%s) = %s, python says %s", c.Value, got, c.Repr)
		}
	}
}

func TestRegexTranslation(t *testing.T) {
	cf := loadCases(t)
	for _, c := range cf.Regex {
		re, err := compilePython(c.Pattern)
		if err != nil {
			t.Errorf("compile %q: %v", c.Pattern, err)
			continue
		}
		if got := re.MatchString(c.String); got != c.Match {
			t.Errorf("re.search(%q, %q): got %v, python %v", c.Pattern, c.String, got, c.Match)
		}
	}
}

func TestUnsupportedRegex(t *testing.T) {
	for _, p := range []string{`(?=a)`, `(?<!a)b`, `(a)\1`, `\bword`, `a*+`, `(?x) a`, `a(?i)b`, `[\W]`, `\q`} {
		if _, err := compilePython(p); err == nil {
			t.Errorf("compilePython(%q) succeeded; want an error", p)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, s := range []string{
		`{"type": "strnig"}`,
		`{"$ref": "#/definitions/missing"}`,
		`{"$ref": "http://example.com/other.json"}`,
		`{"pattern": "(?<=x)"}`,
		`{"properties": {"a": 5}}`,
		`{"unevaluatedProperties": false}`,
		`{"$schema": "http://json-schema.org/draft-03/schema#"}`,
		`{"type": "object"`,
	} {
		if _, err := Compile(s); err == nil {
			t.Errorf("Compile(%s) succeeded; want an error", s)
		}
	}
}

func TestDecodeOrderedDuplicateKeys(t *testing.T) {
	v, err := DecodeOrdered([]byte(`{"b": 1, "a": 2, "b": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Repr(v), "{'b': 3, 'a': 2}"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := DecodeOrdered([]byte(`{} {}`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestGoValues(t *testing.T) {
	s := MustCompile(`{"type": "object", "properties": {"n": {"type": "integer"}, "f": {"maximum": 1}}}`)
	if e := s.Validate(map[string]any{"n": 3, "f": 0.5}); e != nil {
		t.Errorf("unexpected error %q", e.Message)
	}
	e := s.Validate(map[string]any{"n": 2.5})
	if e == nil || e.Message != "2.5 is not of type 'integer'" {
		t.Errorf("got %v", e)
	}
	e = s.Validate(struct {
		F float64 `json:"f"`
	}{F: 2})
	if e == nil || e.Message != "2 is greater than the maximum of 1" {
		// encoding/json writes 2.0 as 2, an int to Python.
		t.Errorf("got %v", e)
	}
}

func TestIronicMessage(t *testing.T) {
	s := MustCompile(`{"type": "object", "properties": {"p": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+$"}]}}}`)
	for body, want := range map[string]string{
		// The anyOf's context has one best error: best_match descends.
		`{"p": "x"}`: "Schema error for step: 'x' does not match '^[0-9]+$'",
		// Two equally relevant context errors: best_match stops at the
		// anyOf and Ironic adds the root cause.
		`{"p": []}`: "Schema error for step: [] is not valid under any of the given schemas. Possible root cause: [] is not of type 'integer'",
		`{"p": -1}`: "Schema error for step: -1 is less than the minimum of 0",
	} {
		inst, err := DecodeOrdered([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		e := s.Validate(inst)
		if e == nil {
			t.Fatalf("%s: no error", body)
		}
		if got := e.IronicMessage("step"); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", body, got, want)
		}
	}
}
