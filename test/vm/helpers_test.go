package vm_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/vm"
	"github.com/goironic/ironic/test/redfishbmc"
)

// redfishHdd boots the machine from its disk.
var redfishHdd = redfishbmc.MachineBoot{Target: "Hdd"}

func itoa(i int) string { return strconv.Itoa(i) }

// bootCtxOf bounds one VM run within ctx.
func bootCtxOf(ctx context.Context, t *testing.T) context.Context {
	c, cancel := context.WithTimeout(ctx, vmRun)
	t.Cleanup(cancel)
	return c
}

// waitDeployed waits (bounded by vmRun) for the deployed image's marker
// on node's console, logs the time since t0 and checks that the marker
// names uuid as the system's and the config drive's; it returns the
// console.
func waitDeployed(ctx context.Context, t *testing.T, node *vm.Node, uuid string, t0 time.Time) string {
	t.Helper()
	bootCtx, bootCancel := context.WithTimeout(ctx, vmRun)
	console, err := node.WaitConsole(bootCtx, func(c string) bool { _, ok := diskimage.Find(c, "DEPLOYED"); return ok })
	bootCancel()
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console, 6000))
	}
	t.Logf("phase disk boot: deploy to the deployed image's marker %s", time.Since(t0).Round(time.Millisecond))
	if m, _ := diskimage.Find(console, "DEPLOYED"); m.SystemUUID != uuid || m.ConfigDriveUUID != uuid {
		t.Errorf("deployed marker %+v, want system and config drive UUID %s", m, uuid)
	}
	return console
}
