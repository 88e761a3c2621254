package oslo

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
)

// IronicExceptionModule is the module of Ironic's exceptions: the only one
// (besides Python's builtins) whose classes a caller re-raises as such
// (oslo's allowed_remote_exmods).
const IronicExceptionModule = "ironic.common.exception"

// Failure is oslo.messaging's serialized exception:
// {"class", "module", "message", "tb", "args", "kwargs"}.
type Failure struct {
	Class   string
	Module  string
	Message string
	TB      []string
	Args    []any
	// Kwargs are the exception's keyword arguments; Ironic's are
	// JSON-encoded strings, plus the integer "code".
	Kwargs map[string]any
	// kwargsOrder keeps the order of Kwargs as received.
	kwargsOrder []string
}

// FromError describes err as the conductor raised it. A *ironic.Fault
// keeps its class (and its HTTP code as kwargs["code"]); anything else is
// an IronicException with err's text.
func FromError(err error) *Failure {
	var f *ironic.Fault
	if !errors.As(err, &f) {
		f = &ironic.Fault{Class: ironic.IronicException, Message: err.Error()}
	}
	code := f.HTTPStatus()
	return &Failure{
		Class:   string(f.Class),
		Module:  IronicExceptionModule,
		Message: f.Message,
		// The marker lets Ironic's API cut the "traceback" off the text
		// (NoExceptionTracebackHook) as it does for Python conductors.
		TB: []string{
			"Traceback (most recent call last):\n",
			fmt.Sprintf("%s.%s: %s\n", IronicExceptionModule, f.Class, f.Message),
		},
		Args:        []any{f.Message},
		Kwargs:      map[string]any{"code": code},
		kwargsOrder: []string{"code"},
	}
}

// UnsupportedVersion is the failure oslo's dispatcher answers for a
// version its endpoint cannot serve.
func UnsupportedVersion(version, method string) *Failure {
	msg := "Endpoint does not support RPC version " + version + ". Attempted method: " + method
	return &Failure{Class: "UnsupportedVersion", Module: "oslo_messaging.rpc.dispatcher", Message: msg,
		TB:   []string{"Traceback (most recent call last):\n", "oslo_messaging.rpc.dispatcher.UnsupportedVersion: " + msg + "\n"},
		Args: []any{msg}, Kwargs: map[string]any{}}
}

// NoSuchMethod is the failure for a method no endpoint has.
func NoSuchMethod(method string) *Failure {
	msg := "Endpoint does not support RPC method " + method
	return &Failure{Class: "NoSuchMethod", Module: "oslo_messaging.rpc.dispatcher", Message: msg,
		TB:   []string{"Traceback (most recent call last):\n", "oslo_messaging.rpc.dispatcher.NoSuchMethod: " + msg + "\n"},
		Args: []any{msg}, Kwargs: map[string]any{}}
}

// Fault is what the caller sees: Ironic's exception classes come back as
// faults of that class (with the code they carried); anything else is
// oslo's RemoteError, an internal error.
func (f *Failure) Fault() *ironic.Fault {
	if f.Module != IronicExceptionModule {
		return &ironic.Fault{Class: ironic.IronicException,
			Message: fmt.Sprintf("Remote error: %s %s", f.Class, f.Message)}
	}
	out := &ironic.Fault{Class: ironic.Class(f.Class), Message: f.Message}
	if code, ok := f.code(); ok && code != out.Class.Code() {
		out.Status = code
	}
	return out
}

func (f *Failure) code() (int, bool) {
	switch c := f.Kwargs["code"].(type) {
	case int:
		return c, true
	case interface{ Int64() (int64, error) }:
		n, err := c.Int64()
		return int(n), err == nil
	case string:
		n, err := strconv.Atoi(c)
		return n, err == nil
	}
	return 0, false
}

func (f *Failure) encode() ([]byte, error) {
	o := pyjson.Object{
		{Key: "class", Value: f.Class},
		{Key: "module", Value: f.Module},
		{Key: "message", Value: f.Message},
		{Key: "tb", Value: nonNilStrings(f.TB)},
		{Key: "args", Value: nonNilAny(f.Args)},
	}
	kw := make(pyjson.Object, 0, len(f.Kwargs))
	seen := make(map[string]bool, len(f.Kwargs))
	for _, k := range f.kwargsOrder {
		if v, ok := f.Kwargs[k]; ok && !seen[k] {
			kw = append(kw, pyjson.Member{Key: k, Value: v})
			seen[k] = true
		}
	}
	if len(seen) < len(f.Kwargs) {
		rest := make(map[string]any)
		for k, v := range f.Kwargs {
			if !seen[k] {
				rest[k] = v
			}
		}
		// Keys not in kwargsOrder follow, sorted.
		b, err := pyjson.Marshal(rest)
		if err != nil {
			return nil, err
		}
		ro, err := rawjson.SplitObject(b)
		if err != nil {
			return nil, err
		}
		for _, m := range ro {
			v, _ := rawjson.DecodeAny(m.Raw)
			kw = append(kw, pyjson.Member{Key: m.Key, Value: v})
		}
	}
	o = append(o, pyjson.Member{Key: "kwargs", Value: kw})
	return pyjson.Marshal(o)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilAny(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

// decodeFailure reads a failure (the decoded "failure" string).
func decodeFailure(b []byte) (*Failure, error) {
	o, err := rawjson.SplitObject(b)
	if err != nil {
		return nil, err
	}
	f := &Failure{}
	for _, m := range o {
		switch m.Key {
		case "class":
			f.Class, err = rawjson.DecodeString(m.Raw)
		case "module":
			f.Module, err = rawjson.DecodeString(m.Raw)
		case "message":
			var s *string
			if s, err = rawjson.DecodeOptString(m.Raw); s != nil {
				f.Message = *s
			}
		case "tb":
			f.TB, err = rawjson.DecodeStrings(m.Raw)
		case "args":
			f.Args, err = rawjson.DecodeList(m.Raw)
		case "kwargs":
			if rawjson.IsNull(m.Raw) {
				break
			}
			var kw rawjson.Object
			if kw, err = rawjson.SplitObject(m.Raw); err != nil {
				break
			}
			f.Kwargs = make(map[string]any, len(kw))
			for _, k := range kw {
				var v any
				if v, err = rawjson.DecodeAny(k.Raw); err != nil {
					break
				}
				f.Kwargs[k.Key] = v
				f.kwargsOrder = append(f.kwargsOrder, k.Key)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("oslo: failure %s: %w", m.Key, err)
		}
	}
	if f.Class == "" {
		return nil, fmt.Errorf("oslo: failure without a class")
	}
	return f, nil
}

// Code is the HTTP status the failure carries in kwargs["code"], if any.
func (f *Failure) Code() (int, bool) { return f.code() }

// IsArgumentError reports whether the failure is Python's TypeError or
// ValueError about the method's arguments (json-rpc's InvalidParams).
func (f *Failure) IsArgumentError() bool { return f.Module == "builtins" }
