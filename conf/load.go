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
		s.overrides[normalizeSection(section)+"."+name] = value
	}
}

// source is one configuration file, on disk (data nil) or in memory.
type source struct {
	name string
	data []byte
}

// layer holds the values one file sets: "section.name" -> every value
// written for it, in file order.
type layer struct {
	name   string
	values map[string][]string
}

// Load reads the given configuration files in order (later files win)
// and returns the resulting Config. With no files it returns the
// defaults. A missing file is an error, as in oslo.config.
//
// Load does not apply the all-in-one defaults unless AllInOne is given,
// and then only when there are no files (see FromArgs).
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
	layers := make([]layer, 0, len(srcs))
	var files []string
	for _, src := range srcs {
		l, err := parseSource(src)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
		files = append(files, src.name)
	}

	opts := Opts()
	idx := newOptIndex(opts)
	c := &Config{files: files, set: map[string]string{}}

	// Classify everything the files set.
	for _, l := range layers {
		for key := range l.values {
			o, known := idx.lookup(key)
			switch {
			case !known:
				c.ignored = append(c.ignored, key)
			case key != o.Key():
				c.deprecatedUsed = append(c.deprecatedUsed, key+" (use "+o.Key()+")")
				if !o.Implemented {
					c.notImplemented = append(c.notImplemented, o.Key())
				}
			case !o.Implemented:
				c.notImplemented = append(c.notImplemented, key)
			}
		}
	}
	for key := range s.overrides {
		if _, known := idx.lookup(key); !known {
			return nil, fmt.Errorf("conf: command line: unknown option %s", key)
		}
	}
	c.ignored = sortedUnique(c.ignored)
	c.notImplemented = sortedUnique(c.notImplemented)
	c.deprecatedUsed = sortedUnique(c.deprecatedUsed)

	r := &resolver{
		idx:       idx,
		layers:    layers,
		overrides: s.overrides,
		dynamic:   dynamicDefaults(s),
		resolved:  map[string]resolvedValue{},
		active:    map[string]bool{},
	}
	if s.allInOne && len(layers) == 0 {
		r.overlay = allInOneDefaults()
	}

	bound := bindings()
	keys := make([]string, 0, len(bound))
	for k := range bound {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		o, ok := idx.lookup(key)
		if !ok {
			return nil, fmt.Errorf("conf: internal error: binding for unknown option %s", key)
		}
		v, err := r.resolve(o)
		if err != nil {
			return nil, err
		}
		if v.fromUser {
			c.set[key] = v.origin
		}
		if err := assign(bound[key](c), o, v); err != nil {
			return nil, err
		}
	}
	// Options that are not bound but set by a file still count as set.
	for _, l := range layers {
		for key := range l.values {
			if o, ok := idx.lookup(key); ok {
				if _, done := c.set[o.Key()]; !done {
					c.set[o.Key()] = l.name
				}
			}
		}
	}
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
func parseSource(src source) (layer, error) {
	var data any = src.name
	if src.data != nil {
		data = src.data
	} else if _, err := os.Stat(src.name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return layer{}, fmt.Errorf("conf: config file %s not found", src.name)
		}
		return layer{}, fmt.Errorf("conf: %w", err)
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
		return layer{}, fmt.Errorf("conf: %s: %s", src.name, strings.TrimSpace(err.Error()))
	}
	l := layer{name: src.name, values: map[string][]string{}}
	for _, sec := range f.Sections() {
		section := normalizeSection(sec.Name())
		for _, k := range sec.Keys() {
			key := section + "." + k.Name()
			vals := k.ValueWithShadows()
			if len(vals) == 0 {
				vals = []string{""}
			}
			for i, v := range vals {
				vals[i] = trimContinuations(v)
			}
			l.values[key] = append(l.values[key], vals...)
		}
	}
	return l, nil
}

// optionError is a bad value: it names where the value comes from (a
// file, "default", "command line"), the section and the option.
type optionError struct {
	origin, section, name string
	err                   error
}

func (e *optionError) Error() string {
	return fmt.Sprintf("conf: %s: [%s] %s: %v", e.origin, e.section, e.name, e.err)
}

func (e *optionError) Unwrap() error { return e.err }

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

// resolvedValue is an option's value after interpolation, before type
// conversion.
type resolvedValue struct {
	raw      string   // single-valued options
	multi    []string // MultiString options
	unset    bool     // None: no default and nothing set
	origin   string   // file name, "command line", "default", ...
	fromUser bool     // set by a file or the command line
}

// resolver finds option values layer by layer and performs oslo.config's
// "$name" interpolation.
type resolver struct {
	idx       *optIndex
	layers    []layer
	overrides map[string]string
	overlay   map[string]string // all-in-one defaults
	dynamic   map[string]string
	resolved  map[string]resolvedValue
	active    map[string]bool // cycle detection
}

func (r *resolver) resolve(o *Opt) (resolvedValue, error) {
	key := o.Key()
	if v, ok := r.resolved[key]; ok {
		return v, nil
	}
	if r.active[key] {
		return resolvedValue{}, fmt.Errorf("interpolation loop through $%s", o.Name)
	}
	r.active[key] = true
	defer delete(r.active, key)

	v := r.raw(o)
	sub := func(s string) (string, error) {
		out, err := r.substitute(s, o.Section)
		var inner *optionError
		if err != nil && !errors.As(err, &inner) {
			err = &optionError{origin: v.origin, section: o.Section, name: o.Name, err: err}
		}
		return out, err
	}
	var err error
	if o.Type == MultiString {
		for i := range v.multi {
			if v.multi[i], err = sub(v.multi[i]); err != nil {
				return resolvedValue{}, err
			}
		}
	} else if !v.unset {
		if v.raw, err = sub(v.raw); err != nil {
			return resolvedValue{}, err
		}
	}
	r.resolved[key] = v
	return v, nil
}

// raw returns the uninterpolated value of an option: command line, then
// the files from last to first (the current name before deprecated ones
// within a file), then the all-in-one defaults, then the table default.
// Multi-valued options collect the values of every file, in order.
func (r *resolver) raw(o *Opt) resolvedValue {
	key := o.Key()
	if v, ok := r.overrides[key]; ok {
		return resolvedValue{raw: v, multi: []string{v}, origin: "command line", fromUser: true}
	}
	names := make([]string, 0, 1+len(o.DeprecatedNames))
	names = append(names, key)
	for _, d := range o.DeprecatedNames {
		names = append(names, normalizeKey(d))
	}
	if o.Type == MultiString {
		var all []string
		origin := ""
		for _, l := range r.layers {
			for _, n := range names {
				if vals, ok := l.values[n]; ok {
					all = append(all, vals...)
					origin = l.name
				}
			}
		}
		if origin != "" {
			return resolvedValue{multi: all, origin: origin, fromUser: true}
		}
	} else {
		for i := len(r.layers) - 1; i >= 0; i-- {
			l := r.layers[i]
			for _, n := range names {
				if vals, ok := l.values[n]; ok {
					return resolvedValue{raw: vals[len(vals)-1], origin: l.name, fromUser: true}
				}
			}
		}
	}
	if v, ok := r.overlay[key]; ok {
		return resolvedValue{raw: v, multi: splitMultiDefault(v), origin: "all-in-one defaults"}
	}
	if v, ok := r.dynamic[key]; ok {
		return resolvedValue{raw: v, multi: []string{v}, origin: "default"}
	}
	if o.NoDefault {
		return resolvedValue{unset: true, origin: "default"}
	}
	return resolvedValue{raw: o.Default, multi: splitMultiDefault(o.Default), origin: "default"}
}

// splitMultiDefault turns the table's comma-joined default of a
// multi-valued option into its values.
func splitMultiDefault(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// lookupVar returns the interpolated value of the option a "$name"
// refers to from inside section: "group.option" names a section
// explicitly; a bare name is looked up in the same section first, then
// in DEFAULT. Options set in a file but unknown to the table can be
// referred to as well.
func (r *resolver) lookupVar(name, section string) (string, error) {
	var candidates []string
	if grp, opt, ok := strings.Cut(name, "."); ok {
		// Like oslo.config, fall back to a DEFAULT option named with a dot.
		candidates = []string{normalizeSection(grp) + "." + opt, "DEFAULT." + name}
	} else {
		candidates = []string{section + "." + name, "DEFAULT." + name}
	}
	for _, key := range candidates {
		if o, ok := r.idx.lookup(key); ok {
			v, err := r.resolve(o)
			if err != nil {
				return "", err
			}
			switch {
			case v.unset:
				return "", nil
			case o.Type == MultiString:
				return strings.Join(v.multi, ","), nil
			}
			return v.raw, nil
		}
		for i := len(r.layers) - 1; i >= 0; i-- {
			if vals, ok := r.layers[i].values[key]; ok {
				if r.active[key] {
					return "", fmt.Errorf("interpolation loop through $%s", name)
				}
				r.active[key] = true
				defer delete(r.active, key)
				grp, _, _ := strings.Cut(key, ".")
				return r.substitute(vals[len(vals)-1], grp)
			}
		}
	}
	return "", fmt.Errorf("cannot substitute $%s: no such option", name)
}

// substitute expands "$name" and "${name}" as Python's string.Template
// (with oslo.config's identifier pattern) does: "$$" and "\$" stand for
// a literal "$", and a "$" that starts no identifier is kept as is.
func (r *resolver) substitute(s, section string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	s = strings.ReplaceAll(s, `\$`, "$$")
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		next := s[i+1]
		switch {
		case next == '$':
			b.WriteByte('$')
			i += 2
		case next == '{':
			end := strings.IndexByte(s[i+2:], '}')
			name := ""
			if end >= 0 {
				name = s[i+2 : i+2+end]
			}
			if end < 0 || !isIdentifier(name) {
				b.WriteByte('$')
				i++
				continue
			}
			v, err := r.lookupVar(name, section)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i += 3 + end
		case isIdentStart(next):
			j := i + 2
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			v, err := r.lookupVar(s[i+1:j], section)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = j
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c == '.' || (c >= '0' && c <= '9')
}

func isIdentifier(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}
