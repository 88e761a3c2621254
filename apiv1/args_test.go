package apiv1

import (
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecsAreIronics compares every argSpec with the parameters of the
// Ironic 21.4 controller method it declares (testdata/controller_args.json,
// written by testdata/gen_controller_args.py from Ironic's source): the
// same parameters in the same order, the same mandatory ones, the same
// validators, the same method.body parameter, *args and **kwargs.
// Parameters validated against a schema are checked by their handlers
// (bodyOf or no validator here).
func TestSpecsAreIronics(t *testing.T) {
	raw, err := os.ReadFile("testdata/controller_args.json")
	if err != nil {
		t.Fatal(err)
	}
	var ironic map[string]struct {
		Params []struct {
			Name      string
			Validator *string
			Required  bool
		}
		Body    *string
		Varargs bool
		Kwargs  bool
	}
	if err := json.Unmarshal(raw, &ironic); err != nil {
		t.Fatal(err)
	}
	connectors := newVolumeResource(nil, connectorKind{})
	targets := newVolumeResource(nil, targetKind{})
	specs := map[string]argSpec{
		"AllocationsController.delete":                 allocationDeleteArgs,
		"AllocationsController.get_all":                allocationListArgs,
		"AllocationsController.get_one":                allocationGetArgs,
		"AllocationsController.patch":                  allocationPatchArgs,
		"AllocationsController.post":                   allocationCreateArgs,
		"BootDeviceController.get":                     nodeIdentArgs,
		"BootDeviceController.put":                     bootDeviceArgs,
		"BootDeviceController.supported":               nodeIdentArgs,
		"ChassisController.delete":                     chassisDeleteArgs,
		"ChassisController.detail":                     chassisDetailArgs,
		"ChassisController.get_all":                    chassisListArgs,
		"ChassisController.get_one":                    chassisGetArgs,
		"ChassisController.patch":                      chassisPatchArgs,
		"ChassisController.post":                       chassisCreateArgs,
		"ConductorsController.get_all":                 conductorListArgs,
		"ConductorsController.get_one":                 conductorGetArgs,
		"DeployTemplatesController.delete":             templateDeleteArgs,
		"DeployTemplatesController.get_all":            templateListArgs,
		"DeployTemplatesController.get_one":            templateGetArgs,
		"DeployTemplatesController.patch":              templatePatchArgs,
		"DeployTemplatesController.post":               templateCreateArgs,
		"DriverPassthruController._default":            driverVendorArgs,
		"DriverPassthruController.methods":             driverNameArgs,
		"DriverRaidController.logical_disk_properties": driverNameArgs,
		"DriversController.get_all":                    driverListArgs,
		"DriversController.get_one":                    driverGetArgs,
		"DriversController.properties":                 driverNameArgs,
		"EventsController.post":                        eventsArgs,
		"HeartbeatController.post":                     heartbeatArgs,
		"IndicatorController.get_all":                  indicatorListArgs,
		"IndicatorController.get_one":                  indicatorGetArgs,
		"IndicatorController.put":                      indicatorSetArgs,
		"InjectNmiController.put":                      nodeIdentArgs,
		"LookupController.get_all":                     lookupArgs,
		"NodeAllocationController.get_all":             nodeAllocationArgs,
		"NodeBiosController.get_all":                   biosListArgs,
		"NodeBiosController.get_one":                   biosGetArgs,
		"NodeConsoleController.get":                    nodeIdentArgs,
		"NodeConsoleController.put":                    consoleArgs,
		"NodeHistoryController.get_all":                historyListArgs,
		"NodeHistoryController.get_one":                historyGetArgs,
		"NodeMaintenanceController.delete":             maintenanceClearArgs,
		"NodeMaintenanceController.put":                maintenanceSetArgs,
		"NodeStatesController.boot_mode":               bootModeArgs,
		"NodeStatesController.get":                     nodeIdentArgs,
		"NodeStatesController.power":                   powerArgs,
		"NodeStatesController.provision":               provisionArgs,
		"NodeStatesController.raid":                    raidArgs,
		"NodeStatesController.secure_boot":             secureBootArgs,
		"NodeTraitsController.delete":                  traitsDeleteArgs,
		"NodeTraitsController.put":                     traitsSetArgs,
		"NodeVIFController.delete":                     vifDetachArgs,
		"NodeVIFController.post":                       vifAttachArgs,
		"NodeVendorPassthruController._default":        nodeVendorArgs,
		"NodeVendorPassthruController.methods":         nodeIdentArgs,
		"NodesController.delete":                       nodeDeleteArgs,
		"NodesController.detail":                       nodeDetailArgs,
		"NodesController.get_all":                      nodeListArgs,
		"NodesController.get_one":                      nodeGetArgs,
		"NodesController.patch":                        nodePatchArgs,
		"NodesController.post":                         nodeCreateArgs,
		"NodesController.validate":                     nodeValidateArgs,
		"PortgroupsController.delete":                  portgroupDeleteArgs,
		"PortgroupsController.detail":                  portgroupDetailArgs,
		"PortgroupsController.get_all":                 portgroupListArgs,
		"PortgroupsController.get_one":                 portgroupGetArgs,
		"PortgroupsController.patch":                   portgroupPatchArgs,
		"PortgroupsController.post":                    portgroupCreateArgs,
		"PortsController.delete":                       portDeleteArgs,
		"PortsController.detail":                       portDetailArgs,
		"PortsController.get_all":                      portListArgs,
		"PortsController.get_one":                      portGetArgs,
		"PortsController.patch":                        portPatchArgs,
		"PortsController.post":                         portCreateArgs,
		"VolumeConnectorsController.delete":            connectors.deleteArgs,
		"VolumeConnectorsController.get_all":           volumeListArgs,
		"VolumeConnectorsController.get_one":           connectors.getArgs,
		"VolumeConnectorsController.patch":             connectors.patchArgs,
		"VolumeConnectorsController.post":              connectors.createArgs,
		"VolumeTargetsController.delete":               targets.deleteArgs,
		"VolumeTargetsController.get_all":              volumeListArgs,
		"VolumeTargetsController.get_one":              targets.getArgs,
		"VolumeTargetsController.patch":                targets.patchArgs,
		"VolumeTargetsController.post":                 targets.createArgs,
	}
	// Validators are told apart by their function's name (closures,
	// copied wherever their maker is inlined, by the maker's).
	named := func(v validator) string {
		fn := runtime.FuncForPC(reflect.ValueOf(v).Pointer()).Name()
		for suffix, name := range map[string]string{".strArg": "string", ".boolArg": "boolean",
			".uuidArg": "uuid", ".nameArg": "name", ".uuidOrNameArg": "uuid_or_name",
			".stringListArg": "string_list", ".intArg": "integer", ".macArg": "mac_address"} {
			if strings.HasSuffix(fn, suffix) {
				return name
			}
		}
		switch {
		case strings.Contains(fn, ".typesArg."):
			return "types"
		case strings.Contains(fn, ".bodyOf."):
			return "body"
		}
		return fn
	}
	type param struct {
		Name, Validator string
		Required        bool
	}
	type sig struct {
		Params          []param
		Body            string
		Varargs, Kwargs bool
	}
	for method, spec := range specs {
		want, ok := ironic[method]
		if !ok {
			t.Errorf("%s: no such method in Ironic", method)
			continue
		}
		w := sig{Varargs: want.Varargs, Kwargs: want.Kwargs}
		if want.Body != nil {
			w.Body = *want.Body
		}
		for _, p := range want.Params {
			v := ""
			switch {
			case p.Validator == nil:
			case *p.Validator == "schema" || p.Name == w.Body && *p.Validator != "types":
				// A schema, checked by the handler (bodyOf refuses
				// what reaches a body parameter from the path).
				v = "body"
			default:
				v = *p.Validator
			}
			w.Params = append(w.Params, param{p.Name, v, p.Required})
		}
		got := sig{Body: spec.body, Varargs: spec.varargs, Kwargs: spec.kwargs}
		for _, p := range spec.params {
			v := ""
			if p.check != nil {
				v = named(p.check)
			}
			if v == "" && p.check == nil && slices.ContainsFunc(want.Params, func(q struct {
				Name      string
				Validator *string
				Required  bool
			}) bool {
				return q.Name == p.name && q.Validator != nil && *q.Validator == "schema"
			}) {
				v = "body"
			}
			got.Params = append(got.Params, param{p.name, v, p.required})
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s (-Ironic +ours):\n%s", method, diff)
		}
	}
}
