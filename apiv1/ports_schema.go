package apiv1

import (
	"strings"

	"github.com/goironic/ironic/internal/pyschema"
)

// The request-body schemas of ports and port groups (port.py's PORT_SCHEMA,
// portgroup.py's PORTGROUP_SCHEMA and utils.py's local link connection
// schemas), key for key in Ironic's order: jsonschema reports errors in
// schema order, and the messages reach clients.

const portSchemaJSON = `{
  "type": "object",
  "properties": {
    "address": {"type": "string"},
    "extra": {"type": ["object", "null"]},
    "is_smartnic": {"type": ["string", "boolean", "null"]},
    "local_link_connection": {"type": ["null", "object"]},
    "node_uuid": {"type": "string"},
    "physical_network": {"type": ["string", "null"], "maxLength": 64},
    "portgroup_uuid": {"type": ["string", "null"]},
    "pxe_enabled": {"type": ["string", "boolean", "null"]},
    "uuid": {"type": ["string", "null"]}
  },
  "required": ["address", "node_uuid"],
  "additionalProperties": false
}`

const portgroupSchemaJSON = `{
  "type": "object",
  "properties": {
    "address": {"type": ["string", "null"]},
    "extra": {"type": ["object", "null"]},
    "mode": {"type": ["string", "null"]},
    "name": {"type": ["string", "null"]},
    "node_uuid": {"type": "string"},
    "properties": {"type": ["object", "null"]},
    "standalone_ports_supported": {"type": ["string", "boolean", "null"]},
    "uuid": {"type": ["string", "null"]}
  },
  "required": ["node_uuid"],
  "additionalProperties": false
}`

// localLinkBase is LOCAL_LINK_BASE_SCHEMA; %ENUM% and %REQUIRED% are filled
// in for each variant (Ironic deep-copies the base and adds "required"
// last).
const localLinkBase = `{
  "type": "object",
  "properties": {
    "port_id": {"type": "string"},
    "switch_id": {"type": "string"},
    "hostname": {"type": "string"},
    "switch_info": {"type": "string"},
    "network_type": {"type": "string", "enum": [%ENUM%]}
  },
  "additionalProperties": false,
  "required": [%REQUIRED%]
}`

func localLinkSchema(enum, required string) string {
	s := strings.Replace(localLinkBase, "%ENUM%", enum, 1)
	return strings.Replace(s, "%REQUIRED%", required, 1)
}

// portSchemaSet holds the compiled schemas.
type portSchemaSet struct {
	port      *pyschema.Schema
	portgroup *pyschema.Schema
	// localLink is LOCAL_LINK_CONN_SCHEMA (any of the three kinds of link,
	// or an empty object); smartNIC is LOCAL_LINK_SMART_NIC_SCHEMA.
	localLink *pyschema.Schema
	smartNIC  *pyschema.Schema
}

func compilePortSchemas() portSchemaSet {
	managed := localLinkSchema(`"managed", "unmanaged"`, `"port_id", "switch_id"`)
	smart := localLinkSchema(`"managed", "unmanaged"`, `"port_id", "hostname"`)
	unmanaged := localLinkSchema(`"unmanaged"`, `"network_type"`)
	conn := `{"anyOf": [` + managed + `, ` + smart + `, ` + unmanaged +
		`, {"type": "object", "additionalProperties": false}]}`
	return portSchemaSet{
		port:      pyschema.MustCompile(portSchemaJSON),
		portgroup: pyschema.MustCompile(portgroupSchemaJSON),
		localLink: pyschema.MustCompile(conn),
		smartNIC:  pyschema.MustCompile(smart),
	}
}

// portSchemas are compiled once; they are constants of the program and
// never change after initialisation (like the package's regular
// expressions).
var portSchemas = compilePortSchemas()
