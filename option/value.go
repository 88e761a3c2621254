package option

import (
	"encoding"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// assign converts an interpolated value to the option's type, validates
// it (choices, bounds) and stores it in the field ptr points to. An
// unset option (upstream's None) stores the field's zero value.
func assign(ptr any, o *Opt, v resolvedValue) error {
	fail := func(err error) error {
		return &optionError{origin: v.origin, section: o.Section, name: o.Name, err: err}
	}
	if !fits(ptr, o) {
		return fail(fmt.Errorf("internal error: a %T field cannot hold its %s", ptr, o.Type))
	}
	if o.Type == MultiString {
		*ptr.(*[]string) = append([]string(nil), v.multi...)
		return nil
	}
	if v.unset {
		reflect.ValueOf(ptr).Elem().SetZero()
		return nil
	}
	if err := store(ptr, o, v.raw); err != nil {
		return fail(err)
	}
	return nil
}

// fits tells whether a field of ptr's type can hold o's values:
//
//	*string                   String, HostAddress, IPAddress
//	encoding.TextUnmarshaler  String
//	*int                      Integer, Port, Octal
//	**int                     Integer without a default (nil: unset)
//	*float64                  Float
//	*bool                     Boolean
//	*[]string                 List, MultiString
//	*map[string]string        Dict
//	*time.Duration            Integer or Float, counted in seconds
func fits(ptr any, o *Opt) bool {
	switch ptr.(type) {
	case *string:
		return o.Type == String || o.Type == HostAddress || o.Type == IPAddress
	case *int:
		return o.Type == Integer || o.Type == Port || o.Type == Octal
	case **int:
		return o.Type == Integer && o.NoDefault
	case *float64:
		return o.Type == Float
	case *bool:
		return o.Type == Boolean
	case *[]string:
		return o.Type == List || o.Type == MultiString
	case *map[string]string:
		return o.Type == Dict
	case *time.Duration:
		return o.Type == Integer || o.Type == Float
	case encoding.TextUnmarshaler:
		return o.Type == String
	}
	return false
}

func store(ptr any, o *Opt, raw string) error {
	switch p := ptr.(type) {
	case *string:
		s, err := parseString(o, raw)
		if err != nil {
			return err
		}
		*p = s
	case *bool:
		b, err := ParseBool(raw)
		if err != nil {
			return err
		}
		*p = b
	case *int:
		n, ok, err := parseInt(o, raw)
		if err != nil {
			return err
		}
		if !ok {
			n = 0
		}
		*p = int(n)
	case **int:
		n, ok, err := parseInt(o, raw)
		if err != nil {
			return err
		}
		*p = nil
		if ok {
			v := int(n)
			*p = &v
		}
	case *float64:
		f, _, err := parseFloat(o, raw)
		if err != nil {
			return err
		}
		*p = f
	case *time.Duration:
		secs, _, err := parseFloat(o, raw)
		if err != nil {
			return err
		}
		*p = time.Duration(secs * float64(time.Second))
	case *[]string:
		*p = ParseList(raw)
	case *map[string]string:
		m, err := ParseDict(raw)
		if err != nil {
			return err
		}
		*p = m
	case encoding.TextUnmarshaler:
		s, err := parseString(o, raw)
		if err != nil {
			return err
		}
		return p.UnmarshalText([]byte(s))
	default:
		return fmt.Errorf("internal error: unsupported field type %T", ptr)
	}
	return nil
}

// parseString validates a value of a string-like option.
func parseString(o *Opt, raw string) (string, error) {
	switch o.Type {
	case String:
	case HostAddress:
		if net.ParseIP(raw) == nil && !validHostname(raw) {
			return "", fmt.Errorf("invalid host address %q: not an IP address or host name", raw)
		}
	case IPAddress:
		if net.ParseIP(raw) == nil {
			return "", fmt.Errorf("invalid IP address %q", raw)
		}
	default:
		return "", fmt.Errorf("internal error: cannot store %s in a string", o.Type)
	}
	if len(o.Choices) > 0 && !(raw == "" && o.NoDefault) {
		ok := false
		for _, c := range o.Choices {
			if c.Value == raw {
				ok = true
				break
			}
		}
		if !ok {
			vals := make([]string, len(o.Choices))
			for i, c := range o.Choices {
				vals[i] = c.Value
			}
			return "", fmt.Errorf("invalid value %q: valid values are %s", raw, strings.Join(vals, ", "))
		}
	}
	return raw, nil
}

// validHostname accepts RFC 1123 host names (optionally ending in a dot).
func validHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
				return false
			}
		}
	}
	return true
}

// parseInt parses an Integer, Port or Octal value. An empty value means
// "unset" (ok false), as in oslo.config.
func parseInt(o *Opt, raw string) (n int64, ok bool, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return 0, false, nil
	}
	switch o.Type {
	case Integer, Port:
		n, err = strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("invalid %s %q", o.Type, raw)
		}
	case Octal:
		t := strings.TrimPrefix(strings.TrimPrefix(s, "0o"), "0O")
		n, err = strconv.ParseInt(t, 8, 64)
		if err != nil {
			return 0, false, fmt.Errorf("invalid octal value %q", raw)
		}
	default:
		return 0, false, fmt.Errorf("internal error: cannot store %s in an int", o.Type)
	}
	if err := checkBounds(o, float64(n)); err != nil {
		return 0, false, err
	}
	return n, true, nil
}

// parseFloat parses a Float value, or an Integer one for a Duration
// field. An empty value means "unset" (ok false).
func parseFloat(o *Opt, raw string) (f float64, ok bool, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return 0, false, nil
	}
	switch o.Type {
	case Float:
		f, err = strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, fmt.Errorf("invalid %s %q", o.Type, raw)
		}
	case Integer:
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("invalid %s %q", o.Type, raw)
		}
		f = float64(n)
	default:
		return 0, false, fmt.Errorf("internal error: cannot store %s in a duration", o.Type)
	}
	if err := checkBounds(o, f); err != nil {
		return 0, false, err
	}
	return f, true, nil
}

func checkBounds(o *Opt, v float64) error {
	if o.Min != "" {
		if m, err := strconv.ParseFloat(o.Min, 64); err == nil && v < m {
			return fmt.Errorf("value %v is less than the minimum %s", v, o.Min)
		}
	}
	if o.Max != "" {
		if m, err := strconv.ParseFloat(o.Max, 64); err == nil && v > m {
			return fmt.Errorf("value %v is greater than the maximum %s", v, o.Max)
		}
	}
	return nil
}

// ParseBool parses a boolean as oslo.config does: true/yes/on/1 and
// false/no/off/0, in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean value %q (use true/false, yes/no, on/off or 1/0)", s)
}

// ParseList splits a comma-separated list, trimming whitespace around
// items and dropping empty ones. It never returns nil for an empty list.
func ParseList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// ParseDict parses "key:value,key2:value2" (whitespace around keys and
// values trimmed, empty items dropped).
func ParseDict(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("invalid dict value %q: want key:value pairs separated by commas", s)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
