package drivers

import (
	"fmt"

	"github.com/goironic/ironic"
)

// Unsupported is Ironic's UnsupportedDriverExtension for the task's node:
// "Driver <driver> does not support <extension> (disabled or not
// implemented)."
func Unsupported(task Task, extension string) error {
	return UnsupportedFor(task.DriverName(), extension)
}

// UnsupportedFor is Unsupported with an explicit driver name.
func UnsupportedFor(driver, extension string) error {
	return ironic.Errorf(ironic.UnsupportedDriverExtension,
		"Driver %s does not support %s (disabled or not implemented).", driver, extension)
}

// NotImplemented is the error of an operation this service doesn't perform
// yet (talking to a real BMC, to Neutron, ...): an IronicException (HTTP
// 500) that says so, never a pretended success.
func NotImplemented(impl string, kind Kind, operation string) error {
	return ironic.Errorf(ironic.IronicException,
		"The %q %s interface cannot %s: this operation is not implemented yet.", impl, kind, operation)
}

// InvalidParameter is an InvalidParameterValue fault.
func InvalidParameter(format string, args ...any) error {
	return ironic.Errorf(ironic.InvalidParameterValue, format, args...)
}

// MissingParameter is a MissingParameterValue fault.
func MissingParameter(format string, args ...any) error {
	return ironic.Errorf(ironic.MissingParameterValue, format, args...)
}

// isValidationFault reports whether err is one of the faults Ironic's node
// validation reports as a plain reason (InvalidParameterValue, its
// subclasses, and UnsupportedDriverExtension).
func isValidationFault(err error) bool {
	class, ok := faultClass(err)
	if !ok {
		return false
	}
	switch class {
	case ironic.InvalidParameterValue, ironic.MissingParameterValue,
		ironic.InterfaceNotFoundInEntrypoint, ironic.IncompatibleInterface,
		ironic.NoValidDefaultForInterface, ironic.InvalidImageRef,
		ironic.UnsupportedDriverExtension:
		return true
	}
	return false
}

// pyAddress is how Python prints an object's identity in a repr: Ironic's
// IncompatibleInterface message shows the implementation object. We can't
// show a real address, so a stable one is derived from the name.
func pyAddress(name string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return fmt.Sprintf("0x7f%010x", h&0xffffffffff)
}

// UnsupportedMessage is UnsupportedDriverExtension raised with a message
// of its own, as Ironic's drivers sometimes do.
func UnsupportedMessage(msg string) error {
	return ironic.Errorf(ironic.UnsupportedDriverExtension, "%s", msg)
}
