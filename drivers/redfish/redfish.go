// Package redfish implements Ironic's redfish interfaces: power,
// management, bios, inspect, raid and vendor ("redfish") and the
// "redfish-virtual-media" boot interface. They declare Ironic's properties
// and validate driver_info with Ironic's messages. Talking to a BMC is not
// implemented yet: every action answers NotImplemented, never a pretended
// success.
package redfish

import (
	"context"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
)

// Config holds the options the redfish interfaces read (see Bind) and
// what tests inject.
type Config struct {
	// DeployKernel, DeployRamdisk, RescueKernel and RescueRamdisk are the
	// [conductor] defaults for nodes whose driver_info names none.
	DeployKernel  string
	DeployRamdisk string
	RescueKernel  string
	RescueRamdisk string
	// AutomatedClean is [conductor]automated_clean.
	AutomatedClean bool
	// PowerStateChangeTimeout is [conductor]power_state_change_timeout:
	// how long a power change waits for the BMC to report the state when
	// the caller gives no timeout.
	PowerStateChangeTimeout time.Duration
	// ConnectionAttempts and ConnectionRetryInterval are
	// [redfish]connection_attempts and connection_retry_interval: how
	// often, and how far apart, a BMC that can't be reached is tried.
	ConnectionAttempts      int
	ConnectionRetryInterval time.Duration
	// ConnectionCacheSize is [redfish]connection_cache_size: how many
	// authenticated BMC connections are kept (0: none).
	ConnectionCacheSize int
	// AuthType is [redfish]auth_type, the default of
	// driver_info/redfish_auth_type: "basic", "session" or "auto".
	AuthType string
	// RAIDConfigStatusInterval and RAIDConfigFailInterval are
	// [redfish]raid_config_status_interval and raid_config_fail_interval:
	// how often nodes waiting for a RAID change at reset, and nodes whose
	// RAID change failed, are looked at.
	RAIDConfigStatusInterval time.Duration
	RAIDConfigFailInterval   time.Duration

	// KernelAppendParams is [redfish]kernel_append_params, the agent's
	// kernel command line on virtual media ISOs.
	KernelAppendParams string
	// UseSwift, SwiftContainer and SwiftObjectExpiry are [redfish]use_swift,
	// swift_container and swift_object_expiry_timeout (seconds): where
	// virtual media images are published. FilePermission is
	// [redfish]file_permission, the mode of images published under
	// HTTPRoot.
	UseSwift          bool
	SwiftContainer    string
	SwiftObjectExpiry int
	FilePermission    int
	// HTTPRoot, HTTPURL and ExternalHTTPURL are [deploy]http_root,
	// http_url and external_http_url: images are published in
	// HTTPRoot/redfish and served under ExternalHTTPURL (or HTTPURL).
	HTTPRoot        string
	HTTPURL         string
	ExternalHTTPURL string
	// ExternalCallbackURL is [deploy]external_callback_url, the agent's
	// ipa-api-url on virtual media when set; APIURL is
	// [service_catalog]endpoint_override, the ipa-api-url otherwise.
	ExternalCallbackURL string
	APIURL              string
	// RamdiskImageDownloadSource is [deploy]ramdisk_image_download_source:
	// "http" passes prebuilt ISO URLs through, "local" re-publishes them.
	RamdiskImageDownloadSource string
	// DefaultBootMode is [deploy]default_boot_mode ("" means uefi).
	DefaultBootMode string
	// Bootloader is [conductor]bootloader, the ESP image of UEFI ISOs when
	// driver_info names none.
	Bootloader string
	// APICAFile is [agent]api_ca_file, put on deploy ISOs for the agent.
	APICAFile string
	// Debug is [DEFAULT]debug (ipa-debug=1 on the agent's command line);
	// TempDir is [DEFAULT]tempdir, where ISOs are built ("" for the
	// system's).
	Debug   bool
	TempDir string

	// ISO builds virtual media boot ISOs (drivers/bootiso); nil fails
	// every ISO build with ImageCreationFailed.
	ISO ISOBuilder
	// Images fetches kernels, ramdisks and ISOs (NewFetcher); nil
	// downloads http(s) URLs and file:// paths under
	// FileURLAllowedPaths, and no Glance image.
	Images ImageFetcher
	// FileURLAllowedPaths is [conductor]file_url_allowed_paths.
	FileURLAllowedPaths []string
	// Swift publishes images when UseSwift is set.
	Swift ObjectStore
	// NewUUID makes ISO publisher IDs and NewToken agent tokens; nil uses
	// random ones.
	NewUUID  func() string
	NewToken func() string

	// Log receives the interfaces' logs; nil discards them.
	Log *slog.Logger
	// Sleep waits d or until ctx ends; nil uses a timer. Tests make the
	// retry and polling intervals instant with it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) (the polling jitter); nil uses
	// math/rand/v2.
	Rand func() float64
	// Now is the clock (raid_config's last_updated); nil uses time.Now.
	Now func() time.Time
	// RequestTimeout bounds one request to a BMC (sushy has no bound);
	// zero means 60 seconds.
	RequestTimeout time.Duration
	// IdleConnTimeout is how long an idle HTTP connection to a BMC is
	// kept for the next request (requests' keep-alive has no bound);
	// zero means 30 seconds.
	IdleConnTimeout time.Duration
}

// Implementations returns the redfish interfaces, for drivers.NewRegistry.
// They share one connection cache.
func Implementations(cfg Config) []drivers.Implementation {
	c := newCore(cfg)
	boot := &VirtualMediaBoot{c: c, cfg: cfg}
	return []drivers.Implementation{
		{Kind: drivers.Power, Name: "redfish", Impl: &Power{base{c}}},
		{Kind: drivers.Management, Name: "redfish", Impl: &Management{base: base{c}}},
		{Kind: drivers.BIOS, Name: "redfish", Impl: &BIOS{base{c}}},
		{Kind: drivers.Inspect, Name: "redfish", Impl: &Inspect{base: base{c}}},
		{Kind: drivers.RAID, Name: "redfish", Impl: &RAID{c: c}},
		{Kind: drivers.Vendor, Name: "redfish", Impl: &Vendor{c: c, boot: boot}},
		{Kind: drivers.Boot, Name: "redfish-virtual-media", Impl: boot},
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
	if !py.Truthy(di.Get("redfish_address")) {
		return nil, drivers.MissingParameter("Missing the following Redfish properties in node %s driver_info: %s",
			node, py.Repr([]string{"redfish_address"}))
	}
	address := py.Str(di.Get("redfish_address"))
	invalid := func(a string) error {
		return drivers.InvalidParameter("Invalid Redfish address %s set in driver_info/redfish_address on node %s", a, node)
	}
	if _, isStr := di.Get("redfish_address").(string); !isStr {
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

	if sid, ok := di.Lookup("redfish_system_id"); ok && sid != nil {
		s, isStr := sid.(string)
		if !isStr {
			return nil, drivers.InvalidParameter("Invalid value \"%s\" set in driver_info/redfish_system_id on node %s. The value should be a path (string) to the resource that the driver will interact with. For example: /redfish/v1/Systems/1",
				py.Str(sid), node)
		}
		out.SystemID = quoteSystemID(s)
	}
	verify, ok := di.Lookup("redfish_verify_ca")
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
	auth, ok := di.Lookup("redfish_auth_type")
	if !ok {
		auth = cfg.AuthType
	}
	if a, isStr := auth.(string); !isStr || (a != "basic" && a != "session" && a != "auto") {
		return nil, drivers.InvalidParameter("Invalid value \"%s\" set in driver_info/redfish_auth_type on node %s. The value should be one of \"basic\", \"session\" or \"auto\".",
			py.Str(auth), node)
	}
	out.AuthType = auth.(string)
	if v := di.Get("redfish_username"); v != nil {
		out.Username = py.Str(v)
	}
	if v := di.Get("redfish_password"); v != nil {
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

// base declares the Redfish driver_info properties and validates them,
// for the interfaces that need nothing else (Ironic's
// redfish_utils.parse_driver_info as validate).
type base struct{ c *core }

// GetProperties returns the Redfish driver_info keys.
func (base) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's Redfish driver_info.
func (b base) Validate(_ context.Context, task drivers.Task) error {
	_, err := ParseDriverInfo(task, b.c.cfg)
	return err
}
