#!/usr/bin/python3
"""Print the request frames Ironic 21.4's rpcapi.ConductorAPI publishes for
calls whose dicts are not in sorted key order, as oslo.messaging 14's rabbit
driver writes them (captured in process over kombu's memory transport, an
oslo RPC server answering). Python dicts keep insertion order, so these are
the frames our client must write for the same dicts; ordered_test.go holds
them byte for byte (the message ids and the reply queue are replaced by the
fixed ones the Go test uses). Re-record:

    /usr/bin/python3 gen_ordered.py   # writes <name>.json beside this file
"""
import json
import os
import re
import threading

import kombu.messaging
import oslo_messaging
from oslo_messaging import transport as om_transport

from ironic.common import context as ironic_context
from ironic.common import rpc
from ironic.conductor import rpcapi
from ironic.conf import CONF
from ironic import objects
from ironic.objects import base as objects_base

CONF.register_opts(om_transport._transport_opts)
CONF([], project='ironic')
CONF.set_override('transport_url', 'kombu+memory:////')
CONF.set_override('rpc_transport', 'oslo')
rpc.set_defaults(control_exchange='ironic')
rpc.init(CONF)
objects.register_all()

published = []
_orig_publish = kombu.messaging.Producer.publish


def _publish(self, body, *args, **kwargs):
    published.append(body)
    return _orig_publish(self, body, *args, **kwargs)


kombu.messaging.Producer.publish = _publish

HOST = 'cond-1'
TOPIC = rpc.MANAGER_TOPIC + '.' + HOST


class Manager(object):
    target = oslo_messaging.Target(version='1.55')

    def update_node(self, context, node_obj, reset_interfaces=False):
        return node_obj

    def do_node_clean(self, context, node_id, clean_steps, disable_ramdisk=False):
        return None

    def set_target_raid_config(self, context, node_id, target_raid_config):
        return None

    def vif_attach(self, context, node_id, vif_info):
        return None


# As rpc.get_server, with a thread executor (no eventlet here).
server = oslo_messaging.get_rpc_server(
    rpc.TRANSPORT, oslo_messaging.Target(topic=rpc.MANAGER_TOPIC, server=HOST), [Manager()],
    executor='threading', serializer=rpc.RequestContextSerializer(objects_base.IronicObjectSerializer(is_server=True)),
    access_policy=oslo_messaging.DefaultRPCAccessPolicy)
server.start()
threading.Event().wait(0.2)

api = rpcapi.ConductorAPI()
ctx = ironic_context.RequestContext(request_id='req-0e8f1a9c-2b3d-4c5e-9f6a-7b8c9d0e1f2a')
NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


def frame(name, call):
    del published[:]
    call()
    req = [b for b in published if '"method"' in b.get('oslo.message', '')][0]
    msg = req['oslo.message']
    msg = re.sub(r'"_msg_id": "[0-9a-f]{32}"', '"_msg_id": "3759003adb5b4ca8ad9f78d1493f5f6a"', msg)
    msg = re.sub(r'"_reply_q": "reply_[0-9a-f]{32}"', '"_reply_q": "reply_05e12a1b147f4373a7aa5b39ecb03286"', msg)
    msg = re.sub(r'"_unique_id": "[0-9a-f]{32}"', '"_unique_id": "2418826c8786449a9e67fd1cc461b438"', msg)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name + '.json'), 'w') as f:
        f.write(msg + '\n')


# A node whose dicts a client wrote in no sorted order, nested too; one
# change, so that the changes list (a set in Python) has one order.
node = objects.Node(ctx, id=7, uuid=NODE, driver='fake-hardware',
                    driver_info={'zeta': '1', 'alpha': {'y': 1, 'b': [{'k2': 1, 'k1': 2}]}},
                    extra={'z': 1, 'a': 2, 'm': {'q': 1, 'c': 2}},
                    instance_info={'image_source': 'http://example.com/img', 'root_gb': 10},
                    properties={'memory_mb': 1024, 'cpus': 2},
                    network_data={'services': [], 'links': [{'type': 'phy', 'id': 'eth0'}]})
node.obj_reset_changes()
node.extra = {'z': 1, 'a': 2, 'm': {'q': 1, 'c': 2}, 'b': 3}
frame('update_node', lambda: api.update_node(ctx, node, topic=TOPIC))
frame('do_node_clean', lambda: api.do_node_clean(
    ctx, NODE, [{'interface': 'deploy', 'step': 'erase_devices', 'args': {'zap': True, 'all': 1}},
                {'step': 'create_configuration', 'interface': 'raid', 'priority': 5}], topic=TOPIC))
frame('set_target_raid_config', lambda: api.set_target_raid_config(
    ctx, NODE, {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1', 'is_root_volume': True}]}, topic=TOPIC))
frame('vif_attach', lambda: api.vif_attach(ctx, NODE, {'port_uuid': 'p1', 'id': 'vif-1'}, topic=TOPIC))
server.stop()
