// Package options checks, binary by binary, that every option this build
// implements reaches the component that reads it: each binary is started
// with an ironic.conf that sets every implemented option to a value that
// is not its default, with --print-effective-options (it builds its
// components as a normal start does, prints each bound option's value as
// the component holds it, and exits without serving), and what it prints
// is compared with what was written. The start-up log must name the
// options that nothing binds, once.
package options

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/internal/wire"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// binaries are the commands under test, with the arguments they need.
var binaries = []struct {
	name  cluster.Command
	split bool // needs rpc_transport = oslo
}{
	{cluster.AllInOne, false},
	{cluster.API, true},
	{cluster.Conductor, true},
	{cluster.DBSync, false},
}

// notBound are options that no component binds (this build has no ilo
// or irmc hardware type, and nothing reads pecan_debug): the start-up log
// must name each of them.
var notBound = map[string]string{
	"DEFAULT.pecan_debug": "true",
	"irmc.port":           "444",
	"ilo.client_timeout":  "30",
}

func TestEveryBinarySeesEveryOption(t *testing.T) {
	bin := buildBinaries(t)
	dir := t.TempDir()
	idx := option.NewIndex(option.Table())
	values := nonDefaults(t, dir)

	union := map[string]bool{}
	for _, b := range binaries {
		t.Run(string(b.name), func(t *testing.T) {
			written := map[string]string{}
			for k, v := range values {
				written[k] = v
			}
			if b.split {
				// The split binaries refuse anything else; the all-in-one
				// takes another value (and warns).
				written["DEFAULT.rpc_transport"] = "oslo"
			}
			path := filepath.Join(dir, string(b.name)+".conf")
			writeConf(t, path, written, notBound)
			stdout, stderr := run(t, filepath.Join(bin, string(b.name)), "--config-file", path, wire.PrintOptionsFlag)

			var got map[string]map[string]any
			if err := json.Unmarshal(stdout, &got); err != nil {
				t.Fatalf("output is not the options' JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			n := 0
			for comp, opts := range got {
				for key, v := range opts {
					n++
					union[key] = true
					o, _ := idx.Lookup(key)
					w, ok := written[key]
					if !ok {
						t.Errorf("%s binds %s, which the test did not write (not implemented?)", comp, key)
						continue
					}
					if want := expected(t, o, w); !equal(want, v) {
						t.Errorf("%s holds %s = %#v, ironic.conf says %q (want %#v)", comp, key, v, w, want)
					}
				}
			}
			if n == 0 {
				t.Fatalf("no options printed:\n%s", stdout)
			}
			t.Logf("%d components hold %d options", len(got), n)
			checkReport(t, string(stderr), got)
		})
	}

	// Every implemented option reaches some binary's component.
	cfg, err := conf.Load([]string{filepath.Join(dir, "ironic.conf")})
	if err != nil {
		t.Fatal(err)
	}
	implemented, err := wire.Implemented(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range implemented {
		if !union[key] {
			t.Errorf("%s is implemented, but no binary's components hold it", key)
		}
	}
	t.Logf("%d implemented options, each held by some binary's components", len(implemented))
}

// checkReport: the start-up log names every option of notBound, once,
// in the not-implemented warning, and no option a component bound.
func checkReport(t *testing.T, stderr string, got map[string]map[string]any) {
	t.Helper()
	const msg = `msg="configuration options not implemented by this service have no effect"`
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, msg) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d not-implemented warnings, want 1:\n%s", len(lines), stderr)
	}
	_, list, _ := strings.Cut(lines[0], "options=")
	named := strings.Split(strings.Trim(list, `"`), ", ")
	for key := range notBound {
		if !slices.Contains(named, key) {
			t.Errorf("the not-implemented warning does not name %s: %s", key, lines[0])
		}
	}
	for _, opts := range got {
		for key := range opts {
			if slices.Contains(named, key) {
				t.Errorf("the not-implemented warning names %s, which a component binds", key)
			}
		}
	}
}

// nonDefaults returns, for every option this build implements, a value
// of its type that is not its default (and that the components accept).
func nonDefaults(t *testing.T, dir string) map[string]string {
	t.Helper()
	cfg, err := conf.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	implemented, err := wire.Implemented(cfg)
	if err != nil {
		t.Fatal(err)
	}
	idx := option.NewIndex(option.Table())
	out := map[string]string{}
	for _, key := range implemented {
		o, _ := idx.Lookup(key)
		out[key] = nonDefault(o)
	}
	// Values the components check at start-up, or that must agree.
	special := map[string]string{
		"database.connection":            "sqlite:///" + filepath.Join(dir, "ironic.sqlite"),
		"DEFAULT.transport_url":          "rabbit://u:p@127.0.0.1:9/vhost",
		"DEFAULT.pin_release_version":    "21.1",
		"DEFAULT.enabled_hardware_types": "fake-hardware",
		"DEFAULT.auth_strategy":          "noauth",
		"DEFAULT.rpc_transport":          "none",
		"console.port_range":             "10000:20000",
	}
	for _, k := range []string{"bios", "boot", "console", "deploy", "inspect", "management", "power", "raid", "rescue", "storage", "vendor"} {
		special["DEFAULT.enabled_"+k+"_interfaces"] = "fake"
		special["DEFAULT.default_"+k+"_interface"] = "fake"
	}
	special["DEFAULT.enabled_network_interfaces"] = "noop"
	special["DEFAULT.default_network_interface"] = "noop"
	for _, k := range []string{"power", "boot", "deploy", "vendor", "management", "inspect", "raid", "bios", "storage", "rescue"} {
		special["fake."+k+"_delay"] = "2"
	}
	// TLS files the AMQP transport loads at start-up.
	ca, caKey, err := rabbittest.NewCert(nil, nil, "ca", filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "client", filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")); err != nil {
		t.Fatal(err)
	}
	special["oslo_messaging_rabbit.ssl_ca_file"] = filepath.Join(dir, "ca.pem")
	special["oslo_messaging_rabbit.ssl_cert_file"] = filepath.Join(dir, "client.pem")
	special["oslo_messaging_rabbit.ssl_key_file"] = filepath.Join(dir, "client.key")
	special["oslo_messaging_rabbit.ssl_version"] = "tlsv1_2"
	// The API's TLS ([api]enable_ssl_api) loads its files at start-up;
	// [ssl]ciphers, which Go's TLS cannot take, stops it, so it stays
	// unset (ours refuses it: internal/wire TestAPITLSStartUpErrors).
	if _, _, err := rabbittest.NewCert(ca, caKey, "127.0.0.1", filepath.Join(dir, "api.pem"), filepath.Join(dir, "api.key")); err != nil {
		t.Fatal(err)
	}
	special["ssl.cert_file"] = filepath.Join(dir, "api.pem")
	special["ssl.key_file"] = filepath.Join(dir, "api.key")
	special["ssl.ca_file"] = filepath.Join(dir, "ca.pem")
	special["ssl.version"] = "tlsv1_2"
	special["ssl.ciphers"] = ""
	for k, v := range special {
		if _, ok := out[k]; !ok {
			t.Errorf("%s is not implemented any more; update the test", k)
		}
		out[k] = v
	}
	// The values must really differ from the defaults.
	for key, v := range out {
		o, _ := idx.Lookup(key)
		if !o.NoDefault && v == o.Default {
			t.Errorf("%s: %q is its default", key, v)
		}
	}
	return out
}

// nonDefault is a value of o's type other than its default.
func nonDefault(o *option.Opt) string {
	num := func(def, step float64) float64 {
		v := def + step
		if o.Max != "" {
			if max, _ := strconv.ParseFloat(o.Max, 64); v > max {
				v = def - step
			}
		}
		if o.Min != "" {
			if min, _ := strconv.ParseFloat(o.Min, 64); v < min {
				v = min
			}
		}
		return v
	}
	def := o.Default
	if o.NoDefault {
		def = "0"
	}
	switch o.Type {
	case option.Boolean:
		b, _ := option.ParseBool(def)
		return strconv.FormatBool(!b)
	case option.Integer, option.Port:
		d, _ := strconv.ParseFloat(def, 64)
		return strconv.Itoa(int(num(d, 7)))
	case option.Octal:
		d, _ := strconv.ParseInt(def, 8, 64)
		return "0" + strconv.FormatInt(int64(num(float64(d), 7)), 8)
	case option.Float:
		d, _ := strconv.ParseFloat(def, 64)
		return strconv.FormatFloat(num(d, 0.5), 'f', -1, 64)
	case option.List, option.MultiString:
		return "x-" + o.Name + ",y-" + o.Name
	case option.Dict:
		return "k-" + o.Name + ":v"
	case option.IPAddress:
		return "192.0.2.7"
	case option.HostAddress:
		return "host-x.example.org"
	}
	for _, c := range o.Choices {
		if c.Value != o.Default && c.Value != "" {
			return c.Value
		}
	}
	return "x-" + o.Name
}

// expected is what a component should hold for the value written, as
// its JSON decodes.
func expected(t *testing.T, o *option.Opt, written string) any {
	t.Helper()
	switch o.Type {
	case option.Boolean:
		b, _ := option.ParseBool(written)
		return b
	case option.Integer, option.Port, option.Float:
		f, err := strconv.ParseFloat(written, 64)
		if err != nil {
			t.Fatalf("%s: %v", o.Key(), err)
		}
		return f
	case option.Octal:
		n, _ := strconv.ParseInt(written, 8, 64)
		return float64(n)
	case option.List:
		var out []any
		for _, s := range option.ParseList(written) {
			out = append(out, s)
		}
		return out
	case option.MultiString:
		return []any{written}
	case option.Dict:
		m, _ := option.ParseDict(written)
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return written
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// writeConf writes the options ("section.name" = value) as an ini file.
func writeConf(t *testing.T, path string, sets ...map[string]string) {
	t.Helper()
	bySection := map[string][]string{}
	for _, m := range sets {
		for key, v := range m {
			sec, name, _ := strings.Cut(key, ".")
			bySection[sec] = append(bySection[sec], name+" = "+v)
		}
	}
	var b strings.Builder
	for sec, lines := range bySection {
		slices.Sort(lines)
		fmt.Fprintf(&b, "[%s]\n%s\n\n", sec, strings.Join(lines, "\n"))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs a binary in its own directory and returns its output; it must
// exit 0 within a minute.
func run(t *testing.T, bin string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	// [oslo_messaging_rabbit]ssl_enforce_fips_mode = true needs Go's FIPS
	// 140-3 module on, or start-up stops (rpc/amqp TestTLSFIPSMode).
	cmd.Env = append(os.Environ(), "GODEBUG=fips140=on")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return out.Bytes(), errb.Bytes()
}

// buildBinaries builds the commands (test/internal/cluster), or returns
// $GOIRONIC_TEST_BINARIES when set (a directory holding them, e.g. built
// from another revision).
func buildBinaries(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("GOIRONIC_TEST_BINARIES"); dir != "" {
		return dir
	}
	cmds := make([]cluster.Command, len(binaries))
	for i, b := range binaries {
		cmds[i] = b.name
	}
	cluster.Build(t, cmds...)
	return filepath.Dir(cluster.Bin(t, cmds[0]))
}
