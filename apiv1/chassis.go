package apiv1

import "github.com/gorilla/mux"

// chassisStore is the part of the database the chassis routes use.
type chassisStore interface{}

// routesChassis registers the chassis routes (not yet implemented).
func (a *API) routesChassis(m *mux.Router) {}
