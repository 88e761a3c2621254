package redfish_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

func TestPowerOnOffReboot(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff})
	ctx := context.Background()
	p := r.drv.Power
	got, err := p.GetPowerState(ctx, r.task)
	if err != nil || got != states.PowerOff {
		t.Fatalf("GetPowerState: %q %v", got, err)
	}
	r.wantRequests(
		"GET /redfish/v1/",
		`POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`,
		"GET /redfish/v1/Systems/1",
	)
	if err := p.SetPowerState(ctx, r.task, states.PowerOn, 0); err != nil {
		t.Fatal(err)
	}
	r.wantRequests(
		"GET /redfish/v1/Systems/1",
		`POST /redfish/v1/Systems/1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
		"GET /redfish/v1/Systems/1",
	)
	if r.sys.PowerState() != redfishbmc.PowerOn {
		t.Fatalf("BMC power %s", r.sys.PowerState())
	}
	if err := p.Reboot(ctx, r.task, 0); err != nil {
		t.Fatal(err)
	}
	r.wantRequests(
		"GET /redfish/v1/Systems/1",
		`POST /redfish/v1/Systems/1/Actions/ComputerSystem.Reset {"ResetType":"ForceOff"}`,
		"GET /redfish/v1/Systems/1",
		`POST /redfish/v1/Systems/1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
		"GET /redfish/v1/Systems/1",
	)
}
