package apiv1

import (
	"net/http"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/microversions"
)

// versionDoc is the "v1" entry of the root document.
func (a *API) versionDoc(base string) pyjson.Object {
	return pyjson.Object{
		{Key: "id", Value: "v1"},
		{Key: "links", Value: []pyjson.Object{link("self", base+"/v1/")}},
		{Key: "status", Value: "CURRENT"},
		{Key: "min_version", Value: a.cfg.Versions.Min.String()},
		{Key: "version", Value: a.cfg.Versions.Max.String()},
	}
}

// serveRoot answers "/" for any method: the version document, with a
// request id but no version headers.
func (a *API) serveRoot(w http.ResponseWriter, r *http.Request) {
	base := a.publicURL(r)
	v := a.versionDoc(base)
	w.Header()["Openstack-Request-Id"] = []string{"req-" + a.d.UUIDs.NewUUID()}
	a.writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "name", Value: "OpenStack Ironic API"},
		{Key: "description", Value: "Ironic is an OpenStack project which enables the provision and management of baremetal machines."},
		{Key: "default_version", Value: v},
		{Key: "versions", Value: []any{v}},
	})
}

// serveV1Root answers "/v1": links to the resources the negotiated version
// knows about.
func (a *API) serveV1Root(w http.ResponseWriter, r *http.Request) {
	neg := a.cfg.Versions.Negotiate(r.Header.Get(microversions.HeaderVersion), len(r.Header.Values(microversions.HeaderVersion)) > 0)
	if neg.Fault != nil {
		// The v1 controller raises the negotiation error itself, so it is
		// rendered as a controller fault and carries a request id.
		if neg.RangeHeaders {
			a.setRangeHeaders(w)
		}
		w.Header()["Openstack-Request-Id"] = []string{"req-" + a.d.UUIDs.NewUUID()}
		f := *neg.Fault
		f.Shape = ironic.ShapeFault
		a.writeFault(w, r, &f)
		return
	}
	a.setRangeHeaders(w)
	w.Header()[microversions.HeaderVersion] = []string{neg.Version.String()}
	w.Header()["Openstack-Request-Id"] = []string{"req-" + a.d.UUIDs.NewUUID()}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a.writeFault(w, r, ironic.Errorf(ironic.MethodNotAllowed,
			"The server could not comply with the request since it is either malformed or otherwise incorrect."))
		return
	}
	base := a.publicURL(r)
	res := func(name string) []pyjson.Object {
		return []pyjson.Object{link("self", base+"/v1/"+name+"/"), link("bookmark", base+"/"+name+"/")}
	}
	v := neg.Version
	doc := pyjson.Object{
		{Key: "id", Value: "v1"},
		{Key: "links", Value: []pyjson.Object{
			link("self", base+"/v1/"),
			{{Key: "href", Value: "https://docs.openstack.org//ironic/latest/contributor//webapi.html"}, {Key: "rel", Value: "describedby"}, {Key: "type", Value: "text/html"}},
		}},
		{Key: "media_types", Value: pyjson.Object{
			{Key: "base", Value: "application/json"},
			{Key: "type", Value: "application/vnd.openstack.ironic.v1+json"},
		}},
		{Key: "chassis", Value: res("chassis")},
		{Key: "nodes", Value: res("nodes")},
		{Key: "ports", Value: res("ports")},
		{Key: "drivers", Value: res("drivers")},
		{Key: "version", Value: a.versionDoc(base)},
	}
	optional := []struct {
		name string
		min  microversions.Version
	}{
		{"portgroups", microversions.Portgroups},
		{"volume", microversions.Volume},
		{"lookup", microversions.LookupHeartbeat},
		{"heartbeat", microversions.LookupHeartbeat},
		{"conductors", microversions.Conductors},
		{"allocations", microversions.Allocation},
		{"events", microversions.Events},
		{"deploy_templates", microversions.DeployTemplates},
		{"shards", microversions.NodeShard},
	}
	for _, o := range optional {
		if v.AtLeast(o.min) {
			doc = append(doc, pyjson.Member{Key: o.name, Value: res(o.name)})
		}
	}
	a.writeJSON(w, http.StatusOK, doc)
}
