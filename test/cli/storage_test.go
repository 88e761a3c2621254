package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/fakecinder"
)

// cinderPorts is the port range the fake Cinder may listen on.
const cinderPortFirst, cinderPortLast = 5960, 5999

// bfvVolume is the Cinder volume the boot-from-volume test boots from.
const bfvVolume = "b00710a0-0000-4000-8000-00000000b0f1"

// startCinder serves a fake Cinder holding bfvVolume on a loopback port
// for the duration of t.
func startCinder(t *testing.T) (*fakecinder.Server, string) {
	t.Helper()
	var ln net.Listener
	var err error
	for p := cinderPortFirst; p <= cinderPortLast; p++ {
		if ln, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			break
		}
	}
	if ln == nil {
		t.Fatalf("no free port for the fake Cinder in %d-%d: %v", cinderPortFirst, cinderPortLast, err)
	}
	s := fakecinder.New(fakecinder.Options{Volumes: []map[string]any{{"id": bfvVolume}}})
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("fake Cinder: %v", err)
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })
	return s, "http://" + ln.Addr().String() + "/v3"
}

// testBootFromVolume drives a fake-hardware node with the cinder storage
// interface through the CLI: storage_interface set and shown, a connector
// and a boot target, validation, deployment, then power on (the volume is
// attached in Cinder and the target's properties hold the connection
// data) and power off (detached).
func testBootFromVolume(t *testing.T, w *world) {
	if !w.own {
		t.Skip("needs our server's fake Cinder")
	}
	c := w.cli
	name := w.name("bfv")
	node := newNode(t, w, name, "--storage-interface", "cinder", "--property", "capabilities=iscsi_boot:True")
	checkFields(t, "node create --storage-interface", c.Object(t, "node", "show", node, "--fields", "storage_interface"),
		object{"storage_interface": "cinder"})
	c.OK(t, "node", "set", name, "--storage-interface", "external")
	checkFields(t, "node set --storage-interface external", c.Object(t, "node", "show", node), object{"storage_interface": "external"})
	c.Fails(t, []string{"Could not find the following interface in the 'ironic.hardware.interfaces.storage' entrypoint: nosuch."},
		"node", "set", name, "--storage-interface", "nosuch")
	c.OK(t, "node", "set", name, "--storage-interface", "cinder")

	iqn := "iqn.2017-08.org.openstack." + name
	conn := uuidOf(t, c.Object(t, "volume", "connector", "create", "--node", node, "--type", "iqn", "--connector-id", iqn))
	target := uuidOf(t, c.Object(t, "volume", "target", "create", "--node", node, "--type", "iscsi",
		"--boot-index", "0", "--volume-id", bfvVolume))

	t.Run("validate", func(t *testing.T) {
		row := mustRow(t, "node validate", c.Rows(t, "node", "validate", node), "Interface", "storage")
		checkFields(t, "node validate storage", row, object{"Result": true, "Reason": ""})
		c.OK(t, "node", "unset", name, "--property", "capabilities")
		row = mustRow(t, "node validate", c.Rows(t, "node", "validate", node), "Interface", "storage")
		checkFields(t, "node validate storage without iscsi_boot", row, object{"Result": false, "Reason": "Failed to validate cinder storage interface for node " +
			node + ". Volume target " + target + " is configured for 'iscsi', however the capability 'iscsi_boot' is not set for the node."})
		c.OK(t, "node", "set", name, "--property", "capabilities=iscsi_boot:True")
	})

	t.Run("deploy-power", func(t *testing.T) {
		c.OK(t, "node", "manage", name, "--wait", "60")
		c.OK(t, "node", "provide", name, "--wait", "60")
		c.OK(t, "node", "deploy", name, "--wait", "60")
		powerOff(t, w, node)
		c.OK(t, "node", "power", "on", name)
		waitField(t, w, "power_state", "power on", "node", "show", node)
		if got := w.cinder.Volume(bfvVolume)["status"]; got != "in-use" {
			t.Errorf("Cinder volume status after power on = %v, want in-use", got)
		}
		props, _ := c.Object(t, "volume", "target", "show", target)["properties"].(object)
		checkFields(t, "volume target properties after attach", props, object{
			"target_iqn": "iqn.2010-10.org.openstack:volume-" + bfvVolume, "target_portal": "192.0.2.10:3260",
			"target_lun": 0, "auth_method": "CHAP", "volume_id": bfvVolume, "ironic_volume_uuid": bfvVolume,
		})
		// Volume changes need the node powered off.
		c.Fails(t, []string{`The requested action "volume target update" can not be performed on node "` + node + `" while it is in state "power on".`},
			"volume", "target", "set", target, "--extra", "a=b")
		powerOff(t, w, node)
		if got := w.cinder.Volume(bfvVolume)["status"]; got != "available" {
			t.Errorf("Cinder volume status after power off = %v, want available", got)
		}
		var actions []string
		for _, a := range w.cinder.Actions() {
			actions = append(actions, strings.Fields(a)[0])
		}
		// The first power off (of the active node) only looks at the
		// volume, which isn't attached yet.
		want := "GET os-reserve os-initialize_connection os-attach metadata GET os-begin_detaching os-terminate_connection os-detach metadata"
		if got := strings.Join(actions, " "); !strings.HasSuffix(got, want) {
			t.Errorf("Cinder calls: %s\nwant %s", got, want)
		}
		c.OK(t, "node", "undeploy", name, "--wait", "60")
	})

	// The direct deploy interface deploys a node that boots from its
	// volume without any agent: the volume is attached during the
	// deployment, and tear down detaches it and deletes the node's
	// volume targets, as Ironic's agent deploy does.
	t.Run("deploy-direct", func(t *testing.T) {
		// Cleaning with the direct deploy interface boots the agent and
		// waits for it (drivers/agent tests it); this node skips it.
		c.OK(t, "node", "set", name, "--deploy-interface", "direct", "--driver-info", "deploy_kernel=http://192.0.2.1/k",
			"--driver-info", "deploy_ramdisk=http://192.0.2.1/r", "--no-automated-clean")
		before := len(w.cinder.Actions())
		c.OK(t, "node", "deploy", name, "--wait", "60")
		n := c.Object(t, "node", "show", node)
		checkFields(t, "node after direct deploy", n, object{"provision_state": "active", "power_state": "power on", "last_error": nil})
		if dii, _ := n["driver_internal_info"].(object); dii["deploy_boot_mode"] != nil || dii["boot_from_volume"] != nil {
			// fake boot can't boot a volume: Ironic records no
			// boot_from_volume, and fake boot syncs no boot mode.
			t.Errorf("driver_internal_info after direct deploy: %v", dii)
		}
		if got := w.cinder.Volume(bfvVolume)["status"]; got != "in-use" {
			t.Errorf("Cinder volume status after direct deploy = %v, want in-use", got)
		}
		var actions []string
		for _, a := range w.cinder.Actions()[before:] {
			actions = append(actions, strings.Fields(a)[0])
		}
		if got, want := strings.Join(actions, " "), "GET os-reserve os-initialize_connection os-attach metadata"; got != want {
			t.Errorf("Cinder calls of the deployment: %s\nwant %s", got, want)
		}
		c.OK(t, "node", "undeploy", name, "--wait", "60")
		checkFields(t, "node after undeploy", c.Object(t, "node", "show", node), object{"provision_state": "available", "power_state": "power off"})
		if got := w.cinder.Volume(bfvVolume)["status"]; got != "available" {
			t.Errorf("Cinder volume status after undeploy = %v, want available", got)
		}
		if rows := c.Rows(t, "volume", "target", "list", "--node", node); len(rows) != 0 {
			t.Errorf("volume targets left after undeploy: %v", rows)
		}
		if rows := c.Rows(t, "volume", "connector", "list", "--node", node); len(rows) != 1 {
			t.Errorf("volume connectors after undeploy: %v, want the one kept", rows)
		}
	})

	t.Run("delete", func(t *testing.T) {
		c.OK(t, "volume", "connector", "delete", conn)
		c.OK(t, "node", "delete", name)
	})
}
