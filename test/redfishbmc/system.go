package redfishbmc

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"
)

// PowerState is a ComputerSystem's PowerState.
type PowerState string

// The PowerState values.
const (
	PowerOn          PowerState = "On"
	PowerOff         PowerState = "Off"
	PowerPoweringOn  PowerState = "PoweringOn"
	PowerPoweringOff PowerState = "PoweringOff"
)

// ResetType is a ComputerSystem.Reset ResetType.
type ResetType string

// The ResetType values the emulator implements.
const (
	ResetOn               ResetType = "On"
	ResetForceOff         ResetType = "ForceOff"
	ResetGracefulShutdown ResetType = "GracefulShutdown"
	ResetGracefulRestart  ResetType = "GracefulRestart"
	ResetForceRestart     ResetType = "ForceRestart"
	ResetNmi              ResetType = "Nmi"
	ResetPushPowerButton  ResetType = "PushPowerButton"
	ResetPowerCycle       ResetType = "PowerCycle"
)

// AllResetTypes are the ResetTypes a system allows by default.
func AllResetTypes() []ResetType {
	return []ResetType{ResetOn, ResetForceOff, ResetGracefulShutdown, ResetGracefulRestart,
		ResetForceRestart, ResetNmi, ResetPushPowerButton, ResetPowerCycle}
}

// DefaultBootTargets are the BootSourceOverrideTarget values a system
// allows by default.
func DefaultBootTargets() []string {
	return []string{"None", "Pxe", "Floppy", "Cd", "Usb", "Hdd", "BiosSetup", "UefiHttp"}
}

// Processor is one CPU of a system.
type Processor struct {
	ID, Socket, Manufacturer, Model string
	// Architecture is ProcessorArchitecture ("x86", "ARM", "Power",
	// "MIPS", "OEM"); InstructionSet is e.g. "x86-64", "ARM-A64".
	Architecture, InstructionSet string
	Cores, Threads, MaxSpeedMHz  int
}

// MemoryModule is one DIMM.
type MemoryModule struct {
	ID          string
	CapacityMiB int
}

// NIC is one EthernetInterface.
type NIC struct {
	ID, MAC string
	// Down reports LinkStatus "LinkDown" and Status.State "Disabled".
	Down bool
	// SpeedMbps defaults to 1000.
	SpeedMbps int
}

// Drive is one disk of the system's Storage (and SimpleStorage).
type Drive struct {
	ID, Name      string
	CapacityBytes int64
	// MediaType is "HDD" or "SSD"; Protocol "SATA", "SAS", "NVMe".
	MediaType, Protocol string
}

// Volume is a logical disk of the system's Storage.
type Volume struct {
	ID, Name      string
	CapacityBytes int64
	// RAIDType is "RAID0", "RAID1", ...; Drives the IDs of its drives.
	RAIDType string
	Drives   []string
}

// SystemSpec describes a system. Zero fields take the defaults given.
type SystemSpec struct {
	// ID is the system's (and its Manager's and Chassis') Id; default
	// "1", "2", ... in the order systems are added to the BMC.
	ID string
	// Name defaults to "System <ID>"; UUID to a new ID.
	Name, UUID                        string
	Manufacturer, Model, SerialNumber string
	// PowerState is the initial state; default Off.
	PowerState PowerState
	// PowerDelay is how long a power transition takes; until then the
	// system reports the state it is leaving (PoweringOn/PoweringOff with
	// ReportTransitions).
	PowerDelay        time.Duration
	ReportTransitions bool
	// BootMode is BootSourceOverrideMode, "UEFI" or "Legacy"; default
	// "UEFI".
	BootMode string
	// BootTargets are the allowable BootSourceOverrideTarget values;
	// default DefaultBootTargets.
	BootTargets []string
	// ResetTypes are the allowable ResetTypes; default AllResetTypes.
	ResetTypes []ResetType
	// Processors default to two x86-64 CPUs of 4 cores and 8 threads.
	Processors []Processor
	// Memory defaults to two 16 GiB modules.
	Memory []MemoryModule
	// NICs default to one with a MAC address unique in the Server.
	NICs []NIC
	// Drives default to a 480 GB SSD and a 1 TB HDD; Volumes to none.
	Drives  []Drive
	Volumes []Volume
	// RAIDTypes are the controller's SupportedRAIDTypes; default RAID0,
	// RAID1, RAID5, RAID10.
	RAIDTypes []string
	// VolumeApplyTimes are the OperationApplyTime values volume creation
	// and deletion accept; default Immediate and OnReset (at the next
	// boot, through a task).
	VolumeApplyTimes []string
	// Bios are the BIOS attributes (and ResetBios's defaults); default
	// DefaultBios. BiosRegistry describes them; attributes it doesn't
	// describe (and DefaultBios does not) are typed by their value.
	Bios         map[string]any
	BiosRegistry []BiosAttribute
	// SecureBoot is SecureBootEnable's initial value.
	SecureBoot bool
	// VirtualMediaViaPatch offers no InsertMedia/EjectMedia actions:
	// clients PATCH Image, as on older BMCs.
	VirtualMediaViaPatch bool
	// RefuseInsertMedia, when nonzero, answers every insertion (the
	// InsertMedia action or a PATCH of Image) with this HTTP status and an
	// InternalError body, inserting nothing: a BMC that refuses media.
	RefuseInsertMedia int
	// NoSimpleStorage leaves out SimpleStorage (as on many current
	// BMCs); Storage remains.
	NoSimpleStorage bool
	// Machine, when set, is the computer the system drives: power, boot
	// override and inserted media become real (NewQEMU), PowerDelay and
	// ReportTransitions don't apply, and the power state is the
	// machine's.
	Machine Machine
}

// DefaultBios are the BIOS attributes of a system given none.
func DefaultBios() map[string]any {
	return map[string]any{
		"BootMode":           "Uefi",
		"EmbeddedSata":       "Raid",
		"NicBoot1":           "NetworkBoot",
		"NicBoot2":           "Disabled",
		"PowerProfile":       "MaxPerf",
		"ProcTurboMode":      "Enabled",
		"ProcVirtualization": "Enabled",
		"SecureBootStatus":   "Disabled",
		"SerialNumber":       "QPX12345",
	}
}

// BootOverride is a system's Boot override.
type BootOverride struct {
	// Target is BootSourceOverrideTarget, Enabled
	// BootSourceOverrideEnabled ("Disabled", "Once", "Continuous"), Mode
	// BootSourceOverrideMode.
	Target, Enabled, Mode string
}

// BootRecord is one boot of a system: the device it booted from and the
// media inserted then.
type BootRecord struct {
	// Target is the override target in effect ("None" without one).
	Target, Mode string
	// Media maps virtual media device Ids to the inserted image URL.
	Media map[string]string
}

// System is one emulated ComputerSystem with its Manager and Chassis.
// Its accessors are safe for concurrent use.
type System struct {
	b    *BMC
	spec SystemSpec
	// chassisUUID is the UUID of the system's Chassis.
	chassisUUID string

	power       PowerState
	target      PowerState
	settleAt    time.Time
	pendingBoot bool

	boot         BootOverride
	indicatorLED string
	chassisLED   string
	bios         map[string]any
	biosPending  map[string]any
	biosApplied  time.Time
	biosResets   int
	secureBoot   bool
	sbCurrent    bool
	sbMode       string
	keyResets    []string
	driveLEDs    map[string]string
	volumes      []Volume
	volSeq       int
	vmedia       []*virtualMedia

	// onBoot runs at the next boot (OnReset operations).
	onBoot []func(now time.Time)

	resets []ResetType
	boots  []BootRecord
	nmis   int
}

// AddSystem adds a system to the BMC.
func (b *BMC) AddSystem(spec SystemSpec) *System {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.srv
	if spec.ID == "" {
		spec.ID = strconv.Itoa(len(b.systems) + 1)
		for b.systems[spec.ID] != nil {
			spec.ID += "x"
		}
	}
	if spec.Name == "" {
		spec.Name = "System " + spec.ID
	}
	if spec.UUID == "" {
		spec.UUID = s.opts.NewID()
	}
	if spec.Manufacturer == "" {
		spec.Manufacturer = "goironic"
	}
	if spec.Model == "" {
		spec.Model = "Emulated Redfish System"
	}
	if spec.SerialNumber == "" {
		spec.SerialNumber = "EMU-" + spec.ID
	}
	if spec.PowerState == "" {
		spec.PowerState = PowerOff
	}
	if spec.BootMode == "" {
		spec.BootMode = "UEFI"
	}
	if spec.BootTargets == nil {
		spec.BootTargets = DefaultBootTargets()
	}
	if spec.ResetTypes == nil {
		spec.ResetTypes = AllResetTypes()
	}
	if spec.Processors == nil {
		for i := range 2 {
			n := strconv.Itoa(i + 1)
			spec.Processors = append(spec.Processors, Processor{ID: "CPU" + n, Socket: "CPU " + n,
				Manufacturer: "Intel(R) Corporation", Model: "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz",
				Architecture: "x86", InstructionSet: "x86-64", Cores: 4, Threads: 8, MaxSpeedMHz: 2100})
		}
	}
	if spec.Memory == nil {
		spec.Memory = []MemoryModule{{ID: "DIMM1", CapacityMiB: 16384}, {ID: "DIMM2", CapacityMiB: 16384}}
	}
	if spec.NICs == nil {
		spec.NICs = []NIC{{ID: "NIC1", MAC: s.nextMAC()}}
	}
	for i := range spec.NICs {
		if spec.NICs[i].SpeedMbps == 0 {
			spec.NICs[i].SpeedMbps = 1000
		}
	}
	if spec.Drives == nil {
		spec.Drives = []Drive{
			{ID: "Disk1", Name: "Solid State Drive 1", CapacityBytes: 480_103_981_056, MediaType: "SSD", Protocol: "SATA"},
			{ID: "Disk2", Name: "Hard Disk 2", CapacityBytes: 1_000_204_886_016, MediaType: "HDD", Protocol: "SAS"},
		}
	}
	if spec.RAIDTypes == nil {
		spec.RAIDTypes = []string{"RAID0", "RAID1", "RAID5", "RAID10"}
	}
	if spec.VolumeApplyTimes == nil {
		spec.VolumeApplyTimes = []string{"Immediate", "OnReset"}
	}
	if spec.Bios == nil {
		spec.Bios = DefaultBios()
	}
	sys := &System{
		b: b, spec: spec, power: spec.PowerState, chassisUUID: s.opts.NewID(),
		boot:         BootOverride{Target: "None", Enabled: "Disabled", Mode: spec.BootMode},
		indicatorLED: "Off", chassisLED: "Off",
		bios: maps.Clone(spec.Bios), biosPending: map[string]any{},
		secureBoot: spec.SecureBoot, sbCurrent: spec.SecureBoot && spec.PowerState == PowerOn,
		sbMode: "UserMode", driveLEDs: map[string]string{},
		volumes: slices.Clone(spec.Volumes),
		vmedia:  newVirtualMedia(),
	}
	sys.volSeq = len(sys.volumes)
	b.systems[spec.ID] = sys
	b.sysOrder = append(b.sysOrder, spec.ID)
	return sys
}

// System returns the system with the given Id, or nil.
func (b *BMC) System(id string) *System {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.systems[id]
}

// Systems returns the BMC's systems in the order they were added.
func (b *BMC) Systems() []*System {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*System, len(b.sysOrder))
	for i, id := range b.sysOrder {
		out[i] = b.systems[id]
	}
	return out
}

// ID is the system's Id.
func (s *System) ID() string { return s.spec.ID }

// UUID is the system's UUID.
func (s *System) UUID() string { return s.spec.UUID }

// Path is the system's URI on the Server's shared listener.
func (s *System) Path() string { return s.b.Root() + "/Systems/" + s.spec.ID }

// BMC is the system's BMC.
func (s *System) BMC() *BMC { return s.b }

// MACs are the MAC addresses of the system's NICs.
func (s *System) MACs() []string {
	out := make([]string, len(s.spec.NICs))
	for i, n := range s.spec.NICs {
		out[i] = n.MAC
	}
	return out
}

// PowerState is the state the system reports now.
func (s *System) PowerState() PowerState {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.reportedPower(s.b.srv.opts.Now())
}

// SetPowerState sets the power state at once, as someone at the machine
// would, without a reset being logged or a boot recorded.
func (s *System) SetPowerState(p PowerState) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.power, s.target, s.pendingBoot = p, "", false
}

// Boot is the system's boot override.
func (s *System) Boot() BootOverride {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.settle(s.b.srv.opts.Now())
	return s.boot
}

// Resets are the ResetTypes the system accepted, oldest first (not those
// a Fault.IgnoreReset BMC swallowed).
func (s *System) Resets() []ResetType {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return slices.Clone(s.resets)
}

// Boots are the boots the system went through, oldest first.
func (s *System) Boots() []BootRecord {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.settle(s.b.srv.opts.Now())
	return slices.Clone(s.boots)
}

// NMIs is the number of NMIs injected.
func (s *System) NMIs() int {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.nmis
}

// IndicatorLED is the system's IndicatorLED.
func (s *System) IndicatorLED() string {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.indicatorLED
}

// settle completes a transition whose time has come. Callers hold b.mu.
func (s *System) settle(now time.Time) {
	if s.target == "" || now.Before(s.settleAt) {
		return
	}
	s.apply(s.settleAt, s.target, s.pendingBoot)
}

// apply reaches state p at now; boot records a boot (consuming a Once
// override and applying pending BIOS settings).
func (s *System) apply(now time.Time, p PowerState, boot bool) {
	s.power, s.target, s.pendingBoot = p, "", false
	if p != PowerOn || !boot {
		return
	}
	rec := BootRecord{Target: "None", Mode: s.boot.Mode}
	if s.boot.Enabled != "Disabled" {
		rec.Target = s.boot.Target
	}
	for _, vm := range s.vmedia {
		if vm.inserted {
			if rec.Media == nil {
				rec.Media = map[string]string{}
			}
			rec.Media[vm.id] = vm.image
		}
	}
	s.boots = append(s.boots, rec)
	s.sbCurrent = s.secureBoot && s.boot.Mode == "UEFI"
	for _, f := range s.onBoot {
		f(now)
	}
	s.onBoot = nil
	if s.boot.Enabled == "Once" {
		s.boot.Enabled = "Disabled"
	}
	if len(s.biosPending) > 0 {
		maps.Copy(s.bios, s.biosPending)
		clear(s.biosPending)
		s.biosApplied = now
	}
}

// reportedPower is the PowerState the system reports at now. Callers
// hold b.mu.
func (s *System) reportedPower(now time.Time) PowerState {
	if m := s.spec.Machine; m != nil {
		if m.Running() {
			return PowerOn
		}
		return PowerOff
	}
	s.settle(now)
	if s.target == "" || !s.spec.ReportTransitions {
		return s.power
	}
	if s.target == PowerOn {
		return PowerPoweringOn
	}
	return PowerPoweringOff
}

// goTo starts a transition to p (boot: the system boots on reaching On).
func (s *System) goTo(now time.Time, p PowerState, boot bool) {
	if s.spec.PowerDelay <= 0 {
		s.apply(now, p, boot)
		return
	}
	s.target, s.settleAt, s.pendingBoot = p, now.Add(s.spec.PowerDelay), boot
}

// reset performs a ComputerSystem.Reset. Callers hold b.mu.
func (s *System) reset(ctx context.Context, now time.Time, t ResetType) error {
	s.resets = append(s.resets, t)
	if s.spec.Machine != nil {
		return s.resetMachine(ctx, now, t)
	}
	s.settle(now)
	// The state the system is on its way to, or is in.
	heading := s.power
	if s.target != "" {
		heading = s.target
	}
	switch t {
	case ResetOn:
		if heading == PowerOff {
			s.goTo(now, PowerOn, true)
		}
	case ResetForceOff, ResetGracefulShutdown:
		if heading == PowerOn {
			s.goTo(now, PowerOff, false)
		}
	case ResetForceRestart, ResetGracefulRestart, ResetPowerCycle:
		s.goTo(now, PowerOn, true)
	case ResetPushPowerButton:
		if heading == PowerOn {
			s.goTo(now, PowerOff, false)
		} else {
			s.goTo(now, PowerOn, true)
		}
	case ResetNmi:
		s.nmis++
	}
	return nil
}

// resetMachine performs a reset on the system's Machine. A restart is
// a power cycle, so that the boot override applies.
func (s *System) resetMachine(ctx context.Context, now time.Time, t ResetType) error {
	m := s.spec.Machine
	running := m.Running()
	switch t {
	case ResetOn:
		if !running {
			return s.bootMachine(ctx, now)
		}
	case ResetForceOff:
		if running {
			return m.PowerOff(ctx, false)
		}
	case ResetGracefulShutdown:
		if running {
			return m.PowerOff(ctx, true)
		}
	case ResetForceRestart, ResetGracefulRestart, ResetPowerCycle:
		if running {
			if err := m.PowerOff(ctx, false); err != nil {
				return err
			}
		}
		return s.bootMachine(ctx, now)
	case ResetPushPowerButton:
		if running {
			return m.PowerOff(ctx, true)
		}
		return s.bootMachine(ctx, now)
	case ResetNmi:
		s.nmis++
		if running {
			return m.NMI(ctx)
		}
	}
	return nil
}

// bootMachine powers the Machine on with the boot override and media in
// effect, then records the boot.
func (s *System) bootMachine(ctx context.Context, now time.Time) error {
	boot := MachineBoot{Target: "None", Mode: s.boot.Mode}
	if s.boot.Enabled != "Disabled" {
		boot.Target, boot.Once = s.boot.Target, s.boot.Enabled == "Once"
	}
	for _, vm := range s.vmedia {
		if vm.inserted {
			boot.Media = append(boot.Media, vm.id)
		}
	}
	if err := s.spec.Machine.PowerOn(ctx, boot); err != nil {
		return err
	}
	s.apply(now, PowerOn, true)
	return nil
}
