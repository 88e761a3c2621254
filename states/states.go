// Package states names Ironic's provision and power states. The API checks
// requests against them and the conductor's state machine moves nodes
// between them; both import this leaf package (apiv1 may not import the
// conductor).
package states

// Provision states of Ironic 21.4 (ironic/common/states.py).
const (
	Enroll         = "enroll"
	Verifying      = "verifying"
	Manageable     = "manageable"
	Inspecting     = "inspecting"
	InspectWait    = "inspect wait"
	InspectFailed  = "inspect failed"
	Cleaning       = "cleaning"
	CleanWait      = "clean wait"
	CleanFailed    = "clean failed"
	Available      = "available"
	Deploying      = "deploying"
	DeployWait     = "wait call-back"
	DeployFailed   = "deploy failed"
	Active         = "active"
	Deleting       = "deleting"
	Error          = "error"
	Adopting       = "adopting"
	AdoptFailed    = "adopt failed"
	Rescuing       = "rescuing"
	RescueWait     = "rescue wait"
	RescueFailed   = "rescue failed"
	Rescue         = "rescue"
	Unrescuing     = "unrescuing"
	UnrescueFailed = "unrescue failed"
)

// Power states.
const (
	PowerOn       = "power on"
	PowerOff      = "power off"
	Rebooting     = "rebooting"
	SoftRebooting = "soft rebooting"
	SoftPowerOff  = "soft power off"
	PowerError    = "error"
)

// All lists every provision state of the machine.
func All() []string {
	return []string{Enroll, Verifying, Manageable, Inspecting, InspectWait, InspectFailed,
		Cleaning, CleanWait, CleanFailed, Available, Deploying, DeployWait, DeployFailed,
		Active, Deleting, Error, Adopting, AdoptFailed, Rescuing, RescueWait, RescueFailed,
		Rescue, Unrescuing, UnrescueFailed}
}

// IsState reports whether s is a provision state of the machine.
func IsState(s string) bool {
	for _, x := range All() {
		if x == s {
			return true
		}
	}
	return false
}

// UpdateAllowed are the states in which a node may be patched although a
// transition is in progress (target_provision_state set).
func UpdateAllowed(s string) bool {
	switch s {
	case DeployFailed, Inspecting, InspectFailed, InspectWait, CleanFailed, Error,
		Verifying, AdoptFailed, RescueFailed, UnrescueFailed:
		return true
	}
	return false
}

// DeleteAllowed are the states from which a node may be deleted
// (available too when [conductor]allow_deleting_available_nodes).
func DeleteAllowed(s string, allowAvailable bool) bool {
	switch s {
	case Manageable, Enroll, AdoptFailed:
		return true
	case Available:
		return allowAvailable
	}
	return false
}
