package apiv1

import "github.com/gorilla/mux"

// volumeStore is the part of the database the volume routes use.
type volumeStore interface{}

// routesVolume registers the volume routes (not yet implemented).
func (a *API) routesVolume(m *mux.Router) {}
