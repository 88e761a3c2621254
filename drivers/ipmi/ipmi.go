// Package ipmi implements Ironic's ipmitool interfaces: "ipmitool" power,
// management and vendor, and the "ipmitool-socat" and
// "ipmitool-shellinabox" consoles. They declare Ironic's properties and
// validate driver_info with Ironic's messages. Talking to a BMC is not
// implemented yet: every action answers NotImplemented, never a pretended
// success.
package ipmi

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/states"
)

// Config configures the ipmitool interfaces. They do not read
// ironic.conf yet: they answer NotImplemented until they run ipmitool
// (issue 12), so the [ipmi] and [console] options are reported as not
// implemented.
type Config struct {
	// ConsolePortRange is what [console]port_range will give ("" when
	// unset): without it, console validation requires
	// driver_info/ipmi_terminal_port.
	ConsolePortRange string
	// NoBridging says the installed ipmitool can't do IPMI bridging
	// (older than 1.8.12); nodes asking for it then fail validation.
	NoBridging bool
}

// Implementations returns the ipmitool interfaces, for drivers.NewRegistry.
func Implementations(cfg Config) []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.Power, Name: "ipmitool", Impl: &Power{cfg: cfg}},
		{Kind: drivers.Management, Name: "ipmitool", Impl: &Management{cfg: cfg}},
		{Kind: drivers.Vendor, Name: "ipmitool", Impl: &Vendor{cfg: cfg}},
		{Kind: drivers.Console, Name: "ipmitool-socat", Impl: &Console{cfg: cfg, name: "ipmitool-socat"}},
		{Kind: drivers.Console, Name: "ipmitool-shellinabox", Impl: &Console{cfg: cfg, name: "ipmitool-shellinabox"}},
	}
}

// Info is a node's parsed IPMI access parameters (Ironic's
// _parse_driver_info result).
type Info struct {
	Address         string
	DestPort        *int64
	Username        string
	Password        string
	HexKgKey        string
	TerminalPort    *int64
	PrivLevel       string
	LocalAddress    any
	TransitChannel  any
	TransitAddress  any
	TargetChannel   any
	TargetAddress   any
	ProtocolVersion string
	ForceBootDevice any
	CipherSuite     any
}

// ParseDriverInfo checks a node's IPMI driver_info as Ironic's ipmitool
// module does and returns the parsed parameters. Its errors are
// MissingParameterValue and InvalidParameterValue faults with Ironic's
// messages.
func ParseDriverInfo(task drivers.Task, cfg Config) (*Info, error) {
	info := task.DriverInfo()
	internal := task.DriverInternalInfo()
	if !py.Truthy(info["ipmi_address"]) {
		return nil, drivers.MissingParameter("Missing the following IPMI credentials in node's driver_info: %s.", py.Repr([]string{"ipmi_address"}))
	}
	get := func(key string, def any) any {
		if v, ok := info[key]; ok {
			return v
		}
		return def
	}
	out := &Info{
		Address:         py.Str(info["ipmi_address"]),
		Password:        py.Str(get("ipmi_password", "")),
		PrivLevel:       py.Str(get("ipmi_priv_level", "ADMINISTRATOR")),
		ProtocolVersion: py.Str(get("ipmi_protocol_version", "2.0")),
		ForceBootDevice: get("ipmi_force_boot_device", false),
		CipherSuite:     info["ipmi_cipher_suite"],
		LocalAddress:    info["ipmi_local_address"],
		TransitChannel:  info["ipmi_transit_channel"],
		TransitAddress:  info["ipmi_transit_address"],
		TargetChannel:   info["ipmi_target_channel"],
		TargetAddress:   info["ipmi_target_address"],
	}
	if v := info["ipmi_username"]; v != nil {
		out.Username = py.Str(v)
	}
	if v := info["ipmi_hex_kg_key"]; v != nil {
		out.HexKgKey = py.Str(v)
	}
	if out.ProtocolVersion != "2.0" && out.ProtocolVersion != "1.5" {
		return nil, drivers.InvalidParameter("Invalid IPMI protocol version value %s, the valid value can be one of %s",
			out.ProtocolVersion, "2.0, 1.5")
	}
	port := info["ipmi_terminal_port"]
	if !py.Truthy(port) {
		port = internal["allocated_ipmi_terminal_port"]
	}
	if port != nil {
		p, err := networkPort(port, "ipmi_terminal_port")
		if err != nil {
			return nil, err
		}
		out.TerminalPort = &p
	}
	if dest := info["ipmi_port"]; dest != nil {
		p, err := networkPort(dest, "ipmi_port")
		if err != nil {
			return nil, err
		}
		out.DestPort = &p
	}
	bridging := get("ipmi_bridging", "no")
	switch bridging {
	case "no":
		out.LocalAddress, out.TransitChannel, out.TransitAddress, out.TargetChannel, out.TargetAddress = nil, nil, nil, nil, nil
	case "single", "dual":
		if cfg.NoBridging {
			return nil, drivers.InvalidParameter("Value for ipmi_bridging is provided as %s, but IPMI bridging is not supported by the IPMI utility installed on host. Ensure ipmitool version is > 1.8.11", bridging)
		}
		var undefined []string
		if out.TargetChannel == nil {
			undefined = append(undefined, "ipmi_target_channel")
		}
		if out.TargetAddress == nil {
			undefined = append(undefined, "ipmi_target_address")
		}
		if bridging == "dual" {
			if out.TransitChannel == nil {
				undefined = append(undefined, "ipmi_transit_channel")
			}
			if out.TransitAddress == nil {
				undefined = append(undefined, "ipmi_transit_address")
			}
		} else {
			out.TransitChannel, out.TransitAddress = nil, nil
		}
		if len(undefined) > 0 {
			return nil, drivers.MissingParameter("%s not provided", py.Repr(undefined))
		}
	default:
		return nil, drivers.InvalidParameter("Invalid value for ipmi_bridging: %s, the valid value can be one of: %s",
			py.Str(bridging), py.Repr([]string{"single", "dual", "no"}))
	}
	levels := []string{"ADMINISTRATOR", "CALLBACK", "OPERATOR", "USER"}
	if _, isStr := get("ipmi_priv_level", "ADMINISTRATOR").(string); !isStr || !slices.Contains(levels, out.PrivLevel) {
		return nil, drivers.InvalidParameter("Invalid privilege level value:%s, the valid value can be one of %s",
			out.PrivLevel, strings.Join(levels, ", "))
	}
	if out.HexKgKey != "" && len(out.HexKgKey)%2 != 0 {
		return nil, drivers.InvalidParameter("Number of ipmi_hex_kg_key characters is not even")
	}
	if out.CipherSuite != nil {
		if _, ok := py.Int(out.CipherSuite); !ok {
			return nil, drivers.InvalidParameter("Invalid cipher suite %s, expected a number", py.Str(out.CipherSuite))
		}
		if out.ProtocolVersion == "1.5" {
			return nil, drivers.InvalidParameter("Cipher suites cannot be used with IPMI 1.5")
		}
	}
	return out, nil
}

// networkPort is Ironic's utils.validate_network_port.
func networkPort(v any, name string) (int64, error) {
	n, ok := py.Int(v)
	if !ok || n < 0 || n > 65535 {
		return 0, drivers.InvalidParameter("%s \"%s\" is not a valid port.", name, py.Str(v))
	}
	return n, nil
}

func notImplemented(kind drivers.Kind, op string) error {
	return drivers.NotImplemented("ipmitool", kind, op)
}

// Power is the "ipmitool" power interface.
type Power struct{ cfg Config }

// GetProperties returns the IPMI driver_info keys.
func (*Power) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's IPMI driver_info.
func (p *Power) Validate(_ context.Context, task drivers.Task) error {
	_, err := ParseDriverInfo(task, p.cfg)
	return err
}

// GetPowerState is not implemented yet.
func (p *Power) GetPowerState(_ context.Context, task drivers.Task) (states.Power, error) {
	if _, err := ParseDriverInfo(task, p.cfg); err != nil {
		return "", err
	}
	return "", notImplemented(drivers.Power, "get the power state")
}

// SetPowerState is not implemented yet.
func (p *Power) SetPowerState(_ context.Context, task drivers.Task, _ states.Power, _ time.Duration) error {
	if _, err := ParseDriverInfo(task, p.cfg); err != nil {
		return err
	}
	return notImplemented(drivers.Power, "set the power state")
}

// Reboot is not implemented yet.
func (p *Power) Reboot(_ context.Context, task drivers.Task, _ time.Duration) error {
	if _, err := ParseDriverInfo(task, p.cfg); err != nil {
		return err
	}
	return notImplemented(drivers.Power, "reboot")
}

// GetSupportedPowerStates returns every power state, as Ironic's ipmitool
// power does.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff}, nil
}

// Management is the "ipmitool" management interface.
type Management struct {
	drivers.ManagementBase
	cfg Config
}

// GetProperties returns the IPMI driver_info keys.
func (*Management) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's IPMI driver_info.
func (m *Management) Validate(_ context.Context, task drivers.Task) error {
	_, err := ParseDriverInfo(task, m.cfg)
	return err
}

// GetSupportedBootDevices returns the devices ipmitool can select: pxe,
// disk, cdrom, bios and safe.
func (*Management) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootDevicePXE, drivers.BootDeviceDisk, drivers.BootDeviceCDROM,
		drivers.BootDeviceBIOS, drivers.BootDeviceSafe}, nil
}

// SetBootDevice checks the device, then is not implemented yet.
func (m *Management) SetBootDevice(ctx context.Context, task drivers.Task, device string, _ bool) error {
	supported, _ := m.GetSupportedBootDevices(ctx, task)
	if !slices.Contains(supported, device) {
		return drivers.InvalidParameter("Invalid boot device %s specified.", device)
	}
	if _, err := ParseDriverInfo(task, m.cfg); err != nil {
		return err
	}
	return notImplemented(drivers.Management, "set the boot device")
}

// GetBootDevice is not implemented yet.
func (m *Management) GetBootDevice(_ context.Context, task drivers.Task) (drivers.BootDevice, error) {
	if _, err := ParseDriverInfo(task, m.cfg); err != nil {
		return drivers.BootDevice{}, err
	}
	return drivers.BootDevice{}, notImplemented(drivers.Management, "get the boot device")
}

// GetSensorsData is not implemented yet.
func (m *Management) GetSensorsData(_ context.Context, task drivers.Task) (map[string]any, error) {
	if _, err := ParseDriverInfo(task, m.cfg); err != nil {
		return nil, err
	}
	return nil, notImplemented(drivers.Management, "get sensors data")
}

// InjectNMI is not implemented yet.
func (m *Management) InjectNMI(_ context.Context, task drivers.Task) error {
	if _, err := ParseDriverInfo(task, m.cfg); err != nil {
		return err
	}
	return notImplemented(drivers.Management, "inject NMI")
}

// Vendor is the "ipmitool" vendor interface: node methods send_raw and
// bmc_reset.
type Vendor struct{ cfg Config }

// GetProperties returns the IPMI driver_info keys.
func (*Vendor) GetProperties() drivers.Properties { return commonProperties() }

// Routes lists bmc_reset and send_raw.
func (*Vendor) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "send_raw", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Send raw bytes to the BMC. Required argument: 'raw_bytes' - a string of raw bytes (e.g. '0x00 0x01').",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "bmc_reset", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Reset the BMC. Required argument: 'warm' (Boolean) - for warm (True) or cold (False) reset.",
			RequireExclusiveLock: true},
	)
}

// DriverRoutes lists none.
func (*Vendor) DriverRoutes() drivers.VendorMethods { return nil }

// Validate requires raw_bytes for send_raw, and valid IPMI driver_info.
func (v *Vendor) Validate(_ context.Context, task drivers.Task, method, _ string, args map[string]any) error {
	if method == "send_raw" && !py.Truthy(args["raw_bytes"]) {
		return drivers.MissingParameter("Parameter raw_bytes (string of bytes) was not specified.")
	}
	_, err := ParseDriverInfo(task, v.cfg)
	return err
}

// DriverValidate accepts every call.
func (*Vendor) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call is not implemented yet.
func (*Vendor) Call(_ context.Context, _ drivers.Task, method, _ string, _ map[string]any) (any, error) {
	switch method {
	case "send_raw":
		return nil, notImplemented(drivers.Vendor, "send raw bytes")
	case "bmc_reset":
		return nil, notImplemented(drivers.Vendor, "reset the BMC")
	}
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// CallDriver has no methods to run.
func (*Vendor) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// Console is an ipmitool serial-over-LAN console ("ipmitool-socat" or
// "ipmitool-shellinabox").
type Console struct {
	cfg  Config
	name string
}

// GetProperties returns the IPMI driver_info keys and ipmi_terminal_port.
func (*Console) GetProperties() drivers.Properties { return consoleProperties() }

// Validate checks the IPMI driver_info, a terminal port (or a configured
// port range) and IPMI 2.0.
func (c *Console) Validate(_ context.Context, task drivers.Task) error {
	info, err := ParseDriverInfo(task, c.cfg)
	if err != nil {
		return err
	}
	if (info.TerminalPort == nil || *info.TerminalPort == 0) && c.cfg.ConsolePortRange == "" {
		return drivers.MissingParameter("Either missing 'ipmi_terminal_port' parameter in node's driver_info or [console]port_range is not configured")
	}
	if info.ProtocolVersion != "2.0" {
		return drivers.InvalidParameter("Serial over lan only works with IPMI protocol version 2.0. Check the 'ipmi_protocol_version' parameter in node's driver_info")
	}
	return nil
}

// StartConsole is not implemented yet.
func (c *Console) StartConsole(context.Context, drivers.Task) error {
	return drivers.NotImplemented(c.name, drivers.Console, "start consoles")
}

// StopConsole is not implemented yet.
func (c *Console) StopConsole(context.Context, drivers.Task) error {
	return drivers.NotImplemented(c.name, drivers.Console, "stop consoles")
}

// GetConsole is not implemented yet.
func (c *Console) GetConsole(context.Context, drivers.Task) (map[string]any, error) {
	return nil, drivers.NotImplemented(c.name, drivers.Console, "get consoles")
}
