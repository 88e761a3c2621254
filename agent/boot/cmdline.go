package boot

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Params are the Ironic Python Agent's kernel parameters, read as IPA
// 9.4 (Ironic 21.4's contemporary) reads them: /proc/cmdline split on
// white space, each word with an "=" split at the first one, later
// words overriding earlier ones, words without "=" ignored
// (ironic_python_agent.utils._read_params_from_file); the typed values
// and defaults are those of its config.py.
type Params struct {
	APIURL                string        // ipa-api-url
	AgentToken            string        // ipa-agent-token
	AgentTokenRequired    bool          // ipa-agent-token-required
	BootIF                string        // BOOTIF, as a MAC aa:bb:cc:dd:ee:ff ("" if absent)
	Debug                 *bool         // ipa-debug (nil when absent: the agent's own default)
	GlobalRequestID       string        // ipa-global-request-id
	InspectionCallbackURL string        // ipa-inspection-callback-url
	AdvertiseHost         string        // ipa-advertise-host
	AdvertisePort         int           // ipa-advertise-port (9999)
	AdvertiseProtocol     string        // ipa-advertise-protocol (http)
	ListenHost            string        // ipa-listen-host ("" means every address)
	ListenPort            int           // ipa-listen-port (9999)
	LookupTimeout         time.Duration // ipa-lookup-timeout (300 s)
	LookupInterval        time.Duration // ipa-lookup-interval (1 s)
	Insecure              bool          // ipa-insecure
	Standalone            bool          // ipa-standalone (IPA 9.4 has no such parameter: it is always false there)
	NetworkInterface      string        // ipa-network-interface
	// All holds every key=value word, those above included, by key.
	All map[string]string
	// Unknown lists the keys none of the fields above reads, in the
	// order they first appeared.
	Unknown []string
}

// DefaultParams are IPA's values when the command line says nothing.
func DefaultParams() Params {
	return Params{
		AdvertisePort: 9999, ListenPort: 9999, AdvertiseProtocol: "http",
		LookupTimeout: 300 * time.Second, LookupInterval: time.Second,
		All: map[string]string{},
	}
}

// ParseCmdline reads a kernel command line. A value IPA would refuse
// (an integer or boolean that does not parse, a malformed BOOTIF)
// leaves the field at its default and is reported in the error, joined
// with the others; the rest of the parameters are still returned, so a
// ramdisk can log the problem and go on.
func ParseCmdline(cmdline string) (Params, error) {
	p := DefaultParams()
	var order []string
	for _, w := range strings.Fields(cmdline) {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		if _, seen := p.All[k]; !seen {
			order = append(order, k)
		}
		p.All[k] = v
	}
	strs := map[string]*string{
		"ipa-api-url": &p.APIURL, "ipa-agent-token": &p.AgentToken,
		"ipa-global-request-id": &p.GlobalRequestID, "ipa-inspection-callback-url": &p.InspectionCallbackURL,
		"ipa-advertise-host": &p.AdvertiseHost, "ipa-advertise-protocol": &p.AdvertiseProtocol,
		"ipa-listen-host": &p.ListenHost, "ipa-network-interface": &p.NetworkInterface,
	}
	bools := map[string]*bool{
		"ipa-agent-token-required": &p.AgentTokenRequired, "ipa-insecure": &p.Insecure, "ipa-standalone": &p.Standalone,
	}
	ports := map[string]*int{"ipa-advertise-port": &p.AdvertisePort, "ipa-listen-port": &p.ListenPort}
	seconds := map[string]*time.Duration{"ipa-lookup-timeout": &p.LookupTimeout, "ipa-lookup-interval": &p.LookupInterval}
	var errs []error
	for _, k := range order {
		v := p.All[k]
		var err error
		switch {
		case k == "BOOTIF":
			var mac string
			if mac, err = NormalizeBootIF(v); err == nil {
				p.BootIF = mac
			}
		case k == "ipa-debug":
			var b bool
			if b, err = parseBool(v); err == nil {
				p.Debug = &b
			}
		case strs[k] != nil:
			*strs[k] = v
		case bools[k] != nil:
			var b bool
			if b, err = parseBool(v); err == nil {
				*bools[k] = b
			}
		case ports[k] != nil:
			var n int
			if n, err = parsePort(v); err == nil {
				*ports[k] = n
			}
		case seconds[k] != nil:
			n, perr := strconv.Atoi(v)
			if perr != nil || n < 0 {
				err = errors.New("not a number of seconds")
			} else {
				*seconds[k] = time.Duration(n) * time.Second
			}
		default:
			p.Unknown = append(p.Unknown, k)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("kernel parameter %s=%q: %w", k, v, err))
		}
	}
	return p, errors.Join(errs...)
}

// parseBool accepts what oslo.config's Boolean type accepts.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "1", "on", "yes":
		return true, nil
	case "false", "0", "off", "no":
		return false, nil
	}
	return false, errors.New("not a boolean (true/false, 1/0, on/off, yes/no)")
}

func parsePort(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return 0, errors.New("not a port number")
	}
	return n, nil
}

// NormalizeBootIF turns BOOTIF's forms into aa:bb:cc:dd:ee:ff: pxelinux's
// "01-aa-bb-cc-dd-ee-ff" (the hardware type, then the MAC) and the
// "aa:bb:cc:dd:ee:ff" Ironic's iPXE template passes (BOOTIF=${mac}), as
// IPA's inspector._normalize_mac does, checked as a MAC.
func NormalizeBootIF(v string) (string, error) {
	if strings.Contains(v, "-") {
		_, rest, _ := strings.Cut(v, "-")
		v = strings.ReplaceAll(rest, "-", ":")
	}
	v = strings.ToLower(v)
	hw, err := net.ParseMAC(v)
	if err != nil || len(hw) != 6 || len(v) != 17 || strings.Count(v, ":") != 5 {
		return "", errors.New("not a MAC address (01-aa-bb-cc-dd-ee-ff or aa:bb:cc:dd:ee:ff)")
	}
	return hw.String(), nil
}
