package apiv1

import "github.com/gorilla/mux"

// conductorStore is the part of the database the conductors routes use.
type conductorStore interface{}

// routesConductors registers the conductors routes (not yet implemented).
func (a *API) routesConductors(m *mux.Router) {}
