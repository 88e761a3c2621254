package apiv1

import "github.com/gorilla/mux"

// portgroupStore is the part of the database the portgroups routes use.
type portgroupStore interface{}

// routesPortgroups registers the portgroups routes (not yet implemented).
func (a *API) routesPortgroups(m *mux.Router) {}
