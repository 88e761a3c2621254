"""Calls a conductor through Ironic 21.4's own rpcapi.ConductorAPI over
json-rpc (ironic_lib.json_rpc); prints one JSON line per call.
argv: port topic [ironic.conf]: without a configuration file the client
uses auth_strategy noauth; with one, its [json_rpc] section (auth_strategy,
http_basic_username, use_ssl, cafile, the keystoneauth options) applies."""
import json
import sys

from ironic.common import context as ironic_context
from ironic.common import exception

from ironic.conductor import rpcapi
from ironic import objects

from ironic.conf import CONF

conf_file = sys.argv[3] if len(sys.argv) > 3 else None
CONF(['--config-file', conf_file] if conf_file else [], project='ironic', default_config_files=[])
CONF.set_override('rpc_transport', 'json-rpc')
if not conf_file:
    CONF.set_override('auth_strategy', 'noauth', group='json_rpc')
CONF.set_override('port', int(sys.argv[1]), group='json_rpc')
objects.register_all()
topic = sys.argv[2]
api = rpcapi.ConductorAPI()
ctx = ironic_context.RequestContext(user_id='u1', project_id='p1', roles=['admin'], request_id='req-py')
out = []
node = objects.Node(ctx, uuid='1be26c0b-03f2-4d2e-ae87-c02d7f33c123', driver='fake-hardware', name='py-node', extra={'a': 1})
n = api.create_node(ctx, node, topic=topic)
out.append({'create_node': {'uuid': n.uuid, 'name': n.name, 'extra': n.extra, 'id': n.id}})
n.maintenance = True
n2 = api.update_node(ctx, n, topic=topic)
out.append({'update_node': {'maintenance': n2.maintenance}})
api.change_node_power_state(ctx, n.uuid, 'power on', topic=topic)
out.append({'change_node_power_state': None})
out.append({'validate_driver_interfaces': api.validate_driver_interfaces(ctx, n.uuid, topic=topic)})
try:
    api.do_provisioning_action(ctx, n.uuid, 'provide', topic=topic)
except exception.NodeLocked as e:
    out.append({'NodeLocked': {'code': e.code, 'message': str(e).split('\n')[0]}})
print(json.dumps(out))
