package apiv1

import "github.com/gorilla/mux"

// routesMisc registers routes that belong to no resource file.
func (a *API) routesMisc(m *mux.Router) {}
