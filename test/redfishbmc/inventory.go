package redfishbmc

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Processors, Memory, EthernetInterfaces, SecureBoot, SimpleStorage and
// Storage with its Drives and Volumes.

// inventory is a collection of a system's fixed parts (Processors,
// Memory, EthernetInterfaces): its handlers list and render them.
type inventory[T any] struct {
	// odataType and name are the collection's; segment its path below
	// the system.
	odataType, name, segment string
	items                    func(*System) []T
	id                       func(T) string
	render                   func(c *call, s *System, item T) map[string]any
}

func (inv inventory[T]) list(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	items := inv.items(s)
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = inv.id(it)
	}
	return okReply(c.collection(inv.odataType, inv.name, []string{"Systems", s.spec.ID, inv.segment}, ids)), nil
}

func (inv inventory[T]) get(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	items := inv.items(s)
	i := slices.IndexFunc(items, func(it T) bool { return inv.id(it) == c.args[1] })
	if i < 0 {
		return nil, errNotFound(c.r.URL.Path)
	}
	return okReply(inv.render(c, s, items[i])), nil
}

var processors = inventory[Processor]{
	odataType: "#ProcessorCollection.ProcessorCollection", name: "Processors Collection", segment: "Processors",
	items: func(s *System) []Processor { return s.spec.Processors },
	id:    func(p Processor) string { return p.ID },
	render: func(c *call, s *System, p Processor) map[string]any {
		return map[string]any{
			"@odata.type":           "#Processor.v1_9_0.Processor",
			"@odata.id":             c.uri("Systems", s.spec.ID, "Processors", p.ID),
			"Id":                    p.ID,
			"Name":                  "Processor " + p.ID,
			"Socket":                p.Socket,
			"ProcessorType":         "CPU",
			"ProcessorArchitecture": p.Architecture,
			"InstructionSet":        p.InstructionSet,
			"Manufacturer":          p.Manufacturer,
			"Model":                 p.Model,
			"MaxSpeedMHz":           p.MaxSpeedMHz,
			"TotalCores":            p.Cores,
			"TotalThreads":          p.Threads,
			"Status":                status(true),
		}
	},
}

var memory = inventory[MemoryModule]{
	odataType: "#MemoryCollection.MemoryCollection", name: "Memory Module Collection", segment: "Memory",
	items: func(s *System) []MemoryModule { return s.spec.Memory },
	id:    func(m MemoryModule) string { return m.ID },
	render: func(c *call, s *System, m MemoryModule) map[string]any {
		return map[string]any{
			"@odata.type":       "#Memory.v1_9_0.Memory",
			"@odata.id":         c.uri("Systems", s.spec.ID, "Memory", m.ID),
			"Id":                m.ID,
			"Name":              "Memory " + m.ID,
			"CapacityMiB":       m.CapacityMiB,
			"MemoryType":        "DRAM",
			"MemoryDeviceType":  "DDR4",
			"OperatingSpeedMhz": 2400,
			"DeviceLocator":     m.ID,
			"Status":            status(true),
		}
	},
}

var ethernetInterfaces = inventory[NIC]{
	odataType: "#EthernetInterfaceCollection.EthernetInterfaceCollection", name: "Ethernet Interface Collection",
	segment: "EthernetInterfaces",
	items:   func(s *System) []NIC { return s.spec.NICs },
	id:      func(n NIC) string { return n.ID },
	render: func(c *call, s *System, n NIC) map[string]any {
		link := "LinkUp"
		if n.Down {
			link = "LinkDown"
		}
		return map[string]any{
			"@odata.type":         "#EthernetInterface.v1_6_0.EthernetInterface",
			"@odata.id":           c.uri("Systems", s.spec.ID, "EthernetInterfaces", n.ID),
			"Id":                  n.ID,
			"Name":                "Ethernet Interface " + n.ID,
			"MACAddress":          n.MAC,
			"PermanentMACAddress": n.MAC,
			"SpeedMbps":           n.SpeedMbps,
			"LinkStatus":          link,
			"InterfaceEnabled":    !n.Down,
			"Status":              status(!n.Down),
		}
	},
}

// SecureBoot.

// SecureBoot is SecureBootEnable.
func (s *System) SecureBoot() bool {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.secureBoot
}

// KeyResets are the ResetKeysTypes of the SecureBoot.ResetKeys actions
// received, oldest first.
func (s *System) KeyResets() []string {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return slices.Clone(s.keyResets)
}

var resetKeysTypes = []string{"ResetAllKeysToDefault", "DeleteAllKeys", "DeletePK"}

func (c *call) renderSecureBoot(s *System) map[string]any {
	current := "Disabled"
	if s.sbCurrent {
		current = "Enabled"
	}
	return map[string]any{
		"@odata.type":           "#SecureBoot.v1_1_0.SecureBoot",
		"@odata.id":             c.uri("Systems", s.spec.ID, "SecureBoot"),
		"Id":                    "SecureBoot",
		"Name":                  "UEFI Secure Boot",
		"SecureBootEnable":      s.secureBoot,
		"SecureBootCurrentBoot": current,
		"SecureBootMode":        s.sbMode,
		"Actions": map[string]any{
			"#SecureBoot.ResetKeys": map[string]any{
				"target":                                c.uri("Systems", s.spec.ID, "SecureBoot", "Actions", "SecureBoot.ResetKeys"),
				"ResetKeysType@Redfish.AllowableValues": resetKeysTypes,
			},
		},
	}
}

func getSecureBoot(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	s.settle(c.now)
	return okReply(c.renderSecureBoot(s)), nil
}

// patchSecureBoot sets SecureBootEnable; SecureBootCurrentBoot follows
// at the next boot. UEFI boot mode is required to enable it.
func patchSecureBoot(c *call) (*reply, error) {
	s, body, err := c.patchBody(true, c.renderSecureBoot)
	if err != nil {
		return nil, err
	}
	enable := s.secureBoot
	for k, v := range body {
		switch {
		case k == "SecureBootEnable":
			b, ok := v.(bool)
			if !ok {
				return nil, errPropertyType("#/SecureBootEnable", toString(v))
			}
			enable = b
		case strings.Contains(k, "@"):
		case k == "SecureBootCurrentBoot" || k == "SecureBootMode" || k == "Id" || k == "Name":
			return nil, errPropertyNotWritable("#/" + k)
		default:
			return nil, errPropertyUnknown("#/" + k)
		}
	}
	if enable && s.boot.Mode != "UEFI" {
		return nil, errPropertyValueConflict("SecureBootEnable", "BootSourceOverrideMode")
	}
	s.secureBoot = enable
	return noContent(), nil
}

func postResetKeys(c *call) (*reply, error) {
	s, body, err := c.withBody(c.system())
	if err != nil {
		return nil, err
	}
	const action = "SecureBoot.ResetKeys"
	v, ok := body["ResetKeysType"]
	if !ok {
		return nil, errActionParamMissing(action, "ResetKeysType")
	}
	str, ok := v.(string)
	if !ok {
		return nil, errActionParamType(action, "ResetKeysType", toString(v))
	}
	if !slices.Contains(resetKeysTypes, str) {
		return nil, errActionParamNotInList(action, "ResetKeysType", str, resetKeysTypes)
	}
	s.keyResets = append(s.keyResets, str)
	if str == "ResetAllKeysToDefault" {
		s.sbMode = "UserMode"
	} else {
		s.sbMode = "SetupMode"
	}
	return noContent(), nil
}

// SimpleStorage and Storage.

// simpleStorage is the system of a SimpleStorage path, unless it has
// none.
func (c *call) simpleStorage() (*System, error) {
	s, err := c.system()
	if err == nil && s.spec.NoSimpleStorage {
		err = errNotFound(c.r.URL.Path)
	}
	return s, err
}

func getSimpleStorageCollection(c *call) (*reply, error) {
	s, err := c.simpleStorage()
	if err != nil {
		return nil, err
	}
	return okReply(c.collection("#SimpleStorageCollection.SimpleStorageCollection", "Simple Storage Collection",
		[]string{"Systems", s.spec.ID, "SimpleStorage"}, []string{"1"})), nil
}

func getSimpleStorage(c *call) (*reply, error) {
	s, err := c.simpleStorage()
	if err != nil {
		return nil, err
	}
	if c.args[1] != "1" {
		return nil, errNotFound(c.r.URL.Path)
	}
	devices := make([]any, len(s.spec.Drives))
	for i, d := range s.spec.Drives {
		devices[i] = map[string]any{
			"Name": d.Name, "Manufacturer": s.spec.Manufacturer, "Model": d.MediaType + " " + d.Protocol,
			"CapacityBytes": d.CapacityBytes, "Status": status(true),
		}
	}
	return okReply(map[string]any{
		"@odata.type":    "#SimpleStorage.v1_2_0.SimpleStorage",
		"@odata.id":      c.uri("Systems", s.spec.ID, "SimpleStorage", "1"),
		"Id":             "1",
		"Name":           "Simple Storage Controller",
		"UefiDevicePath": "PciRoot(0x0)/Pci(0x1F,0x2)",
		"Devices":        devices,
		"Status":         status(true),
	}), nil
}

func getStorageCollection(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	return okReply(c.collection("#StorageCollection.StorageCollection", "Storage Collection",
		[]string{"Systems", s.spec.ID, "Storage"}, []string{"1"})), nil
}

// storage checks the Storage Id (the only one is "1").
func (c *call) storage() (*System, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	if c.args[1] != "1" {
		return nil, errNotFound(c.r.URL.Path)
	}
	s.settle(c.now)
	return s, nil
}

func getStorage(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	id := s.spec.ID
	drives := make([]any, len(s.spec.Drives))
	for i, d := range s.spec.Drives {
		drives[i] = c.ref("Systems", id, "Storage", "1", "Drives", d.ID)
	}
	protocols := []string{}
	for _, d := range s.spec.Drives {
		if !slices.Contains(protocols, d.Protocol) {
			protocols = append(protocols, d.Protocol)
		}
	}
	return okReply(map[string]any{
		"@odata.type":        "#Storage.v1_7_0.Storage",
		"@odata.id":          c.uri("Systems", id, "Storage", "1"),
		"Id":                 "1",
		"Name":               "Local Storage Controller",
		"Status":             status(true),
		"Drives":             drives,
		"Drives@odata.count": len(drives),
		"Volumes":            c.ref("Systems", id, "Storage", "1", "Volumes"),
		"StorageControllers": []any{map[string]any{
			"@odata.id":                    c.uri("Systems", id, "Storage", "1") + "#/StorageControllers/0",
			"MemberId":                     "0",
			"Name":                         "RAID Controller",
			"Status":                       status(true),
			"SpeedGbps":                    12,
			"SupportedControllerProtocols": []string{"PCIe"},
			"SupportedDeviceProtocols":     protocols,
			"SupportedRAIDTypes":           s.spec.RAIDTypes,
			"Identifiers": []any{map[string]any{
				"DurableNameFormat": "NAA", "DurableName": naa(s.spec.UUID),
			}},
		}},
		"Links": map[string]any{"Enclosures": []any{c.ref("Chassis", id)}},
	}), nil
}

// naa is a 16-digit NAA-style name derived from a UUID.
func naa(uuid string) string {
	h := strings.ReplaceAll(uuid, "-", "") + "000000000000000"
	return "5" + h[:15]
}

func (s *System) drive(id string) (Drive, bool) {
	i := slices.IndexFunc(s.spec.Drives, func(d Drive) bool { return d.ID == id })
	if i < 0 {
		return Drive{}, false
	}
	return s.spec.Drives[i], true
}

func (c *call) renderDrive(s *System, d Drive) map[string]any {
	id := s.spec.ID
	var vols []any
	for _, v := range s.volumes {
		if slices.Contains(v.Drives, d.ID) {
			vols = append(vols, c.ref("Systems", id, "Storage", "1", "Volumes", v.ID))
		}
	}
	led := s.driveLEDs[d.ID]
	if led == "" {
		led = "Off"
	}
	return map[string]any{
		"@odata.type":    "#Drive.v1_9_0.Drive",
		"@odata.id":      c.uri("Systems", id, "Storage", "1", "Drives", d.ID),
		"Id":             d.ID,
		"Name":           d.Name,
		"CapacityBytes":  d.CapacityBytes,
		"BlockSizeBytes": 512,
		"MediaType":      d.MediaType,
		"Protocol":       d.Protocol,
		"Manufacturer":   s.spec.Manufacturer,
		"Model":          d.MediaType + " " + d.Protocol,
		"SerialNumber":   s.spec.SerialNumber + "-" + d.ID,
		"IndicatorLED":   led,
		"Status":         status(true),
		"Identifiers": []any{map[string]any{
			"DurableNameFormat": "UUID", "DurableName": s.spec.UUID + "-" + d.ID,
		}},
		"Links": map[string]any{"Volumes": nonNilAny(vols)},
	}
}

func nonNilAny(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func getDrive(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	d, ok := s.drive(c.args[2])
	if !ok {
		return nil, errNotFound(c.r.URL.Path)
	}
	return okReply(c.renderDrive(s, d)), nil
}

func patchDrive(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	d, ok := s.drive(c.args[2])
	if !ok {
		return nil, errNotFound(c.r.URL.Path)
	}
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	led, err := indicatorOnly(body, c.renderDrive(s, d), "")
	if err != nil {
		return nil, err
	}
	if led != "" {
		s.driveLEDs[d.ID] = led
	}
	return noContent(), nil
}

// Volumes reports the system's volumes.
func (s *System) Volumes() []Volume {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.settle(s.b.srv.opts.Now())
	out := slices.Clone(s.volumes)
	for i := range out {
		out[i].Drives = slices.Clone(out[i].Drives)
	}
	return out
}

func getVolumes(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(s.volumes))
	for i, v := range s.volumes {
		ids[i] = v.ID
	}
	coll := c.collection("#VolumeCollection.VolumeCollection", "Storage Volume Collection",
		[]string{"Systems", s.spec.ID, "Storage", "1", "Volumes"}, ids)
	coll["RAIDType@Redfish.AllowableValues"] = s.spec.RAIDTypes
	coll["@Redfish.OperationApplyTimeSupport"] = map[string]any{
		"@odata.type":     "#Settings.v1_2_0.OperationApplyTimeSupport",
		"SupportedValues": s.spec.VolumeApplyTimes,
	}
	return okReply(coll), nil
}

func (s *System) volume(id string) int {
	return slices.IndexFunc(s.volumes, func(v Volume) bool { return v.ID == id })
}

func getVolume(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	i := s.volume(c.args[2])
	if i < 0 {
		return nil, errNotFound(c.r.URL.Path)
	}
	v := s.volumes[i]
	id := s.spec.ID
	drives := make([]any, len(v.Drives))
	for j, d := range v.Drives {
		drives[j] = c.ref("Systems", id, "Storage", "1", "Drives", d)
	}
	return okReply(map[string]any{
		"@odata.type":    "#Volume.v1_4_0.Volume",
		"@odata.id":      c.uri("Systems", id, "Storage", "1", "Volumes", v.ID),
		"Id":             v.ID,
		"Name":           v.Name,
		"CapacityBytes":  v.CapacityBytes,
		"RAIDType":       v.RAIDType,
		"VolumeType":     volumeType(v.RAIDType),
		"BlockSizeBytes": 512,
		"Encrypted":      false,
		"Status":         status(true),
		"Identifiers": []any{map[string]any{
			"DurableNameFormat": "UUID", "DurableName": s.spec.UUID + "-" + v.ID,
		}},
		"Links": map[string]any{"Drives": drives},
		"@Redfish.OperationApplyTimeSupport": map[string]any{
			"@odata.type":     "#Settings.v1_2_0.OperationApplyTimeSupport",
			"SupportedValues": s.spec.VolumeApplyTimes,
		},
	}), nil
}

func volumeType(raid string) string {
	return map[string]string{
		"RAID0": "NonRedundant", "RAID1": "Mirrored", "RAID5": "StripedWithParity", "RAID6": "StripedWithParity",
		"RAID10": "SpannedMirrors", "RAID50": "SpannedStripesWithParity",
	}[raid]
}

// raidMinDrives is the least number of drives of each RAID type.
var raidMinDrives = map[string]int{"RAID0": 1, "RAID1": 2, "RAID5": 3, "RAID6": 4, "RAID10": 4, "RAID50": 6}

// usableBytes is the capacity a RAID of these drives offers.
func usableBytes(raid string, sizes []int64) int64 {
	least := slices.Min(sizes)
	n := int64(len(sizes))
	switch raid {
	case "RAID0":
		return n * least
	case "RAID1":
		return least
	case "RAID5":
		return (n - 1) * least
	case "RAID6":
		return (n - 2) * least
	case "RAID10":
		return n / 2 * least
	}
	return least
}

const applyTimeProp = "@Redfish.OperationApplyTime"

// postVolume creates a volume at once (201), or with OperationApplyTime
// OnReset at the next boot through a task (202).
func postVolume(c *call) (*reply, error) {
	s, body, err := c.withBody(c.storage())
	if err != nil {
		return nil, err
	}
	apply, err := c.applyTime(s, body)
	if err != nil {
		return nil, err
	}
	v := Volume{}
	raid, ok := body["RAIDType"]
	if !ok {
		return nil, errCreateMissing("RAIDType")
	}
	if v.RAIDType, ok = raid.(string); !ok {
		return nil, errPropertyType("#/RAIDType", toString(raid))
	}
	if !slices.Contains(s.spec.RAIDTypes, v.RAIDType) {
		return nil, errPropertyNotInList("#/RAIDType", v.RAIDType, s.spec.RAIDTypes)
	}
	if name, ok := body["Name"]; ok {
		if v.Name, ok = name.(string); !ok {
			return nil, errPropertyType("#/Name", toString(name))
		}
	}
	var sizes []int64
	if links, ok := body["Links"].(map[string]any); ok {
		refs, _ := links["Drives"].([]any)
		for _, r := range refs {
			m, _ := r.(map[string]any)
			uri, _ := m["@odata.id"].(string)
			prefix := c.uri("Systems", s.spec.ID, "Storage", "1", "Drives") + "/"
			d, found := s.drive(strings.TrimPrefix(uri, prefix))
			if !strings.HasPrefix(uri, prefix) || !found {
				return nil, errPropertyValueResourceConflict("Links/Drives", uri)
			}
			v.Drives = append(v.Drives, d.ID)
			sizes = append(sizes, d.CapacityBytes)
		}
	}
	if len(v.Drives) == 0 {
		for _, d := range s.spec.Drives {
			v.Drives = append(v.Drives, d.ID)
			sizes = append(sizes, d.CapacityBytes)
			if len(v.Drives) == raidMinDrives[v.RAIDType] {
				break
			}
		}
	}
	if len(v.Drives) < raidMinDrives[v.RAIDType] {
		return nil, errPropertyValueConflict("RAIDType", "Links/Drives")
	}
	usable := usableBytes(v.RAIDType, sizes)
	v.CapacityBytes = usable
	if cb, ok := body["CapacityBytes"]; ok {
		n, isNum := cb.(json.Number)
		size, err := n.Int64()
		if !isNum || err != nil {
			return nil, errPropertyType("#/CapacityBytes", toString(cb))
		}
		if size <= 0 || size > usable {
			return nil, errPropertyValueOutOfRange("#/CapacityBytes", n.String())
		}
		v.CapacityBytes = size
	}
	for k := range body {
		switch k {
		case "RAIDType", "Name", "Links", "CapacityBytes", applyTimeProp:
		default:
			if !strings.Contains(k, "@") {
				return nil, errPropertyUnknown("#/" + k)
			}
		}
	}
	create := func() string {
		s.volSeq++
		v.ID = strconv.Itoa(s.volSeq)
		if v.Name == "" {
			v.Name = "Volume " + v.ID
		}
		s.volumes = append(s.volumes, v)
		return c.uri("Systems", s.spec.ID, "Storage", "1", "Volumes", v.ID)
	}
	if apply == "OnReset" {
		return c.startTask(s, "Create volume", func() { create() }), nil
	}
	uri := create()
	return &reply{status: http.StatusCreated, header: http.Header{"Location": {uri}}}, nil
}

// applyTime reads @Redfish.OperationApplyTime ("Immediate" without it).
func (c *call) applyTime(s *System, body map[string]any) (string, error) {
	v, ok := body[applyTimeProp]
	if !ok {
		return "Immediate", nil
	}
	str, _ := v.(string)
	if !slices.Contains(s.spec.VolumeApplyTimes, str) {
		return "", errPropertyNotInList("#/"+applyTimeProp, toString(v), s.spec.VolumeApplyTimes)
	}
	return str, nil
}

// deleteVolume deletes at once (204), or at the next boot (202, a task).
func deleteVolume(c *call) (*reply, error) {
	s, err := c.storage()
	if err != nil {
		return nil, err
	}
	if s.volume(c.args[2]) < 0 {
		return nil, errNotFound(c.r.URL.Path)
	}
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	apply, err := c.applyTime(s, body)
	if err != nil {
		return nil, err
	}
	id := c.args[2]
	del := func() {
		if i := s.volume(id); i >= 0 {
			s.volumes = slices.Delete(s.volumes, i, i+1)
		}
	}
	if apply == "OnReset" {
		return c.startTask(s, "Delete volume", del), nil
	}
	del()
	return noContent(), nil
}
