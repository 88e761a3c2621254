package agent

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// KernelParams parses a kernel command line (/proc/cmdline) into its
// key=value parameters, as IPA's utils.parse_kernel_params: a bare word
// maps to "", double quotes group spaces.
func KernelParams(cmdline string) map[string]string {
	out := map[string]string{}
	var fields []string
	var cur strings.Builder
	quoted := false
	for _, r := range cmdline {
		switch {
		case r == '"':
			quoted = !quoted
		case (r == ' ' || r == '\n' || r == '\t') && !quoted:
			if cur.Len() > 0 {
				fields = append(fields, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		fields = append(fields, cur.String())
	}
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		out[k] = v
	}
	return out
}

// Params are the IPA kernel parameters this agent reads, applied to a
// Config by Apply.
type Params map[string]string

func boolParam(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on", "y", "t":
		return true
	}
	return false
}

// Apply sets cfg's fields from IPA's kernel parameters: ipa-api-url,
// ipa-agent-token, ipa-agent-token-required, ipa-ignore-bootloader-failure, ipa-advertise-host,
// ipa-advertise-port, ipa-listen-host, ipa-listen-port,
// ipa-global-request-id, ipa-ironic-api-version, ipa-lookup-timeout,
// ipa-lookup-interval; it returns ipa-debug, BOOTIF (pxe_interface) and
// ipa-inspection-callback-url for the caller. Malformed numbers are
// errors naming the parameter.
func (p Params) Apply(cfg *Config) (debug bool, bootIF, inspectionURL string, err error) {
	cfg.APIURL = p["ipa-api-url"]
	cfg.AgentToken = p["ipa-agent-token"]
	cfg.AgentTokenRequired = boolParam(p["ipa-agent-token-required"])
	cfg.AdvertiseHost = p["ipa-advertise-host"]
	cfg.GlobalRequestID = p["ipa-global-request-id"]
	cfg.IgnoreBootloaderFailure = boolParam(p["ipa-ignore-bootloader-failure"])
	cfg.IronicAPIVersion = p["ipa-ironic-api-version"]
	num := func(key string) (int, error) {
		v, ok := p[key]
		if !ok || v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("kernel parameter %s=%q: not a number", key, v)
		}
		return n, nil
	}
	if cfg.AdvertisePort, err = num("ipa-advertise-port"); err != nil {
		return
	}
	var n int
	if n, err = num("ipa-lookup-timeout"); err != nil {
		return
	}
	cfg.LookupTimeout = time.Duration(n) * time.Second
	if n, err = num("ipa-lookup-interval"); err != nil {
		return
	}
	cfg.LookupInterval = time.Duration(n) * time.Second
	lp, err := num("ipa-listen-port")
	if err != nil {
		return
	}
	if host, ok := p["ipa-listen-host"]; ok || lp != 0 {
		port := lp
		if port == 0 {
			port = cfg.AdvertisePort
			if port == 0 {
				port = 9999
			}
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		cfg.ListenAddress = host + ":" + strconv.Itoa(port)
	}
	return boolParam(p["ipa-debug"]), p["BOOTIF"], p["ipa-inspection-callback-url"], nil
}
