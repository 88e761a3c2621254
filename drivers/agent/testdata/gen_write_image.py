"""Records the in-band step Ironic 21.4's AgentDeploy.write_image sends.

Run with /usr/bin/python3; writes write_image_golden.json: for each case
(node fields in, step out), the step dict handed to agent_base.execute_step
(which sends it as deploy.execute_deploy_step's "step").
"""
import json
import os
from unittest import mock

from ironic.conductor import task_manager
from ironic.conf import CONF
from ironic.drivers.modules import agent
from ironic.drivers.modules import agent_base

CONF([], project='ironic')

CASES = {
    'whole-disk': {
        'instance_info': {'image_source': 'http://images.example.com/img/disk.raw',
                          'image_url': 'http://images.example.com/img/disk.raw',
                          'image_checksum': 'abc', 'image_os_hash_algo': 'sha256',
                          'image_os_hash_value': 'def', 'image_type': 'whole-disk'},
        'driver_internal_info': {'is_whole_disk_image': True},
        'driver_info': {},
        'properties': {},
    },
    'partition-uefi': {
        'instance_info': {'image_source': 'http://images.example.com/part.img',
                          'image_url': 'http://images.example.com/part.img',
                          'image_os_hash_algo': 'sha512', 'image_os_hash_value': 'f00',
                          'kernel': 'http://h/k', 'ramdisk': 'http://h/r', 'root_gb': 10,
                          'swap_mb': 512, 'image_type': 'partition'},
        'driver_internal_info': {'is_whole_disk_image': False},
        'driver_info': {},
        'properties': {},
    },
    'partition-proxies-configdrive': {
        'instance_info': {'image_source': 'https://images.example.com/part.img',
                          'image_url': 'https://images.example.com/part.img',
                          'image_checksum': 'abc', 'kernel': 'http://h/k', 'ramdisk': 'http://h/r',
                          'root_gb': 10, 'image_type': 'partition',
                          'image_disk_format': 'qcow2', 'configdrive': 'H4sICDw...'},
        'driver_internal_info': {'is_whole_disk_image': False},
        'driver_info': {'image_http_proxy': 'http://proxy:3128', 'image_no_proxy': '.example.com'},
        'properties': {'capabilities': 'boot_mode:bios'},
    },
}


class Node:
    uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
    deploy_interface = 'direct'

    def __init__(self, fields):
        self.instance_info = fields['instance_info']
        self.driver_internal_info = fields['driver_internal_info']
        self.driver_info = fields['driver_info']
        self.properties = fields['properties']
        self.boot_mode = None
        self.secure_boot = None

    def get_interface(self, name):
        return 'direct'


golden = {}
for name, fields in CASES.items():
    task = mock.MagicMock(spec=task_manager.TaskManager)
    task.shared = False
    task.context = mock.Mock()
    task.node = Node(fields)
    task.driver = mock.Mock()
    task.driver.storage.should_write_image.return_value = True
    with mock.patch.object(agent_base, 'execute_step') as ex, \
            mock.patch.object(agent.agent_client, 'get_client'):
        agent.AgentDeploy().write_image(task)
        golden[name] = {'node': fields, 'step_json': json.dumps(ex.call_args[0][1])}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'write_image_golden.json'), 'w') as f:
    json.dump(golden, f, indent=1)
    f.write('\n')
