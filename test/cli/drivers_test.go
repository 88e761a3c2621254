package cli

import (
	"slices"
	"strings"
	"testing"
)

// testDrivers covers driver list, driver show and driver property list.
func testDrivers(t *testing.T, w *world) {
	c := w.cli
	wantTypes := []string{"fake-hardware"}
	if w.own {
		wantTypes = append(wantTypes, "manual-management")
	}

	t.Run("list", func(t *testing.T) {
		rows := c.Rows(t, "driver", "list")
		for _, name := range wantTypes {
			row := mustRow(t, "driver list", rows, "Supported driver(s)", name)
			checkKeys(t, "driver list row", row, "Supported driver(s)", "Active host(s)")
			if hosts := strings.Split(str(t, row, "Active host(s)"), ", "); !slices.Contains(hosts, w.host) {
				t.Errorf("driver list: %s Active host(s) %v lacks %s", name, hosts, w.host)
			}
		}
		if w.own && len(rows) != len(wantTypes) {
			t.Errorf("driver list: %v, want only %v", column(rows, "Supported driver(s)"), wantTypes)
		}
		if got := c.Rows(t, "driver", "list", "--type", "classic"); len(got) != 0 {
			t.Errorf("driver list --type classic: %v, want none", got)
		}
		long := mustRow(t, "driver list --long", c.Rows(t, "driver", "list", "--long"), "Supported driver(s)", "fake-hardware")
		want := object{"Type": "dynamic"}
		for iface, impl := range fakeHardwareDefaults() {
			want["Default "+ifaceTitle(iface)+" Interface"] = impl
		}
		checkFields(t, "driver list --long fake-hardware", long, want)
	})

	t.Run("show", func(t *testing.T) {
		d := c.Object(t, "driver", "show", "fake-hardware")
		checkFields(t, "driver show fake-hardware", d, object{"name": "fake-hardware", "type": "dynamic"})
		if hosts := strings.Split(str(t, d, "hosts"), ", "); !slices.Contains(hosts, w.host) {
			t.Errorf("driver show fake-hardware: hosts %v lacks %s", hosts, w.host)
		}
		for iface, impl := range fakeHardwareDefaults() {
			checkFields(t, "driver show fake-hardware", d, object{"default_" + iface + "_interface": impl})
		}
		if w.own {
			// The CLI joins the lists with ", "; Ironic's order comes
			// from a set, so compare them as sets.
			for iface, impls := range fakeHardwareEnabled() {
				key := "enabled_" + iface + "_interfaces"
				s, _ := d[key].(string)
				if got := sortedCopy(strings.Split(s, ", ")); !slices.Equal(got, sortedCopy(impls)) {
					t.Errorf("driver show fake-hardware: %s = %q, want %v in any order", key, s, impls)
				}
			}
		}
		c.Fails(t, []string{"Could not find the following driver(s) or hardware type(s): cli-no-such-driver. (HTTP 404)"},
			"driver", "show", "cli-no-such-driver")
	})

	t.Run("property-list", func(t *testing.T) {
		// fake-hardware's properties are those of its fake vendor
		// interface, as the reference reports them.
		rows := c.Rows(t, "driver", "property", "list", "fake-hardware")
		for _, r := range rows {
			checkKeys(t, "driver property list row", r, "Property", "Description")
		}
		checkFields(t, "driver property list", object{"rows": rows}, object{"rows": []object{
			{"Property": "B1", "Description": "B1 description. Required."},
			{"Property": "B2", "Description": "B2 description. Required."},
		}})
	})
}

// ifaceTitle is the CLI's spelling of an interface name in column titles.
func ifaceTitle(iface string) string {
	switch iface {
	case "bios", "raid":
		return strings.ToUpper(iface)
	}
	return strings.ToUpper(iface[:1]) + iface[1:]
}

// testConductors covers conductor list and conductor show.
func testConductors(t *testing.T, w *world) {
	c := w.cli
	row := mustRow(t, "conductor list", c.Rows(t, "conductor", "list"), "Hostname", w.host)
	checkKeys(t, "conductor list row", row, "Hostname", "Conductor Group", "Alive")
	checkFields(t, "conductor list row", row, object{"Conductor Group": "", "Alive": true})

	cond := c.Object(t, "conductor", "show", w.host)
	checkKeys(t, "conductor show", cond, "hostname", "conductor_group", "alive", "drivers", "created_at", "updated_at")
	checkFields(t, "conductor show", cond, object{"hostname": w.host, "conductor_group": "", "alive": true})
	var drivers []string
	if list, ok := cond["drivers"].([]any); ok {
		for _, d := range list {
			s, _ := d.(string)
			drivers = append(drivers, s)
		}
	}
	if w.own {
		if !slices.Equal(sortedCopy(drivers), []string{"fake-hardware", "manual-management"}) {
			t.Errorf("conductor show: drivers %v, want fake-hardware and manual-management", cond["drivers"])
		}
	} else if !slices.Contains(drivers, "fake-hardware") {
		t.Errorf("conductor show: drivers %v lack fake-hardware", cond["drivers"])
	}
	if created, _ := cond["created_at"].(string); created == "" {
		t.Errorf("conductor show: created_at %v, want a time", cond["created_at"])
	}

	c.Fails(t, []string{"Conductor cli-no-such-host could not be found. (HTTP 404)"}, "conductor", "show", "cli-no-such-host")
}

// testErrors checks that Ironic's error messages reach the user: the CLI
// exits non-zero and prints the faultstring on standard error.
func testErrors(t *testing.T, w *world) {
	c := w.cli
	missing := w.name("missing")
	c.Fails(t, []string{"Node " + missing + " could not be found. (HTTP 404)"}, "node", "show", missing)
	c.Fails(t, []string{"Failed to delete node " + missing + ": Node " + missing + " could not be found. (HTTP 404)"},
		"node", "delete", missing)
	c.Fails(t, []string{`No valid host was found. Reason: No conductor service registered which supports driver cli-no-such-driver for conductor group "". (HTTP 400)`},
		"node", "create", "--driver", "cli-no-such-driver")
	c.Fails(t, []string{"Expected valid MAC address for address: zz:zz (HTTP 400)"},
		"port", "create", "zz:zz", "--node", "11111111-2222-3333-4444-555555555555")
	c.Fails(t, []string{"Node 11111111-2222-3333-4444-555555555555 could not be found. (HTTP 400)"},
		"port", "create", w.mac(9), "--node", "11111111-2222-3333-4444-555555555555")
	c.Fails(t, []string{"Port 11111111-2222-3333-4444-555555555555 could not be found. (HTTP 404)"},
		"port", "show", "11111111-2222-3333-4444-555555555555")

	name := w.name("err-node")
	node := newNode(t, w, name)
	c.Fails(t, []string{"Failed to add trait lower_bad: Schema error for trait: 'lower_bad' is not valid under any of the given schemas."},
		"node", "add", "trait", node, "lower_bad")
	// A conflict: the CLI retries 409s five times, 2 s apart, before it
	// gives up and prints the message.
	c.Fails(t, []string{"A node with name " + name + " already exists. (HTTP 409)"},
		"node", "create", "--driver", "fake-hardware", "--name", name)
}

// testVersionAndFlags checks version negotiation with "latest" and the
// command-line spelling of the no-auth options.
func testVersionAndFlags(t *testing.T, w *world) {
	t.Run("latest", func(t *testing.T) {
		latest := w.cli.With(map[string]string{"OS_BAREMETAL_API_VERSION": "latest"}, "baremetal")
		mustRow(t, "conductor list (latest)", latest.Rows(t, "conductor", "list"), "Hostname", w.host)
	})
	t.Run("flags", func(t *testing.T) {
		endpoint := w.cli.Endpoint()
		flags := w.cli.With(map[string]string{"OS_AUTH_TYPE": "", "OS_ENDPOINT": "", "OS_BAREMETAL_API_VERSION": ""},
			"--os-auth-type", "none", "--os-endpoint", endpoint, "--os-baremetal-api-version", apiVersion, "baremetal")
		mustRow(t, "driver list (flags)", flags.Rows(t, "driver", "list"), "Supported driver(s)", "fake-hardware")
	})
	t.Run("old-version", func(t *testing.T) {
		// At 1.31 a node has the dynamic interface fields but not
		// storage_interface (1.33), traits (1.37) or deploy_step (1.44);
		// the CLI shows what the server returns.
		old := w.cli.With(map[string]string{"OS_BAREMETAL_API_VERSION": "1.31"}, "baremetal")
		name := w.name("old")
		w.cleanup(t, "node", "delete", name)
		n := old.Object(t, "node", "create", "--driver", "fake-hardware", "--name", name)
		checkFields(t, "node create at 1.31", n, object{
			"name": name, "boot_interface": "fake", "power_interface": "fake",
			"storage_interface": absent, "traits": absent, "deploy_step": absent,
		})
	})
}
