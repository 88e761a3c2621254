package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sort"
	"strings"

	"gopkg.in/ini.v1"

	"github.com/goironic/ironic/option"
)

// LoadOption customises Load and FromArgs.
type LoadOption func(*settings)

type settings struct {
	hostname     string
	myIP         string
	defaultFiles []string
	defaultDirs  []string
	allInOne     bool
	texts        []source
	overrides    map[string]string
}

// WithHostname sets the default of [DEFAULT]host instead of asking the
// operating system.
func WithHostname(name string) LoadOption {
	return func(s *settings) { s.hostname = name }
}

// WithMyIP sets the default of [DEFAULT]my_ip instead of looking at the
// machine's network interfaces.
func WithMyIP(ip string) LoadOption {
	return func(s *settings) { s.myIP = ip }
}

// WithDefaultConfigFiles replaces the files FromArgs reads when the
// command line names none (by default /etc/ironic/ironic.conf). Files
// that do not exist are skipped.
func WithDefaultConfigFiles(files ...string) LoadOption {
	return func(s *settings) { s.defaultFiles = files }
}

// WithDefaultConfigDirs replaces the directories FromArgs reads *.conf
// files from when the command line names no file (by default
// /etc/ironic/ironic.conf.d). Directories that do not exist are skipped.
func WithDefaultConfigDirs(dirs ...string) LoadOption {
	return func(s *settings) { s.defaultDirs = dirs }
}

// WithText adds an in-memory configuration file, read after the files on
// disk. name is only used in error messages. Handy in tests:
//
//	cfg, err := conf.Load(nil, conf.WithText("test", "[api]\nport = 1234\n"))
func WithText(name, text string) LoadOption {
	return func(s *settings) { s.texts = append(s.texts, source{name: name, data: []byte(text)}) }
}

// WithOverride sets an option with the highest precedence, above every
// file, as a command-line option would.
func WithOverride(section, name, value string) LoadOption {
	return func(s *settings) {
		if s.overrides == nil {
			s.overrides = map[string]string{}
		}
		s.overrides[option.NormalizeSection(section)+"."+name] = value
	}
}

// source is one configuration file, on disk (data nil) or in memory.
type source struct {
	name string
	data []byte
}

// Load reads the given configuration files in order (later files win)
// and returns the resulting Config. With no files it returns the
// defaults. A missing file is an error, as in oslo.config.
//
// Load does not apply the all-in-one defaults unless AllInOne is given,
// and then only when there are no files (see FromArgs). Values are
// checked when a component binds them (see Config.Binder), not here:
// options nobody binds are never validated.
func Load(files []string, opts ...LoadOption) (*Config, error) {
	s := settings{}
	for _, o := range opts {
		o(&s)
	}
	srcs := make([]source, 0, len(files)+len(s.texts))
	for _, f := range files {
		srcs = append(srcs, source{name: f})
	}
	srcs = append(srcs, s.texts...)
	return load(srcs, &s)
}

func load(srcs []source, s *settings) (*Config, error) {
	layers := make([]option.Layer, 0, len(srcs))
	var files []string
	for _, src := range srcs {
		l, err := parseSource(src)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
		files = append(files, src.name)
	}

	idx := option.NewIndex(option.Table())
	c := &Config{files: files}

	// Classify everything the files and the command line set.
	var known []string
	for _, l := range layers {
		for key := range l.Values {
			o, ok := idx.Lookup(key)
			switch {
			case !ok:
				c.ignored = append(c.ignored, key)
			case key != o.Key():
				c.deprecatedUsed = append(c.deprecatedUsed, key+" (use "+o.Key()+")")
				known = append(known, o.Key())
			default:
				known = append(known, key)
			}
		}
	}
	for key := range s.overrides {
		if o, ok := idx.Lookup(key); ok {
			known = append(known, o.Key())
		}
	}
	c.ignored = sortedUnique(c.ignored)
	c.deprecatedUsed = sortedUnique(c.deprecatedUsed)
	c.set = sortedUnique(known)

	defaults := dynamicDefaults(s)
	if s.allInOne && len(layers) == 0 {
		for k, v := range allInOneDefaults() {
			defaults[k] = v
		}
	}
	vals, err := option.NewValues(option.Sources{CommandLine: s.overrides, Files: layers, Defaults: defaults})
	if err != nil {
		return nil, err
	}
	c.values = vals
	return c, nil
}

// parseSource reads one ini file with oslo.config's syntax: "#" and ";"
// start comment lines only (a "#" inside a value is part of it), one
// pair of matching quotes around a value is removed, indented lines
// continue the previous value (joined with "\n", leading blanks
// removed), a key may be repeated (the last one wins, except for
// multi-valued options), and section names other than DEFAULT are
// case-insensitive.
//
// Known differences that come from gopkg.in/ini.v1: a value starting
// with a backtick or with three double quotes extends to the matching
// closing quote, possibly over several lines.
func parseSource(src source) (option.Layer, error) {
	var data any = src.name
	if src.data != nil {
		data = src.data
	} else if _, err := os.Stat(src.name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return option.Layer{}, fmt.Errorf("conf: config file %s not found", src.name)
		}
		return option.Layer{}, fmt.Errorf("conf: %w", err)
	}
	f, err := ini.LoadSources(ini.LoadOptions{
		IgnoreContinuation:         true,
		IgnoreInlineComment:        true,
		AllowShadows:               true,
		AllowDuplicateShadowValues: true,
		PreserveEmptyShadowValues:  true,
		AllowPythonMultilineValues: true,
		KeyValueDelimiters:         "=:",
	}, data)
	if err != nil {
		return option.Layer{}, fmt.Errorf("conf: %s: %s", src.name, strings.TrimSpace(err.Error()))
	}
	l := option.Layer{Name: src.name, Values: map[string][]string{}}
	for _, sec := range f.Sections() {
		section := option.NormalizeSection(sec.Name())
		for _, k := range sec.Keys() {
			key := section + "." + k.Name()
			vals := k.ValueWithShadows()
			if len(vals) == 0 {
				vals = []string{""}
			}
			for i, v := range vals {
				vals[i] = trimContinuations(v)
			}
			l.Values[key] = append(l.Values[key], vals...)
		}
	}
	return l, nil
}

// trimContinuations removes the indentation of continuation lines.
func trimContinuations(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	lines := strings.Split(v, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimLeft(lines[i], " \t")
	}
	return strings.Join(lines, "\n")
}

// dynamicDefaults computes the defaults that depend on the host.
func dynamicDefaults(s *settings) map[string]string {
	host := s.hostname
	if host == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "localhost"
		}
		host = h
	}
	ip := s.myIP
	if ip == "" {
		ip = detectIPv4()
	}
	return map[string]string{
		"DEFAULT.host":    host,
		"DEFAULT.my_ip":   ip,
		"DEFAULT.tempdir": os.TempDir(),
	}
}

// detectIPv4 returns the first global unicast IPv4 address of this host,
// or 127.0.0.1 when there is none, like upstream's my_ip default.
func detectIPv4() string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if ip4 := n.IP.To4(); ip4 != nil && ip4.IsGlobalUnicast() {
					return ip4.String()
				}
			}
		}
	}
	return "127.0.0.1"
}

func sortedUnique(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	sort.Strings(in)
	out := in[:1]
	for _, s := range in[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}
