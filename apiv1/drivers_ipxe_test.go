package apiv1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

// ipxeSetup has one node with a port, deploy images in driver_info and,
// when active, an iSCSI boot volume.
func ipxeSetup(t testing.TB) (*Setup, string) {
	s := NewSetup(t, WithConf("deploy.http_url", "http://10.0.2.2:5781"),
		WithConf("service_catalog.endpoint_override", "http://10.0.2.2:5780/"),
		WithConf("pxe.kernel_append_params", "nofb console=ttyS0"))
	n := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "driver_info": map[string]any{
		"deploy_kernel": "http://10.0.2.2:5781/ipa.kernel", "deploy_ramdisk": "http://10.0.2.2:5781/ipa.initramfs"}})
	uuid := n.Field("uuid").(string)
	s.Must(http.StatusCreated, "POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": "52:54:00:ab:cd:ef"})
	return s, uuid
}

func setState(t testing.TB, s *Setup, uuid string, vals db.Values) {
	t.Helper()
	if _, err := s.Store.UpdateNode(context.Background(), db.ByUUID(uuid), vals); err != nil {
		t.Fatal(err)
	}
}

func getScript(t *testing.T, s *Setup, path string) string {
	t.Helper()
	// iPXE sends no version header.
	res := s.Do("GET", path, nil, "X-OpenStack-Ironic-API-Version", "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, res.Status, res.Raw)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	body := string(res.Raw)
	if !strings.HasPrefix(body, "#!ipxe\n") {
		t.Fatalf("GET %s: body does not start with #!ipxe:\n%s", path, body)
	}
	return body
}

const ipxePath = "/v1/drivers/fake-hardware/vendor_passthru/ipxe_config"

func TestIPXEConfigDeploying(t *testing.T) {
	s, uuid := ipxeSetup(t)
	setState(t, s, uuid, db.Values{"provision_state": "deploying"})
	for _, q := range []string{
		"?node_uuid=" + uuid,
		"?port_address=52:54:00:ab:cd:ef",
		"?port_address=52-54-00-ab-cd-ef",
		"?port_address=52-54-00-AB-CD-EF&arch=x86_64&extra=1", // iPXE URLs may carry more
		"?port_address=52:54:00:AB:cd:EF",
	} {
		body := getScript(t, s, ipxePath+q)
		for _, want := range []string{
			"kernel http://10.0.2.2:5781/ipa.kernel selinux=0 troubleshoot=0 text nofb console=ttyS0 ipa-api-url=http://10.0.2.2:5780 BOOTIF=${mac} initrd=deploy_ramdisk || goto retry",
			"initrd http://10.0.2.2:5781/ipa.initramfs || goto retry",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: no %q in\n%s", q, want, body)
			}
		}
	}
	// The ?method= form reaches it too.
	getScript(t, s, "/v1/drivers/fake-hardware/vendor_passthru?method=ipxe_config&node_uuid="+uuid)
}

func TestIPXEConfigActive(t *testing.T) {
	s, uuid := ipxeSetup(t)
	setState(t, s, uuid, db.Values{"provision_state": "active", "instance_info": pyjson.DictOf("image_source", "http://10.0.2.2:5781/part.img", "kernel", "http://10.0.2.2:5781/vmlinuz", "ramdisk", "http://10.0.2.2:5781/initrd")})
	body := getScript(t, s, ipxePath+"?port_address=52:54:00:ab:cd:ef")
	if !strings.Contains(body, "kernel http://10.0.2.2:5781/vmlinuz text nofb console=ttyS0 initrd=ramdisk || goto boot_netboot") ||
		!strings.Contains(body, "initrd http://10.0.2.2:5781/initrd") {
		t.Errorf("netboot script:\n%s", body)
	}

	// Boot from volume: the boot_index 0 target first, the others after.
	n, err := s.Store.GetNodeByUUID(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	var bootTarget string
	for i, props := range []models.JSONDict{
		models.DictOf("target_portal", "10.0.2.2:5790", "target_iqn", "iqn.2010-10.org.openstack:boot", "target_lun", 0, "auth_username", "chap", "auth_password", "secret"),
		models.DictOf("target_portal", "10.0.2.2:5791", "target_iqn", "iqn.2010-10.org.openstack:data", "target_lun", 1, "auth_username", "u1", "auth_password", "p1"),
	} {
		idx := int64(i)
		vt, err := s.Store.CreateVolumeTarget(context.Background(), &models.VolumeTarget{NodeID: &n.ID, VolumeType: models.Ptr("iscsi"),
			BootIndex: &idx, VolumeID: models.Ptr("vol-" + string(rune('a'+i))), Properties: props})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			bootTarget = vt.UUID
		}
	}
	// Targets alone do not make it boot from a volume: Ironic's
	// is_iscsi_boot needs the boot_from_volume the deployment records.
	setState(t, s, uuid, db.Values{"instance_info": pyjson.DictOf(), "driver_internal_info": pyjson.DictOf("is_whole_disk_image", true)})
	body = getScript(t, s, ipxePath+"?node_uuid="+uuid)
	if !strings.Contains(body, "boots from its local disk") || !strings.Contains(body, "\nexit 1\n") {
		t.Errorf("local boot without [pxe]enable_netboot_fallback:\n%s", body)
	}
	setState(t, s, uuid, db.Values{"driver_internal_info": pyjson.DictOf("is_whole_disk_image", true, "boot_from_volume", bootTarget)})
	body = getScript(t, s, ipxePath+"?node_uuid="+uuid)
	for _, want := range []string{
		"set username chap\nset password secret\nsanhook --drive 0x80 iscsi:10.0.2.2::5790:0:iqn.2010-10.org.openstack:boot || goto fail_iscsi_retry",
		"set username u1\nset password p1\nsanhook --drive 0x81 iscsi:10.0.2.2::5791:1:iqn.2010-10.org.openstack:data || goto fail_iscsi_retry",
		"sanboot --no-describe || goto fail_iscsi_retry",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}

// TestIPXEConfigNetbootFallback: [pxe]enable_netboot_fallback from
// ironic.conf gives a local-boot node Ironic's boot_whole_disk script.
func TestIPXEConfigNetbootFallback(t *testing.T) {
	s := NewSetup(t, WithConf("pxe.enable_netboot_fallback", "true"))
	n := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"})
	uuid := n.Field("uuid").(string)
	setState(t, s, uuid, db.Values{"provision_state": "active", "driver_internal_info": pyjson.DictOf("is_whole_disk_image", true)})
	body := getScript(t, s, ipxePath+"?node_uuid="+uuid)
	if want := "#!ipxe\n\ngoto boot_whole_disk\n\n:boot_whole_disk\nsanboot --no-describe || exit 0\n"; strings.TrimRight(body, "\n")+"\n" != want {
		t.Errorf("got\n%s\nwant\n%s", body, want)
	}
}

// TestIPXEConfigNoBoot: whatever the request names, the answer is a
// script that tells the console why and exits; never an error.
func TestIPXEConfigNoBoot(t *testing.T) {
	s, uuid := ipxeSetup(t)
	for q, want := range map[string]string{
		"?node_uuid=" + uuid:                              `is in provision state "enroll"`,
		"?node_uuid=1be26c0b-03f2-4d2e-ae87-c02d7f33c123": "no node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 is known",
		"?node_uuid=not-a-uuid":                           "no node not-a-uuid is known",
		"?port_address=52:54:00:00:00:01":                 "no node has a port with MAC address 52:54:00:00:00:01",
		"?port_address=garbage":                           `"garbage" is not a MAC address`,
		"":                                                "names no node",
	} {
		body := getScript(t, s, ipxePath+q)
		if !strings.Contains(body, want) || !strings.Contains(body, "\nexit 1\n") {
			t.Errorf("%s: want %q and exit in\n%s", q, want, body)
		}
	}
	if res := s.Do("POST", ipxePath+"?node_uuid="+uuid, nil); res.Status != http.StatusBadRequest {
		t.Errorf("POST: %d %s", res.Status, res.Raw)
	}
	if res := s.Do("GET", "/v1/drivers/nosuch/vendor_passthru/ipxe_config?node_uuid="+uuid, nil); res.Status >= 500 {
		t.Errorf("unknown driver: %d %s", res.Status, res.Raw)
	}
	// Other methods still refuse query arguments.
	if res := s.Do("GET", "/v1/drivers/fake-hardware/vendor_passthru/other?node_uuid="+uuid, nil); res.Status != http.StatusBadRequest ||
		!strings.Contains(string(res.Raw), "Unexpected arguments: node_uuid") {
		t.Errorf("other method: %d %s", res.Status, res.Raw)
	}
}

// BenchmarkIPXEConfig is the whole handler path: router, conductor call
// through the oslo codec, node and port lookups, rendering.
func BenchmarkIPXEConfig(b *testing.B) {
	s, uuid := ipxeSetup(b)
	setState(b, s, uuid, db.Values{"provision_state": "deploying"})
	s.settle = nil
	for _, q := range []string{"?node_uuid=" + uuid, "?port_address=52-54-00-AB-CD-EF"} {
		b.Run(strings.TrimPrefix(strings.SplitN(q, "=", 2)[0], "?"), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if res := s.Do("GET", ipxePath+q, nil); res.Status != http.StatusOK {
						b.Fatalf("%d %s", res.Status, res.Raw)
					}
				}
			})
		})
	}
}
