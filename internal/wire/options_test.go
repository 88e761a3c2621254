package wire

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/option"
)

// TestBuildsBindOnlyImplemented: every option a binary's components bind
// is among Implemented, so the start-up report never calls an option it
// reads "not implemented"; and bindAll names every component.
func TestBuildsBindOnlyImplemented(t *testing.T) {
	dir := t.TempDir()
	cfg, err := conf.Load(nil, conf.AllInOne(), conf.WithOverride("database", "connection", "sqlite:///"+filepath.Join(dir, "x.sqlite")))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	Logger(cfg, &bytes.Buffer{})
	store, err := OpenDB(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	reg, err := Registry(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	cond := Conductor(cfg, store, reg, log)
	pol, err := Policy(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	api, err := API(cfg, store, InProcess(cond, store, log), pol, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Authenticated(cfg, api, log); err != nil {
		t.Fatal(err)
	}
	if _, err := APIEndpoint(cfg); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rpcTransport(cfg, "test"); err == nil {
		t.Error("rpc_transport = none: the split binaries' transport accepted it")
	}
	if _, err := amqpConfig(cfg); err != nil { // the split binaries' oslo transport
		t.Fatal(err)
	}

	implemented, err := Implemented(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range cfg.Binder().Read() {
		if !slices.Contains(implemented, key) {
			t.Errorf("%s is bound but not among Implemented: add its component to bindAll", key)
		}
	}
	var built []string
	for comp := range cfg.Binder().Effective() {
		built = append(built, comp)
	}
	all := option.Defaults()
	bindAll(all)
	for comp := range all.Effective() {
		if !slices.Contains(built, comp) {
			t.Errorf("component %s of bindAll is built by no binary (the all-in-one builds %v)", comp, built)
		}
	}
}

// TestDefaultsBind: every component binds the table's defaults without a
// mismatch between an option's type and its field.
func TestDefaultsBind(t *testing.T) {
	b := option.Defaults()
	bindAll(b)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Read()); n < 250 {
		t.Errorf("only %d options implemented", n)
	}
}

// TestAllInOneDefaults: the all-in-one's defaults are implemented
// options, and they give a registry with a "fake" implementation of
// every interface but network.
func TestAllInOneDefaults(t *testing.T) {
	cfg, err := conf.Load(nil, conf.AllInOne())
	if err != nil {
		t.Fatal(err)
	}
	implemented, err := Implemented(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for key := range conf.AllInOneDefaults() {
		if !slices.Contains(implemented, key) {
			t.Errorf("all-in-one default %s is not an implemented option", key)
		}
	}
	reg, err := Registry(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.HardwareTypes(); !slices.Equal(got, []string{"fake-hardware", "manual-management"}) {
		t.Errorf("hardware types %v", got)
	}
	for _, k := range drivers.Kinds() {
		if k != drivers.Network && !slices.Contains(reg.EnabledInterfaces(k), "fake") {
			t.Errorf("%s: enabled %v lacks fake", k, reg.EnabledInterfaces(k))
		}
	}
}

// TestNotImplementedReport: options nobody binds are reported once at
// start-up, among them the options of hardware types this build lacks
// ([ilo], [irmc]); bound ones ([ipmi], [redfish], [console]) are not.
func TestNotImplementedReport(t *testing.T) {
	cfg, err := conf.Load(nil, conf.WithText("ironic.conf", `[DEFAULT]
pecan_debug = true
debug = true
[ipmi]
debug = true
[redfish]
auth_type = basic
[ilo]
client_timeout = 30
[console]
port_range = 10000:20000
[irmc]
port = 443
[database]
max_pool_size = 7
[conductor]
workers_pool_size = 50
`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Report(context.Background(), cfg, slog.New(slog.NewTextHandler(&buf, nil))); err != nil {
		t.Fatal(err)
	}
	want := `options="DEFAULT.pecan_debug, ilo.client_timeout, irmc.port"`
	if n := strings.Count(buf.String(), "not implemented by this service"); n != 1 || !strings.Contains(buf.String(), want) {
		t.Errorf("report:\n%s\nwant one not-implemented warning with %s", buf.String(), want)
	}
}

// TestBadValueFailsStartUp: a bad value of any implemented option stops
// every binary at start-up, naming the option.
func TestBadValueFailsStartUp(t *testing.T) {
	cfg, err := conf.Load(nil, conf.WithText("ironic.conf", "[conductor]\nworkers_pool_size = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = Report(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "[conductor] workers_pool_size") {
		t.Errorf("err = %v", err)
	}
}
