package apiv1

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
)

// methods maps HTTP verbs to handlers for one path.
type methods map[string]handlerFunc

// routes builds the one route table. Paths are relative to /v1 (ServeHTTP
// strips it); each resource file contributes its routes.
func (a *API) routes() *mux.Router {
	// Paths are matched as sent ("//" is not cleaned into a redirect).
	m := mux.NewRouter().SkipClean(true)
	m.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writePlainFault(w, r, ironic.Webob(ironic.NotFound, ""))
	})
	m.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writePlainFault(w, r, ironic.Webob(ironic.MethodNotAllowed, ""))
	})
	for _, add := range []func(*mux.Router){
		a.routesNodeControllers,
		a.routesNodes,
		a.routesPorts,
		a.routesPortgroups,
		a.routesChassis,
		a.routesDrivers,
		a.routesConductors,
		a.routesDeployTemplates,
		a.routesVolume,
		a.routesMisc,
		a.routesNodesFallback,
	} {
		add(m)
	}
	return m
}

// handle registers the verbs of one path. allow is the Allow header sent
// with a 405 for other verbs (Ironic lists its controller's methods there,
// which need not be the verbs that work).
func (a *API) handle(m *mux.Router, path string, ms methods, allow ...string) {
	verbs := make([]string, 0, len(ms))
	for v := range ms {
		verbs = append(verbs, v)
	}
	slices.Sort(verbs)
	allowHdr := strings.Join(verbs, ", ")
	if len(allow) > 0 {
		allowHdr = allow[0]
	}
	h := func(w http.ResponseWriter, r *http.Request) {
		fn, ok := ms[r.Method]
		if !ok {
			r = r.WithContext(context.WithValue(r.Context(), allowKey{}, allowHdr))
			a.writePlainFault(w, r, ironic.Webob(ironic.MethodNotAllowed, ""))
			return
		}
		a.wrap(fn)(w, r)
	}
	m.HandleFunc(path, h)
}

// writePlainFault answers a routing error: no version headers and no
// request id, as pecan's own 404/405 answers have none.
func (a *API) writePlainFault(w http.ResponseWriter, r *http.Request, f *ironic.Fault) {
	if vw, ok := w.(*versionedWriter); ok {
		vw.plain = true
	}
	a.writeFault(w, r, f)
}
