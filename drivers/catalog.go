package drivers

// Code below is data: the names and Python classes of Ironic 21.4's
// interface entry points (setup.cfg, "ironic.hardware.interfaces.*"), and
// the supported interfaces of the hardware types this service knows, in
// each hardware type's order of preference.

// entryPoint is one implementation name Ironic knows for a kind, with the
// Python class behind it (shown in Ironic's IncompatibleInterface message).
type entryPoint struct {
	name  string
	class string
}

// entryPoints lists, for kind k, every implementation name Ironic 21.4
// registers, in entry point order (alphabetical).
func entryPoints(k Kind) []entryPoint {
	switch k {
	case BIOS:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeBIOS"},
			{"idrac-redfish", "ironic.drivers.modules.drac.bios.DracRedfishBIOS"},
			{"idrac-wsman", "ironic.drivers.modules.drac.bios.DracWSManBIOS"},
			{"ilo", "ironic.drivers.modules.ilo.bios.IloBIOS"},
			{"irmc", "ironic.drivers.modules.irmc.bios.IRMCBIOS"},
			{"no-bios", "ironic.drivers.modules.noop.NoBIOS"},
			{"redfish", "ironic.drivers.modules.redfish.bios.RedfishBIOS"},
		}
	case Boot:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeBoot"},
			{"idrac-redfish-virtual-media", "ironic.drivers.modules.drac.boot.DracRedfishVirtualMediaBoot"},
			{"ilo-ipxe", "ironic.drivers.modules.ilo.boot.IloiPXEBoot"},
			{"ilo-pxe", "ironic.drivers.modules.ilo.boot.IloPXEBoot"},
			{"ilo-uefi-https", "ironic.drivers.modules.ilo.boot.IloUefiHttpsBoot"},
			{"ilo-virtual-media", "ironic.drivers.modules.ilo.boot.IloVirtualMediaBoot"},
			{"ipxe", "ironic.drivers.modules.ipxe.iPXEBoot"},
			{"irmc-pxe", "ironic.drivers.modules.irmc.boot.IRMCPXEBoot"},
			{"irmc-virtual-media", "ironic.drivers.modules.irmc.boot.IRMCVirtualMediaBoot"},
			{"pxe", "ironic.drivers.modules.pxe.PXEBoot"},
			{"redfish-virtual-media", "ironic.drivers.modules.redfish.boot.RedfishVirtualMediaBoot"},
		}
	case Console:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeConsole"},
			{"ilo", "ironic.drivers.modules.ilo.console.IloConsoleInterface"},
			{"ipmitool-shellinabox", "ironic.drivers.modules.ipmitool.IPMIShellinaboxConsole"},
			{"ipmitool-socat", "ironic.drivers.modules.ipmitool.IPMISocatConsole"},
			{"no-console", "ironic.drivers.modules.noop.NoConsole"},
		}
	case Deploy:
		return []entryPoint{
			{"anaconda", "ironic.drivers.modules.pxe.PXEAnacondaDeploy"},
			{"ansible", "ironic.drivers.modules.ansible.deploy.AnsibleDeploy"},
			{"custom-agent", "ironic.drivers.modules.agent.CustomAgentDeploy"},
			{"direct", "ironic.drivers.modules.agent.AgentDeploy"},
			{"fake", "ironic.drivers.modules.fake.FakeDeploy"},
			{"ramdisk", "ironic.drivers.modules.ramdisk.RamdiskDeploy"},
		}
	case Inspect:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeInspect"},
			{"idrac", "ironic.drivers.modules.drac.inspect.DracInspect"},
			{"idrac-redfish", "ironic.drivers.modules.drac.inspect.DracRedfishInspect"},
			{"idrac-wsman", "ironic.drivers.modules.drac.inspect.DracWSManInspect"},
			{"ilo", "ironic.drivers.modules.ilo.inspect.IloInspect"},
			{"inspector", "ironic.drivers.modules.inspector.Inspector"},
			{"irmc", "ironic.drivers.modules.irmc.inspect.IRMCInspect"},
			{"no-inspect", "ironic.drivers.modules.noop.NoInspect"},
			{"redfish", "ironic.drivers.modules.redfish.inspect.RedfishInspect"},
		}
	case Management:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeManagement"},
			{"ibmc", "ironic.drivers.modules.ibmc.management.IBMCManagement"},
			{"idrac", "ironic.drivers.modules.drac.management.DracManagement"},
			{"idrac-redfish", "ironic.drivers.modules.drac.management.DracRedfishManagement"},
			{"idrac-wsman", "ironic.drivers.modules.drac.management.DracWSManManagement"},
			{"ilo", "ironic.drivers.modules.ilo.management.IloManagement"},
			{"ilo5", "ironic.drivers.modules.ilo.management.Ilo5Management"},
			{"intel-ipmitool", "ironic.drivers.modules.intel_ipmi.management.IntelIPMIManagement"},
			{"ipmitool", "ironic.drivers.modules.ipmitool.IPMIManagement"},
			{"irmc", "ironic.drivers.modules.irmc.management.IRMCManagement"},
			{"noop", "ironic.drivers.modules.noop_mgmt.NoopManagement"},
			{"redfish", "ironic.drivers.modules.redfish.management.RedfishManagement"},
			{"xclarity", "ironic.drivers.modules.xclarity.management.XClarityManagement"},
		}
	case Network:
		return []entryPoint{
			{"flat", "ironic.drivers.modules.network.flat.FlatNetwork"},
			{"neutron", "ironic.drivers.modules.network.neutron.NeutronNetwork"},
			{"noop", "ironic.drivers.modules.network.noop.NoopNetwork"},
		}
	case Power:
		return []entryPoint{
			{"agent", "ironic.drivers.modules.agent_power.AgentPower"},
			{"fake", "ironic.drivers.modules.fake.FakePower"},
			{"ibmc", "ironic.drivers.modules.ibmc.power.IBMCPower"},
			{"idrac", "ironic.drivers.modules.drac.power.DracPower"},
			{"idrac-redfish", "ironic.drivers.modules.drac.power.DracRedfishPower"},
			{"idrac-wsman", "ironic.drivers.modules.drac.power.DracWSManPower"},
			{"ilo", "ironic.drivers.modules.ilo.power.IloPower"},
			{"ipmitool", "ironic.drivers.modules.ipmitool.IPMIPower"},
			{"irmc", "ironic.drivers.modules.irmc.power.IRMCPower"},
			{"redfish", "ironic.drivers.modules.redfish.power.RedfishPower"},
			{"snmp", "ironic.drivers.modules.snmp.SNMPPower"},
			{"xclarity", "ironic.drivers.modules.xclarity.power.XClarityPower"},
		}
	case RAID:
		return []entryPoint{
			{"agent", "ironic.drivers.modules.agent.AgentRAID"},
			{"fake", "ironic.drivers.modules.fake.FakeRAID"},
			{"ibmc", "ironic.drivers.modules.ibmc.raid.IbmcRAID"},
			{"idrac", "ironic.drivers.modules.drac.raid.DracRAID"},
			{"idrac-redfish", "ironic.drivers.modules.drac.raid.DracRedfishRAID"},
			{"idrac-wsman", "ironic.drivers.modules.drac.raid.DracWSManRAID"},
			{"ilo5", "ironic.drivers.modules.ilo.raid.Ilo5RAID"},
			{"irmc", "ironic.drivers.modules.irmc.raid.IRMCRAID"},
			{"no-raid", "ironic.drivers.modules.noop.NoRAID"},
			{"redfish", "ironic.drivers.modules.redfish.raid.RedfishRAID"},
		}
	case Rescue:
		return []entryPoint{
			{"agent", "ironic.drivers.modules.agent.AgentRescue"},
			{"fake", "ironic.drivers.modules.fake.FakeRescue"},
			{"no-rescue", "ironic.drivers.modules.noop.NoRescue"},
		}
	case Storage:
		return []entryPoint{
			{"cinder", "ironic.drivers.modules.storage.cinder.CinderStorage"},
			{"external", "ironic.drivers.modules.storage.external.ExternalStorage"},
			{"fake", "ironic.drivers.modules.fake.FakeStorage"},
			{"noop", "ironic.drivers.modules.storage.noop.NoopStorage"},
		}
	case Vendor:
		return []entryPoint{
			{"fake", "ironic.drivers.modules.fake.FakeVendorB"},
			{"ibmc", "ironic.drivers.modules.ibmc.vendor.IBMCVendor"},
			{"idrac", "ironic.drivers.modules.drac.vendor_passthru.DracVendorPassthru"},
			{"idrac-redfish", "ironic.drivers.modules.drac.vendor_passthru.DracRedfishVendorPassthru"},
			{"idrac-wsman", "ironic.drivers.modules.drac.vendor_passthru.DracWSManVendorPassthru"},
			{"ilo", "ironic.drivers.modules.ilo.vendor.VendorPassthru"},
			{"ipmitool", "ironic.drivers.modules.ipmitool.VendorPassthru"},
			{"irmc", "ironic.drivers.modules.irmc.vendor.IRMCVendorPassthru"},
			{"no-vendor", "ironic.drivers.modules.noop.NoVendor"},
			{"redfish", "ironic.drivers.modules.redfish.vendor.RedfishVendorPassthru"},
		}
	}
	return nil
}

// hardwareType is one hardware type: its name, its Python class name (in
// Ironic's messages) and, per kind, the implementation names it supports in
// order of preference (the first enabled one is the default).
type hardwareType struct {
	name      string
	class     string
	supported map[Kind][]string
}

// knownHardwareTypes lists the hardware types this service implements, in
// entry point order.
func knownHardwareTypes() []hardwareType {
	return []hardwareType{
		{
			name:  "fake-hardware",
			class: "FakeHardware",
			supported: map[Kind][]string{
				BIOS:       {"fake", "no-bios"},
				Boot:       {"fake", "ipxe", "pxe"},
				Console:    {"fake", "no-console"},
				Deploy:     {"fake", "direct", "ansible", "ramdisk", "anaconda", "custom-agent"},
				Inspect:    {"fake", "inspector", "no-inspect"},
				Management: {"fake"},
				Network:    {"flat", "neutron", "noop"},
				Power:      {"fake"},
				RAID:       {"fake", "no-raid", "agent"},
				Rescue:     {"fake", "no-rescue", "agent"},
				Storage:    {"fake", "noop", "cinder", "external"},
				Vendor:     {"fake", "no-vendor"},
			},
		},
		{
			name:  "ipmi",
			class: "IPMIHardware",
			supported: map[Kind][]string{
				BIOS:       {"no-bios"},
				Boot:       {"ipxe", "pxe"},
				Console:    {"ipmitool-socat", "ipmitool-shellinabox", "no-console"},
				Deploy:     {"direct", "ansible", "ramdisk", "anaconda", "custom-agent"},
				Inspect:    {"inspector", "no-inspect"},
				Management: {"ipmitool", "noop"},
				Network:    {"flat", "neutron", "noop"},
				Power:      {"ipmitool"},
				RAID:       {"no-raid", "agent"},
				Rescue:     {"no-rescue", "agent"},
				Storage:    {"noop", "cinder", "external"},
				Vendor:     {"ipmitool", "no-vendor"},
			},
		},
		{
			name:  "manual-management",
			class: "ManualManagementHardware",
			supported: map[Kind][]string{
				BIOS:       {"no-bios"},
				Boot:       {"ipxe", "pxe"},
				Console:    {"no-console"},
				Deploy:     {"direct", "ansible", "ramdisk", "anaconda", "custom-agent"},
				Inspect:    {"inspector", "no-inspect"},
				Management: {"noop", "fake"},
				Network:    {"flat", "neutron", "noop"},
				Power:      {"agent", "fake"},
				RAID:       {"no-raid", "agent"},
				Rescue:     {"no-rescue", "agent"},
				Storage:    {"noop", "cinder", "external"},
				Vendor:     {"no-vendor"},
			},
		},
		{
			name:  "redfish",
			class: "RedfishHardware",
			supported: map[Kind][]string{
				BIOS:       {"redfish", "no-bios"},
				Boot:       {"ipxe", "pxe", "redfish-virtual-media"},
				Console:    {"no-console"},
				Deploy:     {"direct", "ansible", "ramdisk", "anaconda", "custom-agent"},
				Inspect:    {"redfish", "inspector", "no-inspect"},
				Management: {"redfish", "noop"},
				Network:    {"flat", "neutron", "noop"},
				Power:      {"redfish"},
				RAID:       {"redfish", "no-raid", "agent"},
				Rescue:     {"no-rescue", "agent"},
				Storage:    {"noop", "cinder", "external"},
				Vendor:     {"redfish", "no-vendor"},
			},
		},
	}
}
