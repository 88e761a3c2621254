package apiv1

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// networkDataSchemaJSON is Ironic's network-data-schema.json (the schema of
// OpenStack network metadata), the same file Ironic 21.4 loads.
//
//go:embed network_data_schema.json
var networkDataSchemaJSON string

// schemas are the request-body schemas, compiled once.
type schemas struct {
	patch       *pyschema.Schema
	node        *pyschema.Schema
	nodePatch   *pyschema.Schema
	networkData *pyschema.Schema
	traits      *pyschema.Schema
	trait       *pyschema.Schema
	vif         *pyschema.Schema
}

// nodeSchemaJSON is node.py's node_schema(), with network_data and its
// definitions filled in by compileSchemas.
const nodeSchemaJSON = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "automated_clean": {"type": ["string", "boolean", "null"]},
    "bios_interface": {"type": ["string", "null"]},
    "boot_interface": {"type": ["string", "null"]},
    "boot_mode": {"type": ["string", "null"]},
    "chassis_uuid": {"type": ["string", "null"]},
    "conductor_group": {"type": ["string", "null"]},
    "console_enabled": {"type": ["string", "boolean", "null"]},
    "console_interface": {"type": ["string", "null"]},
    "deploy_interface": {"type": ["string", "null"]},
    "description": {"type": ["string", "null"], "maxLength": 4096},
    "driver": {"type": "string"},
    "driver_info": {"type": ["object", "null"]},
    "extra": {"type": ["object", "null"]},
    "inspect_interface": {"type": ["string", "null"]},
    "instance_info": {"type": ["object", "null"]},
    "instance_uuid": {"type": ["string", "null"]},
    "lessee": {"type": ["string", "null"]},
    "management_interface": {"type": ["string", "null"]},
    "maintenance": {"type": ["string", "boolean", "null"]},
    "name": {"type": ["string", "null"]},
    "network_data": {"anyOf": [
      {"type": "null"},
      {"type": "object", "additionalProperties": false},
      %NETWORK_DATA%
    ]},
    "network_interface": {"type": ["string", "null"]},
    "owner": {"type": ["string", "null"]},
    "power_interface": {"type": ["string", "null"]},
    "properties": {"type": ["object", "null"]},
    "raid_interface": {"type": ["string", "null"]},
    "rescue_interface": {"type": ["string", "null"]},
    "resource_class": {"type": ["string", "null"], "maxLength": 80},
    "retired": {"type": ["string", "boolean", "null"]},
    "retired_reason": {"type": ["string", "null"]},
    "secure_boot": {"type": ["string", "boolean", "null"]},
    "shard": {"type": ["string", "null"]},
    "storage_interface": {"type": ["string", "null"]},
    "uuid": {"type": ["string", "null"]},
    "vendor_interface": {"type": ["string", "null"]}%PATCH_ONLY%
  },
  "required": ["driver"],
  "additionalProperties": false,
  "definitions": %DEFINITIONS%
}`

const vifSchemaJSON = `{
  "type": "object",
  "properties": {"id": {"type": "string"}},
  "required": ["id"],
  "additionalProperties": true
}`

func compileSchemas() (*schemas, error) {
	nd, err := pyschema.DecodeOrdered([]byte(networkDataSchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("network data schema: %w", err)
	}
	defs, _ := nd.(pyjson.Object).Get("definitions")
	if defs == nil {
		defs = pyjson.Object{}
	}
	defsJSON, _ := json.Marshal(orderedForJSON(defs))
	build := func(patchOnly string) string {
		s := strings.Replace(nodeSchemaJSON, "%NETWORK_DATA%", networkDataSchemaJSON, 1)
		s = strings.Replace(s, "%DEFINITIONS%", string(defsJSON), 1)
		return strings.Replace(s, "%PATCH_ONLY%", patchOnly, 1)
	}
	var s schemas
	for _, c := range []struct {
		dst **pyschema.Schema
		src string
	}{
		{&s.patch, patchSchemaJSON},
		{&s.node, build("")},
		{&s.nodePatch, build(`,
    "protected": {"type": ["string", "boolean", "null"]},
    "protected_reason": {"type": ["string", "null"]}`)},
		{&s.networkData, networkDataSchemaJSON},
		{&s.traits, nodeTraitsSchemaJSON},
		{&s.trait, traitSchemaJSON},
		{&s.vif, vifSchemaJSON},
	} {
		sch, err := pyschema.Compile(c.src)
		if err != nil {
			return nil, err
		}
		*c.dst = sch
	}
	return &s, nil
}

// orderedForJSON lets encoding/json write an ordered object in order.
type orderedJSON pyjson.Object

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(orderedForJSON(m.Value))
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func orderedForJSON(v any) any {
	switch x := v.(type) {
	case pyjson.Object:
		return orderedJSON(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = orderedForJSON(e)
		}
		return out
	}
	return v
}
