"""Records the requests Ironic 21.4's agent_client sends to the agent.

Run with /usr/bin/python3 (python3-ironic installed); writes
wire_golden.json next to this file. The session is mocked: every POST
answers {"command_status": "SUCCEEDED", ...}, every GET the commands list.
"""
import json
import os
from unittest import mock

import requests

from ironic.conf import CONF
from ironic.drivers.modules import agent_client

CONF([], project='ironic')

out = []


class Resp:
    status_code = 200

    def __init__(self, body):
        self._body = body

    def json(self):
        return self._body


def record(method):
    def fn(url, params=None, data=None, verify=None, timeout=None):
        req = requests.Request(method.upper(), url, params=params, data=data,
                               headers={'Content-Type': 'application/json'})
        p = req.prepare()
        out.append({'method': p.method, 'url': p.url, 'body': data,
                    'content_type': p.headers.get('Content-Type'),
                    'verify': verify, 'timeout': timeout})
        if method == 'get':
            return Resp({'commands': [{'command_name': 'install_bootloader',
                                       'command_status': 'SUCCEEDED',
                                       'command_result': None,
                                       'command_error': None}]})
        return Resp({'command_status': 'SUCCEEDED', 'command_result': {},
                     'command_error': None})
    return fn


class Node:
    uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
    driver_internal_info = {'agent_url': 'http://127.0.0.1:9999',
                            'agent_secret_token': 'tok en/+',
                            'hardware_manager_version': {'generic': '1'}}
    driver_info = {}

    def as_dict(self, secure=False, mask_configdrive=True):
        return 'NODE'


class Port:
    def as_dict(self):
        return 'PORT'


client = agent_client.AgentClient()
client.session = mock.Mock()
client.session.post.side_effect = record('post')
client.session.get.side_effect = record('get')
node = Node()
step = {'interface': 'deploy', 'step': 'write_image', 'priority': 80,
        'args': {'image_info': {'id': 'x'}}}
calls = [
    ('get_deploy_steps', lambda: client.get_deploy_steps(node, [Port()])),
    ('execute_deploy_step', lambda: client.execute_deploy_step(step, node, [Port()])),
    ('get_clean_steps', lambda: client.get_clean_steps(node, [Port()])),
    ('execute_clean_step', lambda: client.execute_clean_step(
        {'interface': 'deploy', 'step': 'erase_devices_metadata', 'priority': 99}, node, [Port()])),
    ('get_partition_uuids', lambda: client.get_partition_uuids(node)),
    ('install_bootloader', lambda: client.install_bootloader(
        node, root_uuid='r-uuid', target_boot_mode='uefi', efi_system_part_uuid='e-uuid')),
    ('power_off', lambda: client.power_off(node)),
    ('sync', lambda: client.sync(node)),
    ('reboot', lambda: client.reboot(node)),
    ('get_commands_status', lambda: client.get_commands_status(node)),
]
golden = {}
for name, fn in calls:
    out.clear()
    fn()
    golden[name] = list(out)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'wire_golden.json'), 'w') as f:
    json.dump(golden, f, indent=1, sort_keys=True)
    f.write('\n')
