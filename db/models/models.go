// Package models mirrors the tables of Ironic's database (alembic head
// 4dbec778866e) as Go structs. Column names are exactly Ironic's. The gorm
// tags are the one description of the tables in Go: the db package derives
// its column lists from them with gorm's schema parser (TableName, the
// columns in field order, primaryKey, autoIncrement, not null), and its
// tests hold them to Ironic's DDL (db/schema, db/testdata/schema.sql).
//
// Conventions:
//   - A nullable column is a pointer (*string, *int64, *bool, or a
//     pointer to a string type of package states for the node's states
//     and fault), except the
//     timestamps (Time, whose zero value is NULL), the JSON columns
//     (JSONDict/JSONList, NULL reads as empty) and a few columns that are
//     never NULL in practice, documented on the field.
//   - A plain string field of a nullable column reads NULL as "" and
//     writes "" as NULL; tag NOT NULL columns "not null".
//   - Booleans are stored as 0/1.
//   - Every row that Ironic versions carries the object version string of
//     this release in Version; the db package writes it on every create and
//     update (see the *Version constants).
package models

import "github.com/goironic/ironic/states"

// Object versions of Ironic 21.4 (ironic/common/release_mappings.py,
// 'master'), written to the version column of each table.
const (
	NodeVersion            = "1.37"
	PortVersion            = "1.11"
	PortgroupVersion       = "1.5"
	ChassisVersion         = "1.3"
	ConductorVersion       = "1.3"
	AllocationVersion      = "1.1"
	DeployTemplateVersion  = "1.1"
	BIOSSettingVersion     = "1.1"
	NodeTraitVersion       = "1.0"
	NodeHistoryVersion     = "1.0"
	NodeInventoryVersion   = "1.0"
	VolumeConnectorVersion = "1.0"
	VolumeTargetVersion    = "1.0"
)

// AlembicHead is the alembic revision whose schema this package mirrors.
const AlembicHead = "4dbec778866e"

// Chassis is a row of the chassis table.
type Chassis struct {
	CreatedAt   Time     `gorm:"column:created_at"`
	UpdatedAt   Time     `gorm:"column:updated_at"`
	Version     string   `gorm:"column:version"` // NULL reads as ""
	ID          int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID        string   `gorm:"column:uuid"` // NULL reads as ""
	Extra       JSONDict `gorm:"column:extra"`
	Description *string  `gorm:"column:description"`
}

// TableName is the table of Chassis.
func (Chassis) TableName() string { return "chassis" }

// Conductor is a row of the conductors table: a registered conductor
// service. UpdatedAt is its heartbeat.
type Conductor struct {
	CreatedAt      Time     `gorm:"column:created_at"`
	UpdatedAt      Time     `gorm:"column:updated_at"`
	Version        string   `gorm:"column:version"`
	ID             int64    `gorm:"column:id;primaryKey;autoIncrement"`
	Hostname       string   `gorm:"column:hostname;not null"`
	Drivers        JSONList `gorm:"column:drivers"`
	Online         bool     `gorm:"column:online"` // NULL reads as false
	ConductorGroup string   `gorm:"column:conductor_group;not null"`
}

// TableName is the table of Conductor.
func (Conductor) TableName() string { return "conductors" }

// ConductorHardwareInterface is a row of conductor_hardware_interfaces:
// one interface implementation a conductor can run for a hardware type.
type ConductorHardwareInterface struct {
	CreatedAt     Time   `gorm:"column:created_at"`
	UpdatedAt     Time   `gorm:"column:updated_at"`
	Version       string `gorm:"column:version"` // Ironic leaves it NULL
	ID            int64  `gorm:"column:id;primaryKey;autoIncrement"`
	ConductorID   int64  `gorm:"column:conductor_id;not null"`
	HardwareType  string `gorm:"column:hardware_type;not null"`
	InterfaceType string `gorm:"column:interface_type;not null"`
	InterfaceName string `gorm:"column:interface_name;not null"`
	Default       bool   `gorm:"column:default;not null"`
}

// TableName is the table of ConductorHardwareInterface.
func (ConductorHardwareInterface) TableName() string { return "conductor_hardware_interfaces" }

// Node is a row of the nodes table, plus its traits (loaded by the store
// from node_traits, ordered by trait).
type Node struct {
	CreatedAt            Time              `gorm:"column:created_at"`
	UpdatedAt            Time              `gorm:"column:updated_at"`
	Version              string            `gorm:"column:version"`
	ID                   int64             `gorm:"column:id;primaryKey;autoIncrement"`
	UUID                 string            `gorm:"column:uuid"`
	InstanceUUID         *string           `gorm:"column:instance_uuid"`
	Name                 *string           `gorm:"column:name"`
	ChassisID            *int64            `gorm:"column:chassis_id"`
	PowerState           *states.Power     `gorm:"column:power_state"`
	TargetPowerState     *states.Power     `gorm:"column:target_power_state"`
	ProvisionState       *states.Provision `gorm:"column:provision_state"`
	TargetProvisionState *states.Provision `gorm:"column:target_provision_state"`
	ProvisionUpdatedAt   Time              `gorm:"column:provision_updated_at"`
	LastError            *string           `gorm:"column:last_error"`
	InstanceInfo         JSONDict          `gorm:"column:instance_info"`
	Properties           JSONDict          `gorm:"column:properties"`
	// Driver is the hardware type; NULL reads as "" and "" writes NULL.
	Driver               string        `gorm:"column:driver"`
	DriverInfo           JSONDict      `gorm:"column:driver_info"`
	DriverInternalInfo   JSONDict      `gorm:"column:driver_internal_info"`
	CleanStep            JSONDict      `gorm:"column:clean_step"`
	DeployStep           JSONDict      `gorm:"column:deploy_step"`
	ResourceClass        *string       `gorm:"column:resource_class"`
	RAIDConfig           JSONDict      `gorm:"column:raid_config"`
	TargetRAIDConfig     JSONDict      `gorm:"column:target_raid_config"`
	Reservation          *string       `gorm:"column:reservation"`
	ConductorAffinity    *int64        `gorm:"column:conductor_affinity"`
	ConductorGroup       string        `gorm:"column:conductor_group;not null"`
	Maintenance          bool          `gorm:"column:maintenance"` // NULL reads as false
	MaintenanceReason    *string       `gorm:"column:maintenance_reason"`
	Fault                *states.Fault `gorm:"column:fault"`
	ConsoleEnabled       bool          `gorm:"column:console_enabled"` // NULL reads as false
	InspectionFinishedAt Time          `gorm:"column:inspection_finished_at"`
	InspectionStartedAt  Time          `gorm:"column:inspection_started_at"`
	Extra                JSONDict      `gorm:"column:extra"`
	AutomatedClean       *bool         `gorm:"column:automated_clean"`
	Protected            bool          `gorm:"column:protected;not null"`
	ProtectedReason      *string       `gorm:"column:protected_reason"`
	Owner                *string       `gorm:"column:owner"`
	Lessee               *string       `gorm:"column:lessee"`
	AllocationID         *int64        `gorm:"column:allocation_id"`
	Description          *string       `gorm:"column:description"`
	BIOSInterface        *string       `gorm:"column:bios_interface"`
	BootInterface        *string       `gorm:"column:boot_interface"`
	ConsoleInterface     *string       `gorm:"column:console_interface"`
	DeployInterface      *string       `gorm:"column:deploy_interface"`
	InspectInterface     *string       `gorm:"column:inspect_interface"`
	ManagementInterface  *string       `gorm:"column:management_interface"`
	NetworkInterface     *string       `gorm:"column:network_interface"`
	RAIDInterface        *string       `gorm:"column:raid_interface"`
	RescueInterface      *string       `gorm:"column:rescue_interface"`
	Retired              *bool         `gorm:"column:retired"` // created as false when nil
	RetiredReason        *string       `gorm:"column:retired_reason"`
	NetworkData          JSONDict      `gorm:"column:network_data"`
	StorageInterface     *string       `gorm:"column:storage_interface"`
	PowerInterface       *string       `gorm:"column:power_interface"`
	VendorInterface      *string       `gorm:"column:vendor_interface"`
	BootMode             *string       `gorm:"column:boot_mode"`
	SecureBoot           *bool         `gorm:"column:secure_boot"`
	Shard                *string       `gorm:"column:shard"`

	// Traits are the node's rows of node_traits, ordered by trait. They
	// are loaded by the store, never written with the node.
	Traits []NodeTrait `gorm:"-"`
}

// TableName is the table of Node.
func (Node) TableName() string { return "nodes" }

// TraitNames returns the names of the node's traits, in order.
func (n *Node) TraitNames() []string {
	out := make([]string, len(n.Traits))
	for i, t := range n.Traits {
		out[i] = t.Trait
	}
	return out
}

// Port is a row of the ports table.
type Port struct {
	CreatedAt           Time     `gorm:"column:created_at"`
	UpdatedAt           Time     `gorm:"column:updated_at"`
	Version             string   `gorm:"column:version"`
	ID                  int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID                string   `gorm:"column:uuid"`
	Address             *string  `gorm:"column:address"`
	NodeID              *int64   `gorm:"column:node_id"`
	Extra               JSONDict `gorm:"column:extra"`
	LocalLinkConnection JSONDict `gorm:"column:local_link_connection"`
	PortgroupID         *int64   `gorm:"column:portgroup_id"`
	PXEEnabled          *bool    `gorm:"column:pxe_enabled"` // created as true when nil
	InternalInfo        JSONDict `gorm:"column:internal_info"`
	PhysicalNetwork     *string  `gorm:"column:physical_network"`
	IsSmartNIC          *bool    `gorm:"column:is_smartnic"` // created as false when nil
	Name                *string  `gorm:"column:name"`
}

// TableName is the table of Port.
func (Port) TableName() string { return "ports" }

// Portgroup is a row of the portgroups table.
type Portgroup struct {
	CreatedAt                Time     `gorm:"column:created_at"`
	UpdatedAt                Time     `gorm:"column:updated_at"`
	Version                  string   `gorm:"column:version"`
	ID                       int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID                     string   `gorm:"column:uuid"`
	Name                     *string  `gorm:"column:name"`
	NodeID                   *int64   `gorm:"column:node_id"`
	Address                  *string  `gorm:"column:address"`
	Extra                    JSONDict `gorm:"column:extra"`
	InternalInfo             JSONDict `gorm:"column:internal_info"`
	StandalonePortsSupported *bool    `gorm:"column:standalone_ports_supported"` // created as true when nil
	Mode                     *string  `gorm:"column:mode"`                       // created as the default mode when nil or ""
	Properties               JSONDict `gorm:"column:properties"`
}

// TableName is the table of Portgroup.
func (Portgroup) TableName() string { return "portgroups" }

// NodeTag is a row of node_tags (not exposed by the API).
type NodeTag struct {
	CreatedAt Time   `gorm:"column:created_at"`
	UpdatedAt Time   `gorm:"column:updated_at"`
	Version   string `gorm:"column:version"`
	NodeID    int64  `gorm:"column:node_id;primaryKey"`
	Tag       string `gorm:"column:tag;primaryKey"`
}

// TableName is the table of NodeTag.
func (NodeTag) TableName() string { return "node_tags" }

// VolumeConnector is a row of volume_connectors.
type VolumeConnector struct {
	CreatedAt   Time     `gorm:"column:created_at"`
	UpdatedAt   Time     `gorm:"column:updated_at"`
	Version     string   `gorm:"column:version"`
	ID          int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID        string   `gorm:"column:uuid"`
	NodeID      *int64   `gorm:"column:node_id"`
	Type        *string  `gorm:"column:type"`
	ConnectorID *string  `gorm:"column:connector_id"`
	Extra       JSONDict `gorm:"column:extra"`
}

// TableName is the table of VolumeConnector.
func (VolumeConnector) TableName() string { return "volume_connectors" }

// VolumeTarget is a row of volume_targets.
type VolumeTarget struct {
	CreatedAt  Time     `gorm:"column:created_at"`
	UpdatedAt  Time     `gorm:"column:updated_at"`
	Version    string   `gorm:"column:version"`
	ID         int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID       string   `gorm:"column:uuid"`
	NodeID     *int64   `gorm:"column:node_id"`
	VolumeType *string  `gorm:"column:volume_type"`
	Properties JSONDict `gorm:"column:properties"`
	BootIndex  *int64   `gorm:"column:boot_index"`
	VolumeID   *string  `gorm:"column:volume_id"`
	Extra      JSONDict `gorm:"column:extra"`
}

// TableName is the table of VolumeTarget.
func (VolumeTarget) TableName() string { return "volume_targets" }

// NodeTrait is a row of node_traits.
type NodeTrait struct {
	CreatedAt Time   `gorm:"column:created_at"`
	UpdatedAt Time   `gorm:"column:updated_at"`
	Version   string `gorm:"column:version"`
	NodeID    int64  `gorm:"column:node_id;primaryKey"`
	Trait     string `gorm:"column:trait;primaryKey"`
}

// TableName is the table of NodeTrait.
func (NodeTrait) TableName() string { return "node_traits" }

// BIOSSetting is a row of bios_settings.
type BIOSSetting struct {
	CreatedAt       Time     `gorm:"column:created_at"`
	UpdatedAt       Time     `gorm:"column:updated_at"`
	Version         string   `gorm:"column:version"`
	NodeID          int64    `gorm:"column:node_id;primaryKey"`
	Name            string   `gorm:"column:name;primaryKey"`
	Value           *string  `gorm:"column:value"`
	AttributeType   *string  `gorm:"column:attribute_type"`
	AllowableValues JSONList `gorm:"column:allowable_values"`
	LowerBound      *int64   `gorm:"column:lower_bound"`
	MaxLength       *int64   `gorm:"column:max_length"`
	MinLength       *int64   `gorm:"column:min_length"`
	ReadOnly        *bool    `gorm:"column:read_only"`
	ResetRequired   *bool    `gorm:"column:reset_required"`
	Unique          *bool    `gorm:"column:unique"`
	UpperBound      *int64   `gorm:"column:upper_bound"`
}

// TableName is the table of BIOSSetting.
func (BIOSSetting) TableName() string { return "bios_settings" }

// Allocation is a row of allocations.
type Allocation struct {
	CreatedAt         Time              `gorm:"column:created_at"`
	UpdatedAt         Time              `gorm:"column:updated_at"`
	Version           string            `gorm:"column:version"`
	ID                int64             `gorm:"column:id;primaryKey;autoIncrement"`
	UUID              string            `gorm:"column:uuid;not null"`
	Name              *string           `gorm:"column:name"`
	NodeID            *int64            `gorm:"column:node_id"`
	State             states.Allocation `gorm:"column:state;not null"`
	Owner             *string           `gorm:"column:owner"`
	LastError         *string           `gorm:"column:last_error"`
	ResourceClass     *string           `gorm:"column:resource_class"`
	Traits            JSONList          `gorm:"column:traits"`
	CandidateNodes    JSONList          `gorm:"column:candidate_nodes"`
	Extra             JSONDict          `gorm:"column:extra"`
	ConductorAffinity *int64            `gorm:"column:conductor_affinity"`
}

// TableName is the table of Allocation.
func (Allocation) TableName() string { return "allocations" }

// DeployTemplate is a row of deploy_templates with its steps (loaded and
// written by the store).
type DeployTemplate struct {
	CreatedAt Time     `gorm:"column:created_at"`
	UpdatedAt Time     `gorm:"column:updated_at"`
	Version   string   `gorm:"column:version"`
	ID        int64    `gorm:"column:id;primaryKey;autoIncrement"`
	UUID      string   `gorm:"column:uuid"`
	Name      string   `gorm:"column:name;not null"`
	Extra     JSONDict `gorm:"column:extra"`

	// Steps are the template's rows of deploy_template_steps, by id.
	Steps []DeployTemplateStep `gorm:"-"`
}

// TableName is the table of DeployTemplate.
func (DeployTemplate) TableName() string { return "deploy_templates" }

// DeployTemplateStep is a row of deploy_template_steps.
type DeployTemplateStep struct {
	CreatedAt        Time     `gorm:"column:created_at"`
	UpdatedAt        Time     `gorm:"column:updated_at"`
	Version          string   `gorm:"column:version"`
	ID               int64    `gorm:"column:id;primaryKey;autoIncrement"`
	DeployTemplateID int64    `gorm:"column:deploy_template_id;not null"`
	Interface        string   `gorm:"column:interface;not null"`
	Step             string   `gorm:"column:step;not null"`
	Args             JSONDict `gorm:"column:args;not null"`
	Priority         int64    `gorm:"column:priority;not null"`
}

// TableName is the table of DeployTemplateStep.
func (DeployTemplateStep) TableName() string { return "deploy_template_steps" }

// NodeHistory is a row of node_history.
type NodeHistory struct {
	CreatedAt Time    `gorm:"column:created_at"`
	UpdatedAt Time    `gorm:"column:updated_at"`
	Version   string  `gorm:"column:version"`
	ID        int64   `gorm:"column:id;primaryKey;autoIncrement"`
	UUID      string  `gorm:"column:uuid;not null"`
	Conductor *string `gorm:"column:conductor"`
	EventType *string `gorm:"column:event_type"`
	Severity  *string `gorm:"column:severity"`
	Event     *string `gorm:"column:event"`
	User      *string `gorm:"column:user"`
	NodeID    *int64  `gorm:"column:node_id"`
}

// TableName is the table of NodeHistory.
func (NodeHistory) TableName() string { return "node_history" }

// NodeInventory is a row of node_inventory.
type NodeInventory struct {
	CreatedAt     Time     `gorm:"column:created_at"`
	UpdatedAt     Time     `gorm:"column:updated_at"`
	Version       string   `gorm:"column:version"`
	ID            int64    `gorm:"column:id;primaryKey;autoIncrement"`
	InventoryData JSONDict `gorm:"column:inventory_data"`
	PluginData    JSONDict `gorm:"column:plugin_data"`
	NodeID        *int64   `gorm:"column:node_id"`
}

// TableName is the table of NodeInventory.
func (NodeInventory) TableName() string { return "node_inventory" }

// AlembicVersion is the single row of alembic_version.
type AlembicVersion struct {
	VersionNum string `gorm:"column:version_num;primaryKey"`
}

// TableName is the table of AlembicVersion.
func (AlembicVersion) TableName() string { return "alembic_version" }

// Shard is one entry of the shard list: a shard name (Python's str() of
// the column, so "None" for nodes without a shard) and its node count.
type Shard struct {
	Name  string
	Count int64
}
