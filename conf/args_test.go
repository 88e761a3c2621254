package conf

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/option"
)

func TestFromArgs(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.conf", "[api]\nport = 1001\n[DEFAULT]\nhost = from-a\n")
	b := writeFile(t, dir, "b.conf", "[api]\nport = 1002\n")
	confDir := filepath.Join(dir, "conf.d")
	mkdir(t, confDir)
	d1 := writeFile(t, confDir, "20-second.conf", "[api]\nmax_limit = 20\n")
	d0 := writeFile(t, confDir, "10-first.conf", "[api]\nmax_limit = 10\nport = 1010\n")
	writeFile(t, confDir, "ignored.txt", "[api]\nmax_limit = 99\n")
	mkdir(t, filepath.Join(confDir, "sub.conf"))
	defFile := writeFile(t, dir, "ironic.conf", "[api]\nport = 9999\n[DEFAULT]\nhost = from-default\n")
	defDir := filepath.Join(dir, "ironic.conf.d")
	mkdir(t, defDir)
	defDirFile := writeFile(t, defDir, "x.conf", "[api]\nmax_limit = 7\n")

	base := []LoadOption{WithHostname("h"), WithMyIP("127.0.0.1"),
		WithDefaultConfigFiles(defFile, filepath.Join(dir, "absent.conf")), WithDefaultConfigDirs(defDir, filepath.Join(dir, "absent.d"))}

	tests := []struct {
		name      string
		args      []string
		opts      []LoadOption
		wantFiles []string
		wantRest  []string
		check     func(*testing.T, *Config)
	}{
		{
			name:      "separate argument",
			args:      []string{"--config-file", a},
			wantFiles: []string{a, defDirFile},
			check:     func(t *testing.T, c *Config) { wantInt(t, "port", get(t, c, "api.port"), 1001) },
		},
		{
			name:      "equals form, later file wins",
			args:      []string{"--config-file=" + a, "--config-file=" + b},
			wantFiles: []string{a, b, defDirFile},
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 1002)
				wantString(t, "host", get(t, c, "DEFAULT.host"), "from-a")
			},
		},
		{
			name:      "config dir sorted, in command-line order",
			args:      []string{"--config-file", a, "--config-dir", confDir, "--config-file", b},
			wantFiles: []string{a, d0, d1, b},
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 1002)
				wantInt(t, "max_limit", get(t, c, "api.max_limit"), 20)
			},
		},
		{
			name:      "config dir equals form, default file still read",
			args:      []string{"--config-dir=" + confDir},
			wantFiles: []string{defFile, d0, d1},
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 1010)
				wantString(t, "host", get(t, c, "DEFAULT.host"), "from-default")
			},
		},
		{
			name:      "no arguments: default files that exist",
			args:      nil,
			wantFiles: []string{defFile, defDirFile},
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 9999)
				wantInt(t, "max_limit", get(t, c, "api.max_limit"), 7)
			},
		},
		{
			name:      "positional arguments and unknown flags are returned",
			args:      []string{"--config-file", a, "upgrade", "--revision", "head", "-v"},
			wantRest:  []string{"upgrade", "--revision", "head", "-v"},
			wantFiles: []string{a, defDirFile},
		},
		{
			name:      "double dash ends options",
			args:      []string{"create_schema", "--", "--config-file", "x"},
			wantRest:  []string{"create_schema", "--config-file", "x"},
			wantFiles: []string{defFile, defDirFile},
		},
		{
			name:      "debug and log flags override files",
			args:      []string{"--config-file", writeFile(t, dir, "debug.conf", "[DEFAULT]\ndebug = false\nlog_file = f\n"), "-d", "--log-dir", "/var/log/x", "--log-file=y.log"},
			opts:      []LoadOption{AllInOne()},
			wantFiles: []string{filepath.Join(dir, "debug.conf")},
			check: func(t *testing.T, c *Config) {
				if get(t, c, "DEFAULT.debug") != true {
					t.Error("debug = false, want true")
				}
				wantString(t, "log_dir", get(t, c, "DEFAULT.log_dir"), "/var/log/x")
				wantString(t, "log_file", get(t, c, "DEFAULT.log_file"), "y.log")
			},
		},
		{
			name:      "nodebug",
			args:      []string{"--debug", "--nodebug"},
			wantFiles: []string{defFile, defDirFile},
			check: func(t *testing.T, c *Config) {
				if get(t, c, "DEFAULT.debug") != false {
					t.Error("debug = true, want false")
				}
			},
		},
		{
			name:      "all-in-one without files ignores the default files",
			args:      []string{"serve"},
			opts:      []LoadOption{AllInOne()},
			wantRest:  []string{"serve"},
			wantFiles: nil,
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 6385)
				wantString(t, "host_ip", get(t, c, "api.host_ip"), "127.0.0.1")
				wantString(t, "auth_strategy", get(t, c, "DEFAULT.auth_strategy"), "noauth")
			},
		},
		{
			name:      "all-in-one with a file uses upstream defaults",
			args:      []string{"--config-file", b},
			opts:      []LoadOption{AllInOne()},
			wantFiles: []string{b},
			check: func(t *testing.T, c *Config) {
				wantInt(t, "port", get(t, c, "api.port"), 1002)
				wantString(t, "host_ip", get(t, c, "api.host_ip"), "0.0.0.0")
				wantString(t, "auth_strategy", get(t, c, "DEFAULT.auth_strategy"), "keystone")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append(append([]LoadOption{}, base...), tt.opts...)
			c, rest, err := FromArgs(tt.args, opts...)
			if err != nil {
				t.Fatalf("FromArgs: %v", err)
			}
			if diff := cmp.Diff(tt.wantRest, rest); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFiles, c.Files()); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestFromArgsErrors(t *testing.T) {
	dir := t.TempDir()
	opts := []LoadOption{WithDefaultConfigFiles(), WithDefaultConfigDirs()}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"--config-file", filepath.Join(dir, "nope.conf")}, "nope.conf not found"},
		{"missing dir", []string{"--config-dir", filepath.Join(dir, "nope.d")}, "nope.d not found"},
		{"no argument", []string{"--config-file"}, "--config-file needs an argument"},
		{"bad syntax", []string{"--config-file", writeFile(t, dir, "bad.conf", "[api\nport = x\n")}, "bad.conf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := FromArgs(tt.args, opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	for _, h := range []string{"-h", "--help"} {
		if _, _, err := FromArgs([]string{"x", h}, opts...); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: err = %v, want flag.ErrHelp", h, err)
		}
	}
	if u := Usage("ironic-api"); !strings.Contains(u, "usage: ironic-api") || !strings.Contains(u, "--config-dir") {
		t.Errorf("Usage = %q", u)
	}
}

func TestAllInOneDefaults(t *testing.T) {
	c, rest, err := FromArgs(nil, AllInOne(), WithHostname("aio"), WithMyIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 0 || len(c.Files()) != 0 {
		t.Errorf("rest = %v, files = %v", rest, c.Files())
	}
	got := map[string]any{
		"host_ip":       get(t, c, "api.host_ip"),
		"port":          get(t, c, "api.port"),
		"connection":    get(t, c, "database.connection"),
		"auth_strategy": get(t, c, "DEFAULT.auth_strategy"),
		"rpc_transport": get(t, c, "DEFAULT.rpc_transport"),
		"dhcp_provider": get(t, c, "dhcp.dhcp_provider"),
		"host":          get(t, c, "DEFAULT.host"),
	}
	want := map[string]any{
		"host_ip":       "127.0.0.1",
		"port":          6385,
		"connection":    "sqlite:///data/ironic.sqlite",
		"auth_strategy": "noauth",
		"rpc_transport": "none",
		"dhcp_provider": "none",
		"host":          "aio",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	db, err := ParseDatabaseURL(get(t, c, "database.connection").(string))
	if err != nil || db.Driver != "sqlite" || db.DSN != "data/ironic.sqlite" {
		t.Errorf("ParseDatabaseURL(%q) = %+v, %v", get(t, c, "database.connection"), db, err)
	}
	if diff := cmp.Diff([]string{"fake-hardware", "manual-management"}, get(t, c, "DEFAULT.enabled_hardware_types")); diff != "" {
		t.Errorf("hardware types (-want +got):\n%s", diff)
	}
	// The defaults are defaults: IsSet stays false.
	if c.IsSet("api", "port") {
		t.Error("IsSet(api, port) = true for an all-in-one default")
	}
	// Every all-in-one default names an option by its current name.
	idx := option.NewIndex(option.Table())
	for key := range AllInOneDefaults() {
		if o, ok := idx.Lookup(key); !ok || o.Key() != key {
			t.Errorf("all-in-one default %s is not an option", key)
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func wantInt(t *testing.T, name string, got any, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %d", name, got, want)
	}
}

func wantString(t *testing.T, name string, got any, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}
