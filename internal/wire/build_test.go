package wire

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/goironic/ironic/conf"
)

// TestIPXEUseSwiftWarns: [pxe]ipxe_use_swift cannot be honoured without a
// Glance client, and the conductor says so once at start-up.
func TestIPXEUseSwiftWarns(t *testing.T) {
	for _, set := range []bool{false, true} {
		opts := []conf.LoadOption{conf.AllInOne()}
		if set {
			opts = append(opts, conf.WithOverride("pxe", "ipxe_use_swift", "true"))
		}
		cfg, err := conf.Load(nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		Conductor(cfg, nil, nil, slog.New(slog.NewTextHandler(&buf, nil)))
		if got := strings.Count(buf.String(), "ipxe_use_swift is set"); got != map[bool]int{false: 0, true: 1}[set] {
			t.Errorf("ipxe_use_swift=%v: %d warnings in\n%s", set, got, buf.String())
		}
	}
}
