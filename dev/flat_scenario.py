#!/usr/bin/python3
"""VIF and port requests against an Ironic whose nodes use the flat network
interface, with the Neutron requests each one caused (read from the fake
Neutron of test/fakeneutron), normalized for comparison with another run.

Usage: flat_scenario.py IRONIC_URL FAKE_NEUTRON_URL NAME_SUFFIX > out.txt
(dev/flat-vs-reference.sh runs it against the reference and ours).
openstacksdk's version discovery requests (GET /) are left out.
"""
import json
import re
import sys
import time
import urllib.error
import urllib.request

IR, FN, SUFFIX = sys.argv[1:4]
H = {'X-OpenStack-Ironic-API-Version': '1.82', 'Content-Type': 'application/json'}
IDS = {}


def req(base, method, path, body=None, hdr=H):
    data = None if body is None else json.dumps(body).encode()
    r = urllib.request.Request(base + path, data=data, method=method, headers=hdr)
    try:
        with urllib.request.urlopen(r) as resp:
            raw = resp.read()
            return resp.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw.decode()


def norm(text):
    text = re.sub(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
                  lambda m: IDS.setdefault(m.group(0), '<U%d>' % (len(IDS) + 1)), text)
    text = re.sub(r'"(created_at|updated_at)": "[^"]*"', r'"\1": "T"', text)
    return re.sub(r'http://127\.0\.0\.1:\d+', 'URL', text)


def step(name, method, path, body=None, wait=None):
    """One request; wait names the provision state an action ends in (its
    Neutron requests are made by the conductor's worker, after the 202)."""
    req(FN, 'DELETE', '/_fake/requests', hdr={})
    code, answer = req(IR, method, path, body)
    if wait:
        wait_state(N, wait)
    if isinstance(answer, dict) and 'error_message' in answer:
        answer = {'error_message': json.loads(answer['error_message'])}
    print(norm('%s: %s %s %s -> %s %s' % (name, method, path, json.dumps(body, sort_keys=True),
                                         code, json.dumps(answer, sort_keys=True))))
    for r in req(FN, 'GET', '/_fake/requests', hdr={})[1]:
        if r['method'] == 'GET' and r['path'] == '/':
            continue
        line = '    neutron: %s %s%s %s' % (r['method'], r['path'], '?' + r['query'] if r.get('query') else '', r['status'])
        if r.get('body') is not None:
            line += ' ' + json.dumps(r['body'], sort_keys=True)
        print(norm(line))
    return code, answer


def wait_state(node, state):
    for _ in range(100):
        _, b = req(IR, 'GET', '/v1/nodes/' + node)
        if b['provision_state'] == state:
            return
        time.sleep(0.3)
    raise SystemExit('timeout waiting for %s (now %s)' % (state, b['provision_state']))


_, net = req(FN, 'POST', '/v2.0/networks', {'network': {'name': 'tenant-' + SUFFIX}}, {'Content-Type': 'application/json'})
NET = net['network']['id']


def vif_port():
    b = {'port': {'network_id': NET}}
    return req(FN, 'POST', '/v2.0/ports', b, {'Content-Type': 'application/json'})[1]['port']['id']


_, node = req(IR, 'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'flat-' + SUFFIX})
N = node['uuid']
norm(N)
print('network_interface', node['network_interface'])
_, port = req(IR, 'POST', '/v1/ports', {'node_uuid': N, 'address': '52:54:00:00:00:01'})
P = port['uuid']
VIF1, VIF2 = vif_port(), vif_port()
UNKNOWN = '11111111-2222-3333-4444-555555555555'
VIFS = '/v1/nodes/%s/vifs' % N


def patch(path, op, value=None):
    p = {'op': op, 'path': path}
    if value is not None:
        p['value'] = value
    return [p]


step('list', 'GET', VIFS)
step('attach', 'POST', VIFS, {'id': VIF1})
step('list', 'GET', VIFS)
step('attach again', 'POST', VIFS, {'id': VIF1})
step('no free port', 'POST', VIFS, {'id': VIF2})
step('detach', 'DELETE', VIFS + '/' + VIF1)
step('detach again', 'DELETE', VIFS + '/' + VIF1)
step('attach unknown', 'POST', VIFS, {'id': UNKNOWN})
step('port address, no VIF', 'PATCH', '/v1/ports/' + P, patch('/address', 'replace', '52:54:00:00:00:02'))
step('attach', 'POST', VIFS, {'id': VIF1})
step('port address, VIF', 'PATCH', '/v1/ports/' + P, patch('/address', 'replace', '52:54:00:00:00:03'))
step('port extra', 'PATCH', '/v1/ports/' + P, patch('/extra/foo', 'add', 'bar'))
step('detach', 'DELETE', VIFS + '/' + VIF1)
step('port physnet', 'PATCH', '/v1/ports/' + P, patch('/physical_network', 'add', 'physnet1'))
step('attach, physnet', 'POST', VIFS, {'id': VIF1})
step('detach, physnet', 'DELETE', VIFS + '/' + VIF1)
step('attach unknown, physnet', 'POST', VIFS, {'id': UNKNOWN})
step('port no physnet', 'PATCH', '/v1/ports/' + P, patch('/physical_network', 'remove'))
_, pg = req(IR, 'POST', '/v1/portgroups', {'node_uuid': N, 'address': '52:54:00:00:00:aa', 'name': 'pg1'})
step('port into group', 'PATCH', '/v1/ports/' + P, patch('/portgroup_uuid', 'add', pg['uuid']))
step('attach, group', 'POST', VIFS, {'id': VIF1})
step('group', 'GET', '/v1/portgroups/%s?fields=internal_info' % pg['uuid'])
step('group address', 'PATCH', '/v1/portgroups/' + pg['uuid'], patch('/address', 'replace', '52:54:00:00:00:bb'))
step('detach, group', 'DELETE', VIFS + '/' + VIF1)
step('port out of group', 'PATCH', '/v1/ports/' + P, patch('/portgroup_uuid', 'remove'))
step('attach before deploy', 'POST', VIFS, {'id': VIF1})
for verb, state in (('manage', 'manageable'), ('provide', 'available'), ('active', 'active')):
    step(verb, 'PUT', '/v1/nodes/%s/states/provision' % N, {'target': verb}, wait=state)
step('attach, active, no port', 'POST', VIFS, {'id': VIF2})
req(IR, 'POST', '/v1/ports', {'node_uuid': N, 'address': '52:54:00:00:00:05'})
step('attach, active', 'POST', VIFS, {'id': VIF2})
step('detach, active', 'DELETE', VIFS + '/' + VIF2)
step('validate', 'GET', '/v1/nodes/%s/validate' % N)
step('undeploy', 'PUT', '/v1/nodes/%s/states/provision' % N, {'target': 'deleted'}, wait='available')
step('list', 'GET', VIFS)
