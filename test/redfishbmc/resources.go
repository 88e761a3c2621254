package redfishbmc

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// routeTable lists every resource the emulator serves, below the service
// root. "{}" matches one path segment (an Id).
func routeTable() []*route {
	get := http.MethodGet
	rt := func(path string, methods map[string]handler) *route {
		var segs []string
		if path != "" {
			segs = strings.Split(path, "/")
		}
		return &route{segs: segs, methods: methods}
	}
	root := rt("", map[string]handler{get: getServiceRoot})
	root.public = map[string]bool{get: true}
	sessions := rt("SessionService/Sessions", map[string]handler{get: getSessions, http.MethodPost: postSession})
	sessions.public = map[string]bool{http.MethodPost: true}
	system := rt("Systems/{}", map[string]handler{get: getSystem, http.MethodPatch: patchSystem})
	system.etag = true
	table := []*route{
		root,
		rt("SessionService", map[string]handler{get: getSessionService}),
		sessions,
		rt("SessionService/Sessions/{}", map[string]handler{get: getSession, http.MethodDelete: deleteSession}),
		rt("Systems", map[string]handler{get: getSystems}),
		system,
		rt("Systems/{}/Actions/ComputerSystem.Reset", map[string]handler{http.MethodPost: postSystemReset}),
		rt("Managers", map[string]handler{get: getManagers}),
		rt("Managers/{}", map[string]handler{get: getManager}),
		rt("Chassis", map[string]handler{get: getChassisCollection}),
		rt("Chassis/{}", map[string]handler{get: getChassis, http.MethodPatch: patchChassis}),
	}
	return append(table, extraRoutes(rt)...)
}

// collection is a resource collection of the given members.
func (c *call) collection(odataType, name string, segs []string, ids []string) map[string]any {
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = c.ref(append(slices.Clone(segs), id)...)
	}
	return map[string]any{
		"@odata.type":         odataType,
		"@odata.id":           c.uri(segs...),
		"Name":                name,
		"Members":             members,
		"Members@odata.count": len(ids),
	}
}

func status(enabled bool) map[string]any {
	state := "Enabled"
	if !enabled {
		state = "Disabled"
	}
	return map[string]any{"State": state, "Health": "OK", "HealthRollup": "OK"}
}

func getServiceRoot(c *call) (*reply, error) {
	return okReply(map[string]any{
		"@odata.type":    "#ServiceRoot.v1_5_0.ServiceRoot",
		"@odata.id":      c.root + "/",
		"Id":             "RootService",
		"Name":           "Root Service",
		"RedfishVersion": "1.5.0",
		"UUID":           c.b.uuid,
		"Vendor":         "goironic",
		"Product":        "goironic Redfish BMC emulator",
		"Systems":        c.ref("Systems"),
		"Managers":       c.ref("Managers"),
		"Chassis":        c.ref("Chassis"),
		"SessionService": c.ref("SessionService"),
		"EventService":   c.ref("EventService"),
		"Tasks":          c.ref("TaskService"),
		"Registries":     c.ref("Registries"),
		"Links":          map[string]any{"Sessions": c.ref("SessionService", "Sessions")},
	}), nil
}

func getSessionService(c *call) (*reply, error) {
	return okReply(map[string]any{
		"@odata.type":    "#SessionService.v1_1_8.SessionService",
		"@odata.id":      c.uri("SessionService"),
		"Id":             "SessionService",
		"Name":           "Session Service",
		"ServiceEnabled": true,
		"SessionTimeout": 1800,
		"Status":         status(true),
		"Sessions":       c.ref("SessionService", "Sessions"),
	}), nil
}

func (b *BMC) sessionIDs() []string {
	ids := make([]string, 0, len(b.sessions))
	for _, s := range b.sessions {
		ids = append(ids, s.id)
	}
	slices.Sort(ids)
	return ids
}

func getSessions(c *call) (*reply, error) {
	return okReply(c.collection("#SessionCollection.SessionCollection", "Session Collection",
		[]string{"SessionService", "Sessions"}, c.b.sessionIDs())), nil
}

func (c *call) renderSession(s *session) map[string]any {
	return map[string]any{
		"@odata.type": "#Session.v1_0_0.Session",
		"@odata.id":   c.uri("SessionService", "Sessions", s.id),
		"Id":          s.id,
		"Name":        "User Session",
		"UserName":    s.user,
	}
}

func postSession(c *call) (*reply, error) {
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	user, _ := body["UserName"].(string)
	pass, _ := body["Password"].(string)
	if _, ok := body["UserName"]; !ok {
		return nil, errCreateMissing("UserName")
	}
	if _, ok := body["Password"]; !ok {
		return nil, errCreateMissing("Password")
	}
	if !c.b.credentialsMatch(user, pass) {
		return nil, errNoValidSession()
	}
	s := &session{id: c.s.opts.NewID(), token: c.s.opts.NewToken(), user: user, created: c.now}
	c.b.sessions[s.token] = s
	uri := c.uri("SessionService", "Sessions", s.id)
	return &reply{status: http.StatusCreated, body: c.renderSession(s),
		header: http.Header{"X-Auth-Token": {s.token}, "Location": {uri}}}, nil
}

func (b *BMC) sessionByID(id string) *session {
	for _, s := range b.sessions {
		if s.id == id {
			return s
		}
	}
	return nil
}

func getSession(c *call) (*reply, error) {
	s := c.b.sessionByID(c.args[0])
	if s == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	return okReply(c.renderSession(s)), nil
}

func deleteSession(c *call) (*reply, error) {
	s := c.b.sessionByID(c.args[0])
	if s == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	delete(c.b.sessions, s.token)
	return noContent(), nil
}

func getSystems(c *call) (*reply, error) {
	return okReply(c.collection("#ComputerSystemCollection.ComputerSystemCollection",
		"Computer System Collection", []string{"Systems"}, c.b.sysOrder)), nil
}

// system is the system named by the first Id of the path.
func (c *call) system() (*System, error) {
	s := c.b.systems[c.args[0]]
	if s == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	return s, nil
}

func (c *call) renderSystem(s *System) map[string]any {
	id := s.spec.ID
	threads, cores := 0, 0
	for _, p := range s.spec.Processors {
		threads += p.Threads
		cores += p.Cores
	}
	model := ""
	if len(s.spec.Processors) > 0 {
		model = s.spec.Processors[0].Model
	}
	resets := make([]string, len(s.spec.ResetTypes))
	for i, t := range s.spec.ResetTypes {
		resets[i] = string(t)
	}
	m := map[string]any{
		"@odata.type":  "#ComputerSystem.v1_10_0.ComputerSystem",
		"@odata.id":    c.uri("Systems", id),
		"Id":           id,
		"Name":         s.spec.Name,
		"UUID":         s.spec.UUID,
		"Manufacturer": s.spec.Manufacturer,
		"Model":        s.spec.Model,
		"SerialNumber": s.spec.SerialNumber,
		"SKU":          "",
		"AssetTag":     "",
		"HostName":     "",
		"SystemType":   "Physical",
		"BiosVersion":  "1.0.0",
		"Status":       status(true),
		"PowerState":   string(s.reportedPower(c.now)),
		"IndicatorLED": s.indicatorLED,
		"Boot": map[string]any{
			"BootSourceOverrideEnabled":                        s.boot.Enabled,
			"BootSourceOverrideTarget":                         s.boot.Target,
			"BootSourceOverrideTarget@Redfish.AllowableValues": s.spec.BootTargets,
			"BootSourceOverrideMode":                           s.boot.Mode,
			"BootSourceOverrideMode@Redfish.AllowableValues":   []string{"Legacy", "UEFI"},
		},
		"ProcessorSummary": map[string]any{
			"Count": len(s.spec.Processors), "CoreCount": cores, "LogicalProcessorCount": threads,
			"Model": model, "Status": status(true),
		},
		"MemorySummary": map[string]any{
			"TotalSystemMemoryGiB": s.memoryGiB(),
			"Status":               status(true),
		},
		"Bios":               c.ref("Systems", id, "Bios"),
		"Processors":         c.ref("Systems", id, "Processors"),
		"Memory":             c.ref("Systems", id, "Memory"),
		"EthernetInterfaces": c.ref("Systems", id, "EthernetInterfaces"),
		"SimpleStorage":      c.ref("Systems", id, "SimpleStorage"),
		"Storage":            c.ref("Systems", id, "Storage"),
		"SecureBoot":         c.ref("Systems", id, "SecureBoot"),
		"Links": map[string]any{
			"Chassis":   []any{c.ref("Chassis", id)},
			"ManagedBy": []any{c.ref("Managers", id)},
		},
		"Actions": map[string]any{
			"#ComputerSystem.Reset": map[string]any{
				"target":                            c.uri("Systems", id, "Actions", "ComputerSystem.Reset"),
				"ResetType@Redfish.AllowableValues": resets,
			},
		},
	}
	if s.spec.NoSimpleStorage {
		delete(m, "SimpleStorage")
	}
	return m
}

func (s *System) memoryGiB() int {
	mib := 0
	for _, m := range s.spec.Memory {
		mib += m.CapacityMiB
	}
	return mib / 1024
}

func getSystem(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	return okReply(c.renderSystem(s)), nil
}

// indicatorLEDs are the IndicatorLED values.
var indicatorLEDs = []string{"Lit", "Blinking", "Off"}

// checkLED validates an IndicatorLED value.
func checkLED(v any) (string, error) {
	str, ok := v.(string)
	if !ok {
		return "", errPropertyType("#/IndicatorLED", toString(v))
	}
	if !slices.Contains(indicatorLEDs, str) {
		return "", errPropertyNotInList("#/IndicatorLED", str, indicatorLEDs)
	}
	return str, nil
}

// indicatorOnly validates the PATCH body of a resource (rendered as
// current) whose only writable property is IndicatorLED, and returns the
// new value (led when the body doesn't set it).
func indicatorOnly(body, current map[string]any, led string) (string, error) {
	for k, v := range body {
		if k == "IndicatorLED" {
			var err error
			if led, err = checkLED(v); err != nil {
				return "", err
			}
			continue
		}
		if strings.Contains(k, "@") {
			continue
		}
		if _, known := current[k]; known {
			return "", errPropertyNotWritable("#/" + k)
		}
		return "", errPropertyUnknown("#/" + k)
	}
	return led, nil
}

func patchSystem(c *call) (*reply, error) {
	s, body, err := c.patchBody(false, c.renderSystem)
	if err != nil {
		return nil, err
	}
	// Validate everything before changing anything.
	boot := s.boot
	led := s.indicatorLED
	for k, v := range body {
		switch k {
		case "Boot":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, errPropertyType("#/Boot", v)
			}
			for bk, bv := range m {
				ptr := "#/Boot/" + bk
				str, isStr := bv.(string)
				var allowed []string
				var dst *string
				switch bk {
				case "BootSourceOverrideTarget":
					allowed, dst = s.spec.BootTargets, &boot.Target
				case "BootSourceOverrideEnabled":
					allowed, dst = []string{"Disabled", "Once", "Continuous"}, &boot.Enabled
				case "BootSourceOverrideMode":
					allowed, dst = []string{"Legacy", "UEFI"}, &boot.Mode
				default:
					if strings.Contains(bk, "@") {
						continue // annotations are ignored, as DSP0266 asks
					}
					return nil, errPropertyUnknown(ptr)
				}
				if !isStr {
					return nil, errPropertyType(ptr, bv)
				}
				if !slices.Contains(allowed, str) {
					return nil, errPropertyNotInList(ptr, str, allowed)
				}
				*dst = str
			}
		case "IndicatorLED":
			if led, err = checkLED(v); err != nil {
				return nil, err
			}
		case "AssetTag", "HostName":
			// Accepted and forgotten, as far as clients can tell.
		default:
			if strings.Contains(k, "@") {
				continue
			}
			if _, known := c.renderSystem(s)[k]; known {
				return nil, errPropertyNotWritable("#/" + k)
			}
			return nil, errPropertyUnknown("#/" + k)
		}
	}
	s.settle(c.now)
	s.boot, s.indicatorLED = boot, led
	return noContent(), nil
}

const resetAction = "ComputerSystem.Reset"

func postSystemReset(c *call) (*reply, error) {
	s, body, err := c.withBody(c.system())
	if err != nil {
		return nil, err
	}
	v, ok := body["ResetType"]
	if !ok {
		return nil, errActionParamMissing(resetAction, "ResetType")
	}
	for k := range body {
		if k != "ResetType" {
			return nil, errActionParamUnknown(resetAction, k)
		}
	}
	str, ok := v.(string)
	if !ok {
		return nil, errActionParamType(resetAction, "ResetType", v)
	}
	allowed := make([]string, len(s.spec.ResetTypes))
	for i, t := range s.spec.ResetTypes {
		allowed[i] = string(t)
	}
	if !slices.Contains(allowed, str) {
		return nil, errActionParamNotInList(resetAction, "ResetType", str, allowed)
	}
	if c.fault.IgnoreReset {
		return noContent(), nil
	}
	if err := s.reset(c.r.Context(), c.now, ResetType(str)); err != nil {
		return nil, fmt.Errorf("reset %s of system %s: %w", str, s.spec.ID, err)
	}
	return noContent(), nil
}

func getManagers(c *call) (*reply, error) {
	return okReply(c.collection("#ManagerCollection.ManagerCollection", "Manager Collection",
		[]string{"Managers"}, c.b.sysOrder)), nil
}

func getManager(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	id := s.spec.ID
	return okReply(map[string]any{
		"@odata.type":     "#Manager.v1_10_0.Manager",
		"@odata.id":       c.uri("Managers", id),
		"Id":              id,
		"Name":            "Manager",
		"ManagerType":     "BMC",
		"UUID":            c.b.uuid,
		"Model":           "goironic emulated BMC",
		"FirmwareVersion": "1.00",
		"PowerState":      "On",
		"Status":          status(true),
		"GraphicalConsole": map[string]any{
			"ServiceEnabled": false, "MaxConcurrentSessions": 0, "ConnectTypesSupported": []string{},
		},
		"SerialConsole": map[string]any{
			"ServiceEnabled": false, "MaxConcurrentSessions": 0, "ConnectTypesSupported": []string{},
		},
		"CommandShell": map[string]any{
			"ServiceEnabled": false, "MaxConcurrentSessions": 0, "ConnectTypesSupported": []string{},
		},
		"VirtualMedia": c.ref("Managers", id, "VirtualMedia"),
		"Links": map[string]any{
			"ManagerForServers": []any{c.ref("Systems", id)},
			"ManagerForChassis": []any{c.ref("Chassis", id)},
		},
	}), nil
}

func getChassisCollection(c *call) (*reply, error) {
	return okReply(c.collection("#ChassisCollection.ChassisCollection", "Chassis Collection",
		[]string{"Chassis"}, c.b.sysOrder)), nil
}

func (c *call) renderChassis(s *System) map[string]any {
	id := s.spec.ID
	power := s.reportedPower(c.now)
	return map[string]any{
		"@odata.type":  "#Chassis.v1_10_0.Chassis",
		"@odata.id":    c.uri("Chassis", id),
		"Id":           id,
		"Name":         "Chassis " + id,
		"ChassisType":  "RackMount",
		"Manufacturer": s.spec.Manufacturer,
		"Model":        s.spec.Model,
		"SerialNumber": s.spec.SerialNumber,
		"UUID":         s.chassisUUID,
		"PowerState":   string(power),
		"IndicatorLED": s.chassisLED,
		"Status":       status(true),
		"Thermal":      c.ref("Chassis", id, "Thermal"),
		"Power":        c.ref("Chassis", id, "Power"),
		"Links": map[string]any{
			"ComputerSystems": []any{c.ref("Systems", id)},
			"ManagedBy":       []any{c.ref("Managers", id)},
		},
	}
}

func getChassis(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	return okReply(c.renderChassis(s)), nil
}

func patchChassis(c *call) (*reply, error) {
	s, body, err := c.withBody(c.system())
	if err != nil {
		return nil, err
	}
	led, err := indicatorOnly(body, c.renderChassis(s), s.chassisLED)
	if err != nil {
		return nil, err
	}
	s.chassisLED = led
	return noContent(), nil
}
