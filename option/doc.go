// Package option declares ironic.conf's options and how components read
// them. It is a leaf: every component may import it, and it imports
// nothing of this module.
//
// Table lists every option Ironic 21.4 registers, its own and those of
// the oslo libraries and keystonemiddleware (upstream_opts.go, generated
// by tools/extract_opts.py): names, types, defaults, bounds and help
// text, as facts. A component reads the options it needs by binding them
// onto its own Config fields with a Binder, in a Bind method next to the
// code that uses them; the defaults come from the table, never from the
// component. An option is implemented exactly when some component binds
// it: package conf reports the others as not implemented at start-up,
// and the sample file says so.
//
// # Values
//
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
//     nobody defines, or a loop, is an error. An option referred to by
//     the value of a bound option counts as read.
//   - Values are checked against the option's type, choices and bounds
//     when bound.
package option
