// Package redfish implements Ironic's redfish interfaces: power,
// management, bios, inspect, raid and vendor ("redfish") and the
// "redfish-virtual-media" boot interface. They declare Ironic's properties
// and validate driver_info with Ironic's messages. Talking to a BMC is not
// implemented yet: every action answers NotImplemented, never a pretended
// success.
package redfish

import (
	"context"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/states"
)

// Config holds the options the redfish interfaces read (see Bind). The
// [redfish] options are not read yet: the interfaces do not talk to BMCs
// (issue 12), so they are reported as not implemented.
type Config struct {
	// DeployKernel, DeployRamdisk, RescueKernel and RescueRamdisk are the
	// [conductor] defaults for nodes whose driver_info names none.
	DeployKernel  string
	DeployRamdisk string
	RescueKernel  string
	RescueRamdisk string
	// AutomatedClean is [conductor]automated_clean.
	AutomatedClean bool
}

// Implementations returns the redfish interfaces, for drivers.NewRegistry.
func Implementations(cfg Config) []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.Power, Name: "redfish", Impl: &Power{cfg: cfg}},
		{Kind: drivers.Management, Name: "redfish", Impl: &Management{cfg: cfg}},
		{Kind: drivers.BIOS, Name: "redfish", Impl: &BIOS{cfg: cfg}},
		{Kind: drivers.Inspect, Name: "redfish", Impl: &Inspect{cfg: cfg}},
		{Kind: drivers.RAID, Name: "redfish", Impl: &RAID{}},
		{Kind: drivers.Vendor, Name: "redfish", Impl: &Vendor{cfg: cfg}},
		{Kind: drivers.Boot, Name: "redfish-virtual-media", Impl: &VirtualMediaBoot{cfg: cfg}},
	}
}

// Info is a node's parsed Redfish access parameters.
type Info struct {
	// Address is scheme://authority of driver_info/redfish_address.
	Address string
	// RootPrefix is the address's path, if any.
	RootPrefix string
	SystemID   string
	Username   string
	Password   string
	// VerifyCA is a bool, or the path of a CA bundle file or directory.
	VerifyCA any
	AuthType string
}

// ParseDriverInfo checks a node's Redfish driver_info as Ironic's
// redfish_utils.parse_driver_info does and returns the parsed parameters.
func ParseDriverInfo(task drivers.Task, cfg Config) (*Info, error) {
	di := task.DriverInfo()
	node := task.NodeUUID()
	if !py.Truthy(di["redfish_address"]) {
		return nil, drivers.MissingParameter("Missing the following Redfish properties in node %s driver_info: %s",
			node, py.Repr([]string{"redfish_address"}))
	}
	address := py.Str(di["redfish_address"])
	invalid := func(a string) error {
		return drivers.InvalidParameter("Invalid Redfish address %s set in driver_info/redfish_address on node %s", a, node)
	}
	if _, isStr := di["redfish_address"].(string); !isStr {
		return nil, invalid(address)
	}
	if ip := net.ParseIP(address); ip != nil && strings.Contains(address, ":") {
		address = "[" + address + "]"
	}
	u := parseURI(address)
	if u.scheme == "" || !u.hasAuthority() {
		address = "https://" + address
		u = parseURI(address)
	}
	if !u.valid() {
		return nil, invalid(address)
	}
	out := &Info{Address: u.scheme + "://" + *u.authority, RootPrefix: u.path}

	if sid, ok := di["redfish_system_id"]; ok && sid != nil {
		s, isStr := sid.(string)
		if !isStr {
			return nil, drivers.InvalidParameter("Invalid value \"%s\" set in driver_info/redfish_system_id on node %s. The value should be a path (string) to the resource that the driver will interact with. For example: /redfish/v1/Systems/1",
				py.Str(sid), node)
		}
		out.SystemID = s
	}
	verify, ok := di["redfish_verify_ca"]
	if !ok {
		verify = true
	}
	badVerify := func() error {
		return drivers.InvalidParameter("Invalid value type set in driver_info/redfish_verify_ca on node %s. The value should be a Boolean or the path to a file/directory, not \"%s\"",
			node, py.Str(verify))
	}
	switch v := verify.(type) {
	case string:
		if _, err := os.Stat(v); err == nil {
			out.VerifyCA = v
		} else {
			b, err := deployutil.BoolFromString(v)
			if err != nil {
				return nil, badVerify()
			}
			out.VerifyCA = b
		}
	case bool:
		out.VerifyCA = v
	default:
		return nil, badVerify()
	}
	auth, ok := di["redfish_auth_type"]
	if !ok {
		// Ironic takes [redfish]auth_type, whose default this is; the
		// option is not read until the interfaces talk to BMCs.
		auth = "auto"
	}
	if a, isStr := auth.(string); !isStr || (a != "basic" && a != "session" && a != "auto") {
		return nil, drivers.InvalidParameter("Invalid value \"%s\" set in driver_info/redfish_auth_type on node %s. The value should be one of \"basic\", \"session\" or \"auto\".",
			py.Str(auth), node)
	}
	out.AuthType = auth.(string)
	if v := di["redfish_username"]; v != nil {
		out.Username = py.Str(v)
	}
	if v := di["redfish_password"]; v != nil {
		out.Password = py.Str(v)
	}
	return out, nil
}

// uri holds the components of an RFC 3986 URI reference, as the Python
// rfc3986 library that Ironic uses splits it.
type uri struct {
	scheme string
	// authority is nil when the reference has no "//" part.
	authority *string
	path      string
}

// uriRE is rfc3986's URL_PARSING_RE.
var uriRE = regexp.MustCompile(`^(?:([a-zA-Z][a-zA-Z0-9+.\-]*):)?(?://([^\\/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$`)

// subauthorityRE is rfc3986's SUBAUTHORITY_MATCHER, with IP literals left
// to net.ParseIP: userinfo, host and port.
var subauthorityRE = regexp.MustCompile(`^(?:((?:[A-Za-z0-9._~\-!$&'()*+,;=:]|%[A-Fa-f0-9]{2})+)@)?` +
	`((?:%[0-9A-Fa-f]{2}|[!$&'()*+,;=A-Za-z0-9._~\-])*|\[[^\]]*\]):?([0-9]{1,5})?$`)

var ipv4RE = regexp.MustCompile(`^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$`)

func parseURI(s string) uri {
	m := uriRE.FindStringSubmatchIndex(s)
	if m == nil {
		return uri{}
	}
	u := uri{}
	if m[2] >= 0 {
		u.scheme = s[m[2]:m[3]]
	}
	if m[4] >= 0 {
		a := s[m[4]:m[5]]
		u.authority = &a
	}
	u.path = s[m[6]:m[7]]
	return u
}

// hasAuthority is Python's truthiness of parsed.authority.
func (u uri) hasAuthority() bool { return u.authority != nil && *u.authority != "" }

// valid is rfc3986's validator requiring scheme and host and checking the
// validity of scheme, userinfo, host, path, query and fragment. Path, query
// and fragment are percent-encoded by the parser and therefore always
// valid.
func (u uri) valid() bool {
	if u.scheme == "" || u.authority == nil {
		return false
	}
	m := subauthorityRE.FindStringSubmatch(*u.authority)
	if m == nil {
		return false
	}
	host := m[2]
	if strings.HasPrefix(host, "[") {
		inner := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		inner, _, _ = strings.Cut(inner, "%")
		ip := net.ParseIP(inner)
		return ip != nil && strings.Contains(inner, ":")
	}
	if o := ipv4RE.FindStringSubmatch(host); o != nil {
		for _, octet := range o[1:] {
			if n, _ := strconv.Atoi(octet); n > 255 {
				return false
			}
		}
	}
	return true
}

func notImplemented(kind drivers.Kind, op string) error {
	return drivers.NotImplemented("redfish", kind, op)
}

// validator is the Validate shared by the interfaces that only check the
// Redfish driver_info.
type validator struct{ cfg Config }

// GetProperties returns the Redfish driver_info keys.
func (validator) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (v validator) Validate(_ context.Context, task drivers.Task) error {
	_, err := ParseDriverInfo(task, v.cfg)
	return err
}

// Power is the "redfish" power interface.
type Power struct{ cfg Config }

// GetProperties returns the Redfish driver_info keys.
func (*Power) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (p *Power) Validate(ctx context.Context, task drivers.Task) error {
	return validator{cfg: p.cfg}.Validate(ctx, task)
}

// GetPowerState is not implemented yet.
func (p *Power) GetPowerState(ctx context.Context, task drivers.Task) (states.Power, error) {
	if err := p.Validate(ctx, task); err != nil {
		return "", err
	}
	return "", notImplemented(drivers.Power, "get the power state")
}

// SetPowerState is not implemented yet.
func (p *Power) SetPowerState(ctx context.Context, task drivers.Task, _ states.Power, _ time.Duration) error {
	if err := p.Validate(ctx, task); err != nil {
		return err
	}
	return notImplemented(drivers.Power, "set the power state")
}

// Reboot is not implemented yet.
func (p *Power) Reboot(ctx context.Context, task drivers.Task, _ time.Duration) error {
	if err := p.Validate(ctx, task); err != nil {
		return err
	}
	return notImplemented(drivers.Power, "reboot")
}

// GetSupportedPowerStates returns every power state Redfish can reset to.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff}, nil
}

// Management is the "redfish" management interface.
type Management struct {
	drivers.ManagementBase
	cfg Config
}

// GetProperties returns the Redfish driver_info keys.
func (*Management) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (m *Management) Validate(ctx context.Context, task drivers.Task) error {
	return validator{cfg: m.cfg}.Validate(ctx, task)
}

// GetSupportedBootDevices returns pxe, disk, cdrom and bios.
func (*Management) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootDevicePXE, drivers.BootDeviceDisk, drivers.BootDeviceCDROM, drivers.BootDeviceBIOS}, nil
}

func (m *Management) bmc(ctx context.Context, task drivers.Task, op string) error {
	if err := m.Validate(ctx, task); err != nil {
		return err
	}
	return notImplemented(drivers.Management, op)
}

// SetBootDevice is not implemented yet.
func (m *Management) SetBootDevice(ctx context.Context, task drivers.Task, _ string, _ bool) error {
	return m.bmc(ctx, task, "set the boot device")
}

// GetBootDevice is not implemented yet.
func (m *Management) GetBootDevice(ctx context.Context, task drivers.Task) (drivers.BootDevice, error) {
	return drivers.BootDevice{}, m.bmc(ctx, task, "get the boot device")
}

// GetSensorsData is not implemented yet.
func (m *Management) GetSensorsData(ctx context.Context, task drivers.Task) (map[string]any, error) {
	return nil, m.bmc(ctx, task, "get sensors data")
}

// InjectNMI is not implemented yet.
func (m *Management) InjectNMI(ctx context.Context, task drivers.Task) error {
	return m.bmc(ctx, task, "inject NMI")
}

// GetSupportedBootModes is not implemented yet.
func (m *Management) GetSupportedBootModes(ctx context.Context, task drivers.Task) ([]string, error) {
	return nil, m.bmc(ctx, task, "list boot modes")
}

// GetBootMode is not implemented yet.
func (m *Management) GetBootMode(ctx context.Context, task drivers.Task) (string, error) {
	return "", m.bmc(ctx, task, "get the boot mode")
}

// SetBootMode is not implemented yet.
func (m *Management) SetBootMode(ctx context.Context, task drivers.Task, _ string) error {
	return m.bmc(ctx, task, "set the boot mode")
}

// GetSecureBootState is not implemented yet.
func (m *Management) GetSecureBootState(ctx context.Context, task drivers.Task) (bool, error) {
	return false, m.bmc(ctx, task, "get the secure boot state")
}

// SetSecureBootState is not implemented yet.
func (m *Management) SetSecureBootState(ctx context.Context, task drivers.Task, _ bool) error {
	return m.bmc(ctx, task, "set the secure boot state")
}

// GetSupportedIndicators is not implemented yet.
func (m *Management) GetSupportedIndicators(ctx context.Context, task drivers.Task, _ string) (map[string]map[string]drivers.Indicator, error) {
	return nil, m.bmc(ctx, task, "list indicators")
}

// SetIndicatorState is not implemented yet.
func (m *Management) SetIndicatorState(ctx context.Context, task drivers.Task, _, _, _ string) error {
	return m.bmc(ctx, task, "set indicator states")
}

// GetIndicatorState is not implemented yet.
func (m *Management) GetIndicatorState(ctx context.Context, task drivers.Task, _, _ string) (string, error) {
	return "", m.bmc(ctx, task, "get indicator states")
}

// BIOS is the "redfish" BIOS interface.
type BIOS struct{ cfg Config }

// GetProperties returns the Redfish driver_info keys.
func (*BIOS) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (b *BIOS) Validate(ctx context.Context, task drivers.Task) error {
	return validator{cfg: b.cfg}.Validate(ctx, task)
}

// ApplyConfiguration is not implemented yet.
func (*BIOS) ApplyConfiguration(context.Context, drivers.Task, []drivers.BIOSSetting) error {
	return notImplemented(drivers.BIOS, "apply BIOS settings")
}

// FactoryReset is not implemented yet.
func (*BIOS) FactoryReset(context.Context, drivers.Task) error {
	return notImplemented(drivers.BIOS, "reset BIOS settings")
}

// CacheBIOSSettings is not implemented yet.
func (*BIOS) CacheBIOSSettings(context.Context, drivers.Task) error {
	return notImplemented(drivers.BIOS, "cache BIOS settings")
}

// Inspect is the "redfish" inspect interface.
type Inspect struct {
	drivers.InspectBase
	cfg Config
}

// GetProperties returns the Redfish driver_info keys.
func (*Inspect) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (i *Inspect) Validate(ctx context.Context, task drivers.Task) error {
	return validator{cfg: i.cfg}.Validate(ctx, task)
}

// InspectHardware is not implemented yet.
func (*Inspect) InspectHardware(context.Context, drivers.Task) (states.Provision, error) {
	return "", notImplemented(drivers.Inspect, "inspect hardware")
}

// RAID is the "redfish" RAID interface. Like Ironic's, its validation only
// looks at target_raid_config (no scsi disks), not at driver_info.
type RAID struct{ drivers.RAIDBase }

// GetProperties returns the Redfish driver_info keys.
func (*RAID) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's target_raid_config, if any.
func (r *RAID) Validate(ctx context.Context, task drivers.Task) error {
	cfg := task.TargetRAIDConfig()
	if len(cfg) == 0 {
		return nil
	}
	return r.ValidateRAIDConfig(ctx, task, cfg)
}

// ValidateRAIDConfig checks config against Ironic's RAID schema and refuses
// scsi disks.
func (*RAID) ValidateRAIDConfig(_ context.Context, _ drivers.Task, config map[string]any) error {
	if err := drivers.ValidateRAIDConfig(config); err != nil {
		return err
	}
	disks, _ := config["logical_disks"].([]any)
	for _, d := range disks {
		if m, ok := d.(map[string]any); ok && m["interface_type"] == "scsi" {
			return drivers.InvalidParameter("interface type `scsi` not supported by Redfish RAID")
		}
	}
	return nil
}

// CreateConfiguration is not implemented yet.
func (*RAID) CreateConfiguration(context.Context, drivers.Task, drivers.RAIDCreateOptions) (states.Provision, error) {
	return "", notImplemented(drivers.RAID, "create RAID configurations")
}

// DeleteConfiguration is not implemented yet.
func (*RAID) DeleteConfiguration(context.Context, drivers.Task) (states.Provision, error) {
	return "", notImplemented(drivers.RAID, "delete RAID configurations")
}

// Vendor is the "redfish" vendor interface: virtual media ejection and
// event subscriptions.
type Vendor struct{ cfg Config }

// GetProperties returns none.
func (*Vendor) GetProperties() drivers.Properties { return nil }

// Routes lists the node methods.
func (*Vendor) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "create_subscription", HTTPMethods: []string{"POST"}, Async: false,
			Description:          "Creates a subscription on a node. Required argument: a dictionary of {'Destination': 'destination_url'}",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "delete_subscription", HTTPMethods: []string{"DELETE"}, Async: false,
			Description:          "Delete a subscription on a node. Required argument: a dictionary of {'id': 'subscription_bmc_id'}",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "eject_vmedia", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Eject a virtual media device. If no device is provided then all attached devices will be ejected. Optional arguments: 'boot_device' - the boot device to eject, either 'cd', 'dvd', 'usb', or 'floppy'",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "get_all_subscriptions", HTTPMethods: []string{"GET"}, Async: false,
			Description: "Returns all subscriptions on the node.", RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "get_subscription", HTTPMethods: []string{"GET"}, Async: false,
			Description:          "Get a subscription on the node. Required argument: a dictionary of {'id': 'subscription_bmc_id'}",
			RequireExclusiveLock: true},
	)
}

// DriverRoutes lists none.
func (*Vendor) DriverRoutes() drivers.VendorMethods { return nil }

// Validate checks a method's arguments where that needs no BMC; checks
// that need one (a boot device to eject, event types) are not implemented
// yet.
func (v *Vendor) Validate(_ context.Context, _ drivers.Task, method, _ string, args map[string]any) error {
	switch method {
	case "eject_vmedia":
		if py.Truthy(args["boot_device"]) {
			return notImplemented(drivers.Vendor, "check virtual media devices")
		}
	case "create_subscription":
		if args["EventTypes"] != nil {
			return notImplemented(drivers.Vendor, "check event types")
		}
		if c, ok := args["Context"]; ok {
			if _, isStr := c.(string); !isStr {
				return drivers.InvalidParameter("Context %s is not a valid string", py.Str(c))
			}
		}
		if p, ok := args["Protocol"]; ok {
			if _, isStr := p.(string); !isStr {
				return drivers.InvalidParameter("Protocol %s is not a string", py.Str(p))
			}
		}
		if h := args["HttpHeaders"]; h != nil {
			if _, isList := h.([]any); !isList {
				return drivers.InvalidParameter("HttpHeaders %s is not a list of headers", py.Str(h))
			}
		}
		dest, isStr := args["Destination"].(string)
		if !isStr || !parseURI(dest).valid() {
			return drivers.InvalidParameter("Destination %s is not a valid URI", py.Str(args["Destination"]))
		}
	case "delete_subscription":
		id := args["id"]
		if !py.Truthy(id) {
			return drivers.InvalidParameter("id can't be None")
		}
		s := py.Str(id)
		if strings.ContainsAny(s, "!*'(),{}|\\^~[]`<>#%\"") || strings.Contains(s, "..") {
			return drivers.InvalidParameter("Invalid BMC subscription ID value: '%s'", s)
		}
	}
	return nil
}

// DriverValidate accepts every call.
func (*Vendor) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call is not implemented yet.
func (v *Vendor) Call(_ context.Context, _ drivers.Task, method, _ string, _ map[string]any) (any, error) {
	if _, ok := v.Routes().Lookup(method); !ok {
		return nil, drivers.InvalidParameter("No handler for method %s", method)
	}
	return nil, notImplemented(drivers.Vendor, "run "+method)
}

// CallDriver has no methods to run.
func (*Vendor) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// VirtualMediaBoot is the "redfish-virtual-media" boot interface.
type VirtualMediaBoot struct{ cfg Config }

// GetProperties returns deploy_kernel, deploy_ramdisk and deploy_iso.
func (*VirtualMediaBoot) GetProperties() drivers.Properties { return virtualMediaProperties() }

// Capabilities are iscsi_volume_boot, ramdisk_boot and
// ramdisk_boot_configdrive, as Ironic declares.
func (*VirtualMediaBoot) Capabilities() []string {
	return []string{"iscsi_volume_boot", "ramdisk_boot", "ramdisk_boot_configdrive"}
}

// validateDriverInfo is Ironic's redfish boot _parse_driver_info reduced
// to its checks.
func (b *VirtualMediaBoot) validateDriverInfo(task drivers.Task) error {
	mode := deployutil.RescueOrDeployMode(task)
	if !deployutil.NeedsAgentRamdisk(task, mode, b.cfg.AutomatedClean) {
		return nil
	}
	di := task.DriverInfo()
	iso := di[string(mode)+"_iso"]
	if !py.Truthy(iso) {
		iso = di["redfish_"+string(mode)+"_iso"]
	}
	if !py.Truthy(iso) {
		kernel, ramdisk := mode.KernelKey(), mode.RamdiskKey()
		k, r := di[kernel], di[ramdisk]
		if !py.Truthy(k) || !py.Truthy(r) {
			if mode == drivers.RamdiskRescue {
				k, r = b.cfg.RescueKernel, b.cfg.RescueRamdisk
			} else {
				k, r = b.cfg.DeployKernel, b.cfg.DeployRamdisk
			}
		}
		if err := deployutil.CheckMissing("Error validating Redfish virtual media. Some parameters were missing in node's driver_info",
			deployutil.Param{Label: kernel, Value: k}, deployutil.Param{Label: ramdisk, Value: r}); err != nil {
			return err
		}
	}
	_, err := ParseDriverInfo(task, b.cfg)
	return err
}

// Validate checks the agent image references and the Redfish driver_info;
// instance images are only checked for ramdisk and kickstart deployments,
// which need Glance or the image service and are not implemented yet.
func (b *VirtualMediaBoot) Validate(ctx context.Context, task drivers.Task) error {
	if err := b.validateDriverInfo(task); err != nil {
		return err
	}
	if drv := task.Driver(); drv != nil && drv.Storage != nil {
		write, err := drv.Storage.ShouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		if !write {
			return nil
		}
	}
	if deployutil.BootOption(task) == "local" {
		return nil
	}
	return notImplemented(drivers.Boot, "validate instance images for virtual media")
}

// ValidateRescue is Ironic's: the rescue images are checked by Validate
// when the node is in a rescue state.
func (b *VirtualMediaBoot) ValidateRescue(_ context.Context, task drivers.Task) error {
	return b.validateDriverInfo(task)
}

// ValidateInspection falls back to unmanaged inspection (unsupported) when
// parameters are missing.
func (b *VirtualMediaBoot) ValidateInspection(_ context.Context, task drivers.Task) error {
	err := b.validateDriverInfo(task)
	if ironic.IsClass(err, ironic.MissingParameterValue) {
		return drivers.Unsupported(task, "inspection")
	}
	return err
}

// PrepareRamdisk is not implemented yet.
func (*VirtualMediaBoot) PrepareRamdisk(context.Context, drivers.Task, map[string]any, drivers.RamdiskMode) error {
	return drivers.NotImplemented("redfish-virtual-media", drivers.Boot, "prepare the ramdisk")
}

// CleanUpRamdisk is not implemented yet.
func (*VirtualMediaBoot) CleanUpRamdisk(context.Context, drivers.Task, drivers.RamdiskMode) error {
	return drivers.NotImplemented("redfish-virtual-media", drivers.Boot, "clean up the ramdisk")
}

// PrepareInstance is not implemented yet.
func (*VirtualMediaBoot) PrepareInstance(context.Context, drivers.Task) error {
	return drivers.NotImplemented("redfish-virtual-media", drivers.Boot, "prepare the instance")
}

// CleanUpInstance is not implemented yet.
func (*VirtualMediaBoot) CleanUpInstance(context.Context, drivers.Task) error {
	return drivers.NotImplemented("redfish-virtual-media", drivers.Boot, "clean up the instance")
}
