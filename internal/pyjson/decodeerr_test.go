package pyjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// decodeCase is one entry of testdata/decodeerr_cases.json, written by
// testdata/gen_decodeerr.py from what the reference's webob/simplejson says.
type decodeCase struct {
	Name  string `json:"name"`
	Input []struct {
		Text   *string `json:"text"`
		Base64 *string `json:"base64"`
		Repeat int     `json:"repeat"`
	} `json:"input"`
	Exception *string `json:"exception"`
	Message   *string `json:"message"`
}

func (c decodeCase) body(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range c.Input {
		var piece []byte
		switch {
		case p.Text != nil:
			piece = []byte(*p.Text)
		case p.Base64 != nil:
			var err error
			if piece, err = base64.StdEncoding.DecodeString(*p.Base64); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		default:
			t.Fatalf("%s: piece without text or base64", c.Name)
		}
		n := max(p.Repeat, 1)
		b.Write(bytes.Repeat(piece, n))
	}
	return b.Bytes()
}

func loadDecodeCases(t *testing.T) []decodeCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/decodeerr_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []decodeCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestDecodeErrorMatchesReference(t *testing.T) {
	cases := loadDecodeCases(t)
	var valid, malformed, corpus int
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			err := DecodeError(c.body(t))
			if c.Exception == nil {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want *Error", err, err)
			}
			if got, want := pe.Exception.String(), *c.Exception; got != want {
				t.Errorf("exception %s, want %s", got, want)
			}
			if got, want := err.Error(), *c.Message; got != want {
				t.Errorf("message\n got %q\nwant %q", got, want)
			}
		})
		if c.Exception == nil {
			valid++
		} else {
			malformed++
		}
		if strings.HasPrefix(c.Name, "corpus/") {
			corpus++
		}
	}
	// The table must keep its breadth when it is regenerated.
	if valid < 50 || malformed < 150 || corpus < 8 {
		t.Errorf("table has %d valid, %d malformed, %d corpus cases; want at least 50, 150, 8",
			valid, malformed, corpus)
	}
	t.Logf("%d valid, %d malformed (%d from the differential corpus)", valid, malformed, corpus)
}

// TestDecodeErrorAgreesWithEncodingJSON checks the valid/invalid verdict
// against encoding/json on inputs where the two grammars agree (no NaN or
// Infinity, no BOM, valid UTF-8, shallow, small integers).
func TestDecodeErrorAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range loadDecodeCases(t) {
		body := c.body(t)
		if bytes.Contains(body, []byte("NaN")) || bytes.Contains(body, []byte("Infinity")) ||
			bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(body, []byte("\u00ef")) ||
			len(body) > 4000 || (c.Exception != nil && *c.Exception != "JSONDecodeError") {
			continue
		}
		if got, want := DecodeError(body) == nil, json.Valid(body); got != want {
			t.Errorf("%s: DecodeError valid=%v, encoding/json valid=%v", c.Name, got, want)
		}
	}
}

func TestDecodeErrorDeepNestingIsBounded(t *testing.T) {
	// Far deeper than any goroutine stack would allow a recursive parser.
	const depth = 1 << 20
	err := DecodeError(bytes.Repeat([]byte("["), depth))
	var pe *Error
	if !errors.As(err, &pe) || pe.Exception != RecursionError {
		t.Fatalf("got %v, want RecursionError", err)
	}
	if pe.Pos != MaxNesting {
		t.Errorf("Pos = %d, want %d", pe.Pos, MaxNesting)
	}
	ok := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	if err := DecodeError([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxNesting, err)
	}
}

func TestDecodeErrorPositionsAreCodePoints(t *testing.T) {
	// "😀" is 4 bytes and one code point; "é" 2 bytes and one code point.
	err := DecodeError([]byte(`["😀é", x]`))
	want := "Expecting value: line 1 column 8 (char 7)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestExceptionString(t *testing.T) {
	for e, want := range map[Exception]string{
		JSONDecodeError: "JSONDecodeError", UnicodeDecodeError: "UnicodeDecodeError",
		ValueError: "ValueError", RecursionError: "RecursionError", 0: "Exception(0)",
	} {
		if got := e.String(); got != want {
			t.Errorf("%d: %s, want %s", int(e), got, want)
		}
	}
}

func BenchmarkDecodeErrorLarge(b *testing.B) {
	body := []byte(`{"description": "` + strings.Repeat("x", 2<<20))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if DecodeError(body) == nil {
			b.Fatal("want an error")
		}
	}
}
