package amqp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/rpc/oslo"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

func TestMain(m *testing.M) { rabbittest.Main(m) }

func testConfig(b *rabbittest.Broker) amqp.Config {
	return amqp.Config{TransportURL: b.TransportURL(), ResponseTimeout: 20 * time.Second,
		RetryInterval: 100 * time.Millisecond, RetryBackoff: 100 * time.Millisecond, IntervalMax: time.Second}
}

// setup starts a server for host with a fake conductor and a client.
func setup(t testing.TB, b *rabbittest.Broker, host string, cfg amqp.Config) (*oslotest.Fake, rpc.ConductorAPI, *amqp.Client) {
	t.Helper()
	fake := oslotest.New()
	srv, err := amqp.NewServer(cfg, host, fake, nil, nil, slog.New(slog.NewTextHandler(t.Output(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx := rabbittest.Context(t, 60*time.Second)
	if err := srv.WaitReady(wctx); err != nil {
		t.Fatal(err)
	}
	cl, err := amqp.NewClient(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return fake, amqp.NewConductorAPI(cl, nil), cl
}

func TestCallCastAndFaults(t *testing.T) {
	b := rabbittest.Shared(t)
	fake, api, _ := setup(t, b, "cond-a", testConfig(b))
	topic := rpc.Topic + ".cond-a"
	ctx := ironic.WithRequestContext(rabbittest.Context(t, 60*time.Second),
		&ironic.RequestContext{UserID: "u1", ProjectID: "p1", Roles: []string{"admin"}, RequestID: "req-1"})

	n := &models.Node{ID: 7, UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "ipmi", Maintenance: true,
		Extra: models.DictOf("k", "v"), UpdatedAt: models.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	fake.SetResult("UpdateNode", n)
	got, err := api.UpdateNode(ctx, topic, rpc.NodeUpdate{Node: *n, Changes: []string{"maintenance"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.UUID != n.UUID || !got.Maintenance || got.Extra.Get("k") != "v" || !got.UpdatedAt.Equal(n.UpdatedAt.Time) {
		t.Errorf("node back: %+v", got)
	}
	last := fake.Last()
	if last.Method != "UpdateNode" || last.Topic != topic || last.Context.UserID != "u1" || last.Context.RequestID != "req-1" {
		t.Errorf("server saw %+v (context %+v)", last, last.Context)
	}
	if upd := last.Args[0].(rpc.NodeUpdate); upd.Changes[0] != "maintenance" {
		t.Errorf("changes %v", upd.Changes)
	}

	fake.SetError("DoProvisioningAction", ironic.Errorf(ironic.NodeLocked, "Node x is locked by host cond-a, please retry after the current operation is completed."))
	err = api.DoProvisioningAction(ctx, topic, n.UUID, "provide")
	if f := ironic.AsFault(err); f.Class != ironic.NodeLocked || f.HTTPStatus() != 409 || f.Message != "Node x is locked by host cond-a, please retry after the current operation is completed." {
		t.Errorf("fault %+v", err)
	}
	fake.SetError("InjectNMI", errors.New("boom"))
	if f := ironic.AsFault(api.InjectNMI(ctx, topic, n.UUID)); f.Class != ironic.IronicException || f.HTTPStatus() != 500 {
		t.Errorf("plain error: %+v", f)
	}

	// The shared queue reaches the server too.
	if err := api.DestroyNode(ctx, rpc.Topic, n.UUID); err != nil {
		t.Errorf("shared topic: %v", err)
	}

	// A cast returns at once; the server gets it.
	seen := make(chan oslotest.Call, 8)
	fake.SetNotify(seen)
	if err := api.ContinueNodeClean(ctx, topic, n.UUID); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-seen:
		if c.Method != "ContinueNodeClean" || c.Args[0] != n.UUID {
			t.Errorf("cast arrived as %+v", c)
		}
	case <-ctx.Done():
		t.Fatal("cast never arrived")
	}
}

// TestMessageProperties: a call is published to the ironic exchange with
// kombu's properties and the response timeout as expiration; a cast has
// no expiration and no reply fields.
func TestMessageProperties(t *testing.T) {
	b := rabbittest.Shared(t)
	cfg := testConfig(b)
	cfg.ResponseTimeout = 2 * time.Second
	cl, err := amqp.NewClient(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := rabbittest.Context(t, 60*time.Second)
	if err := cl.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	ch, q := bindProbeQueue(t, b, "ironic.conductor_manager.probe")
	msgs, err := ch.Consume(q, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := amqp.NewConductorAPI(cl, nil)
	go func() { _ = api.DestroyNode(ctx, "ironic.conductor_manager.probe", "n1") }()
	m := <-msgs
	if m.ContentType != "application/json" || m.ContentEncoding != "utf-8" || m.DeliveryMode != 2 || m.Expiration != "2000" || m.Exchange != "ironic" ||
		len(m.MessageId) != 32 {
		t.Errorf("call properties: %+v", m)
	}
	body, err := oslo.Unwrap(m.Body)
	if err != nil {
		t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	if msg["method"] != "destroy_node" || msg["version"] != "1.9" || msg["_reply_q"] == nil || len(msg["_msg_id"].(string)) != 32 {
		t.Errorf("call message: %s", body)
	}
	if err := api.ContinueNodeDeploy(ctx, "ironic.conductor_manager.probe", "n1"); err != nil {
		t.Fatal(err)
	}
	m = <-msgs
	body, _ = oslo.Unwrap(m.Body)
	msg = nil
	_ = json.Unmarshal(body, &msg)
	if m.Expiration != "" || msg["_msg_id"] != nil || msg["_reply_q"] != nil || msg["method"] != "continue_node_deploy" {
		t.Errorf("cast: expiration %q, %s", m.Expiration, body)
	}
}

// TestCallTimesOut: no queue is bound to the topic; the call gives up
// after the response timeout with TemporaryFailure (503) saying so (Ironic
// publishes to nowhere and answers oslo's MessagingTimeout, a 500). A
// queue nobody consumes keeps the message: oslo's MessagingTimeout text.
func TestCallTimesOut(t *testing.T) {
	b := rabbittest.Shared(t)
	cfg := testConfig(b)
	cfg.ResponseTimeout = 500 * time.Millisecond
	cl, err := amqp.NewClient(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := rabbittest.Context(t, 60*time.Second)
	start := time.Now()
	err = amqp.NewConductorAPI(cl, nil).DestroyNode(ctx, rpc.Topic+".nobody", "n1")
	f := ironic.AsFault(err)
	if err == nil || f.Class != ironic.TemporaryFailure ||
		f.Message != "No conductor is listening on ironic.conductor_manager.nobody to call destroy_node; please retry." {
		t.Errorf("got %v", err)
	}
	if took := time.Since(start); took > cfg.ResponseTimeout+time.Second {
		t.Errorf("took %s", took)
	}

	bindProbeQueue(t, b, rpc.Topic+".idle")
	err = amqp.NewConductorAPI(cl, nil).DestroyNode(ctx, rpc.Topic+".idle", "n1")
	f = ironic.AsFault(err)
	if err == nil || f.Class != ironic.IronicException || len(f.Message) < 30 || f.Message[:30] != "Timed out waiting for a reply " {
		t.Errorf("queue without a consumer: %v", err)
	}
}

// TestReconnectAndInFlight: a call in flight when the broker goes away
// fails at once with TemporaryFailure (503); once the broker is back,
// server and client reconnect by themselves and calls work again.
func TestReconnectAndInFlight(t *testing.T) {
	b := rabbittest.Shared(t)
	cfg := testConfig(b)
	cfg.ResponseTimeout = 3 * time.Second
	fake, api, _ := setup(t, b, "cond-r", cfg)
	topic := rpc.Topic + ".cond-r"
	ctx := rabbittest.Context(t, 3*time.Minute)
	if err := api.DestroyNode(ctx, topic, "n1"); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	fake.SetHook(func(ctx context.Context, method string) error {
		if method == "InjectNMI" {
			entered <- struct{}{}
			<-release
		}
		return nil
	})
	errc := make(chan error, 1)
	go func() { errc <- api.InjectNMI(ctx, topic, "n1") }()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("call never reached the server")
	}
	b.Stop()
	select {
	case err := <-errc:
		if f := ironic.AsFault(err); f.Class != ironic.TemporaryFailure || f.HTTPStatus() != 503 {
			t.Errorf("in-flight call: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("in-flight call hung")
	}
	close(release)
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	fake.SetHook(nil)
	// Both sides reconnect and redeclare; bounded by ctx.
	for {
		err := api.DestroyNode(ctx, topic, "n2")
		if err == nil {
			break
		}
		if !ironic.IsClass(err, ironic.TemporaryFailure) && !ironic.IsClass(err, ironic.IronicException) {
			t.Fatalf("after restart: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatalf("no recovery: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if last := fake.Last(); last.Method != "DestroyNode" || last.Args[0] != "n2" {
		t.Errorf("after restart the server saw %+v", last)
	}
}

// TestBrokerRestartDeliversCalls: after a broker restart the client
// reconnects before the conductor's server has declared its queue again
// (its retry interval is longer); calls made then are published again
// until the queue is there, and all succeed. A call made while the broker
// is down ends within the response timeout, counted once.
func TestBrokerRestartDeliversCalls(t *testing.T) {
	b := rabbittest.Shared(t)
	srvCfg := testConfig(b)
	srvCfg.ResponseTimeout = 20 * time.Second
	// The server comes back late: it waits 8 s after losing its
	// connection, longer than the broker takes to restart.
	srvCfg.RetryInterval, srvCfg.IntervalMax = 8*time.Second, 8*time.Second
	fake, _, _ := setup(t, b, "cond-late", srvCfg)
	cliCfg := testConfig(b)
	cliCfg.ResponseTimeout = 20 * time.Second
	cl, err := amqp.NewClient(cliCfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	api := amqp.NewConductorAPI(cl, nil)
	topic := rpc.Topic + ".cond-late"
	ctx := rabbittest.Context(t, 3*time.Minute)
	if err := api.DestroyNode(ctx, topic, "before"); err != nil {
		t.Fatal(err)
	}
	restart := time.Now()
	b.Restart(t)
	if err := cl.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("the client reconnected %s after the restart began", time.Since(restart).Round(time.Millisecond))
	const calls = 8
	errs := make(chan error, calls)
	for i := range calls {
		go func() { errs <- api.DestroyNode(ctx, topic, fmt.Sprintf("after-%d", i)) }()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Errorf("call after the restart: %v", err)
		}
	}
	seen := map[string]bool{}
	for _, c := range fake.Calls() {
		if c.Method == "DestroyNode" {
			seen[fmt.Sprint(c.Args[0])] = true
		}
	}
	for i := range calls {
		if !seen[fmt.Sprintf("after-%d", i)] {
			t.Errorf("the server never got after-%d", i)
		}
	}

	// The broker is down for longer than the response timeout: the call
	// fails once, within the timeout (plus a margin), not twice it.
	cliCfg.ResponseTimeout = 3 * time.Second
	short, err := amqp.NewClient(cliCfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = short.Close() })
	if err := short.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	b.Stop()
	start := time.Now()
	err = amqp.NewConductorAPI(short, nil).DestroyNode(ctx, topic, "down")
	took := time.Since(start)
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if f := ironic.AsFault(err); err == nil || f.Class != ironic.TemporaryFailure {
		t.Errorf("call while the broker is down: %v", err)
	}
	if took > cliCfg.ResponseTimeout+time.Second {
		t.Errorf("call while the broker is down took %s, the response timeout is %s", took, cliCfg.ResponseTimeout)
	}
}

// bindProbeQueue declares an exclusive queue bound to key on the ironic
// exchange, on a connection of its own closed when the test ends.
func bindProbeQueue(t *testing.T, b *rabbittest.Broker, key string) (*amqp091.Channel, string) {
	t.Helper()
	conn, err := amqp091.Dial(b.AMQPURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, key, "ironic", false, nil); err != nil {
		t.Fatal(err)
	}
	return ch, q.Name
}
