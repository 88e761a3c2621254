#!/usr/bin/python3
"""Records the reference Ironic's authentication answers over HTTP into
reference.json, for reference_test.go. Unlike gen_cases.py (which calls the
middlewares in-process), this talks to a running reference (Python Ironic
21.4, ironic.cmd.singleprocess) so that what the WSGI server adds or
changes is in the recording too.

    record_reference.py MODE URL

MODE is one of
  keystone       the reference runs with auth_strategy = keystone and its
                 Keystone answers (../shared/harness: keystone.sh up, then
                 AUTH=keystone reference-ironic.sh up)
  keystone-down  the same, with Keystone stopped (keystone.sh down)
  http_basic     the reference runs with auth_strategy = http_basic and
                 http_basic_auth_user_file holding HTPASSWD below
Each run replaces that mode's entries in reference.json.

How the recording in the repository was made (ports 5400-5499):

  H=/work/shared/harness
  export KEYSTONE_PORT=5400 KEYSTONE_STATE_DIR=/tmp/auth-keystone
  $H/keystone.sh up
  AUTH=keystone PORT=5490 NETWORK_INTERFACE=noop STATE_DIR=/tmp/auth-ref-5490 \\
      $H/reference-ironic.sh up
  record_reference.py keystone http://127.0.0.1:5490
  $H/keystone.sh down
  record_reference.py keystone-down http://127.0.0.1:5490
  $H/keystone.sh up
  # http_basic: the harness only knows noauth and keystone; run the same
  # ironic.conf with [DEFAULT] auth_strategy = http_basic,
  # http_basic_auth_user_file = <a file with HTPASSWD> and another port:
  record_reference.py http_basic http://127.0.0.1:5492
"""

import base64
import http.client
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'reference.json')

# bcrypt of "myPassword" (cost 4), user "myName".
HTPASSWD = 'myName:$2b$04$abcdefghijklmnopqrstuuN2f4ZDSoR8/TAG80qUYDM9bRnmRm0Zy\n'

# Headers the recording leaves out: they change from one answer to the next.
VOLATILE = {'date', 'openstack-request-id', 'x-openstack-request-id'}


def b64(s):
    return base64.b64encode(s.encode()).decode()


def cases(mode):
    if mode == 'keystone':
        return [
            ('no token', 'GET', '/v1/nodes', []),
            ('garbage token', 'GET', '/v1/nodes', [('X-Auth-Token', 'garbage')]),
            ('fernet-like garbage token', 'GET', '/v1/nodes',
             [('X-Auth-Token', 'gAAAAABnot-a-real-token-at-all')]),
            ('garbage token, accept json', 'GET', '/v1/nodes',
             [('X-Auth-Token', 'garbage'), ('Accept', 'application/json')]),
            ('garbage token, accept html', 'GET', '/v1/nodes',
             [('X-Auth-Token', 'garbage'), ('Accept', 'text/html')]),
            ('garbage token, head', 'HEAD', '/v1/nodes', [('X-Auth-Token', 'garbage')]),
            ('garbage token, post', 'POST', '/v1/nodes', [('X-Auth-Token', 'garbage'),
                                                          ('Content-Type', 'application/json')]),
            ('garbage token, json suffix', 'GET', '/v1/nodes.json', [('X-Auth-Token', 'garbage')]),
            ('garbage token, unknown path', 'GET', '/v2/whatever', [('X-Auth-Token', 'garbage')]),
            ('spoofed identity headers', 'GET', '/v1/nodes',
             [('X-Roles', 'admin'), ('X-Identity-Status', 'Confirmed'), ('X-User-Id', 'x')]),
            ('storage token garbage', 'GET', '/v1/nodes', [('X-Storage-Token', 'garbage')]),
            ('heartbeat with upper case node is not public', 'POST', '/v1/heartbeat/ABC',
             [('X-Auth-Token', 'garbage')]),
            ('garbage service token', 'GET', '/v1/nodes',
             [('X-Auth-Token', 'garbage'), ('X-Service-Token', 'garbage')]),
            ('public root with garbage token', 'GET', '/', [('X-Auth-Token', 'garbage')]),
            ('public v1 with garbage token', 'GET', '/v1', [('X-Auth-Token', 'garbage')]),
            ('public lookup with garbage token', 'GET', '/v1/lookup?addresses=52:54:00:00:00:01',
             [('X-Auth-Token', 'garbage')]),
        ]
    if mode == 'keystone-down':
        return [
            ('keystone down, no accept', 'GET', '/v1/nodes', [('X-Auth-Token', 'down-1')]),
            ('keystone down, accept any', 'GET', '/v1/nodes', [('X-Auth-Token', 'down-2'), ('Accept', '*/*')]),
            ('keystone down, accept json', 'GET', '/v1/nodes',
             [('X-Auth-Token', 'down-3'), ('Accept', 'application/json')]),
            ('keystone down, accept html', 'GET', '/v1/nodes', [('X-Auth-Token', 'down-4'), ('Accept', 'text/html')]),
            ('keystone down, accept text', 'GET', '/v1/nodes', [('X-Auth-Token', 'down-5'), ('Accept', 'text/plain')]),
            ('keystone down, head', 'HEAD', '/v1/nodes', [('X-Auth-Token', 'down-6')]),
            ('keystone down, no token', 'GET', '/v1/nodes', []),
            ('keystone down, public route', 'GET', '/v1', [('X-Auth-Token', 'down-7')]),
        ]
    if mode == 'http_basic':
        return [
            ('good', 'GET', '/v1/nodes', [('Authorization', 'Basic ' + b64('myName:myPassword'))]),
            ('missing header', 'GET', '/v1/nodes', []),
            ('wrong password', 'GET', '/v1/nodes', [('Authorization', 'Basic ' + b64('myName:nope'))]),
            ('unknown user', 'GET', '/v1/nodes', [('Authorization', 'Basic ' + b64('nobody:myPassword'))]),
            ('bearer', 'GET', '/v1/nodes', [('Authorization', 'Bearer abc')]),
            ('scheme only', 'GET', '/v1/nodes', [('Authorization', 'Basic')]),
            ('not base64', 'GET', '/v1/nodes', [('Authorization', 'Basic %%%')]),
            ('no colon', 'GET', '/v1/nodes', [('Authorization', 'Basic ' + b64('myName'))]),
            ('head, wrong password', 'HEAD', '/v1/nodes', [('Authorization', 'Basic ' + b64('myName:nope'))]),
            ('public v1 without header', 'GET', '/v1', []),
        ]
    raise SystemExit('unknown mode ' + mode)


def call(url, method, path, headers):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.putrequest(method, path, skip_accept_encoding=True)
    for k, v in headers:
        conn.putheader(k, v)
    body = b'{}' if method == 'POST' else None
    if body is not None:
        conn.putheader('Content-Length', str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return {
        'status': resp.status,
        'headers': sorted([k.title(), v] for k, v in resp.getheaders() if k.lower() not in VOLATILE),
        'body': data.decode('latin-1'),
    }


def main():
    mode, url = sys.argv[1], sys.argv[2]
    try:
        with open(OUT) as f:
            out = json.load(f)
    except FileNotFoundError:
        out = {'htpasswd': HTPASSWD, 'cases': []}
    out['cases'] = [c for c in out['cases'] if c['mode'] != mode]
    for name, method, path, headers in cases(mode):
        out['cases'].append({'mode': mode, 'name': name, 'method': method, 'path': path,
                             'headers': headers, 'response': call(url, method, path, headers)})
    with open(OUT, 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')
    print('recorded %d %s answers from %s' % (len(cases(mode)), mode, url), file=sys.stderr)


if __name__ == '__main__':
    main()
