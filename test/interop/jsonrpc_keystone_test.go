package interop

import (
	"testing"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

// TestJSONRPCKeystone: the mixed pairs of TestJSONRPCPythonAPIGoConductor
// and TestJSONRPCGoAPIPythonConductor under [json_rpc]auth_strategy
// keystone with a real Keystone: each conductor's server validates the
// API's token with [keystone_authtoken] (keystonemiddleware on Python's,
// apiv1/auth on ours) and allowed_roles. Python's API authenticates with
// the password plugin; ours with an application credential of the same
// service user.
func TestJSONRPCKeystone(t *testing.T) {
	t.Parallel()
	requirements(t)
	ks := keystone.ForTest(t, keystone.Options{})
	const secret = "interop-app-cred-secret"
	credID, err := ks.ApplicationCredential(t.Context(), "ironic", "ironic-interop-json-rpc", secret)
	if err != nil {
		t.Fatal(err)
	}
	authtoken := map[string]string{
		"auth_type": "password", "auth_url": ks.AuthURL(), "www_authenticate_uri": ks.AuthURL(),
		"username": "ironic", "password": keystone.ServicePassword, "user_domain_name": keystone.DefaultDomain,
		"project_name": "service", "project_domain_name": keystone.DefaultDomain,
	}
	for _, c := range []struct {
		name, host, uuid string
		pythonAPI        bool
		client           map[string]string
	}{
		{"python API, password", "127.0.0.6", "3c6f1b0e-52a7-4d8e-9b1c-7e2a5d4f6a03", true, map[string]string{
			"auth_type": "password", "username": "ironic", "password": keystone.ServicePassword,
			"user_domain_name": keystone.DefaultDomain, "project_name": "service", "project_domain_name": keystone.DefaultDomain}},
		{"go API, application credential", "127.0.0.7", "9d2e4a6c-1b3f-4e5a-8c7d-2f1e0a9b8c04", false, map[string]string{
			"auth_type": "v3applicationcredential", "application_credential_id": credID, "application_credential_secret": secret}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, port := jsonrpcDeployment(t, c.host)
			rpc := map[string]string{"auth_strategy": "keystone", "auth_url": ks.AuthURL(), "allowed_roles": "admin"}
			for k, v := range c.client {
				rpc[k] = v
			}
			d.Config = d.Config.Merged(cluster.INI{"json_rpc": rpc, "keystone_authtoken": authtoken})
			d.createSchema(c.pythonAPI)
			cond := d.startJSONRPCConductor(!c.pythonAPI, c.host, port)
			api := d.startAPI(c.pythonAPI, "api-jsonrpc-keystone")
			jsonrpcCalls(t, d, api, cond, c.uuid)
		})
	}
}
