package conf

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// AllInOne makes FromArgs (and Load) use the all-in-one defaults when no
// configuration file is given at all: the command line names no
// --config-file and no --config-dir. The default files
// (/etc/ironic/ironic.conf) are then not read either, so that the
// all-in-one "ironic" binary starts the same way on every machine. As
// soon as a file is given, it is read with Ironic's own defaults, exactly
// like every other service: a deployment's ironic.conf means the same
// thing to every binary.
//
// The all-in-one defaults (AllInOneDefaults) are:
//
//	[DEFAULT]
//	auth_strategy = noauth
//	rpc_transport = none
//	enabled_hardware_types = fake-hardware,manual-management
//	enabled_bios_interfaces = fake,no-bios
//	enabled_boot_interfaces = fake,ipxe,pxe
//	enabled_console_interfaces = fake,no-console
//	enabled_deploy_interfaces = fake,direct,ramdisk
//	enabled_inspect_interfaces = fake,no-inspect
//	enabled_management_interfaces = fake,noop
//	enabled_network_interfaces = flat,noop
//	enabled_power_interfaces = fake
//	enabled_raid_interfaces = fake,no-raid
//	enabled_rescue_interfaces = fake,no-rescue
//	enabled_storage_interfaces = fake,noop
//	enabled_vendor_interfaces = fake,no-vendor
//	default_network_interface = noop
//	[api]
//	host_ip = 127.0.0.1
//	port = 6385
//	[database]
//	connection = sqlite:///data/ironic.sqlite
//	[dhcp]
//	dhcp_provider = none
//
// The database is ./data/ironic.sqlite relative to the working
// directory; the caller creates ./data. The enabled interfaces hold the
// fake implementations of fake-hardware plus what manual-management
// needs (ipxe/pxe boot, direct/ramdisk deploy, noop management, the no-*
// implementations), because Ironic refuses to start when an enabled
// hardware type has no enabled implementation of some interface.
//
// Only the network interface gets a default_*_interface (noop: the flat
// interface needs Neutron); default_storage_interface keeps upstream's
// default, noop. The others stay unset on purpose: Ironic
// checks a configured default against every hardware type, so
// default_boot_interface=fake would make every manual-management node
// fail with NoValidDefaultForInterface. Unset, Ironic picks the first
// enabled implementation the node's hardware type supports, which for
// fake-hardware is "fake" for every interface but network and storage.
func AllInOne() LoadOption {
	return func(s *settings) { s.allInOne = true }
}

// AllInOneDefaults returns the values AllInOne applies, keyed by
// "section.name", as they would be written in ironic.conf.
func AllInOneDefaults() map[string]string { return allInOneDefaults() }

func allInOneDefaults() map[string]string {
	return map[string]string{
		"DEFAULT.auth_strategy":                 "noauth",
		"DEFAULT.rpc_transport":                 "none",
		"DEFAULT.enabled_hardware_types":        "fake-hardware,manual-management",
		"DEFAULT.enabled_bios_interfaces":       "fake,no-bios",
		"DEFAULT.enabled_boot_interfaces":       "fake,ipxe,pxe",
		"DEFAULT.enabled_console_interfaces":    "fake,no-console",
		"DEFAULT.enabled_deploy_interfaces":     "fake,direct,ramdisk",
		"DEFAULT.enabled_inspect_interfaces":    "fake,no-inspect",
		"DEFAULT.enabled_management_interfaces": "fake,noop",
		"DEFAULT.enabled_network_interfaces":    "flat,noop",
		"DEFAULT.enabled_power_interfaces":      "fake",
		"DEFAULT.enabled_raid_interfaces":       "fake,no-raid",
		"DEFAULT.enabled_rescue_interfaces":     "fake,no-rescue",
		"DEFAULT.enabled_storage_interfaces":    "fake,noop",
		"DEFAULT.enabled_vendor_interfaces":     "fake,no-vendor",
		"DEFAULT.default_network_interface":     "noop",
		"api.host_ip":                           "127.0.0.1",
		"api.port":                              "6385",
		"database.connection":                   "sqlite:///data/ironic.sqlite",
		"dhcp.dhcp_provider":                    "none",
	}
}

// The files and directories read when the command line names none, as
// oslo.config does for project "ironic" (its ~/ and /etc fallbacks are
// not searched).
const (
	defaultConfigFile = "/etc/ironic/ironic.conf"
	defaultConfigDir  = "/etc/ironic/ironic.conf.d"
)

// FromArgs parses the command line of an Ironic service (without the
// program name) and loads the configuration it names. It understands:
//
//	--config-file FILE, --config-file=FILE   read FILE (repeatable)
//	--config-dir DIR, --config-dir=DIR       read DIR/*.conf, sorted (repeatable)
//	-d, --debug, --nodebug                   set [DEFAULT]debug
//	--log-file FILE, --log-dir DIR           set [DEFAULT]log_file, log_dir
//	-h, --help                               returns flag.ErrHelp
//	--                                       ends the options
//
// Files are read in command-line order; later ones win. Without
// --config-file, /etc/ironic/ironic.conf is read if it exists; without
// --config-dir, /etc/ironic/ironic.conf.d/*.conf are (see
// WithDefaultConfigFiles, WithDefaultConfigDirs and AllInOne). Every
// other argument, including unknown flags, is returned in order for the
// caller (e.g. ironic-dbsync's "create_schema").
//
// On -h/--help FromArgs returns flag.ErrHelp; print Usage and exit 0.
func FromArgs(args []string, opts ...LoadOption) (*Config, []string, error) {
	s := settings{
		defaultFiles: []string{defaultConfigFile},
		defaultDirs:  []string{defaultConfigDir},
	}
	for _, o := range opts {
		o(&s)
	}
	var (
		srcs           []source
		rest           []string
		sawFile        bool
		sawDir         bool
		overrides      = map[string]string{}
		errMissingArgs = func(flag string) error { return fmt.Errorf("conf: %s needs an argument", flag) }
	)
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		name, value, hasValue := strings.Cut(arg, "=")
		if !strings.HasPrefix(name, "--") {
			hasValue = false
			name = arg
		}
		takesValue := name == "--config-file" || name == "--config-dir" || name == "--log-file" || name == "--log-dir"
		if takesValue && !hasValue {
			if i+1 >= len(args) {
				return nil, nil, errMissingArgs(name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "-h", "--help":
			return nil, nil, flag.ErrHelp
		case "--config-file":
			sawFile = true
			srcs = append(srcs, source{name: value})
		case "--config-dir":
			sawDir = true
			files, err := confFiles(value)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range files {
				srcs = append(srcs, source{name: f})
			}
		case "-d", "--debug":
			overrides["DEFAULT.debug"] = "true"
		case "--nodebug":
			overrides["DEFAULT.debug"] = "false"
		case "--log-file":
			overrides["DEFAULT.log_file"] = value
		case "--log-dir":
			overrides["DEFAULT.log_dir"] = value
		default:
			rest = append(rest, arg)
		}
	}

	if !s.allInOne {
		var defaults []source
		if !sawFile {
			for _, f := range s.defaultFiles {
				if isFile(f) {
					defaults = append(defaults, source{name: f})
				}
			}
		}
		srcs = append(defaults, srcs...)
		if !sawDir {
			for _, d := range s.defaultDirs {
				if !isDir(d) {
					continue
				}
				files, err := confFiles(d)
				if err != nil {
					return nil, nil, err
				}
				for _, f := range files {
					srcs = append(srcs, source{name: f})
				}
			}
		}
	}
	srcs = append(srcs, s.texts...)
	if len(overrides) > 0 {
		if s.overrides == nil {
			s.overrides = map[string]string{}
		}
		for k, v := range overrides {
			s.overrides[k] = v
		}
	}
	c, err := load(srcs, &s)
	if err != nil {
		return nil, nil, err
	}
	return c, rest, nil
}

// Usage returns the help text for the options FromArgs understands.
func Usage(prog string) string {
	return fmt.Sprintf(`usage: %s [--config-file FILE]... [--config-dir DIR]... [-d|--debug] [--log-file FILE] [--log-dir DIR]

  --config-file FILE  read FILE; repeatable, later files win
                      (default: %s if it exists)
  --config-dir DIR    read DIR/*.conf in sorted order, after the files named before it
                      (default: %s if it exists)
  -d, --debug         log at debug level ([DEFAULT]debug = true)
  --log-file FILE     [DEFAULT]log_file (not implemented: logs go to standard error)
  --log-dir DIR       [DEFAULT]log_dir (not implemented)
  -h, --help          show this help
`, prog, defaultConfigFile, defaultConfigDir)
}

// confFiles returns the *.conf files of dir, sorted by name.
func confFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("conf: config directory %s not found", dir)
		}
		return nil, fmt.Errorf("conf: %w", err)
	}
	var files []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".conf") {
			continue
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	sort.Strings(files)
	return files, nil
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
