// Package ironic holds the types every layer shares: the closed set of
// Ironic fault classes (mapped to HTTP status codes in exactly one place),
// the request context, and the injectable sources of time and identity.
// It imports nothing but the standard library.
package ironic

import (
	"errors"
	"fmt"
	"net/http"
)

// Class is the name of an Ironic exception class, as Python Ironic spells it
// (ironic/common/exception.py). The name travels over RPC and decides the
// HTTP status code; the set is closed: every Class has an entry in Code.
type Class string

// The fault classes clients can see.
const (
	// 400
	Invalid                       Class = "Invalid"
	InvalidParameterValue         Class = "InvalidParameterValue"
	MissingParameterValue         Class = "MissingParameterValue"
	InvalidStateRequested         Class = "InvalidStateRequested"
	InvalidUUID                   Class = "InvalidUUID"
	InvalidUuidOrName             Class = "InvalidUuidOrName"
	InvalidName                   Class = "InvalidName"
	InvalidMAC                    Class = "InvalidMAC"
	InvalidSwitchID               Class = "InvalidSwitchID"
	InvalidDatapathID             Class = "InvalidDatapathID"
	PatchError                    Class = "PatchError"
	NodeInMaintenance             Class = "NodeInMaintenance"
	NodeIsRetired                 Class = "NodeIsRetired"
	NodeConsoleNotEnabled         Class = "NodeConsoleNotEnabled"
	UnsupportedDriverExtension    Class = "UnsupportedDriverExtension"
	IncompatibleInterface         Class = "IncompatibleInterface"
	InterfaceNotFoundInEntrypoint Class = "InterfaceNotFoundInEntrypoint"
	NoValidDefaultForInterface    Class = "NoValidDefaultForInterface"
	ChassisNotEmpty               Class = "ChassisNotEmpty"
	PortgroupNotEmpty             Class = "PortgroupNotEmpty"
	VifNotAttached                Class = "VifNotAttached"
	NoFreePhysicalPorts           Class = "NoFreePhysicalPorts"
	IncompleteLookup              Class = "IncompleteLookup"
	InvalidDeployTemplate         Class = "InvalidDeployTemplate"
	InvalidImageRef               Class = "InvalidImageRef"
	ClientSideError               Class = "ClientSideError"
	BadRequest                    Class = "HTTPBadRequest"

	// 401, 403
	Unauthorized          Class = "HTTPUnauthorized"
	NotAuthorized         Class = "NotAuthorized"
	HTTPForbidden         Class = "HTTPForbidden"
	OperationNotPermitted Class = "OperationNotPermitted"
	NodeProtected         Class = "NodeProtected"
	ImageNotAuthorized    Class = "ImageNotAuthorized"

	// 404
	NotFound                Class = "NotFound"
	NodeNotFound            Class = "NodeNotFound"
	PortNotFound            Class = "PortNotFound"
	PortgroupNotFound       Class = "PortgroupNotFound"
	ChassisNotFound         Class = "ChassisNotFound"
	AllocationNotFound      Class = "AllocationNotFound"
	DeployTemplateNotFound  Class = "DeployTemplateNotFound"
	VolumeConnectorNotFound Class = "VolumeConnectorNotFound"
	VolumeTargetNotFound    Class = "VolumeTargetNotFound"
	ConductorNotFound       Class = "ConductorNotFound"
	DriverNotFound          Class = "DriverNotFound"
	NoValidHost             Class = "NoValidHost"
	NodeTraitNotFound       Class = "NodeTraitNotFound"
	BIOSSettingNotFound     Class = "BIOSSettingNotFound"
	NodeHistoryNotFound     Class = "NodeHistoryNotFound"
	NodeInventoryNotFound   Class = "NodeInventoryNotFound"
	InstanceNotFound        Class = "InstanceNotFound"
	ImageNotFound           Class = "ImageNotFound"

	// 405, 406, 413
	MethodNotAllowed      Class = "HTTPMethodNotAllowed"
	NotAcceptable         Class = "NotAcceptable"
	RequestEntityTooLarge Class = "HTTPRequestEntityTooLarge"

	// 409
	Conflict                              Class = "Conflict"
	NodeLocked                            Class = "NodeLocked"
	DuplicateName                         Class = "DuplicateName"
	NodeAlreadyExists                     Class = "NodeAlreadyExists"
	PortAlreadyExists                     Class = "PortAlreadyExists"
	MACAlreadyExists                      Class = "MACAlreadyExists"
	PortgroupAlreadyExists                Class = "PortgroupAlreadyExists"
	PortgroupMACAlreadyExists             Class = "PortgroupMACAlreadyExists"
	PortgroupDuplicateName                Class = "PortgroupDuplicateName"
	ChassisAlreadyExists                  Class = "ChassisAlreadyExists"
	InstanceAssociated                    Class = "InstanceAssociated"
	NodeAssociated                        Class = "NodeAssociated"
	VifAlreadyAttached                    Class = "VifAlreadyAttached"
	VifInvalidForAttach                   Class = "VifInvalidForAttach"
	VolumeConnectorAlreadyExists          Class = "VolumeConnectorAlreadyExists"
	VolumeConnectorTypeAndIdAlreadyExists Class = "VolumeConnectorTypeAndIdAlreadyExists"
	VolumeTargetAlreadyExists             Class = "VolumeTargetAlreadyExists"
	VolumeTargetBootIndexAlreadyExists    Class = "VolumeTargetBootIndexAlreadyExists"
	AllocationAlreadyExists               Class = "AllocationAlreadyExists"
	AllocationDuplicateName               Class = "AllocationDuplicateName"
	DeployTemplateAlreadyExists           Class = "DeployTemplateAlreadyExists"
	DeployTemplateDuplicateName           Class = "DeployTemplateDuplicateName"
	PowerStateFailure                     Class = "PowerStateFailure"

	// 500, 503
	IronicException       Class = "IronicException"
	NodeNotLocked         Class = "NodeNotLocked"
	TemporaryFailure      Class = "TemporaryFailure"
	NoFreeConductorWorker Class = "NoFreeConductorWorker"
	ServiceUnavailable    Class = "HTTPServiceUnavailable"
)

// Code is the HTTP status of a class: the one table that maps faults to HTTP.
// Unknown classes (for example a class name that arrived over RPC from a
// newer peer) are server errors, as in Ironic.
func (c Class) Code() int {
	switch c {
	case Invalid, InvalidParameterValue, MissingParameterValue, InvalidStateRequested,
		InvalidUUID, InvalidUuidOrName, InvalidName, InvalidMAC, InvalidSwitchID,
		InvalidDatapathID, PatchError, NodeInMaintenance, NodeIsRetired,
		NodeConsoleNotEnabled, UnsupportedDriverExtension, IncompatibleInterface,
		InterfaceNotFoundInEntrypoint, NoValidDefaultForInterface, ChassisNotEmpty,
		PortgroupNotEmpty, VifNotAttached, NoFreePhysicalPorts, IncompleteLookup,
		InvalidDeployTemplate, InvalidImageRef, ClientSideError, BadRequest:
		return http.StatusBadRequest
	case Unauthorized:
		return http.StatusUnauthorized
	case NotAuthorized, HTTPForbidden, OperationNotPermitted, NodeProtected, ImageNotAuthorized:
		return http.StatusForbidden
	case NotFound, NodeNotFound, PortNotFound, PortgroupNotFound, ChassisNotFound,
		AllocationNotFound, DeployTemplateNotFound, VolumeConnectorNotFound,
		VolumeTargetNotFound, ConductorNotFound, DriverNotFound, NoValidHost,
		NodeTraitNotFound, BIOSSettingNotFound, NodeHistoryNotFound,
		NodeInventoryNotFound, InstanceNotFound, ImageNotFound:
		return http.StatusNotFound
	case MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case NotAcceptable:
		return http.StatusNotAcceptable
	case RequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	case Conflict, NodeLocked, DuplicateName, NodeAlreadyExists, PortAlreadyExists,
		MACAlreadyExists, PortgroupAlreadyExists, PortgroupMACAlreadyExists,
		PortgroupDuplicateName, ChassisAlreadyExists, InstanceAssociated, NodeAssociated,
		VifAlreadyAttached, VifInvalidForAttach, VolumeConnectorAlreadyExists,
		VolumeConnectorTypeAndIdAlreadyExists, VolumeTargetAlreadyExists,
		VolumeTargetBootIndexAlreadyExists, AllocationAlreadyExists,
		AllocationDuplicateName, DeployTemplateAlreadyExists,
		DeployTemplateDuplicateName, PowerStateFailure:
		return http.StatusConflict
	case TemporaryFailure, NoFreeConductorWorker, ServiceUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

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

// AsFault finds the Fault in err's chain. Anything else is an internal error,
// reported with Ironic's default message so that no detail leaks.
func AsFault(err error) *Fault {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	return &Fault{Class: IronicException, Message: "An unknown exception occurred."}
}

// IsClass reports whether err is a fault of class c.
func IsClass(err error, c Class) bool {
	var f *Fault
	return errors.As(err, &f) && f.Class == c
}
