package conductor

import "github.com/goironic/ironic/option"

// Bind reads the options the conductor uses.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.Host, "DEFAULT", "host")
	b.String(&c.Group, "conductor", "conductor_group")
	b.Seconds(&c.HeartbeatInterval, "conductor", "heartbeat_interval")
	b.Int(&c.NodeLockedRetryAttempts, "conductor", "node_locked_retry_attempts")
	b.Seconds(&c.NodeLockedRetryInterval, "conductor", "node_locked_retry_interval")
	b.Bool(&c.AllowDeletingAvailableNodes, "conductor", "allow_deleting_available_nodes")
	b.Seconds(&c.SoftPowerOffTimeout, "conductor", "soft_power_off_timeout")
	b.Int(&c.WorkersPoolSize, "conductor", "workers_pool_size")
	b.Int(&c.MaxConcurrentDeploy, "conductor", "max_concurrent_deploy")
	b.Int(&c.MaxConcurrentClean, "conductor", "max_concurrent_clean")

	b.Seconds(&c.HeartbeatTimeout, "conductor", "heartbeat_timeout")
	b.Int(&c.HashPartitionExponent, "DEFAULT", "hash_partition_exponent")
	b.Seconds(&c.HashRingResetInterval, "DEFAULT", "hash_ring_reset_interval")

	b.Bool(&c.AutomatedClean, "conductor", "automated_clean")
	b.Bool(&c.FastTrack, "deploy", "fast_track")
	b.Bool(&c.AllowProvisioningInMaintenance, "conductor", "allow_provisioning_in_maintenance")
	b.Bool(&c.NodeHistory, "conductor", "node_history")
	b.Seconds(&c.NodeHistoryCleanupInterval, "conductor", "node_history_cleanup_interval")
	b.Int(&c.NodeHistoryMaxEntries, "conductor", "node_history_max_entries")
	b.Int(&c.NodeHistoryCleanupBatchCount, "conductor", "node_history_cleanup_batch_count")
	b.Int(&c.NodeHistoryMinimumDays, "conductor", "node_history_minimum_days")

	b.Seconds(&c.SyncPowerStateInterval, "conductor", "sync_power_state_interval")
	b.Bool(&c.ForcePowerStateDuringSync, "conductor", "force_power_state_during_sync")
	b.Int(&c.PowerStateSyncMaxRetries, "conductor", "power_state_sync_max_retries")
	b.Seconds(&c.PowerFailureRecoveryInterval, "conductor", "power_failure_recovery_interval")
	b.Int(&c.SyncPowerStateWorkers, "conductor", "sync_power_state_workers")
	b.Int(&c.PeriodicMaxWorkers, "conductor", "periodic_max_workers")

	b.Seconds(&c.CheckProvisionStateInterval, "conductor", "check_provision_state_interval")
	b.Seconds(&c.DeployCallbackTimeout, "conductor", "deploy_callback_timeout")
	b.Seconds(&c.CleanCallbackTimeout, "conductor", "clean_callback_timeout")
	b.Seconds(&c.InspectWaitTimeout, "conductor", "inspect_wait_timeout")
	b.Seconds(&c.RescueCallbackTimeout, "conductor", "rescue_callback_timeout")
	b.Seconds(&c.SyncLocalStateInterval, "conductor", "sync_local_state_interval")
	b.Seconds(&c.CheckAllocationsInterval, "conductor", "check_allocations_interval")

	b.Bool(&c.ConfigdriveUseObjectStore, "deploy", "configdrive_use_object_store")
	b.Bool(&c.AgentRequireTLS, "agent", "require_tls")
	b.String(&c.AgentCertificatesPath, "agent", "certificates_path")
	b.String(&c.ConfigdriveSwiftContainer, "conductor", "configdrive_swift_container")
	b.Seconds(&c.ConfigdriveSwiftTempURLDuration, "conductor", "configdrive_swift_temp_url_duration")

	b.String(&c.WebserverVerifyCA, "DEFAULT", "webserver_verify_ca")
	b.Seconds(&c.WebserverConnectionTimeout, "DEFAULT", "webserver_connection_timeout")
}
