"""Drive Nova's unmodified ironic virt driver, one call per line.

Run with Debian's /usr/bin/python3 (python3-nova, Nova 26 Zed):

    /usr/bin/python3 novadriver.py nova.conf

nova.conf configures Nova as a nova-compute with the ironic driver would
be: [DEFAULT]host, [ironic] (keystoneauth options: auth_type,
endpoint_override, api_retry_interval, ...) and [database]connection, a
throw-away SQLite file. The driver reads Nova's own records through
Nova's objects (the compute services of the hash ring, the instances
of this host, Instance.refresh while it waits for a deploy), so this
script creates Nova's schema there with Nova's own migrations; no Nova
service runs and nothing in the driver is patched.

Protocol: every line of the script's on stdout starts with PREFIX.
After start-up it writes {"ready": true}. Then each
line of stdin is one JSON object {"call": NAME, ...arguments}, and the
answer is one line: {"ok": true, "result": ...} or {"ok": false,
"error": CLASS, "message": TEXT}. The calls are the driver's methods
(see CALLS) plus create_instance, which stores an instance in Nova's
database as the compute manager would before spawning it. End of input
ends the script.
"""

import json
import sys
import traceback

from oslo_log import log as logging

import nova.conf
from nova.compute import power_state
from nova.compute import provider_tree
from nova import context as nova_context
from nova.db import migration
from nova.network import model as network_model
from nova import objects
from nova.virt.ironic import driver as ironic_driver

CONF = nova.conf.CONF

# PREFIX starts every line of the protocol on stdout, so that anything
# else a library prints there is not taken for an answer.
PREFIX = '@@novadriver '


def _context():
    return nova_context.get_admin_context()


def _instance(uuid):
    return objects.Instance.get_by_uuid(
        _context(), uuid, expected_attrs=['flavor', 'system_metadata'])


def _jsonable(v):
    """Return v as plain JSON values (sets sorted, objects as str)."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_jsonable(x) for x in v)
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)


class Calls(object):
    """The calls the protocol offers; each returns a JSON value."""

    def __init__(self, driver):
        self.driver = driver

    def create_instance(self, uuid, node, name, flavor, config_drive=''):
        """Store an instance bound for node in Nova's database, as the
        compute manager has done before it calls spawn (config_drive
        'True' asks for a config drive, as `openstack server create
        --config-drive true` does)."""
        ctx = _context()
        inst = objects.Instance(
            context=ctx, uuid=uuid, node=node, host=CONF.host,
            display_name=name, hostname=name,
            project_id='nova-test-project', user_id='nova-test-user',
            vm_state='building', task_state='spawning',
            power_state=power_state.NOSTATE,
            config_drive=config_drive, ephemeral_gb=0,
            flavor=objects.Flavor(context=ctx, **flavor),
            system_metadata={}, metadata={})
        inst.create()
        return inst.uuid

    def init_host(self):
        self.driver.init_host(CONF.host)

    def get_available_nodes(self):
        return sorted(self.driver.get_available_nodes())

    def node_is_available(self, node):
        return self.driver.node_is_available(node)

    def get_available_resource(self, node):
        return _jsonable(self.driver.get_available_resource(node))

    def update_provider_tree(self, node):
        tree = provider_tree.ProviderTree()
        tree.new_root(node, node)
        self.driver.update_provider_tree(tree, node)
        data = tree.data(node)
        return {'inventory': _jsonable(data.inventory),
                'traits': _jsonable(data.traits)}

    def list_instances(self):
        return sorted(self.driver.list_instances())

    def list_instance_uuids(self):
        return sorted(self.driver.list_instance_uuids())

    def instance_exists(self, instance):
        return self.driver.instance_exists(_instance(instance))

    def get_info(self, instance, use_cache=True):
        info = self.driver.get_info(_instance(instance), use_cache=use_cache)
        return power_state.STATE_MAP[info.state]

    def prepare_for_spawn(self, instance):
        self.driver.prepare_for_spawn(_instance(instance))

    def spawn(self, instance, image_id, disk_format='raw', vifs=()):
        """Spawn; vifs ({"id", "address"} each) are Neutron ports without
        subnets, as Nova's network_info (a config drive needs one). The
        instance has the fields the compute manager loads (the config
        drive's metadata reads them)."""
        inst = objects.Instance.get_by_uuid(
            _context(), instance,
            expected_attrs=['flavor'] + list(
                objects.instance.INSTANCE_DEFAULT_FIELDS))
        image_meta = objects.ImageMeta.from_dict(
            {'id': image_id, 'disk_format': disk_format,
             'container_format': 'bare', 'properties': {}})
        network_info = network_model.NetworkInfo([
            network_model.VIF(
                id=v['id'], address=v['address'], type='other',
                vnic_type='baremetal', details={},
                network=network_model.Network(
                    id='goironic-test-net', label='test', subnets=[]))
            for v in vifs])
        self.driver.spawn(_context(), inst, image_meta, [], None, {},
                          network_info=network_info, block_device_info=None)

    def power_off(self, instance, timeout=0):
        self.driver.power_off(_instance(instance), timeout=timeout)

    def power_on(self, instance):
        self.driver.power_on(_context(), _instance(instance), [])

    def reboot(self, instance, reboot_type):
        self.driver.reboot(_context(), _instance(instance), [], reboot_type)

    def trigger_crash_dump(self, instance):
        self.driver.trigger_crash_dump(_instance(instance))

    def rescue(self, instance, password):
        inst = _instance(instance)
        self.driver.rescue(_context(), inst, [], objects.ImageMeta(),
                           password, None)

    def unrescue(self, instance):
        self.driver.unrescue(_context(), _instance(instance))

    def destroy(self, instance):
        self.driver.destroy(_context(), _instance(instance), [])


def main():
    logging.register_options(CONF)
    CONF([], project='nova', default_config_files=[sys.argv[1]])
    logging.setup(CONF, 'nova')
    objects.register_all()
    migration.db_sync(database='main')
    calls = Calls(ironic_driver.IronicDriver(None))
    out = sys.stdout
    out.write(PREFIX + json.dumps({'ready': True}) + '\n')
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        name = req.pop('call')
        try:
            method = getattr(calls, name)
            ans = {'ok': True, 'result': method(**req)}
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            ans = {'ok': False, 'error': type(e).__name__,
                   'message': str(e)}
        out.write(PREFIX + json.dumps(ans, sort_keys=True) + '\n')
        out.flush()


if __name__ == '__main__':
    main()
