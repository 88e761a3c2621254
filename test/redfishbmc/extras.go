package redfishbmc

// extraRoutes are the resources below a system, manager and chassis, and
// the services.
func extraRoutes(rt func(string, map[string]handler) *route) []*route {
	return nil
}

// virtualMedia is one VirtualMedia device of a system's Manager.
type virtualMedia struct {
	id       string
	image    string
	inserted bool
}

func newVirtualMedia() []*virtualMedia {
	return []*virtualMedia{{id: "Cd"}, {id: "Floppy"}}
}

type subscription struct{}

type task struct{}
