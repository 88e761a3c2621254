// Package states is Ironic's vocabulary of node states
// (ironic/common/states.py): provision states, power states, the events of
// the provision state machine, the API's provision verbs and node faults.
// Each is its own string type, so a power state can't be stored as a
// provision state ("error" is both) and a verb can't be mistaken for the
// event it maps to. The API checks requests against them and the
// conductor's state machine moves nodes between them; both import this
// leaf package (apiv1 may not import the conductor), and so do the
// drivers, the database models and the RPC contract. The values are
// Ironic's strings: what is stored and sent is the string itself.
package states

import "strings"

// Provision is a node's provision_state or target_provision_state. The
// zero value "" is Ironic's NOSTATE (None in the database): no target, or
// nothing to report from a driver call that finished synchronously.
type Provision string

// Provision states of Ironic 21.4 (ironic/common/states.py).
const (
	Enroll         Provision = "enroll"
	Verifying      Provision = "verifying"
	Manageable     Provision = "manageable"
	Inspecting     Provision = "inspecting"
	InspectWait    Provision = "inspect wait"
	InspectFailed  Provision = "inspect failed"
	Cleaning       Provision = "cleaning"
	CleanWait      Provision = "clean wait"
	CleanFailed    Provision = "clean failed"
	Available      Provision = "available"
	Deploying      Provision = "deploying"
	DeployWait     Provision = "wait call-back"
	DeployFailed   Provision = "deploy failed"
	Active         Provision = "active"
	Deleting       Provision = "deleting"
	Error          Provision = "error"
	Adopting       Provision = "adopting"
	AdoptFailed    Provision = "adopt failed"
	Rescuing       Provision = "rescuing"
	RescueWait     Provision = "rescue wait"
	RescueFailed   Provision = "rescue failed"
	Rescue         Provision = "rescue"
	Unrescuing     Provision = "unrescuing"
	UnrescueFailed Provision = "unrescue failed"

	// Deleted is not a state of the machine: a deploy interface's tear
	// down returns it (Ironic's DELETED) when the instance is gone.
	Deleted Provision = "deleted"
)

// Power is a node's power_state or target_power_state, what power
// interfaces report and what a power action asks for. The zero value ""
// is None: unknown, or no target.
type Power string

// Power states (ironic/common/states.py). Rebooting, SoftRebooting and
// SoftPowerOff are targets of power actions only; a power interface
// reports PowerOn, PowerOff or PowerError.
const (
	PowerOn       Power = "power on"
	PowerOff      Power = "power off"
	Rebooting     Power = "rebooting"
	SoftRebooting Power = "soft rebooting"
	SoftPowerOff  Power = "soft power off"
	PowerError    Power = "error"
)

// Allocation is an allocation's state. Ironic gives allocations three of
// its state strings (states.ALLOCATING, ACTIVE and ERROR); they are a type
// of their own here, as an allocation is not a node.
type Allocation string

// Allocation states of Ironic 21.4.
const (
	Allocating       Allocation = "allocating"
	AllocationActive Allocation = "active"
	AllocationError  Allocation = "error"
)

// Fault is a node's fault: why the conductor put it into maintenance
// (ironic/common/faults.py). The zero value "" is None.
type Fault string

// Faults of Ironic 21.4.
const (
	PowerFailure       Fault = "power failure"
	CleanFailure       Fault = "clean failure"
	RescueAbortFailure Fault = "rescue abort failure"
)

// Faults lists the valid faults (VALID_FAULTS), in Ironic's order.
func Faults() []Fault { return []Fault{PowerFailure, CleanFailure, RescueAbortFailure} }

// All lists every provision state of the machine.
func All() []Provision {
	return []Provision{Enroll, Verifying, Manageable, Inspecting, InspectWait, InspectFailed,
		Cleaning, CleanWait, CleanFailed, Available, Deploying, DeployWait, DeployFailed,
		Active, Deleting, Error, Adopting, AdoptFailed, Rescuing, RescueWait, RescueFailed,
		Rescue, Unrescuing, UnrescueFailed}
}

// IsState reports whether s is a provision state of the machine.
func IsState(s Provision) bool {
	for _, x := range All() {
		if x == s {
			return true
		}
	}
	return false
}

// UpdateAllowed are the states in which a node may be patched although a
// transition is in progress (target_provision_state set).
func UpdateAllowed(s Provision) bool {
	switch s {
	case DeployFailed, Inspecting, InspectFailed, InspectWait, CleanFailed, Error,
		Verifying, AdoptFailed, RescueFailed, UnrescueFailed:
		return true
	}
	return false
}

// DeleteAllowed are the states from which a node may be deleted
// (available too when [conductor]allow_deleting_available_nodes).
func DeleteAllowed(s Provision, allowAvailable bool) bool {
	switch s {
	case Manageable, Enroll, AdoptFailed:
		return true
	case Available:
		return allowAvailable
	}
	return false
}

// Join lists states (or events, verbs) as Ironic's messages do:
// sep.join(states).
func Join[S ~string](ss []S, sep string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, sep)
}
