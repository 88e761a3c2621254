// Package conf reads ironic.conf, the configuration file of OpenStack
// Ironic, with the semantics of oslo.config, into a typed Config.
//
// The option table (Opts) lists every option Ironic 21.4 knows, its own
// and those of the oslo libraries and keystonemiddleware it registers,
// with upstream's types, defaults and help text (upstream_opts.go is
// generated from them by tools/extract_opts.py). The options this
// service acts on are bound to Config fields in bindings.go and marked
// Implemented. A deployment's existing ironic.conf therefore loads
// unchanged: options of the table that we do not implement are accepted
// and listed by Config.NotImplemented, options nobody knows are accepted
// and listed by Config.Ignored, and neither stops a service; Report logs
// both once.
//
// # Syntax and semantics
//
//   - Files are read in order; a later file overrides an earlier one, and
//     within a file the last occurrence of a key wins. Multi-valued
//     options (MultiString) collect every occurrence of every file.
//   - Section names are case-insensitive except DEFAULT. Comment lines
//     start with "#" or ";"; a "#" inside a value is part of it; quotes
//     are kept; indented lines continue the previous value.
//   - Lists are comma-separated; whitespace around items is trimmed and
//     empty items are dropped. Dicts are "key:value" pairs separated by
//     commas.
//   - Booleans accept true/false, yes/no, on/off and 1/0, in any case.
//     Integers are decimal; an empty integer or float value means unset.
//   - "$name" and "${name}" are replaced by the value of option name of
//     the same section, else of [DEFAULT]; "${section.name}" names the
//     section; "$$" and "\$" are a literal "$". Defaults are interpolated
//     too (e.g. [pxe]tftp_server = $my_ip, [database]connection =
//     sqlite:///$state_path/ironic.sqlite). A reference to an option
//     nobody defines, or a loop, is an error.
//   - Deprecated option names are read (with lower precedence than the
//     current name within a file) and listed by Config.Deprecated.
//   - Values of implemented options are checked against the option's
//     type, choices and bounds. A bad value is an error naming the file,
//     the section and the option.
//   - Environment variables (oslo.config's OS_SECTION__NAME) are not read.
//
// # Entry points
//
// Services call FromArgs with their command line; AllInOne switches the
// all-in-one binary's defaults on when no file is given. Tests and tools
// call Load. ParseDatabaseURL translates [database]connection into
// settings for Go's SQLite and MySQL drivers. WriteSample writes
// etc/ironic/ironic.conf.sample; `go test ./conf -update` regenerates the
// committed copy.
package conf
