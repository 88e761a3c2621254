package states

// Events of the provision state machine. Verbs of the API map to events
// (VerbEvent); done, fail, wait, resume and clean are the conductor's own.
const (
	EventDeploy   = "deploy"
	EventRebuild  = "rebuild"
	EventDelete   = "delete"
	EventManage   = "manage"
	EventProvide  = "provide"
	EventInspect  = "inspect"
	EventAbort    = "abort"
	EventClean    = "clean"
	EventAdopt    = "adopt"
	EventRescue   = "rescue"
	EventUnrescue = "unrescue"
	EventDone     = "done"
	EventFail     = "fail"
	EventWait     = "wait"
	EventResume   = "resume"
)

// Transition is one edge of the machine: event in state From leads to To.
type Transition struct {
	From, Event, To string
}

// Transitions is Ironic 21.4's provision state machine
// (ironic/common/states.py): all 63 edges.
func Transitions() []Transition {
	return []Transition{
		// Deployment.
		{Available, EventDeploy, Deploying},
		{Deploying, EventWait, DeployWait},
		{DeployWait, EventResume, Deploying},
		{DeployWait, EventDelete, Deleting},
		{DeployWait, EventFail, DeployFailed},
		{Deploying, EventDone, Active},
		{Deploying, EventFail, DeployFailed},
		{DeployFailed, EventRebuild, Deploying},
		{DeployFailed, EventDeploy, Deploying},
		{DeployFailed, EventDelete, Deleting},
		{Active, EventRebuild, Deploying},
		{Active, EventDelete, Deleting},
		{Error, EventRebuild, Deploying},
		{Error, EventDelete, Deleting},
		// Teardown.
		{Deleting, EventClean, Cleaning},
		{Deleting, EventFail, Error},
		// Cleaning.
		{Cleaning, EventWait, CleanWait},
		{Cleaning, EventDone, Available},
		{Cleaning, EventFail, CleanFailed},
		{Cleaning, EventManage, Manageable},
		{CleanWait, EventResume, Cleaning},
		{CleanWait, EventFail, CleanFailed},
		{CleanWait, EventAbort, CleanFailed},
		{CleanFailed, EventManage, Manageable},
		// Management.
		{Enroll, EventManage, Verifying},
		{Verifying, EventDone, Manageable},
		{Verifying, EventFail, Enroll},
		{Manageable, EventProvide, Cleaning},
		{Manageable, EventClean, Cleaning},
		{Available, EventManage, Manageable},
		// Inspection.
		{Manageable, EventInspect, Inspecting},
		{Inspecting, EventDone, Manageable},
		{Inspecting, EventFail, InspectFailed},
		{Inspecting, EventWait, InspectWait},
		{InspectWait, EventDone, Manageable},
		{InspectWait, EventFail, InspectFailed},
		{InspectWait, EventAbort, InspectFailed},
		{InspectFailed, EventInspect, Inspecting},
		{InspectFailed, EventManage, Manageable},
		// Adoption.
		{Manageable, EventAdopt, Adopting},
		{Adopting, EventDone, Active},
		{Adopting, EventFail, AdoptFailed},
		{AdoptFailed, EventAdopt, Adopting},
		{AdoptFailed, EventManage, Manageable},
		// Rescue.
		{Active, EventRescue, Rescuing},
		{Rescuing, EventWait, RescueWait},
		{Rescuing, EventDone, Rescue},
		{Rescuing, EventFail, RescueFailed},
		{RescueWait, EventResume, Rescuing},
		{RescueWait, EventFail, RescueFailed},
		{RescueWait, EventAbort, RescueFailed},
		{RescueWait, EventDelete, Deleting},
		{Rescue, EventRescue, Rescuing},
		{Rescue, EventUnrescue, Unrescuing},
		{Rescue, EventDelete, Deleting},
		{Unrescuing, EventDone, Active},
		{Unrescuing, EventFail, UnrescueFailed},
		{RescueFailed, EventRescue, Rescuing},
		{RescueFailed, EventUnrescue, Unrescuing},
		{RescueFailed, EventDelete, Deleting},
		{UnrescueFailed, EventRescue, Rescuing},
		{UnrescueFailed, EventUnrescue, Unrescuing},
		{UnrescueFailed, EventDelete, Deleting},
	}
}

// stateInfo is what the machine knows of a state besides its edges.
type stateInfo struct {
	stable bool
	// target is the state the node heads for while in this one (the
	// target_provision_state Ironic records); "" for stable states.
	target string
}

// stateTable gives each state its kind and target (states.py add_state).
func stateTable() map[string]stateInfo {
	return map[string]stateInfo{
		Enroll: {stable: true}, Manageable: {stable: true}, Available: {stable: true},
		Active: {stable: true}, Error: {stable: true}, Rescue: {stable: true},
		Verifying:  {target: Manageable},
		Inspecting: {target: Manageable}, InspectWait: {target: Manageable}, InspectFailed: {target: Manageable},
		Cleaning: {target: Available}, CleanWait: {target: Available}, CleanFailed: {target: Available},
		Deploying: {target: Active}, DeployWait: {target: Active}, DeployFailed: {target: Active},
		Deleting: {target: Available},
		Adopting: {target: Active}, AdoptFailed: {target: Active},
		Rescuing: {target: Rescue}, RescueWait: {target: Rescue}, RescueFailed: {target: Rescue},
		Unrescuing: {target: Active}, UnrescueFailed: {target: Active},
	}
}

// Machine answers questions about the transition table. Build it once
// with NewMachine; it is read-only and safe for concurrent use.
type Machine struct {
	next  map[[2]string]string
	info  map[string]stateInfo
	edges []Transition
}

// NewMachine builds the machine from Transitions.
func NewMachine() *Machine {
	m := &Machine{next: map[[2]string]string{}, info: stateTable(), edges: Transitions()}
	for _, t := range m.edges {
		m.next[[2]string{t.From, t.Event}] = t.To
	}
	return m
}

// Next is the state event leads to from state, and whether the event is
// allowed there at all (fsm.FSM.process_event / is_actionable_event).
func (m *Machine) Next(state, event string) (string, bool) {
	to, ok := m.next[[2]string{state, event}]
	return to, ok
}

// Actionable reports whether event may be processed in state.
func (m *Machine) Actionable(state, event string) bool {
	_, ok := m.next[[2]string{state, event}]
	return ok
}

// Stable reports whether state is a resting state (no target).
func (m *Machine) Stable(state string) bool { return m.info[state].stable }

// Target is the state a node in state heads for ("" for stable states).
func (m *Machine) Target(state string) string { return m.info[state].target }

// Events lists the events allowed in state, in table order.
func (m *Machine) Events(state string) []string {
	var out []string
	for _, t := range m.edges {
		if t.From == state {
			out = append(out, t.Event)
		}
	}
	return out
}

// VerbEvent maps an API provision verb to its event (ironic VERBS):
// active and deploy deploy, deleted and undeploy delete; other verbs
// are their own event.
func VerbEvent(verb string) string {
	switch verb {
	case "active":
		return EventDeploy
	case "deleted", "undeploy":
		return EventDelete
	}
	return verb
}

// Failure states and the stuck states a restarted conductor fails.
func Failure(s string) bool {
	switch s {
	case AdoptFailed, CleanFailed, DeployFailed, InspectFailed, RescueFailed, UnrescueFailed:
		return true
	}
	return false
}

// StuckOnRestart are the states a conductor moves to failure (event fail)
// for its unreserved nodes when it starts (STUCK_STATES_TREATED_AS_FAIL).
func StuckOnRestart(s string) bool {
	switch s {
	case Deploying, Cleaning, Verifying, Inspecting, Adopting, Rescuing, Unrescuing, Deleting:
		return true
	}
	return false
}

// LookupAllowed are the states in which the ramdisk may look a node up.
func LookupAllowed(s string) bool {
	switch s {
	case CleanWait, Cleaning, Deploying, InspectWait, Inspecting, RescueWait, Rescuing, DeployWait:
		return true
	}
	return false
}
