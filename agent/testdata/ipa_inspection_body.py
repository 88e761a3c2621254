#!/usr/bin/python3
"""The body IPA 9.4 posts to ironic-inspector for an inventory.

Reads an inventory (IPA's list_hardware_info, as JSON) on stdin and writes
what ironic_python_agent.inspector.inspect() sends to the callback URL with
ipa-inspection-collectors=default and no failures: collect_default's keys
(inventory, root_disk chosen as utils.guess_root_disk chooses it,
boot_interface from the inventory's boot.pxe_interface, configuration with
the collectors and GenericHardwareManager's get_version()), then
call_inspector's "error" (None without failures). Written from IPA 9.4.1's
inspector.py and utils.py; indented for review (the agent sends it compact).

Regenerate the golden: go test ./agent -run TestInspectionBodyGolden -update
"""
import json
import sys

GiB = 1024 ** 3


def guess_root_disk(disks, min_size=4 * GiB):
    disks = sorted(disks, key=lambda d: (d['size'], d['name']))
    if not disks or disks[-1]['size'] < min_size:
        return None
    for d in disks:
        if d['size'] >= min_size:
            return d


inventory = json.load(sys.stdin)
data = {'inventory': inventory}
root = guess_root_disk(inventory['disks'])
if root is not None:
    data['root_disk'] = root
data['boot_interface'] = inventory['boot']['pxe_interface']
data['configuration'] = {
    'collectors': ['default'],
    'managers': [{'name': 'generic_hardware_manager', 'version': '1.1'}],
}
data['error'] = None
sys.stdout.write(json.dumps(data, indent=2) + '\n')
