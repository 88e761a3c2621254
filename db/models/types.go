package models

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
)

// TimeLayout is how SQLAlchemy stores a DateTime in SQLite (text, always
// with six fractional digits). MySQL/MariaDB accept the same text for a
// DATETIME column and drop the fraction.
const TimeLayout = "2006-01-02 15:04:05.000000"

// Time is a naive UTC timestamp column (created_at, updated_at,
// provision_updated_at, ...). Its zero value is SQL NULL, so that nullable
// timestamp columns need no pointer.
type Time struct{ time.Time }

// NewTime wraps t, converted to UTC.
func NewTime(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{t.UTC()}
}

// Valid reports whether the column is not NULL.
func (t Time) Valid() bool { return !t.IsZero() }

// Ptr returns a pointer to the time, or nil for NULL.
func (t Time) Ptr() *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

// Value writes the time as SQLAlchemy does on SQLite (microseconds, UTC,
// no zone); NULL when zero.
func (t Time) Value() (driver.Value, error) {
	if t.IsZero() {
		return nil, nil
	}
	return t.UTC().Format(TimeLayout), nil
}

// Scan reads a DATETIME as text (SQLite, MySQL without parseTime) or as a
// time.Time (drivers that parse it). Naive values are taken as UTC.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*t = Time{}
		return nil
	case time.Time:
		if v.IsZero() {
			*t = Time{}
			return nil
		}
		*t = Time{v.UTC()}
		return nil
	case []byte:
		return t.parse(string(v))
	case string:
		return t.parse(v)
	}
	return fmt.Errorf("models.Time: cannot scan %T", src)
}

func (t *Time) parse(s string) error {
	if s == "" || s == "0000-00-00 00:00:00" || s == "0000-00-00" {
		*t = Time{}
		return nil
	}
	if v, ok := parseNaive(s); ok {
		*t = Time{v}
		return nil
	}
	for _, layout := range timeLayouts() {
		if v, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			*t = Time{v.UTC()}
			return nil
		}
	}
	return fmt.Errorf("models.Time: cannot parse %q", s)
}

// parseNaive reads "YYYY-MM-DD HH:MM:SS[.fraction]" (the form both
// engines return) without time.Parse's generality.
func parseNaive(s string) (time.Time, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if len(s) > 19 {
		if s[19] != '.' || len(s) == 20 || len(s) > 29 {
			return time.Time{}, false
		}
		f, ok := num(20, len(s))
		if !ok {
			return time.Time{}, false
		}
		for i := len(s) - 20; i < 9; i++ {
			f *= 10
		}
		nsec = f
	}
	v := time.Date(y, time.Month(mo), d, h, mi, sec, nsec, time.UTC)
	if v.Day() != d { // e.g. February 30th
		return time.Time{}, false
	}
	return v, true
}

func timeLayouts() []string {
	return []string{
		"2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02",
	}
}

// JSONDict is a dict stored as JSON text (oslo.db JsonEncodedDict). Its
// keys keep their order, as a Python dict's do: Ironic writes the column
// with json.dumps in the order the client (or the conductor, setting a
// new key at the end) gave, and returns it in that order. Nested objects
// are *pyjson.Dict too, numbers json.Number.
//
// A JSONDict shares its dict when copied, like a map. Its zero value is
// nil (Python's None, written "{}" to the database); NULL and "{}" read as
// an empty, non-nil dict. Reads of a nil dict see an empty one.
type JSONDict struct{ *pyjson.Dict }

// NewJSONDict returns an empty, non-nil dict.
func NewJSONDict() JSONDict { return JSONDict{pyjson.NewDict(0)} }

// DictOf builds a dict from alternating keys and values, in that order
// (pyjson.DictOf).
func DictOf(kv ...any) JSONDict { return JSONDict{pyjson.DictOf(kv...)} }

// DictFrom wraps d (nil stays nil).
func DictFrom(d *pyjson.Dict) JSONDict { return JSONDict{d} }

// Equal reports whether o has the same keys in the same order with the
// same values (pyjson.Dict.Equal); go-cmp uses it.
func (d JSONDict) Equal(o JSONDict) bool { return d.Dict.Equal(o.Dict) }

// IsNil reports whether the dict is None (rather than empty).
func (d JSONDict) IsNil() bool { return d.Dict == nil }

// Value encodes the dict.
func (d JSONDict) Value() (driver.Value, error) {
	if d.Len() == 0 {
		return "{}", nil
	}
	b, err := pyjson.Marshal(d.Dict)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Scan decodes the dict.
func (d *JSONDict) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*d = NewJSONDict()
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("models.JSONDict: cannot scan %T", src)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "{}" || string(b) == "null" {
		*d = NewJSONDict()
		return nil
	}
	v, err := pyjson.Load(b)
	if err != nil {
		return fmt.Errorf("models.JSONDict: %w", err)
	}
	m, ok := v.(*pyjson.Dict)
	if !ok {
		return fmt.Errorf("models.JSONDict: column holds a JSON %T, not an object", v)
	}
	*d = JSONDict{m}
	return nil
}

// AppendPyJSON writes the dict in Python's json.dumps format (an empty dict
// for nil).
func (d JSONDict) AppendPyJSON(dst []byte) ([]byte, error) {
	return d.Dict.AppendPyJSON(dst)
}

// MarshalJSON writes the dict with its keys in order ({} for nil).
func (d JSONDict) MarshalJSON() ([]byte, error) { return d.Dict.MarshalJSON() }

// UnmarshalJSON reads an object keeping its key order; null is nil.
func (d *JSONDict) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*d = JSONDict{}
		return nil
	}
	v, err := pyjson.DecodeDict(b)
	if err != nil {
		return err
	}
	*d = JSONDict{v}
	return nil
}

// JSONList is a list stored as JSON text (oslo.db JsonEncodedList). A nil
// list is written as "[]" and NULL reads as an empty, non-nil list.
type JSONList []any

// Value encodes the list.
func (l JSONList) Value() (driver.Value, error) {
	if len(l) == 0 {
		return "[]", nil
	}
	b, err := pyjson.Marshal([]any(l))
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Scan decodes the list.
func (l *JSONList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*l = JSONList{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("models.JSONList: cannot scan %T", src)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "[]" || string(b) == "null" {
		*l = JSONList{}
		return nil
	}
	v, err := pyjson.Load(b)
	if err != nil {
		return fmt.Errorf("models.JSONList: %w", err)
	}
	a, ok := v.([]any)
	if !ok {
		return fmt.Errorf("models.JSONList: column holds a JSON %T, not an array", v)
	}
	*l = a
	return nil
}

// AppendPyJSON writes the list in Python's json.dumps format (an empty
// list for nil).
func (l JSONList) AppendPyJSON(dst []byte) ([]byte, error) {
	if l == nil {
		return append(dst, "[]"...), nil
	}
	return pyjson.Append(dst, []any(l))
}

// Strings returns the string members of the list (allocation traits,
// candidate nodes, conductor drivers, BIOS allowable values); other members
// are formatted as Python's str() would for numbers and booleans.
func (l JSONList) Strings() []string {
	out := make([]string, 0, len(l))
	for _, v := range l {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case nil:
			out = append(out, "None")
		case bool:
			if x {
				out = append(out, "True")
			} else {
				out = append(out, "False")
			}
		case fmt.Stringer:
			out = append(out, x.String())
		case int64:
			out = append(out, strconv.FormatInt(x, 10))
		default:
			out = append(out, fmt.Sprint(x))
		}
	}
	return out
}

// StringList builds a JSONList of strings.
func StringList(s []string) JSONList {
	l := make(JSONList, len(s))
	for i, v := range s {
		l[i] = v
	}
	return l
}

// Ptr returns a pointer to v; handy for the nullable columns.
func Ptr[T any](v T) *T { return &v }

// Deref returns *p, or the zero value for nil.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
