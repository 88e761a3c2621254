package conductor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/internal/pyjson"
)

func TestIPXEConfig(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		ipxe, err := pxe.NewIPXEConfig(pxe.ScriptConfig{HTTPURL: "http://h:5781", APIURL: "http://api:6385"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, store, withDriverMethod(ipxe))
		n := h.node(t, "fake-hardware", db.Values{"provision_state": "clean wait",
			"driver_info": pyjson.DictOf("deploy_kernel", "glance-k", "deploy_ramdisk", "glance-r")})
		if _, err := store.CreatePort(ctx, &models.Port{NodeID: &n.ID, Address: models.Ptr("52:54:00:0a:0b:0c")}); err != nil {
			t.Fatal(err)
		}
		script := func(info any) string {
			t.Helper()
			res, err := h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "ipxe_config", "get", info)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := res.Return.(string)
			if !res.Attach || res.Async || !strings.HasPrefix(body, "#!ipxe\n") {
				t.Fatalf("result %+v", res)
			}
			return body
		}
		want := "kernel http://h:5781/" + n.UUID + "/deploy_kernel selinux=0 troubleshoot=0 text ipa-api-url=http://api:6385 BOOTIF=${mac}"
		for _, info := range []map[string]any{{"node_uuid": n.UUID}, {"port_address": "52-54-00-0A-0B-0C"}, {"port_address": "52:54:00:0a:0b:0c"}} {
			if b := script(info); !strings.Contains(b, want) {
				t.Errorf("%v: no %q in\n%s", info, want, b)
			}
		}
		for _, info := range []any{nil, map[string]any{"port_address": "52:54:00:0a:0b:0d"}, map[string]any{"node_uuid": "nope"}} {
			if b := script(info); !strings.Contains(b, "\nexit 1\n") {
				t.Errorf("%v: not the error script:\n%s", info, b)
			}
		}
		// Only GET, with Ironic's message.
		if _, err := h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "ipxe_config", "POST", nil); !ironic.IsClass(err, ironic.InvalidParameterValue) ||
			err.Error() != "The method ipxe_config does not support HTTP POST" {
			t.Errorf("POST: %v", err)
		}
	})
}
