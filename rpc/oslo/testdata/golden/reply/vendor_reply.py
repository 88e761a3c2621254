#!/usr/bin/python3
"""Print the reply frame Ironic 21.4's conductor sends for the ipxe_config
driver_vendor_passthru call of ipxe_test.go, as oslo.messaging writes it:
the manager's {'return', 'async', 'attach'} dict through Ironic's RPC
serializer, in the reply dict of amqpdriver's _send_reply, through
jsonutils.dumps. The test's golden must equal this byte for byte:

    python3 vendor_reply.py | cmp - 'driver_vendor_passthru#ipxe_config.json'
"""
from oslo_serialization import jsonutils

from ironic.objects import base as objects_base

result = {'return': '#!ipxe\n\ngoto deploy\n', 'async': False, 'attach': True}
reply = objects_base.IronicObjectSerializer().serialize_entity(None, result)
msg = {'result': reply, 'failure': None, 'ending': True,
       '_msg_id': '3759003adb5b4ca8ad9f78d1493f5f6a'}
msg['_unique_id'] = '90f3d2bb01e14bbd9b2f4bbad4ad1c8e'
print(jsonutils.dumps(msg))
