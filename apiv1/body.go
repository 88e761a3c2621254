package apiv1

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// Request bodies: values of a decoded body, the args.dict_valid
// validators of its members, and the faults handlers share.

// schemaError formats a body validation failure as args.schema does.
func schemaError(name string, verr *pyschema.ValidationError) error {
	return ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage(name))
}

// withStatus re-codes a fault of class c with another HTTP status, as
// Ironic does by setting e.code before re-raising (a 400 for things
// referenced from a request body).
func withStatus(err error, c ironic.Class, status int) error {
	if f := ironic.AsFault(err); f.Class == c {
		return f.WithStatus(status)
	}
	return err
}

// as400 is withStatus(err, c, 400).
func as400(err error, c ironic.Class) error { return withStatus(err, c, http.StatusBadRequest) }

// operationNotPermitted is OperationNotPermitted: an item served through
// a parent that may not serve it.
func operationNotPermitted() error {
	return ironic.Errorf(ironic.OperationNotPermitted, "Operation not permitted.")
}

// resourceNotFound is exception.NotFound with its default message.
func resourceNotFound() error {
	return ironic.Errorf(ironic.NotFound, "Resource could not be found.")
}

// cannotBeNone is the error of an oslo BooleanField given None; Ironic lets
// it escape as a 500, we answer it as the client error it is.
func cannotBeNone(field string) error {
	return ironic.Errorf(ironic.ClientSideError, "Field `%s' cannot be None", field)
}

// optString reads a string-or-null body value.
func optString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// bodyDict returns a body dict value (nil for null or absent).
func bodyDict(v any) map[string]any {
	d, _ := v.(map[string]any)
	return d
}

// dictValue is a FlexibleDictField value: a dict, or {} for None.
func dictValue(v any) models.JSONDict {
	if d, ok := v.(map[string]any); ok {
		return d
	}
	return models.JSONDict{}
}

// patchDictValue is a JSON dict column as a patch document holds it: a
// copy (so a patch cannot reach the row), or nil for NULL.
func patchDictValue(d models.JSONDict) any {
	if d == nil {
		return nil
	}
	return deepCopy(map[string]any(d))
}

// pruneToSchema is the pruning of patched_validate_with_schema: only the
// schema's properties stay.
func pruneToSchema(m map[string]any, keys []string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
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
	fn   validator
}

// portBodyValidators is PORT_VALIDATOR_EXTRA.
func portBodyValidators() []bodyValidator {
	return []bodyValidator{
		{"address", macArg}, {"node_uuid", uuidArg}, {"is_smartnic", boolArg},
		{"local_link_connection", bodyLocalLink}, {"portgroup_uuid", uuidArg},
		{"pxe_enabled", boolArg}, {"uuid", uuidArg},
	}
}

// portgroupBodyValidators is PORTGROUP_VALIDATOR_EXTRA.
func portgroupBodyValidators() []bodyValidator {
	return []bodyValidator{
		{"address", macArg}, {"node_uuid", uuidArg}, {"standalone_ports_supported", boolArg}, {"uuid", uuidArg},
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
