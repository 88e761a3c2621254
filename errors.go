// Package ironic holds the types every layer shares: the closed set of
// Ironic fault classes (mapped to HTTP status codes in exactly one place),
// the request context, and the injectable sources of time and identity.
// It imports nothing but the standard library.
package ironic

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// Class is the name of an Ironic exception class, as Python Ironic spells it
// (ironic/common/exception.py). The name travels over RPC and decides the
// HTTP status code; the set is closed: Code maps every class. The classes
// and Code are generated from Ironic's exception module (faults_gen.go,
// `go generate .`).
type Class string

// Shape says how a fault is rendered inside Ironic's {"error_message": ...}
// envelope.
type Shape uint8

const (
	// ShapeFault is wsme's {"faultcode", "faultstring", "debuginfo"}, used for
	// errors raised by controllers and the conductor.
	ShapeFault Shape = iota
	// ShapeWebob is webob's {"code", "title", "description"}, used for
	// routing, negotiation and pecan.abort errors.
	ShapeWebob
)

// Fault is an error of one Ironic class with its message. It is the only
// error type that crosses layers: handlers return it, RPC carries its class
// name, and one adapter in apiv1 renders it.
type Fault struct {
	Class   Class
	Message string
	// Status overrides Class.Code() when Ironic re-codes a class in a
	// particular place (NodeNotFound referenced from a body answers 400).
	Status int
	Shape  Shape
}

func (f *Fault) Error() string { return f.Message }

// HTTPStatus is the status code the fault is answered with.
func (f *Fault) HTTPStatus() int {
	if f.Status != 0 {
		return f.Status
	}
	return f.Class.Code()
}

// Errorf builds a fault of class c.
func Errorf(c Class, format string, args ...any) *Fault {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Fault{Class: c, Message: msg}
}

// Webob builds a fault rendered in webob's shape with the given description.
func Webob(c Class, description string) *Fault {
	return &Fault{Class: c, Message: description, Shape: ShapeWebob}
}

// WithStatus returns a copy of f answered with another HTTP status.
func (f *Fault) WithStatus(code int) *Fault {
	g := *f
	g.Status = code
	return &g
}

// AsFault finds the Fault in err's chain. A lost connection to a backing
// service (the database going away) is TemporaryFailure (503): the client
// may retry and nothing is wrong with its request. Anything else is an
// internal error, reported with Ironic's default message so that no
// detail leaks.
func AsFault(err error) *Fault {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	if Unavailable(err) {
		return Errorf(TemporaryFailure, "Resource temporarily unavailable, please retry.")
	}
	return &Fault{Class: IronicException, Message: "An unknown exception occurred."}
}

// Unavailable reports whether err says a backing service could not be
// reached or dropped the connection: a refused or reset connection, a
// connection the SQL driver gave up on, or MySQL's "server has gone away"
// family (client errors 2002, 2003, 2006 and 2013; server shutting down,
// 1053; connection killed, 1927).
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"invalid connection", "bad connection", "Error 1053", "Error 1927",
		"Error 2002", "Error 2003", "Error 2006", "Error 2013", "connection refused", "broken pipe"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// IsClass reports whether err is a fault of class c.
func IsClass(err error, c Class) bool {
	var f *Fault
	return errors.As(err, &f) && f.Class == c
}
