package vm_test

import "github.com/goironic/ironic/test/redfishbmc"

// redfishHdd boots the machine from its disk.
var redfishHdd = redfishbmc.MachineBoot{Target: "Hdd"}
