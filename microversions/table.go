// Package microversions is the table of Ironic API microversions (named
// minors of major version 1), header negotiation with Ironic's 406 rules, and
// the gate predicates handlers use (v.AtLeast(NodeNetworkData)).
//
// Raising the maximum is a matter of adding a row at the end of the constant
// block and moving Latest.
package microversions

// Version is a minor version of API 1.x: Version(82) is 1.82.
type Version int

// Every microversion up to the supported maximum, named as Ironic's
// versions.py names them (MINOR_<n>_<NAME>).
const (
	Juno                            Version = 0  // JUNO
	InitialVersion                  Version = 1  // INITIAL_VERSION
	AvailableState                  Version = 2  // AVAILABLE_STATE
	DriverInternalInfo              Version = 3  // DRIVER_INTERNAL_INFO
	ManageableState                 Version = 4  // MANAGEABLE_STATE
	NodeName                        Version = 5  // NODE_NAME
	InspectState                    Version = 6  // INSPECT_STATE
	NodeClean                       Version = 7  // NODE_CLEAN
	FetchingSubsetOfFields          Version = 8  // FETCHING_SUBSET_OF_FIELDS
	ProvisionStateFilter            Version = 9  // PROVISION_STATE_FILTER
	UnrestrictedNodeName            Version = 10 // UNRESTRICTED_NODE_NAME
	EnrollState                     Version = 11 // ENROLL_STATE
	RAIDConfig                      Version = 12 // RAID_CONFIG
	AbortVerb                       Version = 13 // ABORT_VERB
	LinksNodestatesDriverproperties Version = 14 // LINKS_NODESTATES_DRIVERPROPERTIES
	ManualClean                     Version = 15 // MANUAL_CLEAN
	DriverFilter                    Version = 16 // DRIVER_FILTER
	AdoptVerb                       Version = 17 // ADOPT_VERB
	PortInternalInfo                Version = 18 // PORT_INTERNAL_INFO
	PortAdvancedNetFields           Version = 19 // PORT_ADVANCED_NET_FIELDS
	NetworkInterface                Version = 20 // NETWORK_INTERFACE
	ResourceClass                   Version = 21 // RESOURCE_CLASS
	LookupHeartbeat                 Version = 22 // LOOKUP_HEARTBEAT
	Portgroups                      Version = 23 // PORTGROUPS
	PortgroupsSubcontrollers        Version = 24 // PORTGROUPS_SUBCONTROLLERS
	UnsetChassisUUID                Version = 25 // UNSET_CHASSIS_UUID
	PortgroupModeProperties         Version = 26 // PORTGROUP_MODE_PROPERTIES
	SoftPowerOff                    Version = 27 // SOFT_POWER_OFF
	VIFSSubcontroller               Version = 28 // VIFS_SUBCONTROLLER
	InjectNMI                       Version = 29 // INJECT_NMI
	DynamicDrivers                  Version = 30 // DYNAMIC_DRIVERS
	DynamicInterfaces               Version = 31 // DYNAMIC_INTERFACES
	Volume                          Version = 32 // VOLUME
	StorageInterface                Version = 33 // STORAGE_INTERFACE
	PortPhysicalNetwork             Version = 34 // PORT_PHYSICAL_NETWORK
	RebuildConfigDrive              Version = 35 // REBUILD_CONFIG_DRIVE
	AgentVersionHeartbeat           Version = 36 // AGENT_VERSION_HEARTBEAT
	NodeTraits                      Version = 37 // NODE_TRAITS
	RescueInterface                 Version = 38 // RESCUE_INTERFACE
	InspectWait                     Version = 39 // INSPECT_WAIT
	BIOSInterface                   Version = 40 // BIOS_INTERFACE
	InspectionAbort                 Version = 41 // INSPECTION_ABORT
	Fault                           Version = 42 // FAULT
	EnableDetailQuery               Version = 43 // ENABLE_DETAIL_QUERY
	NodeDeployStep                  Version = 44 // NODE_DEPLOY_STEP
	ResetInterfaces                 Version = 45 // RESET_INTERFACES
	NodeConductorGroup              Version = 46 // NODE_CONDUCTOR_GROUP
	NodeAutomatedClean              Version = 47 // NODE_AUTOMATED_CLEAN
	NodeProtected                   Version = 48 // NODE_PROTECTED
	Conductors                      Version = 49 // CONDUCTORS
	NodeOwner                       Version = 50 // NODE_OWNER
	NodeDescription                 Version = 51 // NODE_DESCRIPTION
	Allocation                      Version = 52 // ALLOCATION
	PortSmartnic                    Version = 53 // PORT_SMARTNIC
	Events                          Version = 54 // EVENTS
	DeployTemplates                 Version = 55 // DEPLOY_TEMPLATES
	BuildConfigdrive                Version = 56 // BUILD_CONFIGDRIVE
	AllocationUpdate                Version = 57 // ALLOCATION_UPDATE
	AllocationBackfill              Version = 58 // ALLOCATION_BACKFILL
	ConfigdriveVendorData           Version = 59 // CONFIGDRIVE_VENDOR_DATA
	AllocationOwner                 Version = 60 // ALLOCATION_OWNER
	NodeRetired                     Version = 61 // NODE_RETIRED
	AgentToken                      Version = 62 // AGENT_TOKEN
	Indicators                      Version = 63 // INDICATORS
	LocalLinkConnectionNetworkType  Version = 64 // LOCAL_LINK_CONNECTION_NETWORK_TYPE
	NodeLessee                      Version = 65 // NODE_LESSEE
	NodeNetworkData                 Version = 66 // NODE_NETWORK_DATA
	NodeVIFAttachPort               Version = 67 // NODE_VIF_ATTACH_PORT
	HeartbeatVerifyCa               Version = 68 // HEARTBEAT_VERIFY_CA
	DeploySteps                     Version = 69 // DEPLOY_STEPS
	CleanDisableRamdisk             Version = 70 // CLEAN_DISABLE_RAMDISK
	RbacScopes                      Version = 71 // RBAC_SCOPES
	HeartbeatStatus                 Version = 72 // HEARTBEAT_STATUS
	DeployUndeployVerbs             Version = 73 // DEPLOY_UNDEPLOY_VERBS
	BIOSRegistry                    Version = 74 // BIOS_REGISTRY
	NodeBootMode                    Version = 75 // NODE_BOOT_MODE
	NodeChangeBootMode              Version = 76 // NODE_CHANGE_BOOT_MODE
	DriverFieldsSelector            Version = 77 // DRIVER_FIELDS_SELECTOR
	NodeHistory                     Version = 78 // NODE_HISTORY
	AllocationNodeName              Version = 79 // ALLOCATION_NODE_NAME
	ProjectCreateDeleteNode         Version = 80 // PROJECT_CREATE_DELETE_NODE
	NodeInventory                   Version = 81 // NODE_INVENTORY
	NodeShard                       Version = 82 // NODE_SHARD
)

// Min and Latest bound the versions this service supports.
const (
	Min    = InitialVersion
	Latest = NodeShard
)
