package apiv1

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	mv "github.com/goironic/ironic/microversions"
)

// routes builds the route table: every path of the API, relative to /v1
// (ServeHTTP strips it), in the order pecan's routing would try them.
//
// Three kinds of entries:
//   - gate: an answer pecan gives while routing, before any handler (an
//     abort in a controller's _lookup or _route), for a path and all the
//     paths below it, whatever the verb;
//   - rest: one of Ironic's RestControllers, whose handlers take the path
//     segments below the controller as positional arguments (pecan's
//     rule), GET custom actions ("detail") named by the last segment;
//   - handle: the verbs of one path.
//
// Handlers bind their arguments with an argSpec (args.go); lists page with
// the helpers of collection.go.
func (a *API) routes() *mux.Router {
	// Paths are matched as sent ("//" is not cleaned into a redirect).
	m := mux.NewRouter().SkipClean(true)
	m.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writePlainFault(w, r, ironic.Webob(ironic.NotFound, ""))
	})
	m.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writePlainFault(w, r, ironic.Webob(ironic.MethodNotAllowed, ""))
	})
	r := router{a: a, m: m, groups: map[routeGroup]*mux.Router{}}
	ports, portgroups := a.portsController(), a.portgroupsController()
	connectors, targets := a.volumeControllers()
	r.gates()
	r.nodes(ports, portgroups, connectors, targets)
	r.resources(ports, portgroups, connectors, targets)
	return m
}

// gates are the answers pecan gives while routing: NodesController._lookup
// (the node ident, sub-resources newer than the request),
// VolumeController._lookup, PortgroupsController._lookup, and the _route
// of the controllers newer than 1.1.
func (r router) gates() {
	a := r.a
	const allocationsNotAllowed = "The API version does not allow allocations"
	r.gate("/nodes/{node}", a.nodeLookupGate)
	r.gate("/nodes/{node}/volume/{sub}", volumeGate)
	r.gate("/nodes/{node}/portgroups/{pg}", portgroupLookupGate)
	r.gate("/volume/{sub}", volumeGate)
	r.gate("/portgroups/{pg}", portgroupLookupGate)
	r.gate("/deploy_templates", versionGate(mv.DeployTemplates, templatesNotAllowed))
	r.gate("/allocations", versionGate(mv.Allocation, allocationsNotAllowed))
	r.gate("/shards", versionGate(mv.NodeShard, "The API version does not allow shards"))
	r.gate("/events", eventsGate)
}

// nodes are NodesController and what it serves below a node.
func (r router) nodes(ports, portgroups, connectors, targets restController) {
	a := r.a
	// NodesController's attribute controllers, reached before its _lookup:
	// the node ident (node_ident, their first argument) may come before or
	// after the controller's name, as in GET /v1/nodes/states/console/{node}
	// (how ironic-tempest-plugin asks for a console), or from the query or
	// a JSON body. Other verbs are webob's 405 with the controller's Allow
	// header (empty for NodeManagementController, which has no verbs of
	// its own). Shapes on which Ironic fails with a TypeError (such as GET
	// /v1/nodes/states/power/{node}) fall to the routes below (404 or 405).
	const statesAllow, consoleAllow, mgmtAllow, maintAllow = "GET", "GET, PUT", "", "DELETE, PUT"
	states := methods{"GET": a.getNodeStates}
	console := methods{"GET": a.getConsole, "PUT": a.setConsole}
	r.handle("/nodes/states", states, statesAllow)
	r.handle("/nodes/states/console", console, consoleAllow)
	r.handle("/nodes/states/console/{node}", console, consoleAllow)
	r.handle("/nodes/states/{node}/console", console, consoleAllow)
	for _, action := range []struct {
		name string
		put  handlerFunc
	}{{"power", a.setPowerState}, {"provision", a.setProvisionState}, {"raid", a.setRAIDConfig},
		{"boot_mode", a.setBootMode}, {"secure_boot", a.setSecureBoot}} {
		// The PUT custom action; a GET takes the action's name for a node.
		r.handle("/nodes/states/"+action.name, methods{"GET": a.getNodeStatesOf(action.name), "PUT": action.put}, statesAllow)
		r.handle("/nodes/states/"+action.name+"/{node}", methods{"PUT": action.put}, statesAllow)
	}
	r.handle("/nodes/states/{node}", states, statesAllow)
	r.handle("/nodes/states/{node}/{rest:.+}", methods{}, statesAllow)
	bootDevice := methods{"GET": a.getBootDevice, "PUT": a.setBootDevice}
	indicators := methods{"GET": a.getIndicator, "PUT": a.setIndicator}
	r.handle("/nodes/management", methods{}, mgmtAllow)
	r.handle("/nodes/management/boot_device", bootDevice, mgmtAllow)
	r.handle("/nodes/management/boot_device/{node}", bootDevice, mgmtAllow)
	r.handle("/nodes/management/boot_device/{node}/supported", methods{"GET": a.supportedBootDevices}, mgmtAllow)
	r.handle("/nodes/management/inject_nmi", methods{"PUT": a.injectNMI}, mgmtAllow)
	r.handle("/nodes/management/inject_nmi/{node}", methods{"PUT": a.injectNMI}, mgmtAllow)
	r.handle("/nodes/management/indicators", indicators, mgmtAllow)
	r.handle("/nodes/management/indicators/{node}", indicators, mgmtAllow)
	r.handle("/nodes/management/indicators/{node}/{indicator}", indicators, mgmtAllow)
	r.handle("/nodes/management/{node}", methods{}, mgmtAllow)
	maintenance := methods{"PUT": a.setMaintenance, "DELETE": a.clearMaintenance}
	r.handle("/nodes/maintenance", maintenance, maintAllow)
	r.handle("/nodes/maintenance/{node}", maintenance, maintAllow)
	r.handle("/nodes/vendor_passthru", anyVerb(a.nodeVendorPassthru))
	r.handle("/nodes/vendor_passthru/{node}", anyVerb(a.nodeVendorPassthru))
	r.handle("/nodes/vendor_passthru/{node}/{method}", anyVerb(a.nodeVendorPassthru))

	// The same controllers after the ident.
	r.handle("/nodes/{node}/maintenance", maintenance)
	r.handle("/nodes/{node}/states", states)
	r.handle("/nodes/{node}/states/power", methods{"PUT": a.setPowerState})
	r.handle("/nodes/{node}/states/provision", methods{"PUT": a.setProvisionState})
	r.handle("/nodes/{node}/states/console", console)
	r.handle("/nodes/{node}/states/raid", methods{"PUT": a.setRAIDConfig})
	r.handle("/nodes/{node}/states/boot_mode", methods{"PUT": a.setBootMode})
	r.handle("/nodes/{node}/states/secure_boot", methods{"PUT": a.setSecureBoot})
	r.handle("/nodes/{node}/management/boot_device", bootDevice)
	r.handle("/nodes/{node}/management/boot_device/supported", methods{"GET": a.supportedBootDevices})
	r.handle("/nodes/{node}/management/inject_nmi", methods{"PUT": a.injectNMI})
	r.handle("/nodes/{node}/management/indicators", methods{"GET": a.listIndicators})
	r.handle("/nodes/{node}/management/indicators/{indicator}", indicators)
	r.handle("/nodes/{node}/vendor_passthru", anyVerb(a.nodeVendorPassthru))
	r.handle("/nodes/{node}/vendor_passthru/{method}", anyVerb(a.nodeVendorPassthru))

	// The sub-controllers _lookup builds for a node (the node is their
	// context, not an argument).
	node := r.under("/nodes/{node}")
	node.handle("/traits", methods{"GET": a.listTraits, "PUT": a.setTraits, "DELETE": a.deleteTraits})
	node.handle("/traits/{trait}", methods{"PUT": a.setTraits, "DELETE": a.deleteTraits})
	node.handle("/vifs", methods{"GET": a.listVIFs, "POST": a.attachVIF, "DELETE": a.detachVIF})
	node.handle("/vifs/{vif}", methods{"DELETE": a.detachVIF})
	node.handle("/bios", methods{"GET": a.listBIOS})
	node.handle("/bios/{setting}", methods{"GET": a.getBIOS})
	node.handle("/history", methods{"GET": a.listHistory})
	node.handle("/history/{event}", methods{"GET": a.getHistory})
	node.handle("/inventory", methods{"GET": a.getInventory})
	node.handle("/allocation", methods{"GET": a.nodeAllocation, "DELETE": a.deleteNodeAllocation})
	node.handle("/volume", methods{"GET": a.volumeRoot})
	node.rest("/volume/connectors", connectors)
	node.rest("/volume/targets", targets)
	r.under("/nodes/{node}/portgroups/{pg}").rest("/ports", ports)
	node.rest("/ports", ports)
	node.rest("/portgroups", portgroups)

	// NodesController itself: below a node, a segment that names nothing
	// is a positional argument of the item's handlers (fields for GET).
	r.rest("/nodes", restController{getAll: a.listNodes, getOne: a.getNode, post: a.createNode,
		patch: a.patchNode, delete: a.deleteNode,
		actions: map[string]handlerFunc{"detail": a.listNodesDetail, "validate": a.validateNode}})
}

// resources are the other top-level controllers.
func (r router) resources(ports, portgroups, connectors, targets restController) {
	a := r.a
	// PortsController, PortgroupsController and the ports of a port group.
	r.under("/portgroups/{pg}").rest("/ports", ports)
	r.rest("/ports", ports)
	r.rest("/portgroups", portgroups)

	// ChassisController, and NodesController below a chassis (the chassis
	// UUID is the node handlers' first positional argument).
	chassis, chassisNodes := a.chassisController()
	r.rest("/chassis/{chassis}/nodes", chassisNodes)
	r.rest("/chassis", chassis)

	// DriversController and its sub-controllers: the RAID controller
	// answers 405 without an Allow header; any verb on vendor_passthru is
	// a passthru call, except GET of methods.
	r.handle("/drivers/raid", methods{}, "")
	r.handle("/drivers/raid/logical_disk_properties", methods{"GET": a.driverRAIDProperties}, "")
	r.handle("/drivers/vendor_passthru", anyVerb(a.driverVendorPassthru))
	r.handle("/drivers/vendor_passthru/{rest:.+}", anyVerb(a.driverVendorPassthru))
	r.handle("/drivers/{driver}/raid", methods{}, "")
	r.handle("/drivers/{driver}/raid/logical_disk_properties", methods{"GET": a.driverRAIDProperties}, "")
	r.handle("/drivers/{driver}/raid/logical_disk_properties/{rest:.+}", methods{}, "")
	r.handle("/drivers/{driver}/vendor_passthru", anyVerb(a.driverVendorPassthru))
	r.handle("/drivers/{driver}/vendor_passthru/{method}", anyVerb(a.driverVendorPassthru))
	r.rest("/drivers", restController{getAll: a.listDrivers, getOne: a.getDriver,
		actions: map[string]handlerFunc{"properties": a.driverProperties}})

	r.handle("/shards", methods{"GET": a.listShards, "POST": a.shardsNotAllowed, "PUT": a.shardsNotAllowed,
		"PATCH": a.shardsNotAllowed, "DELETE": a.shardsNotAllowed}, "GET")
	r.rest("/conductors", restController{getAll: a.listConductors, getOne: a.getConductor})
	r.rest("/deploy_templates", a.templatesController())
	r.handle("/volume", methods{"GET": a.volumeRoot})
	r.rest("/volume/connectors", connectors)
	r.rest("/volume/targets", targets)
	r.rest("/allocations", restController{getAll: a.listAllocations, getOne: a.getAllocation,
		post: a.createAllocation, patch: a.patchAllocation, delete: a.deleteAllocation})
	r.handle("/events", methods{"POST": a.postEvents})
	r.handle("/events/{evts}", methods{"POST": a.postEvents})
	r.handle("/lookup", methods{"GET": a.lookup})
	r.handle("/lookup/{rest:.+}", methods{}, "GET")
	r.handle("/heartbeat", methods{"POST": a.heartbeat})
	r.handle("/heartbeat/{node}", methods{"POST": a.heartbeat})
}

// methods maps HTTP verbs to handlers for one path.
type methods map[string]handlerFunc

// anyVerb is h for every verb a controller's _default takes.
func anyVerb(h handlerFunc) methods {
	return methods{"GET": h, "POST": h, "PUT": h, "PATCH": h, "DELETE": h}
}

// router registers routes on the mux, below prefix.
type router struct {
	a      *API
	m      *mux.Router
	groups map[routeGroup]*mux.Router
	prefix string
}

// routeGroup is the first segment of a path and its depth (the number of
// "/"s, counted up to maxDepth). mux tries a router's routes one by one, so
// the table is split into groups a request can belong to, each keeping
// the table's order: a request pays for the routes of its own group only.
type routeGroup struct {
	first string
	depth int
}

const maxDepth = 4

func groupOf(path string) routeGroup {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return routeGroup{first, min(strings.Count(path, "/"), maxDepth)}
}

// register adds a route for path (a template; below: for the paths below
// it too) to every group a matching request can belong to, made with mk.
func (r router) register(path string, below bool, mk func(*mux.Router)) {
	g := groupOf(path)
	for depth := g.depth; depth <= maxDepth; depth++ {
		if depth > g.depth && !below {
			break
		}
		key := routeGroup{g.first, depth}
		sub := r.groups[key]
		if sub == nil {
			sub = r.m.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
				return groupOf(req.URL.Path) == key
			}).Subrouter()
			r.groups[key] = sub
		}
		mk(sub)
	}
}

// under is the router of a sub-controller a _lookup built below prefix:
// prefix's variables are its context (Request.Var), not positional
// arguments.
func (r router) under(prefix string) router {
	r.prefix += prefix
	return r
}

// handle registers the verbs of one path below the router's prefix; the
// path's variables are the handlers' positional arguments. allow is the
// Allow header sent with a 405 for other verbs (Ironic lists its
// controller's methods there, which need not be the verbs that work); by
// default, the verbs.
func (r router) handle(path string, ms methods, allow ...string) {
	r.handleArgs(path, templateVars(path), ms, allow...)
}

// handleArgs is handle with the path variables that are positional
// arguments named.
func (r router) handleArgs(path string, argVars []string, ms methods, allow ...string) {
	verbs := make([]string, 0, len(ms))
	for v := range ms {
		verbs = append(verbs, v)
	}
	slices.Sort(verbs)
	allowHdr := strings.Join(verbs, ", ")
	if len(allow) > 0 {
		allowHdr = allow[0]
	}
	a := r.a
	h := func(w http.ResponseWriter, req *http.Request) {
		if rq, ok := req.Context().Value(requestKey{}).(*Request); ok {
			rq.argVars, rq.gateVars = argVars, gateVars{}
		}
		fn, ok := ms[req.Method]
		if !ok {
			req = req.WithContext(context.WithValue(req.Context(), allowKey{}, allowHdr))
			a.writePlainFault(w, req, ironic.Webob(ironic.MethodNotAllowed, ""))
			return
		}
		a.wrap(fn)(w, req)
	}
	full := r.prefix + path
	r.register(full, strings.Contains(full, ":.+}"), func(m *mux.Router) { m.HandleFunc(full, h) })
}

// restController is one of Ironic's pecan RestControllers: its handlers
// (nil for the methods it lacks) and its GET custom actions.
type restController struct {
	getAll, getOne, post, patch, delete handlerFunc
	actions                             map[string]handlerFunc
}

// rest registers a RestController at path and every path below it. As
// pecan routes it, a GET whose last segment names a custom action is that
// action, other GETs below the collection are get_one; path's variables
// (pecan's routing arguments) and the segments below path are the
// handlers' positional arguments (Request.positional).
func (r router) rest(path string, c restController) {
	top, below := methods{}, methods{}
	set := func(verb string, h handlerFunc) {
		if h != nil {
			top[verb], below[verb] = h, h
		}
	}
	set("POST", c.post)
	set("PATCH", c.patch)
	set("DELETE", c.delete)
	var allow []string
	if c.getAll != nil || c.getOne != nil {
		allow = append(allow, "GET")
		if c.getAll != nil {
			top["GET"] = c.getAll
		}
		below["GET"] = func(rq *Request) (*Response, error) {
			segs := segments(rq.Vars["rest"])
			var action handlerFunc
			if len(segs) > 0 {
				action = c.actions[segs[len(segs)-1]]
			}
			switch {
			case len(segs) == 0 && c.getAll != nil:
				return c.getAll(rq)
			case action != nil:
				rq.Vars["rest"] = strings.Join(segs[:len(segs)-1], "/")
				return action(rq)
			case c.getOne != nil:
				return c.getOne(rq)
			}
			return nil, ironic.Webob(ironic.MethodNotAllowed, "")
		}
	}
	for verb := range top {
		if verb != "GET" {
			allow = append(allow, verb)
		}
	}
	slices.Sort(allow)
	allowHdr := strings.Join(allow, ", ")
	vars := templateVars(path)
	r.handleArgs(path, vars, top, allowHdr)
	r.handleArgs(path+"/{rest:.+}", slices.Concat(vars, []string{"rest"}), below, allowHdr)
}

// templateVarRe finds the {name} or {name:pattern} variables of a path
// template.
var templateVarRe = regexp.MustCompile(`\{(\w+)(?::[^}]*)?\}`)

// templateVars are the names of a path template's variables, in order.
func templateVars(path string) []string {
	var names []string
	for _, m := range templateVarRe.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

// positional are the path segments a handler gets as positional
// arguments, as pecan hands them over (empty segments dropped): the
// route's variables, or below a rest controller the segments under it.
func (rq *Request) positional() []string {
	out := make([]string, 0, len(rq.argVars))
	for _, name := range rq.argVars {
		out = appendSegments(out, rq.Vars[name])
	}
	return out
}

// segments splits a path on "/", dropping empty segments as pecan does.
func segments(path string) []string { return appendSegments(nil, path) }

func appendSegments(out []string, path string) []string {
	for path != "" {
		var seg string
		seg, path, _ = strings.Cut(path, "/")
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

// gateVars are the variables of a gate's path (Request.Var reads them
// while the gate runs; no map to allocate for every request).
type gateVars struct {
	v [4][2]string
	n int
}

// gateFunc is an answer pecan gives while routing, or nil to route on.
type gateFunc func(rq *Request) *ironic.Fault

// gate registers, ahead of the routes it covers, an answer pecan gives
// while routing, before any controller method runs (an abort in a
// _lookup or _route): for a request on path or below it, whatever its
// verb, a fault from check is the answer, without version headers. The
// path's {vars} are the request's Vars for check.
func (r router) gate(path string, check gateFunc) {
	tmpl := segments(path)
	a := r.a
	match := func(req *http.Request, _ *mux.RouteMatch) bool {
		rq, ok := req.Context().Value(requestKey{}).(*Request)
		if !ok {
			return false
		}
		// The path must start with the template's segments, a {var}
		// standing for any one segment.
		rest := strings.TrimPrefix(req.URL.Path, "/")
		var vars gateVars
		for _, t := range tmpl {
			seg, after, _ := strings.Cut(rest, "/")
			name, isVar := strings.CutPrefix(t, "{")
			switch {
			case isVar && seg != "" && vars.n < len(vars.v):
				vars.v[vars.n] = [2]string{strings.TrimSuffix(name, "}"), seg}
				vars.n++
			case seg != t:
				return false
			}
			rest = after
		}
		rq.Vars, rq.gateVars, rq.below = nil, vars, rest
		rq.gateFault = check(rq)
		return rq.gateFault != nil
	}
	answer := func(w http.ResponseWriter, req *http.Request) {
		rq := req.Context().Value(requestKey{}).(*Request)
		a.writePlainFault(w, req, rq.gateFault)
	}
	r.register(path, true, func(m *mux.Router) { m.MatcherFunc(match).HandlerFunc(answer) })
}

// versionGate is the _route of a controller newer than 1.1: before min,
// GET is 404 and other verbs 405, with msg.
func versionGate(min mv.Version, msg string) gateFunc {
	return func(rq *Request) *ironic.Fault {
		if rq.Ver.AtLeast(min) {
			return nil
		}
		if rq.HTTP.Method == http.MethodGet {
			return ironic.Webob(ironic.NotFound, msg)
		}
		return ironic.Webob(ironic.MethodNotAllowed, msg)
	}
}

// writePlainFault answers a routing error: no version headers and no
// request id, as pecan's own 404/405 answers have none.
func (a *API) writePlainFault(w http.ResponseWriter, r *http.Request, f *ironic.Fault) {
	if vw, ok := w.(*versionedWriter); ok {
		vw.plain = true
	}
	a.writeFault(w, r, f)
}
