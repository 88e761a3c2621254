package states

// Event is an event of the provision state machine.
type Event string

// Events of the provision state machine. Verbs of the API map to events
// (Verb.Event); done, fail, wait and resume are the conductor's own.
const (
	EventDeploy   Event = "deploy"
	EventRebuild  Event = "rebuild"
	EventDelete   Event = "delete"
	EventManage   Event = "manage"
	EventProvide  Event = "provide"
	EventInspect  Event = "inspect"
	EventAbort    Event = "abort"
	EventClean    Event = "clean"
	EventAdopt    Event = "adopt"
	EventRescue   Event = "rescue"
	EventUnrescue Event = "unrescue"
	EventDone     Event = "done"
	EventFail     Event = "fail"
	EventWait     Event = "wait"
	EventResume   Event = "resume"
)

// Verb is the target a client PUTs to /v1/nodes/{node}/states/provision.
// Any string may arrive; the constants are the verbs Ironic 21.4 knows.
type Verb string

// Provision verbs of the API (the keys of Ironic's VERBS, and rebuild).
const (
	VerbActive   Verb = "active"
	VerbDeploy   Verb = "deploy"
	VerbRebuild  Verb = "rebuild"
	VerbDeleted  Verb = "deleted"
	VerbUndeploy Verb = "undeploy"
	VerbManage   Verb = "manage"
	VerbProvide  Verb = "provide"
	VerbInspect  Verb = "inspect"
	VerbAbort    Verb = "abort"
	VerbClean    Verb = "clean"
	VerbAdopt    Verb = "adopt"
	VerbRescue   Verb = "rescue"
	VerbUnrescue Verb = "unrescue"
)

// Event maps a verb to its event (VERBS.get(verb, verb)): active and
// deploy deploy, deleted and undeploy delete; other verbs are their own
// event.
func (v Verb) Event() Event {
	switch v {
	case VerbActive, VerbDeploy:
		return EventDeploy
	case VerbDeleted, VerbUndeploy:
		return EventDelete
	}
	return Event(v)
}

// Transition is one edge of the machine: event in state From leads to To.
type Transition struct {
	From  Provision
	Event Event
	To    Provision
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
	target Provision
}

// stateTable gives each state its kind and target (states.py add_state).
func stateTable() map[Provision]stateInfo {
	return map[Provision]stateInfo{
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
	next  map[edge]Provision
	info  map[Provision]stateInfo
	edges []Transition
}

// edge is where an event starts: the state and the event.
type edge struct {
	from  Provision
	event Event
}

// NewMachine builds the machine from Transitions.
func NewMachine() *Machine {
	m := &Machine{next: map[edge]Provision{}, info: stateTable(), edges: Transitions()}
	for _, t := range m.edges {
		m.next[edge{t.From, t.Event}] = t.To
	}
	return m
}

// Next is the state event leads to from state, and whether the event is
// allowed there at all (fsm.FSM.process_event / is_actionable_event).
func (m *Machine) Next(state Provision, event Event) (Provision, bool) {
	to, ok := m.next[edge{state, event}]
	return to, ok
}

// Actionable reports whether event may be processed in state.
func (m *Machine) Actionable(state Provision, event Event) bool {
	_, ok := m.next[edge{state, event}]
	return ok
}

// Stable reports whether state is a resting state (no target).
func (m *Machine) Stable(state Provision) bool { return m.info[state].stable }

// Target is the state a node in state heads for ("" for stable states).
func (m *Machine) Target(state Provision) Provision { return m.info[state].target }

// Events lists the events allowed in state, in table order.
func (m *Machine) Events(state Provision) []Event {
	var out []Event
	for _, t := range m.edges {
		if t.From == state {
			out = append(out, t.Event)
		}
	}
	return out
}

// Failure states and the stuck states a restarted conductor fails.
func Failure(s Provision) bool {
	switch s {
	case AdoptFailed, CleanFailed, DeployFailed, InspectFailed, RescueFailed, UnrescueFailed:
		return true
	}
	return false
}

// StuckOnRestart are the states a conductor moves to failure (event fail)
// for its unreserved nodes when it starts (STUCK_STATES_TREATED_AS_FAIL).
func StuckOnRestart(s Provision) bool {
	switch s {
	case Deploying, Cleaning, Verifying, Inspecting, Adopting, Rescuing, Unrescuing, Deleting:
		return true
	}
	return false
}

// Unstable are the states a node leaves without a request
// (UNSTABLE_STATES).
func Unstable(s Provision) bool {
	switch s {
	case Deploying, DeployWait, Cleaning, CleanWait, Verifying, Deleting, Inspecting, InspectWait,
		Adopting, Rescuing, RescueWait, Unrescuing:
		return true
	}
	return false
}

// LookupAllowed are the states in which the ramdisk may look a node up
// (LOOKUP_ALLOWED_STATES).
func LookupAllowed(s Provision) bool {
	switch s {
	case CleanWait, Cleaning, Deploying, InspectWait, Inspecting, RescueWait, Rescuing, DeployWait:
		return true
	}
	return false
}

// FastTrackLookupAllowed are the states in which the ramdisk may look a
// node up with fast track (FASTTRACK_LOOKUP_ALLOWED_STATES): those of
// LookupAllowed and the resting states an agent may wait in.
func FastTrackLookupAllowed(s Provision) bool {
	return LookupAllowed(s) || s == Enroll || s == Manageable || s == Available
}
