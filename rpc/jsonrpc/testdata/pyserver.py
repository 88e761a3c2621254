"""Serves a stand-in conductor manager through ironic_lib's json-rpc
server (WSGIService, as Ironic 21.4's rpc_service starts it), configured by
the ironic.conf in argv[1] ([json_rpc] auth_strategy, port, use_ssl;
[ssl]). Prints "READY <port>" once listening and serves until killed."""
import eventlet
eventlet.monkey_patch(os=False)

import logging  # noqa: E402
import sys  # noqa: E402

from ironic.common import context  # noqa: E402
from ironic.common import exception  # noqa: E402
from ironic.conf import CONF  # noqa: E402
from ironic import objects  # noqa: E402
from ironic.objects import base as objects_base  # noqa: E402
from ironic_lib.json_rpc import server as json_rpc  # noqa: E402

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
CONF(['--config-file', sys.argv[1]], project='ironic', default_config_files=[])
CONF.set_override('rpc_transport', 'json-rpc')
objects.register_all()


class Manager(object):
    """The calls the Go client makes, answering what it can check."""

    def get_supported_boot_devices(self, context, node_id):
        return ['pxe', node_id, context.request_id, ','.join(context.roles)]

    def destroy_node(self, context, node_id):
        pass

    def do_provisioning_action(self, context, node_id, action):
        raise exception.NodeLocked(node=node_id, host='py-conductor')


svc = json_rpc.WSGIService(Manager(), objects_base.IronicObjectSerializer(is_server=True),
                           context.RequestContext.from_dict)
svc.start()
print('READY %d' % svc.server.port, flush=True)
# Not svc.wait(): oslo.service's wsgi.Server.wait only waits for the
# requests in flight, so it returns at once and the process would exit
# (ironic-conductor's oslo.service launcher keeps its process alive).
while True:
    eventlet.sleep(3600)
