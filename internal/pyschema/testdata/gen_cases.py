#!/usr/bin/python3
"""Generate cases.json for the pyschema tests from Python's jsonschema.

Run with Debian 12's interpreter, which has python3-jsonschema 4.10 and
Ironic installed:

    /usr/bin/python3 internal/pyschema/testdata/gen_cases.py

Every expectation in cases.json comes from running the real libraries:
jsonschema.validate for the error, Ironic's args._validate_schema for the
"Schema error for ..." text, repr() and re.search for the helpers.
"""

import collections
import copy
import json
import os
import warnings

warnings.simplefilter("ignore")

import jsonschema  # noqa: E402
from jsonschema import exceptions as js_exc  # noqa: E402

from ironic.conf import CONF  # noqa: E402

CONF([], project="ironic", default_config_files=[])

from ironic.api.controllers.v1 import allocation  # noqa: E402
from ironic.api.controllers.v1 import chassis  # noqa: E402
from ironic.api.controllers.v1 import deploy_template  # noqa: E402
from ironic.api.controllers.v1 import event  # noqa: E402
from ironic.api.controllers.v1 import node  # noqa: E402
from ironic.api.controllers.v1 import port  # noqa: E402
from ironic.api.controllers.v1 import portgroup  # noqa: E402
from ironic.api.controllers.v1 import utils as api_utils  # noqa: E402
from ironic.api.controllers.v1 import volume_connector  # noqa: E402
from ironic.api.controllers.v1 import volume_target  # noqa: E402
from ironic.common import args  # noqa: E402
from ironic.common import exception  # noqa: E402
import ironic.drivers.base as drivers_base  # noqa: E402
from ironic.drivers.modules.redfish import firmware_utils  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def first_schema(validator):
    """The schema of args.and_valid(args.schema(S), ...)."""
    return validator.keywords["validators"][0].keywords["schema"]


with open(drivers_base.RAID_CONFIG_SCHEMA) as f:
    RAID_SCHEMA = json.load(f)

SCHEMAS = collections.OrderedDict([
    # Ironic's own schemas, taken from the installed code.
    ("node", node.node_schema()),
    ("node_patch", node.node_patch_schema()),
    ("port", port.PORT_SCHEMA),
    ("portgroup", portgroup.PORTGROUP_SCHEMA),
    ("chassis", chassis.CHASSIS_SCHEMA),
    ("deploy_template", deploy_template.TEMPLATE_SCHEMA),
    ("volume_connector", volume_connector.CONNECTOR_SCHEMA),
    ("volume_target", volume_target.TARGET_SCHEMA),
    ("allocation", allocation.ALLOCATION_SCHEMA),
    ("traits_body", node.TRAITS_SCHEMA),
    ("trait", api_utils.TRAITS_SCHEMA),
    ("patch", args.patch.keywords["schema"]),
    ("vif", first_schema(node.VIF_VALIDATOR)),
    ("events", event.EVENTS_SCHEMA),
    ("network_event", first_schema(event.NETWORK_EVENT_VALIDATOR)),
    ("local_link", api_utils.LOCAL_LINK_CONN_SCHEMA),
    ("local_link_smart_nic", api_utils.LOCAL_LINK_SMART_NIC_SCHEMA),
    ("deploy_step", api_utils.DEPLOY_STEP_SCHEMA),
    ("clean_steps", node._CLEAN_STEPS_SCHEMA),
    ("deploy_steps", node._DEPLOY_STEPS_SCHEMA),
    ("network_data", node.network_data_schema()),
    ("configdrive", api_utils._CONFIG_DRIVE_SCHEMA),
    ("raid", RAID_SCHEMA),
    ("firmware", firmware_utils._UPDATE_FIRMWARE_SCHEMA),
    # Synthetic schemas covering each keyword, per draft.
    ("d4_numbers", {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "i": {"type": "integer", "minimum": 1, "maximum": 10},
            "x": {"type": "number", "minimum": 0, "exclusiveMinimum": True,
                  "maximum": 1.5, "exclusiveMaximum": True},
            "m": {"multipleOf": 3},
            "f": {"multipleOf": 0.5},
            "t": {"multipleOf": 0.1},
        },
    }),
    ("d7_numbers", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "i": {"type": "integer"},
            "emin": {"exclusiveMinimum": 0},
            "emax": {"exclusiveMaximum": 2.5},
            "min": {"minimum": -1.5},
            "max": {"maximum": 100},
        },
    }),
    ("d4_integer", {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "integer",
    }),
    ("latest_integer", {"type": "integer"}),
    ("strings", {
        "type": "object",
        "properties": {
            "short": {"type": "string", "minLength": 2},
            "long": {"type": "string", "maxLength": 3},
            "pat": {"type": "string", "pattern": "^[a-z]+$"},
            "word": {"pattern": "^\\w+$"},
            "digits": {"pattern": "^\\d+$"},
            "space": {"pattern": "\\s"},
            "unanchored": {"pattern": "b+"},
            "icase": {"pattern": "(?i)^abc$"},
            "quant": {"pattern": "^a{,2}$"},
            "brace": {"pattern": "^a{x}$"},
            "cls": {"pattern": "^[]a-c-]+$"},
            "zend": {"pattern": "^x\\Z"},
            "uesc": {"pattern": "^\\u00e9$"},
        },
    }),
    ("arrays", {
        "type": "array",
        "minItems": 1,
        "maxItems": 4,
        "uniqueItems": True,
        "items": {"type": ["integer", "string", "array", "object",
                           "boolean", "null", "number"]},
    }),
    ("tuple_d7", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}, {"type": "integer"}],
        "additionalItems": False,
    }),
    ("tuple_d7_schema", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}],
        "additionalItems": {"type": "boolean"},
    }),
    ("tuple_2020", {
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": False,
    }),
    ("items_2020", {
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
    }),
    ("contains_d7", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "contains": {"type": "integer"},
    }),
    ("contains_2020", {
        "contains": {"type": "integer"},
        "minContains": 2,
        "maxContains": 3,
    }),
    ("contains_plain_2020", {"contains": {"type": "integer"}}),
    ("objects", {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 3,
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "patternProperties": {"^x_": {"type": "boolean"}, "^y_": {}},
        "additionalProperties": False,
    }),
    ("add_props_schema", {
        "properties": {"a": {}},
        "additionalProperties": {"type": "string"},
    }),
    ("property_names", {
        "propertyNames": {"maxLength": 3, "pattern": "^[a-z]+$"},
    }),
    ("deps_d4", {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "dependencies": {
            "a": ["b", "c"],
            "d": {"required": ["e"]},
        },
    }),
    ("deps_2020", {
        "dependentRequired": {"a": ["b", "c"]},
        "dependentSchemas": {"d": {"required": ["e"]}},
        "dependencies": {"x": ["y"]},
    }),
    ("const_enum", {
        "properties": {
            "c": {"const": {"a": [1, True]}},
            "one": {"const": 1},
            "e": {"enum": [1, "1", None, [1], {"k": "v"}, 2.5]},
            "b": {"enum": [True]},
            "z": {"enum": [0, "x"]},
            "l": {"enum": [[True], "x"]},
        },
    }),
    ("combinators", {
        "properties": {
            "any": {"anyOf": [{"type": "string", "minLength": 3},
                              {"type": "integer", "minimum": 10}]},
            "one": {"oneOf": [{"type": "integer"}, {"minimum": 5},
                              {"type": "string"}]},
            "all": {"allOf": [{"type": "string"}, {"maxLength": 2},
                              {"pattern": "^a"}]},
            "not": {"not": {"type": "string"}},
        },
    }),
    ("nested_any", {
        "anyOf": [
            {"type": "object", "properties": {
                "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
             "required": ["a"]},
            {"type": "array", "items": {"type": "string"}},
        ],
    }),
    ("if_then_else", {
        "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        "then": {"required": ["a"]},
        "else": {"required": ["b"]},
    }),
    ("bool_schemas", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"no": False, "yes": True},
        "items": False,
    }),
    ("false_root", False),
    ("refs_2020", {
        "$defs": {"pos": {"type": "integer", "minimum": 1}},
        "properties": {
            "p": {"$ref": "#/$defs/pos", "maximum": 5},
            "q": {"$ref": "#/properties/p"},
        },
    }),
    ("refs_d7", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"pos": {"type": "integer", "minimum": 1},
                        "a~b/c": {"type": "string"}},
        "properties": {
            "p": {"$ref": "#/definitions/pos", "maximum": 5},
            "e": {"$ref": "#/definitions/a~0b~1c"},
        },
    }),
    ("mixed_drafts", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "d4": {"$schema": "http://json-schema.org/draft-04/schema#",
                   "type": "integer"},
            "d7": {"type": "integer"},
        },
    }),
    ("relevance", {
        "type": "object",
        "properties": {
            "a": {"type": "object",
                  "properties": {"b": {"type": "integer"}}},
            "c": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "d": {"oneOf": [
                {"type": "object", "required": ["x"]},
                {"type": "object", "required": ["y"],
                 "properties": {"z": {"type": "string"}}},
            ]},
        },
        "required": ["r"],
    }),
    ("pattern_add_props", {
        "patternProperties": {"^b": {}, "^a": {}},
        "additionalProperties": False,
    }),
    ("unique_objects", {"uniqueItems": True}),
    ("pformat", {
        "type": "object",
        "properties": {
            "s": {"type": "integer", "description": "a long description "
                  "that makes the schema wider than seventy-two columns"},
            "t": {"enum": ["x"]},
        },
    }),
])

# (schema, instance JSON text) in the order they are checked.
CASES = [
    # node create
    ("node", '{"driver": "fake-hardware"}'),
    ("node", '{}'),
    ("node", '{"name": "n1"}'),
    ("node", '{"driver": "ipmi", "bogus": 1}'),
    ("node", '{"driver": "ipmi", "zeta": 1, "alpha": 2}'),
    ("node", '{"driver": 5}'),
    ("node", '{"driver": null}'),
    ("node", '{"driver": "x", "name": 5}'),
    ("node", '{"driver": "x", "maintenance": 1}'),
    ("node", '{"driver": "x", "maintenance": "yes", "retired": []}'),
    ("node", '{"driver": "x", "driver_info": "ipmi"}'),
    ("node", '{"driver": "x", "driver_info": [1, 2]}'),
    ("node", '{"driver": "x", "properties": {"cpus": 1}, "extra": 3}'),
    ("node", '{"driver": "x", "resource_class": "' + "r" * 81 + '"}'),
    ("node", '{"driver": "x", "description": "' + "d" * 4097 + '"}'),
    ("node", '{"name": 1, "driver": 2, "uuid": 3}'),
    ("node", '{"uuid": 3, "name": 1}'),
    ("node", '{"driver": "x", "network_data": 5}'),
    ("node", '{"driver": "x", "network_data": {}}'),
    ("node", '{"driver": "x", "network_data": null}'),
    ("node", '{"driver": "x", "network_data": {"links": []}}'),
    ("node", '{"driver": "x", "network_data": '
     '{"links": [], "networks": [], "services": []}}'),
    ("node", '{"driver": "x", "network_data": '
     '{"links": [{"id": "eth0", "type": "phy", '
     '"ethernet_mac_address": "zz"}], "networks": [], "services": []}}'),
    ("node", '{"driver": "x", "network_data": '
     '{"links": [], "networks": [], "services": [{"type": "dns"}]}}'),
    ("node", '[]'),
    ("node", '"node"'),
    ("node", '{"driver": "x", "console_enabled": 0.5, "owner": {}}'),
    ("node", '{"driver": "x", "automated_clean": "", "shard": ["a"]}'),
    ("node_patch", '{"driver": "x", "protected": 1}'),
    ("node_patch", '{"driver": "x", "protected_reason": false}'),
    ("node_patch", '{"driver": "x", "protected": true, '
     '"protected_reason": "r"}'),
    # port, portgroup, chassis, volume, allocation, deploy template
    ("port", '{"address": "52:54:00:12:34:56", "node_uuid": "u"}'),
    ("port", '{"address": "52:54:00:12:34:56"}'),
    ("port", '{"node_uuid": "u"}'),
    ("port", '{}'),
    ("port", '{"address": 1, "node_uuid": "u"}'),
    ("port", '{"address": "a", "node_uuid": "u", "physical_network": "'
     + "p" * 65 + '"}'),
    ("port", '{"address": "a", "node_uuid": "u", "local_link_connection": '
     '"x"}'),
    ("port", '{"address": "a", "node_uuid": "u", "pxe_enabled": 1}'),
    ("port", '{"address": "a", "node_uuid": "u", "is_smartnic": null, '
     '"foo": "bar", "extra": {}}'),
    ("portgroup", '{"node_uuid": "u", "mode": 4}'),
    ("portgroup", '{"mode": "active-backup"}'),
    ("portgroup", '{"node_uuid": "u", "standalone_ports_supported": 2}'),
    ("chassis", '{"description": "' + "c" * 256 + '"}'),
    ("chassis", '{"description": "ok", "uuid": 5}'),
    ("chassis", '{"nodes": []}'),
    ("chassis", '{}'),
    ("deploy_template", '{}'),
    ("deploy_template", '{"name": "CUSTOM_X"}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": []}'),
    ("deploy_template", '{"name": "bad", "steps": [{"interface": "bios", '
     '"step": "s", "args": {}, "priority": 1}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "s", "args": {}}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"foo", "step": "s", "args": {}, "priority": 1}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "", "args": {}, "priority": -1}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "s", "args": {}, "priority": "x1"}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "s", "args": {}, "priority": 1.5}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "s", "args": {}, "priority": true}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": [{"interface": '
     '"bios", "step": "s", "args": [], "priority": 0, "x": 1}]}'),
    ("deploy_template", '{"name": "CUSTOM_X", "steps": "s", '
     '"description": 5}'),
    ("deploy_template", '{"name": "", "steps": [1]}'),
    ("deploy_template", '{"name": "' + "CUSTOM_" + "A" * 250 + '", '
     '"steps": [{"interface": "bios", "step": "s", "args": {}, '
     '"priority": 0}]}'),
    ("volume_connector", '{"connector_id": "c", "node_uuid": "u", '
     '"type": "iqn"}'),
    ("volume_connector", '{"connector_id": "c", "type": 1}'),
    ("volume_target", '{"boot_index": "0", "node_uuid": "u", '
     '"volume_id": "v", "volume_type": "iscsi"}'),
    ("volume_target", '{"boot_index": 0.0, "node_uuid": "u", '
     '"volume_id": "v", "volume_type": "iscsi"}'),
    ("volume_target", '{"boot_index": 1e2, "node_uuid": "u", '
     '"volume_id": "v", "volume_type": "iscsi"}'),
    ("volume_target", '{"boot_index": true, "node_uuid": "u", '
     '"volume_id": "v", "volume_type": "iscsi"}'),
    ("volume_target", '{"boot_index": 12345678901234567890123, '
     '"node_uuid": "u", "volume_id": "v", "volume_type": "iscsi"}'),
    ("allocation", '{"resource_class": "rc", "traits": ["CUSTOM_A"]}'),
    ("allocation", '{"traits": ["bad"]}'),
    ("allocation", '{"traits": "CUSTOM_A"}'),
    ("allocation", '{"traits": [1]}'),
    ("allocation", '{"traits": [""]}'),
    ("allocation", '{"candidate_nodes": ["a", 2]}'),
    ("allocation", '{"candidate_nodes": {}}'),
    ("allocation", '{"name": "a", "node": 5, "owner": 6}'),
    # traits
    ("trait", '"CUSTOM_FOO"'),
    ("trait", '"HW_CPU_X86_AVX2"'),
    ("trait", '"custom_foo"'),
    ("trait", '""'),
    ("trait", '5'),
    ("trait", '"CUSTOM_FOO\\n"'),
    ("trait", '"CUSTOM_\u00c9"'),
    ("traits_body", '{"traits": ["CUSTOM_A", "nope"]}'),
    ("traits_body", '{"traits": "CUSTOM_A"}'),
    ("traits_body", '{"trait": []}'),
    ("traits_body", '{"traits": [1, "x"]}'),
    # JSON patch
    ("patch", '[{"op": "replace", "path": "/name", "value": "n"}]'),
    ("patch", '[{"op": "frob", "path": "/name"}]'),
    ("patch", '[{"op": "add", "path": "/extra/a~1b", "value": 1}]'),
    ("patch", '[{"op": "add", "path": "name"}]'),
    ("patch", '[{"op": "add", "path": "/"}]'),
    ("patch", '[{"op": "add", "path": "/a b"}]'),
    ("patch", '[{"op": "add", "path": "/caf\u00e9/x"}]'),
    ("patch", '[{"op": "add", "path": "/\u0661\u0662"}]'),
    ("patch", '[{"op": "add", "path": "/name\\n"}]'),
    ("patch", '[{"path": "/name"}]'),
    ("patch", '[{"op": "remove"}]'),
    ("patch", '[{}]'),
    ("patch", '[{"op": "add", "path": "/x", "from": "/y"}]'),
    ("patch", '[{"op": "add", "path": "/x"}, {"op": "nope", "path": "/y"}]'),
    ("patch", '[{"op": 1, "path": 2}]'),
    ("patch", '{"op": "add"}'),
    ("patch", '["add"]'),
    ("patch", '[]'),
    ("patch", '[{"op": "test", "path": "/a", "value": 1, "x": 2}]'),
    # VIF and events
    ("vif", '{"id": "vif1", "extra": true}'),
    ("vif", '{"name": "vif1"}'),
    ("vif", '{"id": 1}'),
    ("events", '{"events": []}'),
    ("events", '{"events": [{"event": "network.bind_port"}]}'),
    ("events", '{"events": [{"event": "network.foo"}]}'),
    ("events", '{"events": [{}]}'),
    ("events", '{}'),
    ("events", '{"events": [], "other": 1}'),
    ("network_event", '{"event": "network.bind_port", "port_id": "p", '
     '"mac_address": "m", "status": "ACTIVE", "device_id": 5}'),
    ("network_event", '{"event": "network.bind_port"}'),
    # local link connection
    ("local_link", '{"port_id": "p", "switch_id": "s"}'),
    ("local_link", '{"port_id": "p"}'),
    ("local_link", '{"port_id": 1, "switch_id": "s"}'),
    ("local_link", '{"network_type": "foo"}'),
    ("local_link", '{"port_id": "p", "switch_id": "s", "x": 1}'),
    ("local_link", '{}'),
    ("local_link", '"str"'),
    ("local_link", '{"hostname": "h"}'),
    ("local_link_smart_nic", '{"port_id": "p"}'),
    # steps
    ("deploy_step", '{"interface": "deploy", "step": "s", "args": {}, '
     '"priority": "10"}'),
    ("deploy_step", '{"interface": "deploy", "step": "s", "args": {}, '
     '"priority": "1a"}'),
    ("deploy_step", '{"interface": "deploy", "step": "s", "args": {}, '
     '"priority": ""}'),
    ("deploy_step", '{"interface": "deploy", "step": "s", "args": {}, '
     '"priority": null}'),
    ("clean_steps", '[{"interface": "deploy", "step": "erase_devices"}]'),
    ("clean_steps", '[{"interface": "foo", "step": "s"}]'),
    ("clean_steps", '[{"step": "s"}]'),
    ("clean_steps", '[{"interface": "deploy", "step": "", "x": 1}]'),
    ("clean_steps", '[{"interface": "deploy", "step": "s", "args": []}]'),
    ("clean_steps", '{}'),
    ("deploy_steps", '[{"interface": "deploy", "step": "s", "args": {}, '
     '"priority": 1}]'),
    ("deploy_steps", '[{"interface": "deploy", "step": "s"}]'),
    # network_data on its own
    ("network_data", '{"links": [], "networks": [], "services": []}'),
    ("network_data", '{}'),
    ("network_data", '{"links": [{"id": "eth0", "type": "phy", '
     '"ethernet_mac_address": "52:54:00:12:34:56"}], "networks": [], '
     '"services": []}'),
    ("network_data", '{"links": [{"id": "eth0", "type": "phy", '
     '"ethernet_mac_address": "52:54:00:12:34:5"}], "networks": [], '
     '"services": []}'),
    ("network_data", '{"links": [{"id": "eth0", "type": "phy", '
     '"ethernet_mac_address": "52:54:00:12:34:56\\n"}], "networks": [], '
     '"services": []}'),
    ("network_data", '{"links": [{"id": "eth0", "type": "nope", '
     '"ethernet_mac_address": "52:54:00:12:34:56"}], "networks": [], '
     '"services": []}'),
    ("network_data", '{"links": [{"id": "eth0", "type": "phy", '
     '"ethernet_mac_address": "FA:16:3E:9C:BF:3D", "mtu": 0}], '
     '"networks": [], "services": []}'),
    ("network_data", '{"links": [{"id": "bond0", "type": "bond", '
     '"bond_links": ["eth0"], "bond_mode": "802.3ad", '
     '"ethernet_mac_address": "fa:16:3e:9c:bf:3d"}], "networks": [], '
     '"services": []}'),
    ("network_data", '{"links": [{"id": "vlan0", "type": "vlan", '
     '"vlan_link": "eth0", "vlan_id": 5, "vlan_mac_address": '
     '"fa:16:3e:9c:bf:3d"}], "networks": [], "services": []}'),
    ("network_data", '{"links": [], "networks": [{"id": "n", "type": '
     '"ipv4", "link": "eth0", "ip_address": "10.0.0.1", "netmask": '
     '"255.255.255.0", "routes": [], "network_id": "x"}], '
     '"services": []}'),
    ("network_data", '{"links": [], "networks": [{"id": "n", "type": '
     '"ipv4", "link": "eth0", "ip_address": "10.0.0.300", "netmask": '
     '"255.255.255.0", "routes": [], "network_id": "x"}], '
     '"services": []}'),
    ("network_data", '{"links": [], "networks": [{"id": "n", "type": '
     '"ipv6", "link": "eth0", "ip_address": "fe80::1", "netmask": '
     '"ffff:ffff:ffff:ffff::", "routes": [], "network_id": "x"}], '
     '"services": []}'),
    ("network_data", '{"links": [], "networks": [{"id": "n", "type": '
     '"ipv4_dhcp", "link": "eth0", "network_id": "x"}], '
     '"services": []}'),
    ("network_data", '{"links": [], "networks": [{"type": "foo"}], '
     '"services": []}'),
    ("network_data", '{"links": [], "networks": [], '
     '"services": [{"type": "dns", "address": "8.8.8.8"}]}'),
    ("network_data", '{"links": [], "networks": [], '
     '"services": [{"type": "dns", "address": "not-an-ip"}]}'),
    ("network_data", '{"links": "x", "networks": 1, "services": null}'),
    ("network_data", '{"links": [{}], "networks": [], "services": []}'),
    ("network_data", '{"links": [5], "networks": [], "services": []}'),
    # configdrive, raid, firmware
    ("configdrive", '"H4sI"'),
    ("configdrive", '{"meta_data": {}, "user_data": "x"}'),
    ("configdrive", '{"meta_data": []}'),
    ("configdrive", '{"other": 1}'),
    ("configdrive", '5'),
    ("raid", '{"logical_disks": [{"size_gb": 10, "raid_level": "1"}]}'),
    ("raid", '{"logical_disks": []}'),
    ("raid", '{"logical_disks": [{"size_gb": "10", "raid_level": "1"}]}'),
    ("raid", '{"logical_disks": [{"size_gb": -1, "raid_level": "1"}]}'),
    ("raid", '{"logical_disks": [{"size_gb": 1.0, "raid_level": "1"}]}'),
    ("raid", '{"logical_disks": [{"size_gb": 1, "raid_level": "7"}]}'),
    ("raid", '{"logical_disks": [{"size_gb": 1, "raid_level": "1", '
     '"number_of_physical_disks": 0}]}'),
    ("raid", '{"logical_disks": [{"size_gb": 1, "raid_level": "1", '
     '"physical_disks": ["a"]}]}'),
    ("raid", '{"logical_disks": [{"size_gb": 1, "raid_level": "1", '
     '"controller": "c", "physical_disks": [{}]}]}'),
    ("raid", '{"logical_disks": [{"size_gb": "MAX"}]}'),
    ("firmware", '[{"url": "http://x", "checksum": "c", "wait": 0}]'),
    ("firmware", '[{"url": "", "checksum": "c", "source": "ftp"}]'),
    ("firmware", '[{"url": "u", "checksum": "c", "wait": 1.0}]'),
    # numbers
    ("d4_numbers", '{"i": 0}'),
    ("d4_numbers", '{"i": 11}'),
    ("d4_numbers", '{"i": 1.0}'),
    ("d4_numbers", '{"i": 5.5}'),
    ("d4_numbers", '{"x": 0}'),
    ("d4_numbers", '{"x": 1.5}'),
    ("d4_numbers", '{"x": 1.4999}'),
    ("d4_numbers", '{"x": -1e-7}'),
    ("d4_numbers", '{"m": 7}'),
    ("d4_numbers", '{"m": 9}'),
    ("d4_numbers", '{"m": 7.5}'),
    ("d4_numbers", '{"m": 9.0}'),
    ("d4_numbers", '{"f": 2.25}'),
    ("d4_numbers", '{"f": 3}'),
    ("d4_numbers", '{"t": 0.3}'),
    ("d4_numbers", '{"t": 1e308}'),
    ("d4_numbers", '{"f": true, "m": false, "i": true}'),
    ("d4_integer", '1.0'),
    ("d4_integer", '1'),
    ("d4_integer", '1e400'),
    ("latest_integer", '1.0'),
    ("latest_integer", '1.5'),
    ("latest_integer", '-0.0'),
    ("latest_integer", '1e16'),
    ("latest_integer", '1.5e16'),
    ("latest_integer", '0.00001'),
    ("latest_integer", '0.0001'),
    ("latest_integer", '123456789.125'),
    ("latest_integer", '"5"'),
    ("latest_integer", 'true'),
    ("latest_integer", 'null'),
    ("d7_numbers", '{"i": 2.0, "emin": 0}'),
    ("d7_numbers", '{"emin": 0.0}'),
    ("d7_numbers", '{"emax": 2.5}'),
    ("d7_numbers", '{"emax": 3}'),
    ("d7_numbers", '{"min": -2}'),
    ("d7_numbers", '{"max": 100.5}'),
    ("d7_numbers", '{"max": 1e2}'),
    ("d7_numbers", '{"max": 100000000000000000000001}'),
    ("d7_numbers", '{"min": "a", "max": null}'),
    # strings and patterns
    ("strings", '{"short": "a"}'),
    ("strings", '{"short": "\u00e9\u00e9"}'),
    ("strings", '{"short": "\\ud83d\\ude00"}'),
    ("strings", '{"long": "abcd"}'),
    ("strings", '{"long": "\u2603\u2603\u2603"}'),
    ("strings", '{"pat": "abc1"}'),
    ("strings", '{"pat": "abc\\n"}'),
    ("strings", '{"pat": "abc\\n\\n"}'),
    ("strings", '{"word": "caf\u00e9_1"}'),
    ("strings", '{"word": "a-b"}'),
    ("strings", '{"word": "\u00bd"}'),
    ("strings", '{"word": "\u0301"}'),
    ("strings", '{"digits": "\u0661\u0662"}'),
    ("strings", '{"digits": "\u00b2"}'),
    ("strings", '{"space": "a\u00a0b"}'),
    ("strings", '{"space": "ab"}'),
    ("strings", '{"space": "a\\u000bb"}'),
    ("strings", '{"space": "a\u2028b"}'),
    ("strings", '{"unanchored": "abc"}'),
    ("strings", '{"unanchored": "ac"}'),
    ("strings", '{"icase": "ABC"}'),
    ("strings", '{"icase": "abd"}'),
    ("strings", '{"quant": "aa"}'),
    ("strings", '{"quant": "aaa"}'),
    ("strings", '{"brace": "a{x}"}'),
    ("strings", '{"brace": "a"}'),
    ("strings", '{"cls": "]a-c"}'),
    ("strings", '{"cls": "d"}'),
    ("strings", '{"zend": "x\\n"}'),
    ("strings", '{"zend": "x"}'),
    ("strings", '{"uesc": "\u00e9"}'),
    ("strings", '{"uesc": "e"}'),
    ("strings", '{"pat": 5, "short": null}'),
    ("strings", '{"long": "it\'s"}'),
    ("strings", '{"long": "say \\"hi\\" it\'s"}'),
    ("strings", '{"long": "tab\\there"}'),
    ("strings", '{"long": "ctl\\u0001\\u007f\\u0085\\u00a0\\u00ad"}'),
    ("strings", '{"long": "back\\\\slash"}'),
    ("strings", '{"long": "\\u200b\\u2028\\ue000"}'),
    ("strings", '{"long": "new \\ud83e\\udedb old \\ud83d\\ude00"}'),
    ("strings", '{"long": "\\u0cf3\\u0ce6\\u0cf1"}'),
    # arrays
    ("arrays", '[]'),
    ("arrays", '[1, 2, 3, 4, 5]'),
    ("arrays", '[1, 1]'),
    ("arrays", '[1, 1.0]'),
    ("arrays", '[1, true]'),
    ("arrays", '[0, false]'),
    ("arrays", '[true, true]'),
    ("arrays", '[[1], [true]]'),
    ("arrays", '[[1], [true], [1]]'),
    ("arrays", '[[1], [1.0]]'),
    ("arrays", '[{"a": 1}, {"a": 1}]'),
    ("arrays", '[{"a": 1, "b": 2}, {"b": 2, "a": 1}]'),
    ("arrays", '["a", "b", "a"]'),
    ("arrays", '[1, "1"]'),
    ("arrays", '[null, null]'),
    ("arrays", '[[1, "a"], [1, 2], [1, "a"]]'),
    ("arrays", '[3, 1, 2, 1]'),
    ("arrays", '[{"a": [1]}, {"a": [true]}]'),
    ("arrays", '{"not": "array"}'),
    ("tuple_d7", '["a", 1]'),
    ("tuple_d7", '["a", 1, 2, "b"]'),
    ("tuple_d7", '["a", 1, 2]'),
    ("tuple_d7", '["a", 1, "z", 1, null]'),
    ("tuple_d7", '["a", 1, "z", 2]'),
    ("tuple_d7", '[1, "a"]'),
    ("tuple_d7_schema", '["a", true, 1]'),
    ("tuple_2020", '["a", 1, 2]'),
    ("tuple_2020", '[1]'),
    ("items_2020", '["a", 1, "b"]'),
    ("contains_d7", '["a", "b"]'),
    ("contains_d7", '["a", 1]'),
    ("contains_d7", '[]'),
    ("contains_2020", '["a"]'),
    ("contains_2020", '[1, "a"]'),
    ("contains_2020", '[1, 2, 3, 4]'),
    ("contains_2020", '[1, 2]'),
    ("contains_plain_2020", '["a", 1.5]'),
    # objects
    ("objects", '{}'),
    ("objects", '{"a": 1, "b": "x", "x_1": true, "y_2": 0}'),
    ("objects", '{"a": 1, "z": 1}'),
    ("objects", '{"q": 1, "p": 2}'),
    ("objects", '{"x_1": 1}'),
    ("objects", '{"a": "1", "x_a": 1, "x_b": 2}'),
    ("objects", '[]'),
    ("add_props_schema", '{"a": 1, "b": 2}'),
    ("add_props_schema", '{"b": "ok", "a": 1}'),
    ("property_names", '{"abcd": 1}'),
    ("property_names", '{"AB": 1}'),
    ("property_names", '{"ok": 1, "bad name": 2}'),
    ("pattern_add_props", '{"c": 1}'),
    ("pattern_add_props", '{"d": 1, "c": 2, "b": 3}'),
    ("deps_d4", '{"a": 1}'),
    ("deps_d4", '{"a": 1, "b": 2}'),
    ("deps_d4", '{"d": 1}'),
    ("deps_d4", '{"b": 1, "d": 1, "e": 2}'),
    ("deps_2020", '{"a": 1, "x": 1}'),
    ("deps_2020", '{"d": 1}'),
    # const and enum
    ("const_enum", '{"c": {"a": [1, true]}}'),
    ("const_enum", '{"c": {"a": [1, 1]}}'),
    ("const_enum", '{"c": {"a": [true, true]}}'),
    ("const_enum", '{"one": 1.0}'),
    ("const_enum", '{"one": true}'),
    ("const_enum", '{"e": 1.0}'),
    ("const_enum", '{"e": true}'),
    ("const_enum", '{"e": [true]}'),
    ("const_enum", '{"e": {"k": "v"}}'),
    ("const_enum", '{"e": {"k": "w"}}'),
    ("const_enum", '{"e": 2.50}'),
    ("const_enum", '{"b": 1}'),
    ("const_enum", '{"b": true}'),
    ("const_enum", '{"z": false}'),
    ("const_enum", '{"z": 0.0}'),
    ("const_enum", '{"l": [1]}'),
    # combinators
    ("combinators", '{"any": "ab"}'),
    ("combinators", '{"any": 5}'),
    ("combinators", '{"any": null}'),
    ("combinators", '{"any": "abc"}'),
    ("combinators", '{"one": 7}'),
    ("combinators", '{"one": 1}'),
    ("combinators", '{"one": "s"}'),
    ("combinators", '{"one": 2.5}'),
    ("combinators", '{"one": []}'),
    ("combinators", '{"all": "bcd"}'),
    ("combinators", '{"all": 5}'),
    ("combinators", '{"not": "s"}'),
    ("combinators", '{"not": 1}'),
    ("nested_any", '{"a": "x"}'),
    ("nested_any", '{"b": 1}'),
    ("nested_any", '[1]'),
    ("nested_any", '5'),
    ("if_then_else", '{"kind": "a"}'),
    ("if_then_else", '{"kind": "b"}'),
    ("if_then_else", '{"kind": "a", "a": 1}'),
    ("bool_schemas", '{"no": 1}'),
    ("bool_schemas", '{"yes": 1}'),
    ("bool_schemas", '[1]'),
    ("false_root", '{"a": [1, 2.5, null]}'),
    ("refs_2020", '{"p": 0}'),
    ("refs_2020", '{"p": 6}'),
    ("refs_2020", '{"q": 9}'),
    ("refs_d7", '{"p": 6}'),
    ("refs_d7", '{"p": 0}'),
    ("refs_d7", '{"e": 1}'),
    ("mixed_drafts", '{"d4": 1.0}'),
    ("mixed_drafts", '{"d7": 1.0}'),
    ("mixed_drafts", '{"d4": 1.5, "d7": 1.5}'),
    # relevance and best_match selection
    ("relevance", '{"a": {"b": "x"}}'),
    ("relevance", '{"a": {"b": "x"}, "r": 1}'),
    ("relevance", '{"c": [], "r": 1}'),
    ("relevance", '{"d": {}, "r": 1}'),
    ("relevance", '{"d": {"y": 1, "z": 1}, "r": 1}'),
    ("relevance", '{"d": 5, "r": 1}'),
    ("relevance", '{"c": [], "a": 5, "r": 1}'),
    ("relevance", '[]'),
    ("unique_objects", '[{"a": 1}, {"b": 2}, {"a": 1}]'),
    ("unique_objects", '[{"a": 1}, {"b": 2}]'),
    ("unique_objects", '[1, "a", 1.5, null, [1]]'),
    ("unique_objects", '["b", "a", "c", "a"]'),
    ("unique_objects", '[[1, 2], [1, "x"], [0, 1]]'),
    ("unique_objects", '[[1, {}], [1, {}]]'),
    # long values, for the verbose (pprint) form
    ("pformat", '{"s": "' + "word " * 20 + '"}'),
    ("pformat", '{"s": "' + "x" * 100 + '"}'),
    ("pformat", '{"s": "first line\\nsecond ' + "line " * 16 + '\\n"}'),
    ("pformat", '{"s": "' + "tab\\t" * 15 + '"}'),
    ("pformat", '{"s": {"zeta": {"deep": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, '
     '11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]}, "alpha": '
     '"' + "y " * 30 + '", "mid": null}}'),
    ("pformat", '{"s": ["' + "a" * 30 + '", "' + "b" * 30 + '", "'
     + "c" * 30 + '"]}'),
    ("pformat", '{"s": [["' + "a" * 40 + '", 1.5], {"k": "' + "v" * 50
     + '"}]}'),
    ("pformat", '{"t": "' + "caf\u00e9 " * 20 + '"}'),
    ("pformat", '{"t": {"' + "k" * 80 + '": ["' + "w " * 40 + '"]}}'),
    ("clean_steps", '[{"interface": "deploy", "step": "erase_devices", '
     '"args": {"' + "key" * 10 + '": "' + "value " * 12 + '"}, '
     '"extra": 1}]'),
    ("clean_steps", '[{"interface": "raid", "step": "s"}, '
     '{"interface": "bogus", "step": "s"}]'),
]

REPR_VALUES = [
    'null', 'true', 'false', '0', '-0', '123456789012345678901234567890',
    '1.0', '-0.0', '0.1', '1e16', '1e15', '1.5e300', '1e-5', '0.0001',
    '123.456e5', '1E400', '-1E400', '5e-324', '2.5', '100.0',
    '""', '"a"', '"it\'s"', '"say \\"hi\\""', '"both \' and \\""',
    '"\\\\"', '"\\n\\r\\t\\b\\f"', '"\\u0000\\u001f\\u007f"',
    '"\\u0080\\u009f\\u00a0\\u00a1\\u00ff"', '"\\u0100\\u2603\\u200b"',
    '"\\ud83d\\ude00"', '"\\udbff\\udfff"', '"\\u3000\\u2028"',
    '"\\ue000"', '"\\u0cf3"', '"\\ud804\\ude3f"',
    '[]', '{}', '[1, "a", null, true, 1.5]', '{"b": 1, "a": [{}]}',
    '{"x\'y": "z"}', '[[[]]]',
]

REGEX_CASES = [
    ("^(/[\\w-]+)+$", ["/a", "/a-b/c_d", "/caf\u00e9", "/a b", "/\u00bd",
                       "/\u2160", "/\u0301", "/x\n", "/x\n\n", "",
                       "/\U0001e4f0", "/\U00011f50"]),
    ("\\d", ["\u0661", "\u00b2", "5", "\U0001e4f0", "x"]),
    ("^\\s$", ["\u000b", "\u001c", "\u0085", "\u200b", "\u3000", "\u180e"]),
    ("^\\S$", [" ", "a"]),
    ("^\\W$", ["_", "-", "\u00e9"]),
    ("^\\D+$", ["abc", "a1"]),
    ("(?i)^[a-f]+$", ["ABC", "abg"]),
    ("(?i)k", ["\u212a", "K"]),
    ("^a.c$", ["abc", "a\nc"]),
    ("(?s)^a.c$", ["a\nc"]),
    ("(?m)^b$", ["a\nb\nc", "abc"]),
    ("^a{2,}$", ["a", "aa", "aaaa"]),
    ("^a{,}$", ["", "aaa"]),
    ("^a{1,2}?$", ["a", "aaa"]),
    ("a{", ["a{", "a"]),
    ("}", ["}", "x"]),
    ("^[\\]]$", ["]", "\\"]),
    ("^[^\\d\\s]$", ["a", "1", " ", "\u0661"]),
    ("^\\x41\\101\\0$", ["AA\x00", "AA"]),
    ("(?:ab)+(?#comment)$", ["abab", "aba"]),
    ("(?P<x>a)b", ["ab", "b"]),
    ("(?i:A)b", ["ab", "aB"]),
    ("^[\\w.-]+$", ["a.b-c", "a b"]),
    ("\\Aab", ["ab", "cab"]),
    ("^\\$\\.\\^$", ["$.^"]),
    ("^\u00e9+$", ["\u00e9\u00e9", "e"]),
    ("(?a)^\\w+$", ["abc", "caf\u00e9"]),
    ("(?a)\\bfoo\\b", ["a foo b", "afoo"]),
]


def sort_keys(value):
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value


def ironic_message(name, value, schema):
    try:
        args._validate_schema(name, value, schema)
    except exception.InvalidParameterValue as e:
        return str(e)
    except TypeError:
        return None
    return None


class Crash(Exception):
    """jsonschema itself failed (Ironic would answer 500)."""


def run(schema, instance):
    try:
        jsonschema.validate(instance, schema)
    except js_exc.ValidationError as e:
        return e
    except TypeError as e:
        return Crash("%s: %s" % (type(e).__name__, e))
    return None


def describe(err):
    if err is None:
        return None
    if isinstance(err, Crash):
        return {"crash": str(err)}
    return {
        "message": err.message,
        "validator": err.validator,
        "path": list(err.path),
        "schema_path": list(err.relative_schema_path),
        "context": len(err.context),
        "verbose": str(err),
    }


def main():
    out = {"schemas": {}, "cases": [], "repr": [], "regex": []}
    for name, schema in SCHEMAS.items():
        out["schemas"][name] = json.dumps(schema)
    for index, (name, text) in enumerate(CASES):
        schema = copy.deepcopy(SCHEMAS[name])
        instance = json.loads(text)
        err = run(schema, instance)
        case = {
            "name": "%03d_%s" % (index, name),
            "schema": name,
            "instance": text,
            "error": describe(err),
            "ironic": ironic_message("body", copy.deepcopy(instance), schema),
        }
        # The same document as Go maps (sorted keys) would present it.
        sorted_instance = sort_keys(instance)
        serr = run(schema, sorted_instance)
        case["sorted_error"] = describe(serr)
        case["sorted_ironic"] = ironic_message(
            "body", copy.deepcopy(sorted_instance), schema)
        out["cases"].append(case)
    for text in REPR_VALUES:
        out["repr"].append({"value": text, "repr": repr(json.loads(text))})
    import re
    for pattern, strings in REGEX_CASES:
        for s in strings:
            out["regex"].append({
                "pattern": pattern,
                "string": s,
                "match": re.search(pattern, s) is not None,
            })
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%d cases, %d repr, %d regex" % (
        len(out["cases"]), len(out["repr"]), len(out["regex"])))


if __name__ == "__main__":
    main()
