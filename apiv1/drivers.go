package apiv1

import "github.com/gorilla/mux"

// driverStore is the part of the database the drivers routes use.
type driverStore interface{}

// routesDrivers registers the drivers routes (not yet implemented).
func (a *API) routesDrivers(m *mux.Router) {}
