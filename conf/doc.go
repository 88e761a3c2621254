// Package conf reads ironic.conf, the configuration file of OpenStack
// Ironic, with the semantics of oslo.config: the files and the command
// line of a service, the all-in-one binary's defaults, the start-up
// report and the sample file. What an option is (the table of every
// option Ironic 21.4 knows, their types and defaults) and how a
// component reads one (option.Binder) live in the leaf package option,
// which every component may import; this package is only the loader.
//
// A deployment's existing ironic.conf loads unchanged: options of the
// table that no component binds are accepted and listed by
// Config.NotImplemented, options nobody knows are accepted and listed
// by Config.Ignored, and neither stops a service; Report logs both once.
//
// # Syntax
//
//   - Files are read in order; a later file overrides an earlier one, and
//     within a file the last occurrence of a key wins. Multi-valued
//     options (MultiString) collect every occurrence of every file.
//   - Section names are case-insensitive except DEFAULT. Comment lines
//     start with "#" or ";"; a "#" inside a value is part of it; quotes
//     are kept; indented lines continue the previous value.
//   - Deprecated option names are read (with lower precedence than the
//     current name within a file) and listed by Config.Deprecated.
//   - Values are parsed, interpolated ("$name") and checked when a
//     component binds them; see package option. A bad value is an error
//     naming the file, the section and the option.
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
