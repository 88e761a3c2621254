package ipmi

import (
	"context"
	"fmt"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// Vendor is the "ipmitool" vendor interface (VendorPassthru): node
// methods send_raw and bmc_reset.
type Vendor struct{ t *tool }

// GetProperties returns the IPMI driver_info keys.
func (*Vendor) GetProperties() drivers.Properties { return commonProperties() }

// Routes lists bmc_reset and send_raw.
func (*Vendor) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "send_raw", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Send raw bytes to the BMC. Required argument: 'raw_bytes' - a string of raw bytes (e.g. '0x00 0x01').",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "bmc_reset", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Reset the BMC. Required argument: 'warm' (Boolean) - for warm (True) or cold (False) reset.",
			RequireExclusiveLock: true},
	)
}

// DriverRoutes lists none.
func (*Vendor) DriverRoutes() drivers.VendorMethods { return nil }

// Validate requires raw_bytes for send_raw, and valid IPMI driver_info.
func (v *Vendor) Validate(ctx context.Context, task drivers.Task, method, _ string, args map[string]any) error {
	if method == "send_raw" && !py.Truthy(args["raw_bytes"]) {
		return drivers.MissingParameter("Parameter raw_bytes (string of bytes) was not specified.")
	}
	_, err := v.t.parse(ctx, task)
	return err
}

// DriverValidate accepts every call.
func (*Vendor) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call runs send_raw ("raw <raw_bytes>") or bmc_reset ("bmc reset warm",
// or "cold" when warm is false); neither returns anything.
func (v *Vendor) Call(ctx context.Context, task drivers.Task, method, _ string, args map[string]any) (any, error) {
	switch method {
	case "send_raw":
		_, _, err := v.t.sendRaw(ctx, task, py.Str(args["raw_bytes"]))
		return nil, err
	case "bmc_reset":
		warm, ok := args["warm"]
		if !ok {
			warm = true
		}
		kind := "cold"
		if boolFromString(warm) {
			kind = "warm"
		}
		v.t.cfg.Log.DebugContext(ctx, fmt.Sprintf("Doing %s BMC reset on node %s", kind, task.NodeUUID()), "node", task.NodeUUID())
		info, err := v.t.parse(ctx, task)
		if err != nil {
			return nil, err
		}
		cmd := "bmc reset " + kind
		out, errOut, err := v.t.exec(ctx, info, cmd, execOptions{})
		if err != nil {
			v.t.cfg.Log.ErrorContext(ctx, fmt.Sprintf("IPMI \"bmc reset\" failed for node %s with error: %s.", task.NodeUUID(), err), "node", task.NodeUUID())
			return nil, ipmiFailure(cmd)
		}
		v.t.cfg.Log.DebugContext(ctx, fmt.Sprintf("bmc reset returned stdout: %s, stderr: %s", out, errOut), "node", task.NodeUUID())
		return nil, nil
	}
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// CallDriver has no methods to run.
func (*Vendor) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}
