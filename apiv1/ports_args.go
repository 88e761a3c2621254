package apiv1

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// Argument validators of ironic.common.args as the port and port group
// controllers use them. A parameter repeated in the query reaches them as a
// Python list, which no validator but string accepts.

// validLogicalName is ironic.common.utils.is_valid_logical_name, which
// (unlike the API's variant) does not depend on the request version.
func validLogicalName(s string) bool { return isLogicalName(mv.Latest, s) }

// listArg is a query parameter as pecan hands it over: the value, whether
// it was given, and whether it was repeated (a list).
func listArg(rq *Request, k string) (val string, ok, list bool) {
	val, ok = rq.Str(k)
	return val, ok, len(rq.Query()[k]) > 1
}

// uuidOrNameArg is args.uuid_or_name.
func uuidOrNameArg(rq *Request, k string) (*string, error) {
	s, ok, list := listArg(rq, k)
	if !ok {
		return nil, nil
	}
	if list || (!validLogicalName(s) && !isUUID(s)) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID or name for %s: %s", k, s)
	}
	return &s, nil
}

// uuidQueryArg is args.uuid.
func uuidQueryArg(rq *Request, k string) (*string, error) {
	s, ok, list := listArg(rq, k)
	if !ok {
		return nil, nil
	}
	if list || !isUUID(s) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID for %s: %s", k, s)
	}
	return &s, nil
}

// macArg is args.mac_address: the address, lower-cased.
func macArg(rq *Request, k string) (*string, error) {
	s, ok, list := listArg(rq, k)
	if !ok {
		return nil, nil
	}
	if !list {
		if m, ok := normalizeMAC(s); ok {
			return &m, nil
		}
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected valid MAC address for %s: %s", k, s)
}

// withPositional returns the query with pecan's positional path arguments
// bound to the handler's parameters in order.
func withPositional(rq *Request, params []string, values []string) {
	if len(values) == 0 {
		return
	}
	q := make(map[string][]string, len(rq.Query())+len(values))
	for k, v := range rq.Query() {
		q[k] = v
	}
	for i, v := range values {
		if i < len(params) {
			q[params[i]] = []string{v}
		}
	}
	rq.query = q
}

// Body validators (args.dict_valid members): they check and normalise one
// value of a decoded request body.

// bodySet replaces the value of a member of an ordered body.
func bodySet(o pyjson.Object, k string, v any) {
	for i := range o {
		if o[i].Key == k {
			o[i].Value = v
			return
		}
	}
}

// bodyMAC is args.mac_address on a body value.
func bodyMAC(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		if m, ok := normalizeMAC(s); ok {
			return m, nil
		}
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected valid MAC address for %s: %s", name, pyStrValue(v))
}

// bodyUUID is args.uuid on a body value.
func bodyUUID(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok && isUUID(s) {
		return s, nil
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID for %s: %s", name, pyStrValue(v))
}

// bodyBool is args.boolean on a body value.
func bodyBool(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	b, err := parseBool(name, pyStrValue(v))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// datapathIDRe is utils.is_valid_datapath_id ("$" tolerating a final
// newline, as Python's re does).
var datapathIDRe = regexp.MustCompile(`^[0-9a-f]{16}\n?$`)

// bodyLocalLink is LOCAL_LINK_VALIDATOR: the schema of a local link
// connection, then local_link_normalize (switch_id as a lower-case MAC
// address or OpenFlow datapath ID).
func bodyLocalLink(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if verr := portSchemas.localLink.Validate(v); verr != nil {
		return nil, schemaError(name, verr)
	}
	switch llc := v.(type) {
	case pyjson.Object:
		if sw, ok := llc.Get("switch_id"); ok {
			n, err := normalizeSwitchID(sw)
			if err != nil {
				return nil, err
			}
			bodySet(llc, "switch_id", n)
		}
	case map[string]any:
		if sw, ok := llc["switch_id"]; ok {
			n, err := normalizeSwitchID(sw)
			if err != nil {
				return nil, err
			}
			llc["switch_id"] = n
		}
	}
	return v, nil
}

func normalizeSwitchID(v any) (string, error) {
	s, _ := v.(string)
	if m, ok := normalizeMAC(s); ok {
		return m, nil
	}
	if l := strings.ToLower(s); datapathIDRe.MatchString(l) {
		return l, nil
	}
	return "", ironic.Errorf(ironic.InvalidSwitchID, "Expected a MAC address or OpenFlow datapath ID but received %s.", s)
}

// validateBodyExtra runs dict_valid validators over the members present,
// in the validators' order, replacing values with the normalised ones.
func validateBodyExtra(o pyjson.Object, validators []bodyValidator) error {
	for _, bv := range validators {
		v, ok := o.Get(bv.name)
		if !ok {
			continue
		}
		nv, err := bv.fn(bv.name, v)
		if err != nil {
			return err
		}
		bodySet(o, bv.name, nv)
	}
	return nil
}

type bodyValidator struct {
	name string
	fn   func(name string, v any) (any, error)
}

// portBodyValidators is PORT_VALIDATOR_EXTRA.
func portBodyValidators() []bodyValidator {
	return []bodyValidator{
		{"address", bodyMAC}, {"node_uuid", bodyUUID}, {"is_smartnic", bodyBool},
		{"local_link_connection", bodyLocalLink}, {"portgroup_uuid", bodyUUID},
		{"pxe_enabled", bodyBool}, {"uuid", bodyUUID},
	}
}

// portgroupBodyValidators is PORTGROUP_VALIDATOR_EXTRA.
func portgroupBodyValidators() []bodyValidator {
	return []bodyValidator{
		{"address", bodyMAC}, {"node_uuid", bodyUUID}, {"standalone_ports_supported", bodyBool}, {"uuid", bodyUUID},
	}
}

// pyIntLike is oslo's strutils.is_int_like on a decoded JSON value:
// str(int(v)) == str(v).
func pyIntLike(v any) (int64, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case interface{ String() string }:
		s = x.String()
	default:
		return 0, false
	}
	if !db.IsIntLike(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// isMAC is oslo's netutils.is_valid_mac.
func isMAC(s string) bool {
	_, ok := normalizeMAC(s)
	return ok
}
