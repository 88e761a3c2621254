package rpc

import "github.com/goironic/ironic/option"

// Bind reads the hash ring's options and [conductor]heartbeat_timeout.
func (c *RouterConfig) Bind(b *option.Binder) {
	b.Int(&c.PartitionExponent, "DEFAULT", "hash_partition_exponent")
	b.Seconds(&c.ResetInterval, "DEFAULT", "hash_ring_reset_interval")
	b.Seconds(&c.HeartbeatTimeout, "conductor", "heartbeat_timeout")
}
