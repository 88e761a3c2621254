package option

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// values returns the Values of one in-memory file.
func values(t *testing.T, set map[string][]string) *Values {
	t.Helper()
	v, err := NewValues(Sources{Files: []Layer{{Name: "test.conf", Values: set}}, Defaults: hostDefaults()})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// delay is a field with a syntax of its own, for Binder.Text.
type delay struct{ s string }

func (d *delay) UnmarshalText(b []byte) error { d.s = "<" + string(b) + ">"; return nil }
func (d delay) MarshalText() ([]byte, error)  { return []byte(d.s), nil }

func TestBinder(t *testing.T) {
	v := values(t, map[string][]string{
		"api.port":                      {"8080"},
		"conductor.heartbeat_timeout":   {"90"},
		"DEFAULT.state_path":            {"/srv"},
		"deploy.erase_devices_priority": {"5"},
		"fake.power_delay":              {"3"},
	})
	b := NewBinder(v)
	var (
		port      int
		hb        time.Duration
		conn      string
		debug     bool
		types     []string
		erase     *int
		metaErase *int
		byArch    map[string]string
		kombu     float64
		power     delay
	)
	api := b.For("api")
	api.Int(&port, "api", "port")
	api.Seconds(&hb, "conductor", "heartbeat_timeout")
	db := b.For("db")
	db.String(&conn, "database", "connection")
	db.Bool(&debug, "DEFAULT", "debug")
	db.List(&types, "DEFAULT", "enabled_hardware_types")
	db.OptionalInt(&erase, "deploy", "erase_devices_priority")
	db.OptionalInt(&metaErase, "deploy", "erase_devices_metadata_priority")
	db.Dict(&byArch, "pxe", "pxe_bootfile_name_by_arch")
	db.Float(&kombu, "oslo_messaging_rabbit", "kombu_reconnect_delay")
	db.Text(&power, "fake", "power_delay")
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if port != 8080 || hb != 90*time.Second || conn != "sqlite:////srv/ironic.sqlite" || debug ||
		!cmp.Equal(types, []string{"ipmi", "redfish"}) || *erase != 5 || metaErase != nil || kombu != 1 || power.s != "<3>" {
		t.Errorf("bound %v %v %q %v %v %v %v %v %v", port, hb, conn, debug, types, erase, metaErase, kombu, power)
	}
	// Read: what was bound, and what the bound values referred to.
	for _, k := range []string{"api.port", "database.connection", "DEFAULT.state_path"} {
		if !strings.Contains(strings.Join(b.Read(), " "), k) {
			t.Errorf("Read() lacks %s: %v", k, b.Read())
		}
	}
	if strings.Contains(strings.Join(b.Read(), " "), "DEFAULT.pybasedir") {
		t.Errorf("Read() has pybasedir, which the set state_path does not refer to")
	}
	want := map[string]map[string]any{
		"api": {"api.port": 8080, "conductor.heartbeat_timeout": 90.0},
		"db": {"database.connection": "sqlite:////srv/ironic.sqlite", "DEFAULT.debug": false,
			"DEFAULT.enabled_hardware_types": []string{"ipmi", "redfish"},
			"deploy.erase_devices_priority":  5, "deploy.erase_devices_metadata_priority": nil,
			"pxe.pxe_bootfile_name_by_arch": map[string]string{}, "oslo_messaging_rabbit.kombu_reconnect_delay": 1.0,
			"fake.power_delay": "<3>"},
	}
	if diff := cmp.Diff(want, b.Effective()); diff != "" {
		t.Errorf("Effective (-want +got):\n%s", diff)
	}
	// Effective shows what the fields hold now.
	port = 1
	if got := b.Effective()["api"]["api.port"]; got != 1 {
		t.Errorf("Effective after a change: %v", got)
	}
	if !b.IsSet("API", "port") || b.IsSet("api", "host_ip") {
		t.Error("IsSet")
	}
}

func TestBinderMistakes(t *testing.T) {
	b := NewBinder(values(t, map[string][]string{"api.port": {"x"}}))
	var s string
	var n int
	var d time.Duration
	var f float64
	b.For("c1").String(&s, "api", "no_such_option")
	b.For("c1").String(&s, "api", "port")                   // an Integer option
	b.For("c1").Seconds(&d, "DEFAULT", "auth_strategy")     // a String option
	b.For("c1").Float(&f, "conductor", "heartbeat_timeout") // an Integer option
	b.For("c1").String(&s, "pxe", "pxe_append_params")      // a deprecated name
	b.For("c1").Int(&n, "api", "port")                      // a bad value...
	b.For("c2").Int(&n, "api", "port")                      // ...is reported once
	err := b.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"c1 binds [api] no_such_option, which is not an option",
		"[api] port: internal error: a *string field cannot hold its port value",
		"[DEFAULT] auth_strategy: internal error: a *time.Duration field cannot hold its string value",
		"[conductor] heartbeat_timeout: internal error: a *float64 field cannot hold its integer value",
		"c1 binds [pxe] pxe_append_params",
		`test.conf: [api] port: invalid port value "x"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if c := strings.Count(err.Error(), "invalid port value"); c != 1 {
		t.Errorf("bad value reported %d times", c)
	}
}

// cfg and badCfg are components' Configs, for Default.
type cfg struct{ Port int }

func (c *cfg) Bind(b *Binder) { b.Int(&c.Port, "api", "port") }

type badCfg struct{ Port string }

func (c *badCfg) Bind(b *Binder) { b.String(&c.Port, "api", "port") }

func TestDefault(t *testing.T) {
	if c := Default[cfg](); c.Port != 6385 {
		t.Errorf("Default: %+v", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("a binding mistake does not panic")
		}
	}()
	Default[badCfg]()
}
