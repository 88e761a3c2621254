package conf

import "time"

// Config is the typed view of ironic.conf. Each field is one option of
// the table returned by Opts (marked Implemented); the struct tag-free
// mapping lives in bindings.go.
//
// Conventions:
//   - Options that upstream expresses in seconds (every *_interval,
//     *_timeout, *_delay and *_time option below) are time.Duration. The
//     sign is kept: where upstream gives 0 or a negative number a special
//     meaning ("disabled"), the Duration is 0 or negative too.
//   - Options whose upstream default is None read as the Go zero value
//     ("" , 0, false, nil). Use IsSet to tell "unset" from "set to zero".
//   - Lists are []string, dicts are map[string]string, multi-valued
//     options are []string in the order they were written.
//
// A Config is built by Load or FromArgs and is not modified afterwards;
// it is safe for concurrent reads.
type Config struct {
	Default                    DefaultSection
	API                        APISection
	Agent                      AgentSection
	Cinder                     CinderSection
	Conductor                  ConductorSection
	Console                    ConsoleSection
	Database                   DatabaseSection
	Deploy                     DeploySection
	DHCP                       DHCPSection
	Fake                       FakeSection
	Glance                     GlanceSection
	Healthcheck                HealthcheckSection
	Inspector                  InspectorSection
	Inventory                  InventorySection
	IPMI                       IPMISection
	JSONRPC                    JSONRPCSection
	KeystoneAuthtoken          KeystoneAuthtokenSection
	Neutron                    NeutronSection
	Nova                       NovaSection
	OsloConcurrency            OsloConcurrencySection
	OsloMessagingNotifications OsloMessagingNotificationsSection
	OsloMessagingRabbit        OsloMessagingRabbitSection
	OsloPolicy                 OsloPolicySection
	PXE                        PXESection
	Redfish                    RedfishSection
	ServiceCatalog             ServiceCatalogSection
	Swift                      SwiftSection

	// state recorded while loading; see report.go.
	files          []string
	set            map[string]string // "section.name" -> file that set it
	ignored        []string
	notImplemented []string
	deprecatedUsed []string
}

// DefaultSection holds the [DEFAULT] options.
type DefaultSection struct {
	// Host is the name of this service instance (conductor host name,
	// RPC server name). Default: the machine's host name.
	Host string
	// AuthStrategy is "keystone" (default), "noauth" or "http_basic".
	AuthStrategy string
	// HTTPBasicAuthUserFile is the Apache htpasswd file used when
	// AuthStrategy is "http_basic".
	HTTPBasicAuthUserFile string
	DebugTracebacksInAPI  bool
	// DefaultResourceClass is given to new nodes created without one.
	DefaultResourceClass string

	// EnabledHardwareTypes lists the hardware types to load.
	EnabledHardwareTypes []string
	// Enabled*Interfaces list the interface implementations to load per
	// interface type. Upstream leaves enabled_management_interfaces and
	// enabled_power_interfaces unset by default, meaning "the first
	// supported implementation of every enabled hardware type"; they are
	// nil here in that case. See Config.Interfaces.
	EnabledBIOSInterfaces       []string
	EnabledBootInterfaces       []string
	EnabledConsoleInterfaces    []string
	EnabledDeployInterfaces     []string
	EnabledInspectInterfaces    []string
	EnabledManagementInterfaces []string
	EnabledNetworkInterfaces    []string
	EnabledPowerInterfaces      []string
	EnabledRAIDInterfaces       []string
	EnabledRescueInterfaces     []string
	EnabledStorageInterfaces    []string
	EnabledVendorInterfaces     []string
	// Default*Interface name the implementation given to nodes that do
	// not choose one; "" means "the first implementation supported by
	// the node's hardware type that is enabled".
	DefaultBIOSInterface       string
	DefaultBootInterface       string
	DefaultConsoleInterface    string
	DefaultDeployInterface     string
	DefaultInspectInterface    string
	DefaultManagementInterface string
	DefaultNetworkInterface    string
	DefaultPowerInterface      string
	DefaultRAIDInterface       string
	DefaultRescueInterface     string
	DefaultStorageInterface    string
	DefaultVendorInterface     string

	// LogInDBMaxSize caps node last_error/maintenance_reason length.
	LogInDBMaxSize int
	// HashPartitionExponent: each conductor gets 2^n partitions.
	HashPartitionExponent int
	// HashRingResetInterval is how long a built hash ring stays valid.
	HashRingResetInterval time.Duration
	// HashRingAlgorithm is the hash used by the ring, e.g. "md5".
	HashRingAlgorithm string
	// WebserverVerifyCA ("True", "False" or a CA bundle) and
	// WebserverConnectionTimeout (60 s) apply to the web servers that
	// serve images (the HEAD request that tells a directory from a file).
	WebserverVerifyCA          string
	WebserverConnectionTimeout time.Duration

	ForceRawImages    bool
	MyIP              string
	MyIPv6            string
	NotificationLevel string
	// VersionedNotificationsTopics are the topics notifications go to.
	VersionedNotificationsTopics []string
	// PyBaseDir stands for upstream's Python package directory; it only
	// matters through the "$pybasedir" references in other defaults.
	PyBaseDir string
	// StatePath is the top-level directory for Ironic's state.
	StatePath            string
	DefaultPortgroupMode string
	// PinReleaseVersion, when set (e.g. "21.1"), pins API, RPC and object
	// versions for rolling upgrades.
	PinReleaseVersion string
	// RPCTransport is "oslo" (default), "json-rpc" or "none".
	RPCTransport string
	TempDir      string
	// RBACServiceRoleElevatedAccess lets the service role of the
	// RBACServiceProjectName project see all nodes.
	RBACServiceRoleElevatedAccess bool
	RBACServiceProjectName        string

	// oslo.messaging options.
	TransportURL       string // default "rabbit://"
	ControlExchange    string // default "ironic"
	RPCResponseTimeout time.Duration
	// oslo.log options.
	Debug     bool
	LogFile   string
	LogDir    string
	UseStderr bool
	UseJSON   bool
	// oslo.service option.
	GracefulShutdownTimeout time.Duration
}

// APISection holds the [api] options.
type APISection struct {
	// HostIP is the address the API listens on (default "0.0.0.0").
	HostIP string
	// Port is the TCP port the API listens on (default 6385).
	Port int
	// UnixSocket, when set, replaces HostIP and Port.
	UnixSocket string
	// UnixSocketMode is the file mode of UnixSocket; 0 means unset.
	UnixSocketMode int
	// MaxLimit is the maximum page size of collections (default 1000).
	MaxLimit int
	// PublicEndpoint is the base URL advertised in links; "" means the
	// request's own URL.
	PublicEndpoint string
	// APIWorkers is the number of API workers; 0 means automatic.
	APIWorkers                    int
	EnableSSLAPI                  bool
	EnableRamdiskEndpoints        bool
	RestrictLookup                bool
	RamdiskHeartbeatTimeout       time.Duration
	NetworkDataSchema             string
	ProjectAdminCanManageOwnNodes bool
}

// AgentSection holds the [agent] options (ironic-python-agent).
type AgentSection struct {
	ManageAgentBoot                      bool
	MemoryConsumedByAgent                int // MiB
	StreamRawImages                      bool
	PostDeployGetPowerStateRetries       int
	PostDeployGetPowerStateRetryInterval time.Duration
	AgentAPIVersion                      string
	DeployLogsCollect                    string
	DeployLogsStorageBackend             string
	DeployLogsLocalPath                  string
	ImageDownloadSource                  string
	CommandTimeout                       time.Duration
	MaxCommandAttempts                   int
	CommandWaitAttempts                  int
	CommandWaitInterval                  time.Duration
	RequireTLS                           bool
	CertificatesPath                     string
	// VerifyCA is "True", "False" or a CA bundle path, as upstream.
	VerifyCA  string
	APICAFile string
	// NeutronAgentMaxAttempts and NeutronAgentStatusRetryInterval bound
	// the waits for a Smart NIC host's Neutron agent.
	NeutronAgentMaxAttempts         int
	NeutronAgentStatusRetryInterval time.Duration
}

// ServiceAuth holds the keystoneauth credential and session options that
// every section describing a connection to another OpenStack service has
// ([cinder], [glance], [inspector], [json_rpc], [neutron], [nova],
// [service_catalog], [swift]).
type ServiceAuth struct {
	// AuthType names the keystoneauth plugin, e.g. "password", "none".
	AuthType          string
	AuthURL           string
	Username          string
	UserID            string
	Password          string
	ProjectName       string
	ProjectID         string
	UserDomainName    string
	UserDomainID      string
	ProjectDomainName string
	ProjectDomainID   string
	SystemScope       string
	CAFile            string
	CertFile          string
	KeyFile           string
	Insecure          bool
	// Timeout is the HTTP request timeout; 0 means none.
	Timeout time.Duration
}

// ServiceEndpoint holds the keystoneauth adapter options that select the
// endpoint of another OpenStack service.
type ServiceEndpoint struct {
	ServiceType     string
	ServiceName     string
	RegionName      string
	ValidInterfaces []string
	// EndpointOverride, when set, is used instead of the catalog.
	EndpointOverride string
	ConnectRetries   int
	// ConnectRetryDelay and StatusCodeRetryDelay are 0 when unset
	// (keystoneauth then backs off exponentially).
	ConnectRetryDelay    time.Duration
	StatusCodeRetries    int
	StatusCodeRetryDelay time.Duration
}

// CinderSection holds the [cinder] options.
type CinderSection struct {
	ServiceAuth
	ServiceEndpoint
	ActionRetries       int
	ActionRetryInterval time.Duration
	Retries             int
}

// ConductorSection holds the [conductor] options.
type ConductorSection struct {
	// WorkersPoolSize bounds the conductor's worker pool (default 100).
	WorkersPoolSize                int
	HeartbeatInterval              time.Duration
	HeartbeatTimeout               time.Duration
	SyncPowerStateInterval         time.Duration
	CheckProvisionStateInterval    time.Duration
	CheckRescueStateInterval       time.Duration
	CheckAllocationsInterval       time.Duration
	DeployCallbackTimeout          time.Duration
	ForcePowerStateDuringSync      bool
	PowerStateSyncMaxRetries       int
	SyncPowerStateWorkers          int
	PeriodicMaxWorkers             int
	NodeLockedRetryAttempts        int
	NodeLockedRetryInterval        time.Duration
	SyncLocalStateInterval         time.Duration
	InspectWaitTimeout             time.Duration
	AutomatedClean                 bool
	AllowProvisioningInMaintenance bool
	RequireRescuePasswordHashed    bool
	CleanCallbackTimeout           time.Duration
	RescueCallbackTimeout          time.Duration
	SoftPowerOffTimeout            time.Duration
	PowerStateChangeTimeout        time.Duration
	PowerFailureRecoveryInterval   time.Duration
	ConductorGroup                 string
	AllowDeletingAvailableNodes    bool
	DeployKernel                   string
	DeployRamdisk                  string
	RescueKernel                   string
	RescueRamdisk                  string
	NodeHistory                    bool
	NodeHistoryMaxEntries          int
	NodeHistoryCleanupInterval     time.Duration
	NodeHistoryCleanupBatchCount   int
	NodeHistoryMinimumDays         int
	AutomaticLessee                bool
	MaxConcurrentDeploy            int
	MaxConcurrentClean             int
	// CleanStepPriorityOverride holds "interface.step:priority" entries.
	CleanStepPriorityOverride []string

	// ConfigdriveSwiftContainer and ConfigdriveSwiftTempURLDuration (0:
	// unset) are where and for how long config drives are published when
	// [deploy]configdrive_use_object_store is set.
	ConfigdriveSwiftContainer       string
	ConfigdriveSwiftTempURLDuration time.Duration
}

// ConsoleSection holds the [console] options.
type ConsoleSection struct {
	Terminal                   string
	TerminalCertDir            string
	TerminalPIDDir             string
	TerminalTimeout            time.Duration
	SubprocessCheckingInterval time.Duration
	SubprocessTimeout          time.Duration
	KillTimeout                time.Duration
	SocatAddress               string
	// PortRange is "start:end", "" when unset.
	PortRange string
}

// DatabaseSection holds the [database] options.
type DatabaseSection struct {
	// Connection is an SQLAlchemy URL; see ParseDatabaseURL.
	Connection            string
	SlaveConnection       string
	MySQLSQLMode          string
	MySQLEngine           string
	ConnectionRecycleTime time.Duration
	MaxPoolSize           int
	MaxOverflow           int
	// MaxRetries is the number of connection attempts at start-up; -1
	// means forever.
	MaxRetries    int
	RetryInterval time.Duration
	// PoolTimeout is 0 when unset.
	PoolTimeout       time.Duration
	SQLiteSynchronous bool
}

// DeploySection holds the [deploy] options.
type DeploySection struct {
	// EraseDevicesPriority and EraseDevicesMetadataPriority override the
	// agent's priorities of those clean steps (nil: unset).
	EraseDevicesPriority         *int
	EraseDevicesMetadataPriority *int
	HTTPURL                      string
	HTTPRoot                     string
	ExternalHTTPURL              string
	ExternalCallbackURL          string
	DefaultBootMode              string
	ConfigdriveUseObjectStore    bool
	HTTPImageSubdir              string
	FastTrack                    bool
	FastTrackTimeout             time.Duration
	PowerOffAfterDeployFailure   bool
	RamdiskImageDownloadSource   string
	// The disk erasure options the agent gets for cleaning.
	ShredRandomOverwriteIterations int
	ShredFinalOverwriteWithZeros   bool
	ContinueIfDiskSecureEraseFails bool
	EnableNVMeSecureErase          bool
	EnableATASecureErase           bool
	DiskErasureConcurrency         int
}

// DHCPSection holds the [dhcp] options.
type DHCPSection struct {
	// DHCPProvider is "neutron" (default), "dnsmasq" or "none".
	DHCPProvider string
}

// FakeSection holds the [fake] options: how long the fake interfaces
// sleep in each operation, "<seconds>" or "<min>,<max>" (random in
// between); "0" (the default) is no delay.
type FakeSection struct {
	PowerDelay      string
	BootDelay       string
	DeployDelay     string
	VendorDelay     string
	ManagementDelay string
	InspectDelay    string
	RAIDDelay       string
	BIOSDelay       string
	StorageDelay    string
	RescueDelay     string
}

// GlanceSection holds the [glance] options.
type GlanceSection struct {
	ServiceAuth
	ServiceEndpoint
	NumRetries              int
	AllowedDirectURLSchemes []string
}

// HealthcheckSection holds the [healthcheck] options.
type HealthcheckSection struct {
	Enabled bool
	Path    string
}

// InspectorSection holds the [inspector] options.
type InspectorSection struct {
	ServiceAuth
	ServiceEndpoint
	PowerOff                 bool
	ExtraKernelParams        string
	StatusCheckPeriod        time.Duration
	RequireManagedBoot       bool
	CallbackEndpointOverride string
}

// InventorySection holds the [inventory] options.
type InventorySection struct {
	// DataBackend is "database" (default), "swift" or "none".
	DataBackend        string
	SwiftDataContainer string
}

// IPMISection holds the [ipmi] options.
type IPMISection struct {
	CommandRetryTimeout           time.Duration
	MinCommandInterval            time.Duration
	UseIPMIToolRetries            bool
	KillOnTimeout                 bool
	DisableBootTimeout            bool
	AdditionalRetryableIPMIErrors []string
	Debug                         bool
	CipherSuiteVersions           []string
}

// JSONRPCSection holds the [json_rpc] options.
type JSONRPCSection struct {
	ServiceAuth
	// AuthStrategy is "" (use [DEFAULT]auth_strategy), "noauth",
	// "keystone" or "http_basic".
	AuthStrategy          string
	HTTPBasicAuthUserFile string
	HostIP                string
	Port                  int
	UseSSL                bool
	HTTPBasicUsername     string
	HTTPBasicPassword     string
	AllowedRoles          []string
}

// KeystoneAuthtokenSection holds the [keystone_authtoken] options read by
// the API's token validation.
type KeystoneAuthtokenSection struct {
	WWWAuthenticateURI        string
	Interface                 string
	DelayAuthDecision         bool
	HTTPConnectTimeout        time.Duration
	HTTPRequestMaxRetries     int
	CAFile                    string
	CertFile                  string
	KeyFile                   string
	Insecure                  bool
	RegionName                string
	MemcachedServers          []string
	TokenCacheTime            time.Duration
	IncludeServiceCatalog     bool
	ServiceTokenRoles         []string
	ServiceTokenRolesRequired bool
	ServiceType               string
	// Credentials of the service user (password plugin).
	AuthType          string
	AuthURL           string
	Username          string
	UserID            string
	Password          string
	ProjectName       string
	ProjectID         string
	UserDomainName    string
	UserDomainID      string
	ProjectDomainName string
	ProjectDomainID   string
	SystemScope       string
}

// NeutronSection holds the [neutron] options.
type NeutronSection struct {
	ServiceAuth
	ServiceEndpoint
	CleaningNetwork                   string
	CleaningNetworkSecurityGroups     []string
	ProvisioningNetwork               string
	ProvisioningNetworkSecurityGroups []string
	RescuingNetwork                   string
	RescuingNetworkSecurityGroups     []string
	InspectionNetwork                 string
	InspectionNetworkSecurityGroups   []string
	PortSetupDelay                    time.Duration
	Retries                           int
	RequestTimeout                    time.Duration
	AddAllPorts                       bool
	DHCPv6StatefulAddressCount        int
}

// NovaSection holds the [nova] options.
type NovaSection struct {
	ServiceAuth
	ServiceEndpoint
	SendPowerNotifications bool
}

// OsloConcurrencySection holds the [oslo_concurrency] options.
type OsloConcurrencySection struct {
	LockPath              string
	DisableProcessLocking bool
}

// OsloMessagingNotificationsSection holds [oslo_messaging_notifications].
type OsloMessagingNotificationsSection struct {
	Driver       []string
	TransportURL string
	Topics       []string
	Retry        int
}

// OsloMessagingRabbitSection holds the [oslo_messaging_rabbit] options
// the AMQP transport uses.
type OsloMessagingRabbitSection struct {
	AMQPDurableQueues         bool
	AMQPAutoDelete            bool
	SSL                       bool
	SSLCAFile                 string
	SSLCertFile               string
	SSLKeyFile                string
	SSLVersion                string
	HeartbeatTimeoutThreshold time.Duration
	HeartbeatRate             int
	KombuReconnectDelay       time.Duration
	RabbitLoginMethod         string
	RabbitRetryInterval       time.Duration
	RabbitRetryBackoff        time.Duration
	RabbitIntervalMax         time.Duration
	RabbitHAQueues            bool
	RabbitQuorumQueue         bool
	RabbitTransientQueuesTTL  time.Duration
	RabbitQoSPrefetchCount    int
	DirectMandatoryFlag       bool
}

// OsloPolicySection holds the [oslo_policy] options.
type OsloPolicySection struct {
	EnforceScope       bool
	EnforceNewDefaults bool
	// PolicyFile is relative to the config files' directory unless
	// absolute (default "policy.yaml").
	PolicyFile        string
	PolicyDefaultRule string
	PolicyDirs        []string
}

// PXESection holds the [pxe] options.
type PXESection struct {
	// KernelAppendParams also reads the deprecated pxe_append_params.
	KernelAppendParams      string
	DefaultEphemeralFormat  string
	ImagesPath              string
	InstanceMasterPath      string
	ImageCacheSize          int // MiB
	ImageCacheTTL           int // minutes
	PXEConfigTemplate       string
	IPXEConfigTemplate      string
	UEFIPXEConfigTemplate   string
	PXEConfigTemplateByArch map[string]string
	TFTPServer              string
	TFTPRoot                string
	TFTPMasterPath          string
	// DirPermission is 0 when unset.
	DirPermission                  int
	FilePermission                 int
	PXEBootfileName                string
	PXEConfigSubdir                string
	UEFIPXEBootfileName            string
	IPXEBootfileName               string
	UEFIIPXEBootfileName           string
	PXEBootfileNameByArch          map[string]string
	IPXEBootfileNameByArch         map[string]string
	IPXEBootScript                 string
	IPXEFallbackScript             string
	IPXETimeout                    time.Duration
	BootRetryTimeout               time.Duration
	BootRetryCheckInterval         time.Duration
	IPVersion                      string
	IPXEUseSwift                   bool
	EnableNetbootFallback          bool
	LoaderFilePaths                map[string]string
	InitialGrubTemplate            string
	EnableInsecureTemplateOverride bool
}

// RedfishSection holds the [redfish] options.
type RedfishSection struct {
	ConnectionAttempts       int
	ConnectionRetryInterval  time.Duration
	ConnectionCacheSize      int
	AuthType                 string
	UseSwift                 bool
	SwiftContainer           string
	SwiftObjectExpiryTimeout time.Duration
	KernelAppendParams       string
	FilePermission           int
	FirmwareSource           string
}

// ServiceCatalogSection holds the [service_catalog] options, used to find
// this service's own public endpoint.
type ServiceCatalogSection struct {
	ServiceAuth
	ServiceEndpoint
}

// SwiftSection holds the [swift] options.
type SwiftSection struct {
	ServiceAuth
	ServiceEndpoint
	SwiftMaxRetries int
}
