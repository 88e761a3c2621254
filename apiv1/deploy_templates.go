package apiv1

import "github.com/gorilla/mux"

// templateStore is the part of the database the deploy_templates routes use.
type templateStore interface{}

// routesDeployTemplates registers the deploy_templates routes (not yet implemented).
func (a *API) routesDeployTemplates(m *mux.Router) {}
