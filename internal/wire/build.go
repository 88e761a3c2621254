package wire

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/apiv1"
	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/apiv1/policy"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/none"
)

// Registry builds the driver registry from the enabled_* options with
// every implementation this build has.
func Registry(cfg *conf.Config, log *slog.Logger) (*drivers.Registry, error) {
	ic := cfg.Interfaces()
	dc := drivers.Config{EnabledHardwareTypes: ic.EnabledHardwareTypes, Enabled: ic.Enabled, Default: ic.Default}
	fc, err := fakeConfig(cfg.Fake)
	if err != nil {
		return nil, err
	}
	var impls []drivers.Implementation
	impls = append(impls, fake.Implementations(fc)...)
	impls = append(impls, generic.Implementations()...)
	impls = append(impls, ipmi.Implementations(ipmi.Config{})...)
	impls = append(impls, redfish.Implementations(redfish.DefaultConfig())...)
	impls = append(impls, pxe.Implementations(pxeConfig(cfg, log))...)
	impls = append(impls, agent.Implementations(agentConfig(cfg, log))...)
	impls = append(impls, networkImplementations(cfg, log)...)
	impls = append(impls, storageImplementations(cfg, log)...)
	reg, err := drivers.NewRegistry(dc, impls...)
	if err != nil {
		return nil, err
	}
	ipxe, err := pxe.NewIPXEConfig(ipxeScriptConfig(cfg), log.With("component", "conductor"))
	if err != nil {
		return nil, err
	}
	return reg, reg.RegisterDriverMethod(ipxe)
}

// agentConfig is the agent-based interfaces' options.
func agentConfig(cfg *conf.Config, log *slog.Logger) agent.Config {
	ac := agent.DefaultConfig()
	ac.ManageAgentBoot = cfg.Agent.ManageAgentBoot
	ac.ImageDownloadSource = cfg.Agent.ImageDownloadSource
	ac.HTTPURL, ac.HTTPRoot, ac.HTTPImageSubdir = cfg.Deploy.HTTPURL, cfg.Deploy.HTTPRoot, cfg.Deploy.HTTPImageSubdir
	ac.FastTrack, ac.FastTrackTimeout = cfg.Deploy.FastTrack, cfg.Deploy.FastTrackTimeout
	ac.PostDeployPowerStateRetries = cfg.Agent.PostDeployGetPowerStateRetries
	ac.PostDeployPowerStateRetryInterval = cfg.Agent.PostDeployGetPowerStateRetryInterval
	d := cfg.Deploy
	ac.ShredRandomOverwriteIterations, ac.ShredFinalOverwriteWithZeros = d.ShredRandomOverwriteIterations, d.ShredFinalOverwriteWithZeros
	ac.ContinueIfDiskSecureEraseFails = d.ContinueIfDiskSecureEraseFails
	ac.EnableNVMeSecureErase, ac.EnableATASecureErase = d.EnableNVMeSecureErase, d.EnableATASecureErase
	ac.DiskErasureConcurrency = d.DiskErasureConcurrency
	ac.ImageHTTP = conductor.ImageHTTPClient(cfg.Default.WebserverVerifyCA, cfg.Default.WebserverConnectionTimeout)
	ac.StreamRawImages = cfg.Agent.StreamRawImages
	ac.DeployLogsCollect = cfg.Agent.DeployLogsCollect
	ac.DeployLogsStorageBackend, ac.DeployLogsLocalPath = cfg.Agent.DeployLogsStorageBackend, cfg.Agent.DeployLogsLocalPath
	ac.EraseDevicesPriority, ac.EraseDevicesMetadataPriority = d.EraseDevicesPriority, d.EraseDevicesMetadataPriority
	ac.DefaultBootMode = d.DefaultBootMode
	ac.AllowProvisioningInMaintenance = cfg.Conductor.AllowProvisioningInMaintenance
	ac.RequireRescuePasswordHashed = cfg.Conductor.RequireRescuePasswordHashed
	ac.Client = agent.NewClient(agent.ClientConfig{
		APIVersion: cfg.Agent.AgentAPIVersion, CommandTimeout: cfg.Agent.CommandTimeout,
		MaxCommandAttempts: cfg.Agent.MaxCommandAttempts, CommandWaitAttempts: cfg.Agent.CommandWaitAttempts,
		CommandWaitInterval: cfg.Agent.CommandWaitInterval, VerifyCA: cfg.Agent.VerifyCA,
	})
	ac.Log = log
	return ac
}

// pxeConfig is the pxe/ipxe boot interfaces' options.
func pxeConfig(cfg *conf.Config, log *slog.Logger) pxe.Config {
	pc := pxe.DefaultConfig()
	pc.DefaultBootMode = cfg.Deploy.DefaultBootMode
	pc.Log = log
	pc.HTTPURL, pc.HTTPRoot = cfg.Deploy.HTTPURL, cfg.Deploy.HTTPRoot
	pc.DeployKernel, pc.DeployRamdisk = cfg.Conductor.DeployKernel, cfg.Conductor.DeployRamdisk
	pc.RescueKernel, pc.RescueRamdisk = cfg.Conductor.RescueKernel, cfg.Conductor.RescueRamdisk
	pc.AutomatedClean = cfg.Conductor.AutomatedClean
	return pc
}

// ipxeScriptConfig is how the ipxe_config driver method renders scripts:
// the [deploy], [pxe], [conductor] and [service_catalog] options.
func ipxeScriptConfig(cfg *conf.Config) pxe.ScriptConfig {
	return pxe.ScriptConfig{
		HTTPURL:            cfg.Deploy.HTTPURL,
		KernelAppendParams: cfg.PXE.KernelAppendParams,
		IPXETimeout:        int(cfg.PXE.IPXETimeout / time.Second),
		APIURL:             strings.TrimRight(cfg.ServiceCatalog.EndpointOverride, "/"),
		Debug:              cfg.Default.Debug,
		DeployKernel:       cfg.Conductor.DeployKernel,
		DeployRamdisk:      cfg.Conductor.DeployRamdisk,
		RescueKernel:       cfg.Conductor.RescueKernel,
		RescueRamdisk:      cfg.Conductor.RescueRamdisk,
		NetbootFallback:    cfg.PXE.EnableNetbootFallback,
		IPXEUseSwift:       cfg.PXE.IPXEUseSwift,
	}
}

// fakeConfig is the fake interfaces' [fake] *_delay options.
func fakeConfig(s conf.FakeSection) (fake.Config, error) {
	var fc fake.Config
	for _, d := range []struct {
		name string
		val  string
		dst  *fake.Delay
	}{
		{"power_delay", s.PowerDelay, &fc.PowerDelay}, {"boot_delay", s.BootDelay, &fc.BootDelay},
		{"deploy_delay", s.DeployDelay, &fc.DeployDelay}, {"vendor_delay", s.VendorDelay, &fc.VendorDelay},
		{"management_delay", s.ManagementDelay, &fc.ManagementDelay}, {"inspect_delay", s.InspectDelay, &fc.InspectDelay},
		{"raid_delay", s.RAIDDelay, &fc.RAIDDelay}, {"bios_delay", s.BIOSDelay, &fc.BIOSDelay},
		{"storage_delay", s.StorageDelay, &fc.StorageDelay}, {"rescue_delay", s.RescueDelay, &fc.RescueDelay},
	} {
		v, err := fake.ParseDelay(d.val)
		if err != nil {
			return fc, fmt.Errorf("[fake]%s: %w", d.name, err)
		}
		*d.dst = v
	}
	return fc, nil
}

// Conductor builds the conductor of this host.
func Conductor(cfg *conf.Config, store *db.Store, reg *drivers.Registry, log *slog.Logger) *conductor.Manager {
	cc := cfg.Conductor
	clog := log.With("component", "conductor")
	if cfg.PXE.IPXEUseSwift {
		log.Warn("[pxe]ipxe_use_swift is set, but this service has no Glance client: iPXE scripts cannot name Swift temporary URLs for deploy and rescue images given as Glance images, " +
			"and such nodes get a script that reports it; give those images as http(s) URLs")
	}
	return conductor.New(conductor.Config{
		Host:                        cfg.Default.Host,
		Group:                       cfg.Conductor.ConductorGroup,
		HeartbeatInterval:           cfg.Conductor.HeartbeatInterval,
		NodeLockedRetryAttempts:     cfg.Conductor.NodeLockedRetryAttempts,
		NodeLockedRetryInterval:     cfg.Conductor.NodeLockedRetryInterval,
		AllowDeletingAvailableNodes: cfg.Conductor.AllowDeletingAvailableNodes,
		SoftPowerOffTimeout:         cfg.Conductor.SoftPowerOffTimeout,
		WorkersPoolSize:             cfg.Conductor.WorkersPoolSize,
		MaxConcurrentDeploy:         cc.MaxConcurrentDeploy,
		MaxConcurrentClean:          cc.MaxConcurrentClean,

		HeartbeatTimeout:               cc.HeartbeatTimeout,
		HashPartitionExponent:          cfg.Default.HashPartitionExponent,
		HashRingResetInterval:          cfg.Default.HashRingResetInterval,
		AutomatedClean:                 cc.AutomatedClean,
		AllowProvisioningInMaintenance: cc.AllowProvisioningInMaintenance,
		NodeHistory:                    cc.NodeHistory,
		SyncPowerStateInterval:         disabledIfZero(cc.SyncPowerStateInterval),
		ForcePowerStateDuringSync:      cc.ForcePowerStateDuringSync,
		PowerStateSyncMaxRetries:       cc.PowerStateSyncMaxRetries,
		PowerFailureRecoveryInterval:   disabledIfZero(cc.PowerFailureRecoveryInterval),
		SyncPowerStateWorkers:          cc.SyncPowerStateWorkers,
		PeriodicMaxWorkers:             cc.PeriodicMaxWorkers,
		CheckProvisionStateInterval:    disabledIfZero(cc.CheckProvisionStateInterval),
		CheckRescueStateInterval:       disabledIfZero(cc.CheckRescueStateInterval),
		DeployCallbackTimeout:          disabledIfZero(cc.DeployCallbackTimeout),
		CleanCallbackTimeout:           disabledIfZero(cc.CleanCallbackTimeout),
		InspectWaitTimeout:             disabledIfZero(cc.InspectWaitTimeout),
		RescueCallbackTimeout:          disabledIfZero(cc.RescueCallbackTimeout),
		SyncLocalStateInterval:         disabledIfZero(cc.SyncLocalStateInterval),
		CheckAllocationsInterval:       disabledIfZero(cc.CheckAllocationsInterval),

		ConfigdriveUseObjectStore:       cfg.Deploy.ConfigdriveUseObjectStore,
		AgentRequireTLS:                 cfg.Agent.RequireTLS,
		AgentCertificatesPath:           cfg.Agent.CertificatesPath,
		ConfigdriveSwiftContainer:       cc.ConfigdriveSwiftContainer,
		ConfigdriveSwiftTempURLDuration: cc.ConfigdriveSwiftTempURLDuration,
		ObjectStore:                     swiftClient(cfg, log),
		Configdrive:                     configdrive.Builder{Log: clog},
		ImageHTTP:                       conductor.ImageHTTPClient(cfg.Default.WebserverVerifyCA, cfg.Default.WebserverConnectionTimeout),
	}, store, reg, ironic.SystemClock{}, clog)
}

// disabledIfZero maps an option's 0 ("disabled" in ironic.conf) to the
// conductor's negative "disabled", since the conductor reads 0 as "use
// the default".
func disabledIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// rpcClient is the API's view of the conductors: calls plus routing.
type rpcClient struct {
	rpc.ConductorAPI
	*rpc.Router
}

// Policy builds the policy enforcer from [oslo_policy] and [DEFAULT]
// (auth_strategy, rbac_service_*). Its Watch picks up edited policy
// files.
func Policy(cfg *conf.Config, log *slog.Logger) (*policy.Enforcer, error) {
	return policy.New(policy.Config{
		EnforceScope:              cfg.OsloPolicy.EnforceScope,
		EnforceNewDefaults:        cfg.OsloPolicy.EnforceNewDefaults,
		PolicyFile:                cfg.OsloPolicy.PolicyFile,
		PolicyFileSet:             cfg.IsSet("oslo_policy", "policy_file"),
		PolicyDirs:                cfg.OsloPolicy.PolicyDirs,
		ConfigDirs:                policy.SearchDirs(nil, cfg.Files()),
		DefaultRule:               cfg.OsloPolicy.PolicyDefaultRule,
		AuthStrategy:              cfg.Default.AuthStrategy,
		ServiceRoleElevatedAccess: cfg.Default.RBACServiceRoleElevatedAccess,
		ServiceProjectName:        cfg.Default.RBACServiceProjectName,
	}, log.With("component", "policy"))
}

// API builds the REST API over store, reaching conductors through calls
// and authorizing with pol (nil: everything is allowed).
func API(cfg *conf.Config, store *db.Store, calls rpc.ConductorAPI, pol apiv1.Policy, log *slog.Logger) (*apiv1.API, error) {
	versions := microversions.Default()
	if cfg.Default.PinReleaseVersion != "" {
		max, ok := microversions.ReleaseMax(cfg.Default.PinReleaseVersion)
		if !ok {
			return nil, fmt.Errorf("[DEFAULT]pin_release_version %q is not a known release", cfg.Default.PinReleaseVersion)
		}
		versions.Max = max
	}
	router := rpc.NewRouter(rpc.RouterConfig{
		PartitionExponent: cfg.Default.HashPartitionExponent,
		ResetInterval:     cfg.Default.HashRingResetInterval,
		HeartbeatTimeout:  cfg.Conductor.HeartbeatTimeout,
	}, store, ironic.SystemClock{})
	ramdisk := apiv1.DefaultRamdiskConfig()
	ramdisk.EnableEndpoints = cfg.API.EnableRamdiskEndpoints
	ramdisk.RestrictLookup = cfg.API.RestrictLookup
	ramdisk.HeartbeatTimeout = int(cfg.API.RamdiskHeartbeatTimeout.Seconds())
	ramdisk.FastTrack = cfg.Deploy.FastTrack
	return apiv1.New(apiv1.Config{
		Ramdisk:                       ramdisk,
		PublicEndpoint:                cfg.API.PublicEndpoint,
		MaxLimit:                      cfg.API.MaxLimit,
		Versions:                      versions,
		DefaultResourceClass:          cfg.Default.DefaultResourceClass,
		DefaultPortgroupMode:          cfg.Default.DefaultPortgroupMode,
		HeartbeatTimeout:              int(cfg.Conductor.HeartbeatTimeout.Seconds()),
		Hostname:                      cfg.Default.Host,
		ProjectAdminCanManageOwnNodes: cfg.API.ProjectAdminCanManageOwnNodes,
		EnforceNewDefaults:            cfg.OsloPolicy.EnforceNewDefaults,
	}, apiv1.Deps{
		Store:     store,
		Conductor: rpcClient{ConductorAPI: calls, Router: router},
		Policy:    pol,
		Log:       log.With("component", "api"),
	})
}

// InProcess is the conductor API of rpc_transport = none: cond serves the
// calls in this process, each one written and read through the
// oslo.messaging codec (see rpc/none).
func InProcess(cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) rpc.ConductorAPI {
	return none.New(cond, store, log.With("component", "rpc"))
}

// AuthConfig is the authentication's configuration: [DEFAULT]auth_strategy,
// http_basic_auth_user_file and [keystone_authtoken].
func AuthConfig(cfg *conf.Config) auth.Config {
	k := cfg.KeystoneAuthtoken
	return auth.Config{
		Strategy:              auth.Strategy(cfg.Default.AuthStrategy),
		HTTPBasicAuthUserFile: cfg.Default.HTTPBasicAuthUserFile,
		Keystone: auth.KeystoneConfig{
			WWWAuthenticateURI: k.WWWAuthenticateURI,
			AuthType:           k.AuthType, AuthURL: k.AuthURL,
			Username: k.Username, UserID: k.UserID, Password: k.Password,
			UserDomainName: k.UserDomainName, UserDomainID: k.UserDomainID,
			ProjectName: k.ProjectName, ProjectID: k.ProjectID,
			ProjectDomainName: k.ProjectDomainName, ProjectDomainID: k.ProjectDomainID,
			SystemScope: k.SystemScope, Interface: k.Interface, RegionName: k.RegionName,
			TokenCacheTime:            k.TokenCacheTime,
			ServiceTokenRoles:         k.ServiceTokenRoles,
			ServiceTokenRolesRequired: k.ServiceTokenRolesRequired,
			ServiceType:               k.ServiceType,
			DelayAuthDecision:         k.DelayAuthDecision,
			IncludeServiceCatalog:     k.IncludeServiceCatalog,
			HTTPConnectTimeout:        k.HTTPConnectTimeout,
			HTTPRequestMaxRetries:     k.HTTPRequestMaxRetries,
			CAFile:                    k.CAFile, CertFile: k.CertFile, KeyFile: k.KeyFile, Insecure: k.Insecure,
		},
	}
}

// Authenticated puts the [DEFAULT]auth_strategy middleware in front of
// the API. Its errors are Ironic's start-up errors (e.g. an unreadable
// http_basic_auth_user_file).
func Authenticated(cfg *conf.Config, api http.Handler, log *slog.Logger) (http.Handler, error) {
	l := log.With("component", "auth")
	if len(cfg.KeystoneAuthtoken.MemcachedServers) > 0 && cfg.Default.AuthStrategy == string(auth.Keystone) {
		l.Info("[keystone_authtoken]memcached_servers is ignored: validated tokens are cached in-process")
	}
	m, err := auth.New(AuthConfig(cfg), auth.Deps{Log: l})
	if err != nil {
		return nil, err
	}
	return m.Handler(api), nil
}
