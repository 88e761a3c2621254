package apiv1

import "github.com/gorilla/mux"

// portStore is the part of the database the ports routes use.
type portStore interface{}

// routesPorts registers the ports routes (not yet implemented).
func (a *API) routesPorts(m *mux.Router) {}
