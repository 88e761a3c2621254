package option

import (
	"errors"
	"fmt"
	"strings"
)

// Layer is what one configuration file sets: "section.name" (section
// already canonical, see NormalizeSection) to every value written for
// it, in file order.
type Layer struct {
	// Name is the file's name, used in error messages.
	Name   string
	Values map[string][]string
}

// Sources are where option values come from, in order of precedence:
// the command line, then the files from last to first, then Defaults,
// then the table's default.
type Sources struct {
	// CommandLine holds "section.name" = value set on the command line.
	CommandLine map[string]string
	// Files are the configuration files in the order they were read.
	Files []Layer
	// Defaults replace the table's defaults of some options, e.g. the
	// host-dependent [DEFAULT]host and my_ip, or the all-in-one
	// binary's defaults. They do not count as set.
	Defaults map[string]string
}

// Values resolves options from their Sources, with oslo.config's
// "$name" interpolation. Components do not read Values directly: they
// bind their options through a Binder.
type Values struct {
	idx *Index
	r   *resolver
	set map[string]string // canonical "section.name" -> where it was set
}

// NewValues returns the values of the table's options given by src. A
// command-line value for an option the table does not have is an error.
func NewValues(src Sources) (*Values, error) {
	idx := NewIndex(Table())
	v := &Values{idx: idx, set: map[string]string{}}
	for key := range src.CommandLine {
		o, ok := idx.Lookup(key)
		if !ok {
			return nil, fmt.Errorf("conf: command line: unknown option %s", key)
		}
		v.set[o.Key()] = "command line"
	}
	for _, l := range src.Files {
		for key := range l.Values {
			if o, ok := idx.Lookup(key); ok {
				if _, done := v.set[o.Key()]; !done {
					v.set[o.Key()] = l.Name
				}
			}
		}
	}
	v.r = &resolver{
		idx:       idx,
		layers:    src.Files,
		overrides: src.CommandLine,
		defaults:  src.Defaults,
		resolved:  map[string]resolvedValue{},
		active:    map[string]bool{},
	}
	return v, nil
}

// IsSet tells whether a file or the command line set the option (under
// its current or a deprecated name); defaults do not count.
func (v *Values) IsSet(section, name string) bool {
	_, ok := v.set[NormalizeSection(section)+"."+name]
	return ok
}

// hostDefaults are the defaults Defaults uses for the options whose real
// default depends on the machine: the ones the sample file shows.
func hostDefaults() map[string]string {
	return map[string]string{
		"DEFAULT.host":    "localhost",
		"DEFAULT.my_ip":   "127.0.0.1",
		"DEFAULT.tempdir": "/tmp",
	}
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

// resolvedValue is an option's value after interpolation, before type
// conversion.
type resolvedValue struct {
	raw    string   // single-valued options
	multi  []string // MultiString options
	unset  bool     // None: no default and nothing set
	origin string   // file name, "command line", "default"
	// refs are the options the value refers to through "$name",
	// directly or through the values of those.
	refs []string
}

// resolver finds option values layer by layer and performs oslo.config's
// "$name" interpolation.
type resolver struct {
	idx       *Index
	layers    []Layer
	overrides map[string]string
	defaults  map[string]string
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
		out, err := r.substitute(s, o.Section, &v.refs)
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
// within a file), then the replaced defaults, then the table default.
// Multi-valued options collect the values of every file, in order.
func (r *resolver) raw(o *Opt) resolvedValue {
	key := o.Key()
	if v, ok := r.overrides[key]; ok {
		return resolvedValue{raw: v, multi: []string{v}, origin: "command line"}
	}
	names := make([]string, 0, 1+len(o.DeprecatedNames))
	names = append(names, key)
	for _, d := range o.DeprecatedNames {
		names = append(names, NormalizeKey(d))
	}
	if o.Type == MultiString {
		var all []string
		origin := ""
		for _, l := range r.layers {
			for _, n := range names {
				if vals, ok := l.Values[n]; ok {
					all = append(all, vals...)
					origin = l.Name
				}
			}
		}
		if origin != "" {
			return resolvedValue{multi: all, origin: origin}
		}
	} else {
		for i := len(r.layers) - 1; i >= 0; i-- {
			l := r.layers[i]
			for _, n := range names {
				if vals, ok := l.Values[n]; ok {
					return resolvedValue{raw: vals[len(vals)-1], origin: l.Name}
				}
			}
		}
	}
	if v, ok := r.defaults[key]; ok {
		return resolvedValue{raw: v, multi: splitMultiDefault(v), origin: "default"}
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
// refers to from inside section, and adds the options it read to refs:
// "group.option" names a section explicitly; a bare name is looked up in
// the same section first, then in DEFAULT. Options set in a file but
// unknown to the table can be referred to as well.
func (r *resolver) lookupVar(name, section string, refs *[]string) (string, error) {
	var candidates []string
	if grp, opt, ok := strings.Cut(name, "."); ok {
		// Like oslo.config, fall back to a DEFAULT option named with a dot.
		candidates = []string{NormalizeSection(grp) + "." + opt, "DEFAULT." + name}
	} else {
		candidates = []string{section + "." + name, "DEFAULT." + name}
	}
	for _, key := range candidates {
		if o, ok := r.idx.Lookup(key); ok {
			v, err := r.resolve(o)
			if err != nil {
				return "", err
			}
			*refs = append(*refs, o.Key())
			*refs = append(*refs, v.refs...)
			switch {
			case v.unset:
				return "", nil
			case o.Type == MultiString:
				return strings.Join(v.multi, ","), nil
			}
			return v.raw, nil
		}
		for i := len(r.layers) - 1; i >= 0; i-- {
			if vals, ok := r.layers[i].Values[key]; ok {
				if r.active[key] {
					return "", fmt.Errorf("interpolation loop through $%s", name)
				}
				r.active[key] = true
				defer delete(r.active, key)
				grp, _, _ := strings.Cut(key, ".")
				return r.substitute(vals[len(vals)-1], grp, refs)
			}
		}
	}
	return "", fmt.Errorf("cannot substitute $%s: no such option", name)
}

// substitute expands "$name" and "${name}" as Python's string.Template
// (with oslo.config's identifier pattern) does: "$$" and "\$" stand for
// a literal "$", and a "$" that starts no identifier is kept as is.
func (r *resolver) substitute(s, section string, refs *[]string) (string, error) {
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
			v, err := r.lookupVar(name, section, refs)
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
			v, err := r.lookupVar(s[i+1:j], section, refs)
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
