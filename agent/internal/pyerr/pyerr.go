// Package pyerr renders Go's system errors as IPA's messages show the
// Python exceptions they come from.
package pyerr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
)

// OSError is Python's str() of an OSError without a file name:
// "[Errno 5] Input/output error".
func OSError(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("[Errno %d] %s", int(errno), strerror(errno))
	}
	return err.Error()
}

// PathError is Python's str() of an OSError raised on a file, with its
// name: "[Errno 2] No such file or directory: '/sys/bus/pci/devices'".
// An error that names no file is OSError's.
func PathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		var errno syscall.Errno
		if errors.As(pe.Err, &errno) {
			return fmt.Sprintf("%s: '%s'", OSError(errno), pe.Path)
		}
	}
	return OSError(err)
}

// strerror is C's strerror as Python shows it (Go lower-cases the first
// letter).
func strerror(e syscall.Errno) string {
	s := e.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
