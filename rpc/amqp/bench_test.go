package amqp_test

import (
	"testing"
	"time"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
)

// BenchmarkCall: one call through RabbitMQ to a conductor server and back.
func BenchmarkCall(b *testing.B) {
	br := rabbittest.Shared(b)
	cfg := testConfig(br)
	cfg.ResponseTimeout = 20 * time.Second
	_, api, _ := setup(b, br, "cond-bench", cfg)
	ctx := rabbittest.Context(b, 5*time.Minute)
	topic := rpc.Topic + ".cond-bench"
	if err := api.DestroyNode(ctx, topic, "warm"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := api.DestroyNode(ctx, topic, "n"); err != nil {
			b.Fatal(err)
		}
	}
}
