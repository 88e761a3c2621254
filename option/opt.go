package option

import (
	"sort"
	"strings"
)

// Type is the value type of an option, named after oslo.config's types.
// It decides how a value written in ironic.conf is parsed.
type Type uint8

// The option types. Values are parsed as oslo.config parses them; see
// the package documentation for the exact rules.
const (
	String      Type = iota + 1 // any text
	Integer                     // decimal integer, optional sign
	Float                       // floating point number
	Boolean                     // true/false, yes/no, on/off, 1/0, any case
	List                        // comma-separated strings
	Dict                        // comma-separated key:value pairs
	MultiString                 // the option may be repeated; all values are kept
	Port                        // an Integer between 0 and 65535
	HostAddress                 // an IP address or a host name
	IPAddress                   // an IPv4 or IPv6 address
	Octal                       // an integer written in base 8 (file modes)
)

// String returns the type's description as the sample file shows it,
// e.g. "integer value".
func (t Type) String() string {
	switch t {
	case String:
		return "string value"
	case Integer, Octal:
		return "integer value"
	case Float:
		return "floating point value"
	case Boolean:
		return "boolean value"
	case List:
		return "list value"
	case Dict:
		return "dict value"
	case MultiString:
		return "multi valued"
	case Port:
		return "port value"
	case HostAddress:
		return "host address value"
	case IPAddress:
		return "IP address value"
	}
	return "unknown value"
}

// Choice is one allowed value of an option that has a closed set.
type Choice struct {
	Value       string
	Description string
}

// Opt describes one configuration option: where it lives, its type,
// its default and its documentation. The table of all options is Table.
type Opt struct {
	// Section is "DEFAULT" or the lower-case group name, e.g. "api".
	Section string
	// Name is the option name as written in ironic.conf.
	Name string
	// Namespace is the library that defines the option upstream
	// ("ironic", "oslo.db", "keystonemiddleware.auth_token", ...). The
	// sample file groups options by it.
	Namespace string
	Type      Type
	// Default is the default value written as it would be in ironic.conf
	// (lists comma-separated, booleans "true"/"false"). It may refer to
	// other options ("$pybasedir/...") and is interpolated like a value
	// read from a file.
	Default string
	// NoDefault is set when upstream's default is None: the option is
	// unset unless a file sets it. It reads as the Go zero value.
	NoDefault bool
	// SampleDefault, when not empty, is shown in the sample instead of
	// Default because the real default is computed on the running host
	// (e.g. [DEFAULT]host is the machine's host name).
	SampleDefault string
	Help          string
	// Choices, when not empty, is the closed set of accepted values.
	Choices []Choice
	// Min and Max bound numeric options; empty means unbounded.
	Min, Max string
	// Secret options are never logged.
	Secret bool
	// Advanced options are flagged as such in the sample.
	Advanced             bool
	DeprecatedForRemoval bool
	DeprecatedReason     string
	DeprecatedSince      string
	// DeprecatedNames are older "section.name" spellings that are still
	// read, with lower precedence than Name within the same file.
	DeprecatedNames []string
}

// Key returns "section.name".
func (o Opt) Key() string { return o.Section + "." + o.Name }

// Table returns every option Ironic 21.4 reads (its own and those of the
// oslo libraries and keystonemiddleware it uses), in sample-file order.
// Whether this service implements one is not a property of the table:
// an option is implemented when a component binds it (see Binder). The
// result is a fresh copy on every call.
func Table() []Opt { return upstreamOpts() }

// NormalizeSection returns the canonical name of an ini section, as
// oslo.config does: group names are case-insensitive, except DEFAULT.
func NormalizeSection(name string) string {
	if name == "DEFAULT" {
		return name
	}
	return strings.ToLower(name)
}

// NormalizeKey canonicalises a "section.name" key (used for deprecated
// names, which upstream sometimes spells with an upper-case group).
func NormalizeKey(key string) string {
	section, name, ok := strings.Cut(key, ".")
	if !ok {
		return key
	}
	return NormalizeSection(section) + "." + name
}

// Index finds the options of a table by "section.name", under their
// current or a deprecated name.
type Index struct {
	opts       []Opt
	byKey      map[string]int
	deprecated map[string]int
}

// NewIndex indexes opts, which it keeps.
func NewIndex(opts []Opt) *Index {
	idx := &Index{
		opts:       opts,
		byKey:      make(map[string]int, len(opts)),
		deprecated: make(map[string]int),
	}
	for i, o := range opts {
		idx.byKey[o.Key()] = i
	}
	for i, o := range opts {
		for _, d := range o.DeprecatedNames {
			d = NormalizeKey(d)
			if _, current := idx.byKey[d]; !current {
				idx.deprecated[d] = i
			}
		}
	}
	return idx
}

// Lookup returns the option known under key, either its current name or
// a deprecated one.
func (idx *Index) Lookup(key string) (*Opt, bool) {
	if i, ok := idx.byKey[key]; ok {
		return &idx.opts[i], true
	}
	if i, ok := idx.deprecated[key]; ok {
		return &idx.opts[i], true
	}
	return nil, false
}

// Sections returns the section names of opts in sample order: DEFAULT
// first, then alphabetical.
func Sections(opts []Opt) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range opts {
		if !seen[o.Section] {
			seen[o.Section] = true
			out = append(out, o.Section)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i] == "DEFAULT") != (out[j] == "DEFAULT") {
			return out[i] == "DEFAULT"
		}
		return out[i] < out[j]
	})
	return out
}
