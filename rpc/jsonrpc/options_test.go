package jsonrpc_test

import (
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc/jsonrpc"
)

// TestDefaults: ironic_lib's defaults reach both sides (keystone through
// [DEFAULT]auth_strategy, allowed_roles admin, port 8089, a 120 s
// session timeout, the password plugin).
func TestDefaults(t *testing.T) {
	s := option.Default[jsonrpc.ServerConfig]()
	if s.Strategy() != jsonrpc.Keystone || !slices.Equal(s.AllowedRoles, []string{"admin"}) || s.UseSSL ||
		s.HTTPBasicAuthUserFile != "/etc/ironic/htpasswd-json-rpc" {
		t.Errorf("server: %+v", s)
	}
	c := option.Default[jsonrpc.ClientConfig]()
	if c.Strategy() != jsonrpc.Keystone || c.Port != 8089 || c.Session.Timeout != 120*time.Second ||
		c.Session.AuthType != "password" || c.UseSSL {
		t.Errorf("client: %+v", c)
	}
}
