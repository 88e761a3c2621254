package conf

// binder returns a pointer to the Config field an option is read into.
// The pointer's type must suit the option's Type:
//
//	*string             String, HostAddress, IPAddress
//	*int                Integer, Port, Octal
//	*float64            Float
//	*bool               Boolean
//	*[]string           List, MultiString
//	*map[string]string  Dict
//	*time.Duration      Integer or Float, counted in seconds
type binder func(*Config) any

// bindings maps "section.name" to the Config field that holds the option.
// An option present here is Implemented; TestBindings checks every entry
// against the option table.
func bindings() map[string]binder {
	b := map[string]binder{
		// [DEFAULT]
		"DEFAULT.host":                              func(c *Config) any { return &c.Default.Host },
		"DEFAULT.auth_strategy":                     func(c *Config) any { return &c.Default.AuthStrategy },
		"DEFAULT.http_basic_auth_user_file":         func(c *Config) any { return &c.Default.HTTPBasicAuthUserFile },
		"DEFAULT.debug_tracebacks_in_api":           func(c *Config) any { return &c.Default.DebugTracebacksInAPI },
		"DEFAULT.default_resource_class":            func(c *Config) any { return &c.Default.DefaultResourceClass },
		"DEFAULT.enabled_hardware_types":            func(c *Config) any { return &c.Default.EnabledHardwareTypes },
		"DEFAULT.enabled_bios_interfaces":           func(c *Config) any { return &c.Default.EnabledBIOSInterfaces },
		"DEFAULT.enabled_boot_interfaces":           func(c *Config) any { return &c.Default.EnabledBootInterfaces },
		"DEFAULT.enabled_console_interfaces":        func(c *Config) any { return &c.Default.EnabledConsoleInterfaces },
		"DEFAULT.enabled_deploy_interfaces":         func(c *Config) any { return &c.Default.EnabledDeployInterfaces },
		"DEFAULT.enabled_inspect_interfaces":        func(c *Config) any { return &c.Default.EnabledInspectInterfaces },
		"DEFAULT.enabled_management_interfaces":     func(c *Config) any { return &c.Default.EnabledManagementInterfaces },
		"DEFAULT.enabled_network_interfaces":        func(c *Config) any { return &c.Default.EnabledNetworkInterfaces },
		"DEFAULT.enabled_power_interfaces":          func(c *Config) any { return &c.Default.EnabledPowerInterfaces },
		"DEFAULT.enabled_raid_interfaces":           func(c *Config) any { return &c.Default.EnabledRAIDInterfaces },
		"DEFAULT.enabled_rescue_interfaces":         func(c *Config) any { return &c.Default.EnabledRescueInterfaces },
		"DEFAULT.enabled_storage_interfaces":        func(c *Config) any { return &c.Default.EnabledStorageInterfaces },
		"DEFAULT.enabled_vendor_interfaces":         func(c *Config) any { return &c.Default.EnabledVendorInterfaces },
		"DEFAULT.default_bios_interface":            func(c *Config) any { return &c.Default.DefaultBIOSInterface },
		"DEFAULT.default_boot_interface":            func(c *Config) any { return &c.Default.DefaultBootInterface },
		"DEFAULT.default_console_interface":         func(c *Config) any { return &c.Default.DefaultConsoleInterface },
		"DEFAULT.default_deploy_interface":          func(c *Config) any { return &c.Default.DefaultDeployInterface },
		"DEFAULT.default_inspect_interface":         func(c *Config) any { return &c.Default.DefaultInspectInterface },
		"DEFAULT.default_management_interface":      func(c *Config) any { return &c.Default.DefaultManagementInterface },
		"DEFAULT.default_network_interface":         func(c *Config) any { return &c.Default.DefaultNetworkInterface },
		"DEFAULT.default_power_interface":           func(c *Config) any { return &c.Default.DefaultPowerInterface },
		"DEFAULT.default_raid_interface":            func(c *Config) any { return &c.Default.DefaultRAIDInterface },
		"DEFAULT.default_rescue_interface":          func(c *Config) any { return &c.Default.DefaultRescueInterface },
		"DEFAULT.default_storage_interface":         func(c *Config) any { return &c.Default.DefaultStorageInterface },
		"DEFAULT.default_vendor_interface":          func(c *Config) any { return &c.Default.DefaultVendorInterface },
		"DEFAULT.log_in_db_max_size":                func(c *Config) any { return &c.Default.LogInDBMaxSize },
		"DEFAULT.hash_partition_exponent":           func(c *Config) any { return &c.Default.HashPartitionExponent },
		"DEFAULT.hash_ring_reset_interval":          func(c *Config) any { return &c.Default.HashRingResetInterval },
		"DEFAULT.hash_ring_algorithm":               func(c *Config) any { return &c.Default.HashRingAlgorithm },
		"DEFAULT.webserver_verify_ca":               func(c *Config) any { return &c.Default.WebserverVerifyCA },
		"DEFAULT.webserver_connection_timeout":      func(c *Config) any { return &c.Default.WebserverConnectionTimeout },
		"DEFAULT.force_raw_images":                  func(c *Config) any { return &c.Default.ForceRawImages },
		"DEFAULT.my_ip":                             func(c *Config) any { return &c.Default.MyIP },
		"DEFAULT.my_ipv6":                           func(c *Config) any { return &c.Default.MyIPv6 },
		"DEFAULT.notification_level":                func(c *Config) any { return &c.Default.NotificationLevel },
		"DEFAULT.versioned_notifications_topics":    func(c *Config) any { return &c.Default.VersionedNotificationsTopics },
		"DEFAULT.pybasedir":                         func(c *Config) any { return &c.Default.PyBaseDir },
		"DEFAULT.state_path":                        func(c *Config) any { return &c.Default.StatePath },
		"DEFAULT.default_portgroup_mode":            func(c *Config) any { return &c.Default.DefaultPortgroupMode },
		"DEFAULT.pin_release_version":               func(c *Config) any { return &c.Default.PinReleaseVersion },
		"DEFAULT.rpc_transport":                     func(c *Config) any { return &c.Default.RPCTransport },
		"DEFAULT.tempdir":                           func(c *Config) any { return &c.Default.TempDir },
		"DEFAULT.rbac_service_role_elevated_access": func(c *Config) any { return &c.Default.RBACServiceRoleElevatedAccess },
		"DEFAULT.rbac_service_project_name":         func(c *Config) any { return &c.Default.RBACServiceProjectName },
		"DEFAULT.transport_url":                     func(c *Config) any { return &c.Default.TransportURL },
		"DEFAULT.control_exchange":                  func(c *Config) any { return &c.Default.ControlExchange },
		"DEFAULT.rpc_response_timeout":              func(c *Config) any { return &c.Default.RPCResponseTimeout },
		"DEFAULT.debug":                             func(c *Config) any { return &c.Default.Debug },
		"DEFAULT.log_file":                          func(c *Config) any { return &c.Default.LogFile },
		"DEFAULT.log_dir":                           func(c *Config) any { return &c.Default.LogDir },
		"DEFAULT.use_stderr":                        func(c *Config) any { return &c.Default.UseStderr },
		"DEFAULT.use_json":                          func(c *Config) any { return &c.Default.UseJSON },
		"DEFAULT.graceful_shutdown_timeout":         func(c *Config) any { return &c.Default.GracefulShutdownTimeout },

		// [api]
		"api.host_ip":                            func(c *Config) any { return &c.API.HostIP },
		"api.port":                               func(c *Config) any { return &c.API.Port },
		"api.unix_socket":                        func(c *Config) any { return &c.API.UnixSocket },
		"api.unix_socket_mode":                   func(c *Config) any { return &c.API.UnixSocketMode },
		"api.max_limit":                          func(c *Config) any { return &c.API.MaxLimit },
		"api.public_endpoint":                    func(c *Config) any { return &c.API.PublicEndpoint },
		"api.api_workers":                        func(c *Config) any { return &c.API.APIWorkers },
		"api.enable_ssl_api":                     func(c *Config) any { return &c.API.EnableSSLAPI },
		"api.enable_ramdisk_endpoints":           func(c *Config) any { return &c.API.EnableRamdiskEndpoints },
		"api.restrict_lookup":                    func(c *Config) any { return &c.API.RestrictLookup },
		"api.ramdisk_heartbeat_timeout":          func(c *Config) any { return &c.API.RamdiskHeartbeatTimeout },
		"api.network_data_schema":                func(c *Config) any { return &c.API.NetworkDataSchema },
		"api.project_admin_can_manage_own_nodes": func(c *Config) any { return &c.API.ProjectAdminCanManageOwnNodes },

		// [agent]
		"agent.manage_agent_boot":                          func(c *Config) any { return &c.Agent.ManageAgentBoot },
		"agent.memory_consumed_by_agent":                   func(c *Config) any { return &c.Agent.MemoryConsumedByAgent },
		"agent.stream_raw_images":                          func(c *Config) any { return &c.Agent.StreamRawImages },
		"agent.post_deploy_get_power_state_retries":        func(c *Config) any { return &c.Agent.PostDeployGetPowerStateRetries },
		"agent.post_deploy_get_power_state_retry_interval": func(c *Config) any { return &c.Agent.PostDeployGetPowerStateRetryInterval },
		"agent.agent_api_version":                          func(c *Config) any { return &c.Agent.AgentAPIVersion },
		"agent.deploy_logs_collect":                        func(c *Config) any { return &c.Agent.DeployLogsCollect },
		"agent.deploy_logs_storage_backend":                func(c *Config) any { return &c.Agent.DeployLogsStorageBackend },
		"agent.deploy_logs_local_path":                     func(c *Config) any { return &c.Agent.DeployLogsLocalPath },
		"agent.image_download_source":                      func(c *Config) any { return &c.Agent.ImageDownloadSource },
		"agent.command_timeout":                            func(c *Config) any { return &c.Agent.CommandTimeout },
		"agent.max_command_attempts":                       func(c *Config) any { return &c.Agent.MaxCommandAttempts },
		"agent.command_wait_attempts":                      func(c *Config) any { return &c.Agent.CommandWaitAttempts },
		"agent.command_wait_interval":                      func(c *Config) any { return &c.Agent.CommandWaitInterval },
		"agent.require_tls":                                func(c *Config) any { return &c.Agent.RequireTLS },
		"agent.certificates_path":                          func(c *Config) any { return &c.Agent.CertificatesPath },
		"agent.verify_ca":                                  func(c *Config) any { return &c.Agent.VerifyCA },
		"agent.api_ca_file":                                func(c *Config) any { return &c.Agent.APICAFile },
		"agent.neutron_agent_max_attempts":                 func(c *Config) any { return &c.Agent.NeutronAgentMaxAttempts },
		"agent.neutron_agent_status_retry_interval":        func(c *Config) any { return &c.Agent.NeutronAgentStatusRetryInterval },

		// [cinder]
		"cinder.action_retries":        func(c *Config) any { return &c.Cinder.ActionRetries },
		"cinder.action_retry_interval": func(c *Config) any { return &c.Cinder.ActionRetryInterval },
		"cinder.retries":               func(c *Config) any { return &c.Cinder.Retries },

		// [conductor]
		"conductor.workers_pool_size":                 func(c *Config) any { return &c.Conductor.WorkersPoolSize },
		"conductor.heartbeat_interval":                func(c *Config) any { return &c.Conductor.HeartbeatInterval },
		"conductor.heartbeat_timeout":                 func(c *Config) any { return &c.Conductor.HeartbeatTimeout },
		"conductor.sync_power_state_interval":         func(c *Config) any { return &c.Conductor.SyncPowerStateInterval },
		"conductor.check_provision_state_interval":    func(c *Config) any { return &c.Conductor.CheckProvisionStateInterval },
		"conductor.check_rescue_state_interval":       func(c *Config) any { return &c.Conductor.CheckRescueStateInterval },
		"conductor.check_allocations_interval":        func(c *Config) any { return &c.Conductor.CheckAllocationsInterval },
		"conductor.deploy_callback_timeout":           func(c *Config) any { return &c.Conductor.DeployCallbackTimeout },
		"conductor.force_power_state_during_sync":     func(c *Config) any { return &c.Conductor.ForcePowerStateDuringSync },
		"conductor.power_state_sync_max_retries":      func(c *Config) any { return &c.Conductor.PowerStateSyncMaxRetries },
		"conductor.sync_power_state_workers":          func(c *Config) any { return &c.Conductor.SyncPowerStateWorkers },
		"conductor.periodic_max_workers":              func(c *Config) any { return &c.Conductor.PeriodicMaxWorkers },
		"conductor.node_locked_retry_attempts":        func(c *Config) any { return &c.Conductor.NodeLockedRetryAttempts },
		"conductor.node_locked_retry_interval":        func(c *Config) any { return &c.Conductor.NodeLockedRetryInterval },
		"conductor.sync_local_state_interval":         func(c *Config) any { return &c.Conductor.SyncLocalStateInterval },
		"conductor.inspect_wait_timeout":              func(c *Config) any { return &c.Conductor.InspectWaitTimeout },
		"conductor.automated_clean":                   func(c *Config) any { return &c.Conductor.AutomatedClean },
		"conductor.allow_provisioning_in_maintenance": func(c *Config) any { return &c.Conductor.AllowProvisioningInMaintenance },
		"conductor.require_rescue_password_hashed":    func(c *Config) any { return &c.Conductor.RequireRescuePasswordHashed },
		"conductor.clean_callback_timeout":            func(c *Config) any { return &c.Conductor.CleanCallbackTimeout },
		"conductor.rescue_callback_timeout":           func(c *Config) any { return &c.Conductor.RescueCallbackTimeout },
		"conductor.soft_power_off_timeout":            func(c *Config) any { return &c.Conductor.SoftPowerOffTimeout },
		"conductor.power_state_change_timeout":        func(c *Config) any { return &c.Conductor.PowerStateChangeTimeout },
		"conductor.power_failure_recovery_interval":   func(c *Config) any { return &c.Conductor.PowerFailureRecoveryInterval },
		"conductor.conductor_group":                   func(c *Config) any { return &c.Conductor.ConductorGroup },
		"conductor.allow_deleting_available_nodes":    func(c *Config) any { return &c.Conductor.AllowDeletingAvailableNodes },
		"conductor.deploy_kernel":                     func(c *Config) any { return &c.Conductor.DeployKernel },
		"conductor.deploy_ramdisk":                    func(c *Config) any { return &c.Conductor.DeployRamdisk },
		"conductor.rescue_kernel":                     func(c *Config) any { return &c.Conductor.RescueKernel },
		"conductor.rescue_ramdisk":                    func(c *Config) any { return &c.Conductor.RescueRamdisk },
		"conductor.node_history":                      func(c *Config) any { return &c.Conductor.NodeHistory },
		"conductor.node_history_max_entries":          func(c *Config) any { return &c.Conductor.NodeHistoryMaxEntries },
		"conductor.node_history_cleanup_interval":     func(c *Config) any { return &c.Conductor.NodeHistoryCleanupInterval },
		"conductor.node_history_cleanup_batch_count":  func(c *Config) any { return &c.Conductor.NodeHistoryCleanupBatchCount },
		"conductor.node_history_minimum_days":         func(c *Config) any { return &c.Conductor.NodeHistoryMinimumDays },
		"conductor.automatic_lessee":                  func(c *Config) any { return &c.Conductor.AutomaticLessee },
		"conductor.max_concurrent_deploy":             func(c *Config) any { return &c.Conductor.MaxConcurrentDeploy },
		"conductor.max_concurrent_clean":              func(c *Config) any { return &c.Conductor.MaxConcurrentClean },
		"conductor.clean_step_priority_override":      func(c *Config) any { return &c.Conductor.CleanStepPriorityOverride },

		"conductor.configdrive_swift_container":         func(c *Config) any { return &c.Conductor.ConfigdriveSwiftContainer },
		"conductor.configdrive_swift_temp_url_duration": func(c *Config) any { return &c.Conductor.ConfigdriveSwiftTempURLDuration },

		// [console]
		"console.terminal":                     func(c *Config) any { return &c.Console.Terminal },
		"console.terminal_cert_dir":            func(c *Config) any { return &c.Console.TerminalCertDir },
		"console.terminal_pid_dir":             func(c *Config) any { return &c.Console.TerminalPIDDir },
		"console.terminal_timeout":             func(c *Config) any { return &c.Console.TerminalTimeout },
		"console.subprocess_checking_interval": func(c *Config) any { return &c.Console.SubprocessCheckingInterval },
		"console.subprocess_timeout":           func(c *Config) any { return &c.Console.SubprocessTimeout },
		"console.kill_timeout":                 func(c *Config) any { return &c.Console.KillTimeout },
		"console.socat_address":                func(c *Config) any { return &c.Console.SocatAddress },
		"console.port_range":                   func(c *Config) any { return &c.Console.PortRange },

		// [database]
		"database.connection":              func(c *Config) any { return &c.Database.Connection },
		"database.slave_connection":        func(c *Config) any { return &c.Database.SlaveConnection },
		"database.mysql_sql_mode":          func(c *Config) any { return &c.Database.MySQLSQLMode },
		"database.mysql_engine":            func(c *Config) any { return &c.Database.MySQLEngine },
		"database.connection_recycle_time": func(c *Config) any { return &c.Database.ConnectionRecycleTime },
		"database.max_pool_size":           func(c *Config) any { return &c.Database.MaxPoolSize },
		"database.max_overflow":            func(c *Config) any { return &c.Database.MaxOverflow },
		"database.max_retries":             func(c *Config) any { return &c.Database.MaxRetries },
		"database.retry_interval":          func(c *Config) any { return &c.Database.RetryInterval },
		"database.pool_timeout":            func(c *Config) any { return &c.Database.PoolTimeout },
		"database.sqlite_synchronous":      func(c *Config) any { return &c.Database.SQLiteSynchronous },

		// [deploy]
		"deploy.http_url":                            func(c *Config) any { return &c.Deploy.HTTPURL },
		"deploy.http_root":                           func(c *Config) any { return &c.Deploy.HTTPRoot },
		"deploy.external_http_url":                   func(c *Config) any { return &c.Deploy.ExternalHTTPURL },
		"deploy.external_callback_url":               func(c *Config) any { return &c.Deploy.ExternalCallbackURL },
		"deploy.default_boot_mode":                   func(c *Config) any { return &c.Deploy.DefaultBootMode },
		"deploy.configdrive_use_object_store":        func(c *Config) any { return &c.Deploy.ConfigdriveUseObjectStore },
		"deploy.http_image_subdir":                   func(c *Config) any { return &c.Deploy.HTTPImageSubdir },
		"deploy.fast_track":                          func(c *Config) any { return &c.Deploy.FastTrack },
		"deploy.fast_track_timeout":                  func(c *Config) any { return &c.Deploy.FastTrackTimeout },
		"deploy.power_off_after_deploy_failure":      func(c *Config) any { return &c.Deploy.PowerOffAfterDeployFailure },
		"deploy.ramdisk_image_download_source":       func(c *Config) any { return &c.Deploy.RamdiskImageDownloadSource },
		"deploy.shred_random_overwrite_iterations":   func(c *Config) any { return &c.Deploy.ShredRandomOverwriteIterations },
		"deploy.shred_final_overwrite_with_zeros":    func(c *Config) any { return &c.Deploy.ShredFinalOverwriteWithZeros },
		"deploy.continue_if_disk_secure_erase_fails": func(c *Config) any { return &c.Deploy.ContinueIfDiskSecureEraseFails },
		"deploy.enable_nvme_secure_erase":            func(c *Config) any { return &c.Deploy.EnableNVMeSecureErase },
		"deploy.enable_ata_secure_erase":             func(c *Config) any { return &c.Deploy.EnableATASecureErase },
		"deploy.disk_erasure_concurrency":            func(c *Config) any { return &c.Deploy.DiskErasureConcurrency },
		"deploy.erase_devices_priority":              func(c *Config) any { return &c.Deploy.EraseDevicesPriority },
		"deploy.erase_devices_metadata_priority":     func(c *Config) any { return &c.Deploy.EraseDevicesMetadataPriority },

		// [dhcp]
		"dhcp.dhcp_provider": func(c *Config) any { return &c.DHCP.DHCPProvider },

		// [fake]
		"fake.power_delay":      func(c *Config) any { return &c.Fake.PowerDelay },
		"fake.boot_delay":       func(c *Config) any { return &c.Fake.BootDelay },
		"fake.deploy_delay":     func(c *Config) any { return &c.Fake.DeployDelay },
		"fake.vendor_delay":     func(c *Config) any { return &c.Fake.VendorDelay },
		"fake.management_delay": func(c *Config) any { return &c.Fake.ManagementDelay },
		"fake.inspect_delay":    func(c *Config) any { return &c.Fake.InspectDelay },
		"fake.raid_delay":       func(c *Config) any { return &c.Fake.RAIDDelay },
		"fake.bios_delay":       func(c *Config) any { return &c.Fake.BIOSDelay },
		"fake.storage_delay":    func(c *Config) any { return &c.Fake.StorageDelay },
		"fake.rescue_delay":     func(c *Config) any { return &c.Fake.RescueDelay },

		// [glance]
		"glance.num_retries":                func(c *Config) any { return &c.Glance.NumRetries },
		"glance.allowed_direct_url_schemes": func(c *Config) any { return &c.Glance.AllowedDirectURLSchemes },

		// [healthcheck]
		"healthcheck.enabled": func(c *Config) any { return &c.Healthcheck.Enabled },
		"healthcheck.path":    func(c *Config) any { return &c.Healthcheck.Path },

		// [inspector]
		"inspector.power_off":                  func(c *Config) any { return &c.Inspector.PowerOff },
		"inspector.extra_kernel_params":        func(c *Config) any { return &c.Inspector.ExtraKernelParams },
		"inspector.status_check_period":        func(c *Config) any { return &c.Inspector.StatusCheckPeriod },
		"inspector.require_managed_boot":       func(c *Config) any { return &c.Inspector.RequireManagedBoot },
		"inspector.callback_endpoint_override": func(c *Config) any { return &c.Inspector.CallbackEndpointOverride },

		// [inventory]
		"inventory.data_backend":         func(c *Config) any { return &c.Inventory.DataBackend },
		"inventory.swift_data_container": func(c *Config) any { return &c.Inventory.SwiftDataContainer },

		// [ipmi]
		"ipmi.command_retry_timeout":            func(c *Config) any { return &c.IPMI.CommandRetryTimeout },
		"ipmi.min_command_interval":             func(c *Config) any { return &c.IPMI.MinCommandInterval },
		"ipmi.use_ipmitool_retries":             func(c *Config) any { return &c.IPMI.UseIPMIToolRetries },
		"ipmi.kill_on_timeout":                  func(c *Config) any { return &c.IPMI.KillOnTimeout },
		"ipmi.disable_boot_timeout":             func(c *Config) any { return &c.IPMI.DisableBootTimeout },
		"ipmi.additional_retryable_ipmi_errors": func(c *Config) any { return &c.IPMI.AdditionalRetryableIPMIErrors },
		"ipmi.debug":                            func(c *Config) any { return &c.IPMI.Debug },
		"ipmi.cipher_suite_versions":            func(c *Config) any { return &c.IPMI.CipherSuiteVersions },

		// [json_rpc]
		"json_rpc.auth_strategy":             func(c *Config) any { return &c.JSONRPC.AuthStrategy },
		"json_rpc.http_basic_auth_user_file": func(c *Config) any { return &c.JSONRPC.HTTPBasicAuthUserFile },
		"json_rpc.host_ip":                   func(c *Config) any { return &c.JSONRPC.HostIP },
		"json_rpc.port":                      func(c *Config) any { return &c.JSONRPC.Port },
		"json_rpc.use_ssl":                   func(c *Config) any { return &c.JSONRPC.UseSSL },
		"json_rpc.http_basic_username":       func(c *Config) any { return &c.JSONRPC.HTTPBasicUsername },
		"json_rpc.http_basic_password":       func(c *Config) any { return &c.JSONRPC.HTTPBasicPassword },
		"json_rpc.allowed_roles":             func(c *Config) any { return &c.JSONRPC.AllowedRoles },

		// [keystone_authtoken]
		"keystone_authtoken.www_authenticate_uri":         func(c *Config) any { return &c.KeystoneAuthtoken.WWWAuthenticateURI },
		"keystone_authtoken.interface":                    func(c *Config) any { return &c.KeystoneAuthtoken.Interface },
		"keystone_authtoken.delay_auth_decision":          func(c *Config) any { return &c.KeystoneAuthtoken.DelayAuthDecision },
		"keystone_authtoken.http_connect_timeout":         func(c *Config) any { return &c.KeystoneAuthtoken.HTTPConnectTimeout },
		"keystone_authtoken.http_request_max_retries":     func(c *Config) any { return &c.KeystoneAuthtoken.HTTPRequestMaxRetries },
		"keystone_authtoken.cafile":                       func(c *Config) any { return &c.KeystoneAuthtoken.CAFile },
		"keystone_authtoken.certfile":                     func(c *Config) any { return &c.KeystoneAuthtoken.CertFile },
		"keystone_authtoken.keyfile":                      func(c *Config) any { return &c.KeystoneAuthtoken.KeyFile },
		"keystone_authtoken.insecure":                     func(c *Config) any { return &c.KeystoneAuthtoken.Insecure },
		"keystone_authtoken.region_name":                  func(c *Config) any { return &c.KeystoneAuthtoken.RegionName },
		"keystone_authtoken.memcached_servers":            func(c *Config) any { return &c.KeystoneAuthtoken.MemcachedServers },
		"keystone_authtoken.token_cache_time":             func(c *Config) any { return &c.KeystoneAuthtoken.TokenCacheTime },
		"keystone_authtoken.include_service_catalog":      func(c *Config) any { return &c.KeystoneAuthtoken.IncludeServiceCatalog },
		"keystone_authtoken.service_token_roles":          func(c *Config) any { return &c.KeystoneAuthtoken.ServiceTokenRoles },
		"keystone_authtoken.service_token_roles_required": func(c *Config) any { return &c.KeystoneAuthtoken.ServiceTokenRolesRequired },
		"keystone_authtoken.service_type":                 func(c *Config) any { return &c.KeystoneAuthtoken.ServiceType },
		"keystone_authtoken.auth_type":                    func(c *Config) any { return &c.KeystoneAuthtoken.AuthType },
		"keystone_authtoken.auth_url":                     func(c *Config) any { return &c.KeystoneAuthtoken.AuthURL },
		"keystone_authtoken.username":                     func(c *Config) any { return &c.KeystoneAuthtoken.Username },
		"keystone_authtoken.user_id":                      func(c *Config) any { return &c.KeystoneAuthtoken.UserID },
		"keystone_authtoken.password":                     func(c *Config) any { return &c.KeystoneAuthtoken.Password },
		"keystone_authtoken.project_name":                 func(c *Config) any { return &c.KeystoneAuthtoken.ProjectName },
		"keystone_authtoken.project_id":                   func(c *Config) any { return &c.KeystoneAuthtoken.ProjectID },
		"keystone_authtoken.user_domain_name":             func(c *Config) any { return &c.KeystoneAuthtoken.UserDomainName },
		"keystone_authtoken.user_domain_id":               func(c *Config) any { return &c.KeystoneAuthtoken.UserDomainID },
		"keystone_authtoken.project_domain_name":          func(c *Config) any { return &c.KeystoneAuthtoken.ProjectDomainName },
		"keystone_authtoken.project_domain_id":            func(c *Config) any { return &c.KeystoneAuthtoken.ProjectDomainID },
		"keystone_authtoken.system_scope":                 func(c *Config) any { return &c.KeystoneAuthtoken.SystemScope },

		// [neutron]
		"neutron.cleaning_network":                     func(c *Config) any { return &c.Neutron.CleaningNetwork },
		"neutron.cleaning_network_security_groups":     func(c *Config) any { return &c.Neutron.CleaningNetworkSecurityGroups },
		"neutron.provisioning_network":                 func(c *Config) any { return &c.Neutron.ProvisioningNetwork },
		"neutron.provisioning_network_security_groups": func(c *Config) any { return &c.Neutron.ProvisioningNetworkSecurityGroups },
		"neutron.rescuing_network":                     func(c *Config) any { return &c.Neutron.RescuingNetwork },
		"neutron.rescuing_network_security_groups":     func(c *Config) any { return &c.Neutron.RescuingNetworkSecurityGroups },
		"neutron.inspection_network":                   func(c *Config) any { return &c.Neutron.InspectionNetwork },
		"neutron.inspection_network_security_groups":   func(c *Config) any { return &c.Neutron.InspectionNetworkSecurityGroups },
		"neutron.port_setup_delay":                     func(c *Config) any { return &c.Neutron.PortSetupDelay },
		"neutron.retries":                              func(c *Config) any { return &c.Neutron.Retries },
		"neutron.request_timeout":                      func(c *Config) any { return &c.Neutron.RequestTimeout },
		"neutron.add_all_ports":                        func(c *Config) any { return &c.Neutron.AddAllPorts },
		"neutron.dhcpv6_stateful_address_count":        func(c *Config) any { return &c.Neutron.DHCPv6StatefulAddressCount },

		// [nova]
		"nova.send_power_notifications": func(c *Config) any { return &c.Nova.SendPowerNotifications },

		// [oslo_concurrency]
		"oslo_concurrency.lock_path":               func(c *Config) any { return &c.OsloConcurrency.LockPath },
		"oslo_concurrency.disable_process_locking": func(c *Config) any { return &c.OsloConcurrency.DisableProcessLocking },

		// [oslo_messaging_notifications]
		"oslo_messaging_notifications.driver":        func(c *Config) any { return &c.OsloMessagingNotifications.Driver },
		"oslo_messaging_notifications.transport_url": func(c *Config) any { return &c.OsloMessagingNotifications.TransportURL },
		"oslo_messaging_notifications.topics":        func(c *Config) any { return &c.OsloMessagingNotifications.Topics },
		"oslo_messaging_notifications.retry":         func(c *Config) any { return &c.OsloMessagingNotifications.Retry },

		// [oslo_messaging_rabbit]
		"oslo_messaging_rabbit.amqp_durable_queues":         func(c *Config) any { return &c.OsloMessagingRabbit.AMQPDurableQueues },
		"oslo_messaging_rabbit.amqp_auto_delete":            func(c *Config) any { return &c.OsloMessagingRabbit.AMQPAutoDelete },
		"oslo_messaging_rabbit.ssl":                         func(c *Config) any { return &c.OsloMessagingRabbit.SSL },
		"oslo_messaging_rabbit.ssl_ca_file":                 func(c *Config) any { return &c.OsloMessagingRabbit.SSLCAFile },
		"oslo_messaging_rabbit.ssl_cert_file":               func(c *Config) any { return &c.OsloMessagingRabbit.SSLCertFile },
		"oslo_messaging_rabbit.ssl_key_file":                func(c *Config) any { return &c.OsloMessagingRabbit.SSLKeyFile },
		"oslo_messaging_rabbit.ssl_version":                 func(c *Config) any { return &c.OsloMessagingRabbit.SSLVersion },
		"oslo_messaging_rabbit.heartbeat_timeout_threshold": func(c *Config) any { return &c.OsloMessagingRabbit.HeartbeatTimeoutThreshold },
		"oslo_messaging_rabbit.heartbeat_rate":              func(c *Config) any { return &c.OsloMessagingRabbit.HeartbeatRate },
		"oslo_messaging_rabbit.kombu_reconnect_delay":       func(c *Config) any { return &c.OsloMessagingRabbit.KombuReconnectDelay },
		"oslo_messaging_rabbit.rabbit_login_method":         func(c *Config) any { return &c.OsloMessagingRabbit.RabbitLoginMethod },
		"oslo_messaging_rabbit.rabbit_retry_interval":       func(c *Config) any { return &c.OsloMessagingRabbit.RabbitRetryInterval },
		"oslo_messaging_rabbit.rabbit_retry_backoff":        func(c *Config) any { return &c.OsloMessagingRabbit.RabbitRetryBackoff },
		"oslo_messaging_rabbit.rabbit_interval_max":         func(c *Config) any { return &c.OsloMessagingRabbit.RabbitIntervalMax },
		"oslo_messaging_rabbit.rabbit_ha_queues":            func(c *Config) any { return &c.OsloMessagingRabbit.RabbitHAQueues },
		"oslo_messaging_rabbit.rabbit_quorum_queue":         func(c *Config) any { return &c.OsloMessagingRabbit.RabbitQuorumQueue },
		"oslo_messaging_rabbit.rabbit_transient_queues_ttl": func(c *Config) any { return &c.OsloMessagingRabbit.RabbitTransientQueuesTTL },
		"oslo_messaging_rabbit.rabbit_qos_prefetch_count":   func(c *Config) any { return &c.OsloMessagingRabbit.RabbitQoSPrefetchCount },
		"oslo_messaging_rabbit.direct_mandatory_flag":       func(c *Config) any { return &c.OsloMessagingRabbit.DirectMandatoryFlag },

		// [oslo_policy]
		"oslo_policy.enforce_scope":        func(c *Config) any { return &c.OsloPolicy.EnforceScope },
		"oslo_policy.enforce_new_defaults": func(c *Config) any { return &c.OsloPolicy.EnforceNewDefaults },
		"oslo_policy.policy_file":          func(c *Config) any { return &c.OsloPolicy.PolicyFile },
		"oslo_policy.policy_default_rule":  func(c *Config) any { return &c.OsloPolicy.PolicyDefaultRule },
		"oslo_policy.policy_dirs":          func(c *Config) any { return &c.OsloPolicy.PolicyDirs },

		// [pxe]
		"pxe.kernel_append_params":              func(c *Config) any { return &c.PXE.KernelAppendParams },
		"pxe.default_ephemeral_format":          func(c *Config) any { return &c.PXE.DefaultEphemeralFormat },
		"pxe.images_path":                       func(c *Config) any { return &c.PXE.ImagesPath },
		"pxe.instance_master_path":              func(c *Config) any { return &c.PXE.InstanceMasterPath },
		"pxe.image_cache_size":                  func(c *Config) any { return &c.PXE.ImageCacheSize },
		"pxe.image_cache_ttl":                   func(c *Config) any { return &c.PXE.ImageCacheTTL },
		"pxe.pxe_config_template":               func(c *Config) any { return &c.PXE.PXEConfigTemplate },
		"pxe.ipxe_config_template":              func(c *Config) any { return &c.PXE.IPXEConfigTemplate },
		"pxe.uefi_pxe_config_template":          func(c *Config) any { return &c.PXE.UEFIPXEConfigTemplate },
		"pxe.pxe_config_template_by_arch":       func(c *Config) any { return &c.PXE.PXEConfigTemplateByArch },
		"pxe.tftp_server":                       func(c *Config) any { return &c.PXE.TFTPServer },
		"pxe.tftp_root":                         func(c *Config) any { return &c.PXE.TFTPRoot },
		"pxe.tftp_master_path":                  func(c *Config) any { return &c.PXE.TFTPMasterPath },
		"pxe.dir_permission":                    func(c *Config) any { return &c.PXE.DirPermission },
		"pxe.file_permission":                   func(c *Config) any { return &c.PXE.FilePermission },
		"pxe.pxe_bootfile_name":                 func(c *Config) any { return &c.PXE.PXEBootfileName },
		"pxe.pxe_config_subdir":                 func(c *Config) any { return &c.PXE.PXEConfigSubdir },
		"pxe.uefi_pxe_bootfile_name":            func(c *Config) any { return &c.PXE.UEFIPXEBootfileName },
		"pxe.ipxe_bootfile_name":                func(c *Config) any { return &c.PXE.IPXEBootfileName },
		"pxe.uefi_ipxe_bootfile_name":           func(c *Config) any { return &c.PXE.UEFIIPXEBootfileName },
		"pxe.pxe_bootfile_name_by_arch":         func(c *Config) any { return &c.PXE.PXEBootfileNameByArch },
		"pxe.ipxe_bootfile_name_by_arch":        func(c *Config) any { return &c.PXE.IPXEBootfileNameByArch },
		"pxe.ipxe_boot_script":                  func(c *Config) any { return &c.PXE.IPXEBootScript },
		"pxe.ipxe_fallback_script":              func(c *Config) any { return &c.PXE.IPXEFallbackScript },
		"pxe.ipxe_timeout":                      func(c *Config) any { return &c.PXE.IPXETimeout },
		"pxe.boot_retry_timeout":                func(c *Config) any { return &c.PXE.BootRetryTimeout },
		"pxe.boot_retry_check_interval":         func(c *Config) any { return &c.PXE.BootRetryCheckInterval },
		"pxe.ip_version":                        func(c *Config) any { return &c.PXE.IPVersion },
		"pxe.ipxe_use_swift":                    func(c *Config) any { return &c.PXE.IPXEUseSwift },
		"pxe.enable_netboot_fallback":           func(c *Config) any { return &c.PXE.EnableNetbootFallback },
		"pxe.loader_file_paths":                 func(c *Config) any { return &c.PXE.LoaderFilePaths },
		"pxe.initial_grub_template":             func(c *Config) any { return &c.PXE.InitialGrubTemplate },
		"pxe.enable_insecure_template_override": func(c *Config) any { return &c.PXE.EnableInsecureTemplateOverride },

		// [redfish]
		"redfish.connection_attempts":         func(c *Config) any { return &c.Redfish.ConnectionAttempts },
		"redfish.connection_retry_interval":   func(c *Config) any { return &c.Redfish.ConnectionRetryInterval },
		"redfish.connection_cache_size":       func(c *Config) any { return &c.Redfish.ConnectionCacheSize },
		"redfish.auth_type":                   func(c *Config) any { return &c.Redfish.AuthType },
		"redfish.use_swift":                   func(c *Config) any { return &c.Redfish.UseSwift },
		"redfish.swift_container":             func(c *Config) any { return &c.Redfish.SwiftContainer },
		"redfish.swift_object_expiry_timeout": func(c *Config) any { return &c.Redfish.SwiftObjectExpiryTimeout },
		"redfish.kernel_append_params":        func(c *Config) any { return &c.Redfish.KernelAppendParams },
		"redfish.file_permission":             func(c *Config) any { return &c.Redfish.FilePermission },
		"redfish.firmware_source":             func(c *Config) any { return &c.Redfish.FirmwareSource },

		// [swift]
		"swift.swift_max_retries": func(c *Config) any { return &c.Swift.SwiftMaxRetries },
	}

	// The keystoneauth options shared by every client section.
	clients := []struct {
		section  string
		auth     func(*Config) *ServiceAuth
		endpoint func(*Config) *ServiceEndpoint // nil: no adapter options
	}{
		{"cinder", func(c *Config) *ServiceAuth { return &c.Cinder.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Cinder.ServiceEndpoint }},
		{"glance", func(c *Config) *ServiceAuth { return &c.Glance.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Glance.ServiceEndpoint }},
		{"inspector", func(c *Config) *ServiceAuth { return &c.Inspector.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Inspector.ServiceEndpoint }},
		{"json_rpc", func(c *Config) *ServiceAuth { return &c.JSONRPC.ServiceAuth }, nil},
		{"neutron", func(c *Config) *ServiceAuth { return &c.Neutron.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Neutron.ServiceEndpoint }},
		{"nova", func(c *Config) *ServiceAuth { return &c.Nova.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Nova.ServiceEndpoint }},
		{"service_catalog", func(c *Config) *ServiceAuth { return &c.ServiceCatalog.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.ServiceCatalog.ServiceEndpoint }},
		{"swift", func(c *Config) *ServiceAuth { return &c.Swift.ServiceAuth }, func(c *Config) *ServiceEndpoint { return &c.Swift.ServiceEndpoint }},
	}
	for _, cl := range clients {
		auth := cl.auth
		s := cl.section + "."
		b[s+"auth_type"] = func(c *Config) any { return &auth(c).AuthType }
		b[s+"auth_url"] = func(c *Config) any { return &auth(c).AuthURL }
		b[s+"username"] = func(c *Config) any { return &auth(c).Username }
		b[s+"user_id"] = func(c *Config) any { return &auth(c).UserID }
		b[s+"password"] = func(c *Config) any { return &auth(c).Password }
		b[s+"project_name"] = func(c *Config) any { return &auth(c).ProjectName }
		b[s+"project_id"] = func(c *Config) any { return &auth(c).ProjectID }
		b[s+"user_domain_name"] = func(c *Config) any { return &auth(c).UserDomainName }
		b[s+"user_domain_id"] = func(c *Config) any { return &auth(c).UserDomainID }
		b[s+"project_domain_name"] = func(c *Config) any { return &auth(c).ProjectDomainName }
		b[s+"project_domain_id"] = func(c *Config) any { return &auth(c).ProjectDomainID }
		b[s+"system_scope"] = func(c *Config) any { return &auth(c).SystemScope }
		b[s+"cafile"] = func(c *Config) any { return &auth(c).CAFile }
		b[s+"certfile"] = func(c *Config) any { return &auth(c).CertFile }
		b[s+"keyfile"] = func(c *Config) any { return &auth(c).KeyFile }
		b[s+"insecure"] = func(c *Config) any { return &auth(c).Insecure }
		b[s+"timeout"] = func(c *Config) any { return &auth(c).Timeout }
		if cl.endpoint == nil {
			continue
		}
		ep := cl.endpoint
		b[s+"service_type"] = func(c *Config) any { return &ep(c).ServiceType }
		b[s+"service_name"] = func(c *Config) any { return &ep(c).ServiceName }
		b[s+"region_name"] = func(c *Config) any { return &ep(c).RegionName }
		b[s+"valid_interfaces"] = func(c *Config) any { return &ep(c).ValidInterfaces }
		b[s+"endpoint_override"] = func(c *Config) any { return &ep(c).EndpointOverride }
		b[s+"connect_retries"] = func(c *Config) any { return &ep(c).ConnectRetries }
		b[s+"connect_retry_delay"] = func(c *Config) any { return &ep(c).ConnectRetryDelay }
		b[s+"status_code_retries"] = func(c *Config) any { return &ep(c).StatusCodeRetries }
		b[s+"status_code_retry_delay"] = func(c *Config) any { return &ep(c).StatusCodeRetryDelay }
	}
	return b
}
