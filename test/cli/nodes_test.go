package cli

import (
	"slices"
	"testing"
)

// testNodes covers node create/show/list/set/unset/delete and traits.
func testNodes(t *testing.T, w *world) {
	c := w.cli
	name := w.name("node")
	rc := w.name("rc")
	w.cleanup(t, "node", "delete", name)
	w.cleanup(t, "node", "delete", name+"-b")

	// python-ironicclient 5.0.1's node create has no --description.
	created := c.Object(t, "node", "create", "--driver", "fake-hardware", "--name", name,
		"--property", "cpus=4", "--property", "memory_mb=1024", "--property", "cpu_arch=x86_64",
		"--extra", "foo=bar", "--driver-info", "fake_key=fake_value", "--resource-class", rc)
	id := uuidOf(t, created)
	want := object{
		"name":               name,
		"driver":             "fake-hardware",
		"provision_state":    "enroll",
		"power_state":        nil,
		"maintenance":        false,
		"maintenance_reason": nil,
		"properties":         object{"cpus": 4, "memory_mb": 1024, "cpu_arch": "x86_64"},
		"extra":              object{"foo": "bar"},
		"driver_info":        object{"fake_key": "fake_value"},
		"resource_class":     rc,
		"description":        nil,
		"conductor":          w.host,
		"conductor_group":    "",
		"chassis_uuid":       nil,
		"instance_uuid":      nil,
		"traits":             []string{},
		"protected":          false,
		"retired":            false,
		"console_enabled":    false,
		"instance_info":      object{},
	}
	for iface, impl := range fakeHardwareDefaults() {
		want[iface+"_interface"] = impl
	}
	checkFields(t, "node create", created, want)

	t.Run("show", func(t *testing.T) {
		byName := c.Object(t, "node", "show", name)
		if got := str(t, byName, "uuid"); got != id {
			t.Errorf("node show %s: uuid %s, want %s", name, got, id)
		}
		checkFields(t, "node show by name", byName, want)
		fields := c.Object(t, "node", "show", id, "--fields", "uuid", "name", "properties")
		checkKeys(t, "node show --fields", fields, "uuid", "name", "properties")
		checkFields(t, "node show --fields", fields, object{"uuid": id, "name": name, "properties": want["properties"]})
	})

	t.Run("list", func(t *testing.T) {
		row := mustRow(t, "node list", c.Rows(t, "node", "list"), "UUID", id)
		checkKeys(t, "node list row", row, "UUID", "Name", "Instance UUID", "Power State", "Provisioning State", "Maintenance")
		checkFields(t, "node list row", row, object{
			"Name": name, "Instance UUID": nil, "Power State": nil,
			"Provisioning State": "enroll", "Maintenance": false,
		})
		long := c.Rows(t, "node", "list", "--long", "--resource-class", rc)
		if got := column(long, "UUID"); len(got) != 1 || got[0] != id {
			t.Fatalf("node list --long --resource-class %s: %v, want [%s]", rc, got, id)
		}
		checkFields(t, "node list --long row", long[0], object{
			"Driver": "fake-hardware", "Resource Class": rc, "Conductor": w.host,
			"Power Interface": "fake", "Network Interface": "noop",
			"Properties": want["properties"], "Traits": []string{},
		})
	})

	t.Run("set-unset", func(t *testing.T) {
		c.OK(t, "node", "set", name, "--name", name+"-b",
			"--property", "cpus=8", "--property", "local_gb=10",
			"--extra", "answer=42", "--driver-info", "other=x",
			"--resource-class", rc+"-b", "--description", "changed")
		checkFields(t, "node show after set", c.Object(t, "node", "show", id), object{
			"name":           name + "-b",
			"properties":     object{"cpus": 8, "memory_mb": 1024, "cpu_arch": "x86_64", "local_gb": 10},
			"extra":          object{"foo": "bar", "answer": 42},
			"driver_info":    object{"fake_key": "fake_value", "other": "x"},
			"resource_class": rc + "-b",
			"description":    "changed",
		})
		c.OK(t, "node", "unset", name+"-b",
			"--property", "memory_mb", "--property", "cpu_arch", "--extra", "foo",
			"--driver-info", "fake_key", "--resource-class", "--description")
		checkFields(t, "node show after unset", c.Object(t, "node", "show", id), object{
			"name":           name + "-b",
			"properties":     object{"cpus": 8, "local_gb": 10},
			"extra":          object{"answer": 42},
			"driver_info":    object{"other": "x"},
			"resource_class": nil,
			"description":    nil,
		})
	})

	t.Run("traits", func(t *testing.T) {
		a, b := w.trait("A"), w.trait("B")
		traits := func() []string {
			return sortedCopy(column(c.Rows(t, "node", "trait", "list", id), "Traits"))
		}
		c.OK(t, "node", "add", "trait", id, a, b)
		if got, want := traits(), sortedCopy([]string{a, b}); !slices.Equal(got, want) {
			t.Errorf("node trait list after add: %v, want %v", got, want)
		}
		c.OK(t, "node", "remove", "trait", id, a)
		if got := traits(); !slices.Equal(got, []string{b}) {
			t.Errorf("node trait list after remove %s: %v, want [%s]", a, got, b)
		}
		c.OK(t, "node", "remove", "trait", id, "--all")
		if got := traits(); len(got) != 0 {
			t.Errorf("node trait list after remove --all: %v, want none", got)
		}
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "node", "delete", id)
		c.Fails(t, []string{"Node " + id + " could not be found. (HTTP 404)"}, "node", "show", id)
	})
}

// testManualManagementNode checks the interfaces a manual-management node
// gets by default under serverConfig: for each interface, the first
// implementation the hardware type supports that is enabled.
func testManualManagementNode(t *testing.T, w *world) {
	if !w.own {
		t.Skip("needs manual-management enabled as in serverConfig")
	}
	n := w.cli.Object(t, "node", "create", "--driver", "manual-management", "--name", w.name("mm"))
	uuidOf(t, n)
	checkFields(t, "manual-management node", n, object{
		"driver":               "manual-management",
		"bios_interface":       "no-bios",
		"boot_interface":       "ipxe",
		"console_interface":    "no-console",
		"deploy_interface":     "direct",
		"inspect_interface":    "no-inspect",
		"management_interface": "noop",
		"network_interface":    "noop",
		"power_interface":      "fake",
		"raid_interface":       "no-raid",
		"rescue_interface":     "no-rescue",
		"storage_interface":    "noop",
		"vendor_interface":     "no-vendor",
	})
}

// testNodeStates covers validate, maintenance set/unset and power on/off.
func testNodeStates(t *testing.T, w *world) {
	c := w.cli
	name := w.name("states")
	id := newNode(t, w, name)

	t.Run("validate", func(t *testing.T) {
		rows := c.Rows(t, "node", "validate", id)
		var ifaces []string
		for _, r := range rows {
			checkKeys(t, "node validate row", r, "Interface", "Result", "Reason")
			iface, _ := r["Interface"].(string)
			ifaces = append(ifaces, iface)
			// Every fake-hardware interface validates with empty driver_info.
			if r["Result"] != true || r["Reason"] != "" {
				t.Errorf("node validate: %s: Result %v Reason %q, want true and \"\"", iface, r["Result"], r["Reason"])
			}
		}
		want := []string{"bios", "boot", "console", "deploy", "inspect", "management", "network", "power", "raid", "rescue", "storage"}
		if !slices.Equal(sortedCopy(ifaces), want) {
			t.Errorf("node validate interfaces: %v, want %v", ifaces, want)
		}
	})

	t.Run("maintenance", func(t *testing.T) {
		c.OK(t, "node", "maintenance", "set", name, "--reason", "CLI test reason")
		checkFields(t, "after maintenance set", c.Object(t, "node", "show", id),
			object{"maintenance": true, "maintenance_reason": "CLI test reason"})
		if findRow(c.Rows(t, "node", "list", "--maintenance"), "UUID", id) == nil {
			t.Errorf("node list --maintenance lacks %s", id)
		}
		c.OK(t, "node", "maintenance", "unset", name)
		checkFields(t, "after maintenance unset", c.Object(t, "node", "show", id),
			object{"maintenance": false, "maintenance_reason": nil})
	})

	t.Run("power", func(t *testing.T) {
		c.OK(t, "node", "power", "on", name)
		waitField(t, w, "power_state", "power on", "node", "show", id)
		c.OK(t, "node", "power", "off", name)
		off := waitField(t, w, "power_state", "power off", "node", "show", id)
		checkFields(t, "after power off", off, object{"target_power_state": nil, "last_error": nil})
	})
}
