package redfish

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// The errors of this file are sushy 4.3's exceptions: Ironic puts their
// text into its own messages (RedfishError, last_error), so they are
// worded as sushy words them.

// errKind is a sushy exception class.
type errKind string

const (
	kindConnection       errKind = "ConnectionError"
	kindMissingAttribute errKind = "MissingAttributeError"
	kindMissingAction    errKind = "MissingActionError"
	kindInvalidValue     errKind = "InvalidParameterValueError"
	kindUnknownDefault   errKind = "UnknownDefaultError"
	kindMissingHeader    errKind = "MissingHeaderError"
	kindHTTP             errKind = "HTTPError"
	kindBadRequest       errKind = "BadRequestError"
	kindNotFound         errKind = "ResourceNotFoundError"
	kindServerSide       errKind = "ServerSideError"
	kindAccess           errKind = "AccessError"
	kindMissingXAuth     errKind = "MissingXAuthToken"
)

// sushyError is one of sushy's exceptions: its class and its message.
type sushyError struct {
	kind errKind
	msg  string
	// status is the HTTP status of HTTP errors (0 otherwise).
	status int
	// cause is the transport error of a ConnectionError.
	cause error
	// transferProtocolRequired says an HTTP error is a BMC's complaint
	// that InsertMedia lacks TransferProtocolType (sushy's
	// is_transfer_protocol_required).
	transferProtocolRequired bool
}

func (e *sushyError) Error() string { return e.msg }
func (e *sushyError) Unwrap() error { return e.cause }

// PythonClass is the sushy exception's class name, which Ironic's
// conductor names in last_error ("Deploy step ... failed with
// ServerSideError: ...").
func (e *sushyError) PythonClass() string { return string(e.kind) }

// isHTTP reports whether the kind is HTTPError or one of its subclasses.
func (k errKind) isHTTP() bool {
	switch k {
	case kindHTTP, kindBadRequest, kindNotFound, kindServerSide, kindAccess, kindMissingXAuth:
		return true
	}
	return false
}

// asSushy returns err's sushy exception, if it is one.
func asSushy(err error) (*sushyError, bool) {
	var s *sushyError
	ok := errors.As(err, &s)
	return s, ok
}

// isKind reports whether err is a sushy exception of kind k (HTTPError
// matching its subclasses, as Python's except clauses do).
func isKind(err error, k errKind) bool {
	s, ok := asSushy(err)
	if !ok {
		return false
	}
	if k == kindHTTP {
		return s.kind.isHTTP()
	}
	return s.kind == k
}

func connectionError(url string, err error) error {
	return &sushyError{kind: kindConnection, msg: fmt.Sprintf("Unable to connect to %s. Error: %s", url, err), cause: err}
}

func missingAttribute(attribute, resource string) error {
	return &sushyError{kind: kindMissingAttribute,
		msg: fmt.Sprintf("The attribute %s is missing from the resource %s", attribute, resource)}
}

func missingAction(action, resource string) error {
	return &sushyError{kind: kindMissingAction,
		msg: fmt.Sprintf("The action %s is missing from the resource %s", action, resource)}
}

func invalidValue(parameter, value, valid string) error {
	return &sushyError{kind: kindInvalidValue,
		msg: fmt.Sprintf("The parameter \"%s\" value \"%s\" is invalid. Valid values are: %s", parameter, value, valid)}
}

func unknownDefault(entity, why string) error {
	return &sushyError{kind: kindUnknownDefault,
		msg: fmt.Sprintf("Failed at determining default for \"%s\": %s", entity, why)}
}

func missingHeader(target, header string) error {
	return &sushyError{kind: kindMissingHeader,
		msg: fmt.Sprintf("Response to %s did not contain a %s header", target, header)}
}

// httpError is sushy's raise_for_response: the class by status, the
// message from the Redfish error body (its code and its most severe
// extended message) as HTTPError.__init__ builds it.
func httpError(method, url string, status int, body []byte) error {
	kind := kindHTTP
	switch {
	case status == http.StatusNotFound:
		kind = kindNotFound
	case status == http.StatusBadRequest:
		kind = kindBadRequest
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind = kindAccess
	case status >= 500:
		kind = kindServerSide
	}
	return newHTTPError(kind, method, url, status, body)
}

func newHTTPError(kind errKind, method, url string, status int, body []byte) error {
	errText, extInfo := "unknown error", "none"
	tpr := false
	if doc, err := pyjson.DecodeOrdered(body); err == nil && json.Valid(body) {
		code, detail := any("Base.1.0.GeneralError"), any(nil)
		var ext any = []any{pyjson.NewDict(0)}
		if d, ok := pyjson.AsDict(doc); ok {
			e, _ := pyjson.AsDict(d.Get("error"))
			if e == nil {
				e = pyjson.NewDict(0)
			}
			if v, ok := e.Lookup("code"); ok {
				code = v
			}
			detail = e.Get("message")
			if v, ok := e.Lookup("@Message.ExtendedInfo"); ok {
				ext = v
			}
			if code == "Base.1.5.ActionParameterMissing" {
				list, _ := ext.([]any)
				if len(list) > 0 {
					first, _ := pyjson.AsDict(list[0])
					if first != nil {
						rel, _ := first.Get("RelatedProperties").([]any)
						for _, r := range rel {
							tpr = tpr || r == "#/TransferProtocolType"
						}
					}
				}
			}
		}
		if m := mostSevere(ext); m != nil {
			detail = m
		}
		if !py.Truthy(detail) {
			detail = "unknown error."
		}
		errText = py.Str(code) + ": " + py.Str(detail)
		extInfo = py.Str(ext)
	}
	var msg string
	switch kind {
	case kindNotFound:
		msg = fmt.Sprintf("Resource %s not found", url)
	case kindMissingXAuth:
		msg = fmt.Sprintf("No X-Auth-Token returned from remote host when attempting to establish a session. Error: %s", errText)
	default:
		msg = fmt.Sprintf("HTTP %s %s returned code %d. %s Extended information: %s", method, url, status, errText, extInfo)
	}
	return &sushyError{kind: kind, msg: msg, status: status, transferProtocolRequired: tpr}
}

// mostSevere is HTTPError._get_most_severe_msg: the message of the first
// Critical, else the first Warning entry of the extended information.
func mostSevere(ext any) any {
	list, ok := ext.([]any)
	if !ok {
		if d, ok := pyjson.AsDict(ext); ok {
			return d.Get("Message")
		}
		return nil
	}
	for _, sev := range []string{"Critical", "Warning"} {
		for _, m := range list {
			if d, ok := pyjson.AsDict(m); ok && d.Get("Severity") == sev {
				return d.Get("Message")
			}
		}
	}
	return nil
}

// Two more kinds: a malformed attribute (sushy's MalformedAttributeError)
// and a Python KeyError that Ironic lets through.
const (
	kindMalformed errKind = "MalformedAttributeError"
	kindKey       errKind = "KeyError"
)

// pyStr is Python's str() of a JSON value.
func pyStr(v any) string { return py.Str(v) }

// pyNumber reads a JSON number.
func pyNumber(v any) (float64, bool) { return pyjson.Number(v) }
