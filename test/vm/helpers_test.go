package vm_test

import (
	"context"
	"strconv"
	"testing"

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
