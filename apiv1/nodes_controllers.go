package apiv1

import (
	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
)

// routesNodeControllers registers the paths pecan reaches through the
// attributes of Ironic's NodesController (states, management, maintenance,
// vendor_passthru) before its _lookup: the node ident comes after the
// controller's name, as in GET /v1/nodes/states/console/{node}, which is
// how ironic-tempest-plugin's get_console asks for a node's console. They
// run the handlers of the /nodes/{node}/... paths, without _lookup's ident
// check (the handler checks the ident as node_ident). A controller named
// without an ident answers wsme's "Missing mandatory parameter:
// node_ident"; other verbs are webob's 405 with the controller's Allow
// header (empty for NodeManagementController, which has no verbs of its
// own). Shapes on which Ironic's handler fails with a TypeError (a 500, such
// as GET /v1/nodes/states/power/{node}) are left to the other routes, which
// answer 404 or 405.
//
// It must be added before routesNodes: /nodes/{node}/... would match these
// paths too.
func (a *API) routesNodeControllers(m *mux.Router) {
	noIdent := missingArgHandler("node_ident")

	// NodeStatesController: GET is get(node_ident); the actions are PUT
	// custom actions named before the ident; console is a sub-controller,
	// found before or after the ident.
	const statesAllow, consoleAllow = "GET", "GET, PUT"
	a.handle(m, "/nodes/states", methods{"GET": noIdent}, statesAllow)
	a.handle(m, "/nodes/states/console", methods{"GET": noIdent, "PUT": noIdent}, consoleAllow)
	console := methods{"GET": a.getConsole, "PUT": a.setConsole}
	a.handle(m, "/nodes/states/console/{node}", console, consoleAllow)
	a.handle(m, "/nodes/states/{node}/console", console, consoleAllow)
	// Without an ident, GET takes the action's name for one.
	a.handle(m, "/nodes/states/{node:power|provision|raid|boot_mode|secure_boot}",
		methods{"GET": a.getNodeStates, "PUT": noIdent}, statesAllow)
	for action, h := range map[string]handlerFunc{
		"power":       a.setPowerState,
		"provision":   a.setProvisionState,
		"raid":        a.setRAIDConfig,
		"boot_mode":   a.setBootMode,
		"secure_boot": a.setSecureBoot,
	} {
		a.handle(m, "/nodes/states/"+action+"/{node}", methods{"PUT": h}, statesAllow)
	}
	a.handle(m, "/nodes/states/{node}", methods{"GET": a.getNodeStates}, statesAllow)
	a.handle(m, "/nodes/states/{node}/{rest:.+}", methods{}, statesAllow)

	// NodeManagementController and its sub-controllers.
	const mgmtAllow = ""
	a.handle(m, "/nodes/management", methods{}, mgmtAllow)
	a.handle(m, "/nodes/management/boot_device", methods{"GET": noIdent, "PUT": noIdent}, mgmtAllow)
	a.handle(m, "/nodes/management/boot_device/{node}",
		methods{"GET": a.getBootDevice, "PUT": a.setBootDevice}, mgmtAllow)
	a.handle(m, "/nodes/management/boot_device/{node}/supported",
		methods{"GET": a.supportedBootDevices}, mgmtAllow)
	a.handle(m, "/nodes/management/inject_nmi", methods{"PUT": noIdent}, mgmtAllow)
	a.handle(m, "/nodes/management/inject_nmi/{node}", methods{"PUT": a.injectNMI}, mgmtAllow)
	a.handle(m, "/nodes/management/indicators", methods{"GET": noIdent, "PUT": noIdent}, mgmtAllow)
	noIndicator := missingArgHandler("indicator")
	a.handle(m, "/nodes/management/indicators/{node}", methods{"GET": noIndicator, "PUT": noIndicator}, mgmtAllow)
	a.handle(m, "/nodes/management/indicators/{node}/{indicator}",
		methods{"GET": a.getIndicator, "PUT": a.setIndicator}, mgmtAllow)
	a.handle(m, "/nodes/management/{node}", methods{}, mgmtAllow)

	// NodeMaintenanceController.
	const maintAllow = "DELETE, PUT"
	a.handle(m, "/nodes/maintenance", methods{"PUT": noIdent, "DELETE": noIdent}, maintAllow)
	a.handle(m, "/nodes/maintenance/{node}",
		methods{"PUT": a.setMaintenance, "DELETE": a.clearMaintenance}, maintAllow)

	// NodeVendorPassthruController: methods is a GET custom action named
	// after the ident; every other path is _default(node_ident, method).
	vendor := a.nodeVendorPassthru
	anyVerb := func(h handlerFunc) methods {
		return methods{"GET": h, "POST": h, "PUT": h, "PATCH": h, "DELETE": h}
	}
	a.handle(m, "/nodes/vendor_passthru", anyVerb(noIdent))
	byIdent := anyVerb(vendor)
	byIdent["GET"] = func(rq *Request) (*Response, error) {
		if rq.Var("node") == "methods" {
			return noIdent(rq)
		}
		return vendor(rq)
	}
	a.handle(m, "/nodes/vendor_passthru/{node}", byIdent)
	byMethod := anyVerb(vendor)
	byMethod["GET"] = func(rq *Request) (*Response, error) {
		if rq.Var("method") == "methods" {
			return a.nodeVendorMethods(rq)
		}
		return vendor(rq)
	}
	a.handle(m, "/nodes/vendor_passthru/{node}/{method}", byMethod)
}

// missingArgHandler answers wsme's error for a controller method called
// without its mandatory positional argument name.
func missingArgHandler(name string) handlerFunc {
	return func(*Request) (*Response, error) {
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: %s", name)
	}
}
