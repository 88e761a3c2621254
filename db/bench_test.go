package db_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// seedNodes creates n nodes with realistic JSON columns and two traits
// each.
func seedNodes(b testing.TB, s *db.Store, n int) {
	for i := range n {
		nd, err := s.CreateNode(ctx, &models.Node{
			Driver: "ipmi", Name: models.Ptr(fmt.Sprintf("node-%04d", i)),
			ProvisionState: models.Ptr(states.Available), PowerState: models.Ptr(states.PowerOff),
			Properties: models.JSONDict{"cpus": json.Number("64"), "memory_mb": json.Number("262144"), "local_gb": json.Number("1800"),
				"cpu_arch": "x86_64", "capabilities": "boot_mode:uefi,secure_boot:true"},
			DriverInfo: models.JSONDict{"ipmi_address": fmt.Sprintf("10.1.%d.%d", i/250, i%250), "ipmi_username": "admin",
				"ipmi_password": "secret", "deploy_kernel": "http://images/ipa.kernel", "deploy_ramdisk": "http://images/ipa.initramfs"},
			DriverInternalInfo: models.JSONDict{"last_power_state_change": "2026-12-02T11:51:42.332271", "agent_url": "http://10.2.0.1:9999"},
			Extra:              models.JSONDict{"rack": fmt.Sprint(i / 40)},
			ResourceClass:      models.Ptr("baremetal"), Owner: models.Ptr("project-a"),
			BootInterface: models.Ptr("ipxe"), DeployInterface: models.Ptr("direct"), PowerInterface: models.Ptr("ipmitool"),
			ManagementInterface: models.Ptr("ipmitool"), NetworkInterface: models.Ptr("flat"),
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.SetNodeTraits(ctx, nd.ID, []string{"CUSTOM_GPU", "CUSTOM_RACK_" + fmt.Sprint(i/40)}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchList(b *testing.B, open func(testing.TB, ...db.Option) *db.Store) {
	s := open(b)
	seedNodes(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		nodes, err := s.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Limit: 1000})
		if err != nil {
			b.Fatal(err)
		}
		if len(nodes) != 1000 || len(nodes[999].Traits) != 2 {
			b.Fatalf("got %d nodes", len(nodes))
		}
	}
}

// BenchmarkListNodes1000 lists a page of 1000 nodes with every column and
// their traits (two queries).
func BenchmarkListNodes1000SQLite(b *testing.B)  { benchList(b, dbtest.SQLite) }
func BenchmarkListNodes1000MariaDB(b *testing.B) { benchList(b, dbtest.MariaDB) }

func BenchmarkGetNodeByUUID(b *testing.B) {
	s := dbtest.SQLite(b)
	seedNodes(b, s, 50)
	n, err := s.GetNodeByName(ctx, "node-0025")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.GetNodeByUUID(ctx, n.UUID); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReserveRelease(b *testing.B) {
	s := dbtest.SQLite(b)
	seedNodes(b, s, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.ReserveNode(ctx, "host", db.ByID(1)); err != nil {
			b.Fatal(err)
		}
		if err := s.ReleaseNode(ctx, "host", db.ByID(1)); err != nil {
			b.Fatal(err)
		}
	}
}
