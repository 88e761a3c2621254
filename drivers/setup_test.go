package drivers_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/inspector"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/option"
)

// referenceConfig is the driver configuration of the reference deployment
// the files under testdata/reference were recorded from
// (/tmp/harness/ref-ironic-6390/ironic.conf), with Ironic's option
// defaults filled in as the conf package does (default_storage_interface
// is "noop" by default).
func referenceConfig() drivers.Config {
	return drivers.Config{
		EnabledHardwareTypes: []string{"fake-hardware", "ipmi", "redfish"},
		Enabled: map[string][]string{
			"bios":       {"fake", "no-bios", "redfish"},
			"boot":       {"fake", "ipxe", "pxe", "redfish-virtual-media"},
			"console":    {"fake", "no-console", "ipmitool-socat"},
			"deploy":     {"fake", "direct", "ramdisk"},
			"inspect":    {"fake", "no-inspect", "redfish"},
			"management": {"fake", "ipmitool", "redfish", "noop"},
			"network":    {"noop", "flat"},
			"power":      {"fake", "ipmitool", "redfish"},
			"raid":       {"fake", "no-raid", "agent", "redfish"},
			"rescue":     {"fake", "no-rescue"},
			"storage":    {"fake", "noop"},
			"vendor":     {"fake", "no-vendor", "ipmitool", "redfish"},
		},
		Default: map[string]string{"network": "noop", "storage": "noop"},
	}
}

// referenceImplementations are every implementation, configured as the
// reference deployment is ([deploy]http_url and http_root set,
// [conductor]automated_clean false).
func referenceImplementations() []drivers.Implementation {
	pxeCfg := pxe.DefaultConfig()
	pxeCfg.HTTPURL = "http://127.0.0.1:8080"
	pxeCfg.HTTPRoot = "/tmp/harness/ref-ironic-6390/http"
	pxeCfg.AutomatedClean = false
	agentCfg := agent.DefaultConfig()
	agentCfg.HTTPURL = pxeCfg.HTTPURL
	agentCfg.HTTPRoot = pxeCfg.HTTPRoot
	rfCfg := redfish.DefaultConfig()
	rfCfg.AutomatedClean = false
	return slices.Concat(
		fake.Implementations(fake.Config{}),
		generic.Implementations(),
		ipmi.Implementations(ipmi.DefaultConfig()),
		redfish.Implementations(rfCfg),
		pxe.Implementations(pxeCfg),
		agent.Implementations(agentCfg),
		inspector.Implementations(option.Default[inspector.Config]()),
	)
}

func newReferenceRegistry(t *testing.T) *drivers.Registry {
	t.Helper()
	reg, err := drivers.NewRegistry(referenceConfig(), referenceImplementations()...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return reg
}

func readTestdata(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := pyjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
