#!/usr/bin/python3
"""Writes cases.json: what Python Ironic 21.4's authentication layers answer,
for auth's tests. Run with Debian's Python (the one the reference Ironic
runs on), from the repository root:

    /usr/bin/python3 apiv1/auth/testdata/gen_cases.py

Every answer is produced by the reference's own code, assembled as
ironic/api/app.py assembles it: JsonExtensionMiddleware around
AuthPublicRoutes around the auth middleware (ironic_lib's
BasicAuthMiddleware or keystonemiddleware's AuthProtocol), around an
application that builds the request context exactly as
ironic/api/hooks.py ContextHook does (RequestContext.from_environ, then
auth_token dropped unless auth_strategy is keystone) and reports it.

For keystone, AuthProtocol is built from a dict configuration and its
identity server is replaced by a fake that answers from the case's table
(token -> token body, or an exception: not found, Keystone unreachable,
Keystone 5xx), so the middleware's own logic (header scrubbing, service
tokens, expiry, bind, access rules, 401/503 answers) is what is recorded.

The webob 503 body keystonemiddleware sends when Keystone is unreachable
depends on the Accept header; webob_503 records it for a list of Accept
values and for HEAD.
"""

import base64
import json
import os
import sys
import tempfile

import bcrypt
import webob
import webob.exc
from ironic_lib import auth_basic
from keystoneauth1 import exceptions as ksa_exceptions
from keystonemiddleware import auth_token
from keystonemiddleware.auth_token import _exceptions as ksm_exceptions

from ironic.api import config as api_config
from ironic.api.middleware import auth_public_routes
from ironic.api.middleware import json_ext
from ironic.common import context as ironic_context

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC_ROUTES = api_config.app['acl_public_routes']

CONTEXT_KEYS = [
    'auth_token', 'user_id', 'user_name', 'project_id', 'project_name',
    'domain_id', 'user_domain_id', 'user_domain_name', 'project_domain_id',
    'project_domain_name', 'system_scope', 'roles', 'is_admin_project',
    'is_admin', 'service_token', 'service_user_id', 'service_user_name',
    'service_user_domain_id', 'service_user_domain_name',
    'service_project_id', 'service_project_name',
    'service_project_domain_id', 'service_project_domain_name',
    'service_roles', 'is_public_api', 'auth_token_info',
]


def context_app(strategy):
    """The Ironic application as far as authentication is concerned."""
    def app(env, start_response):
        ctx = ironic_context.RequestContext.from_environ(
            env,
            is_public_api=env.get('is_public_api', False),
            auth_token_info=env.get('keystone.token_info'))
        if strategy != 'keystone':
            ctx.auth_token = None
        out = {k: getattr(ctx, k) for k in CONTEXT_KEYS}
        body = json.dumps({'context': out, 'path': env['PATH_INFO']},
                          sort_keys=True).encode()
        start_response('299 Passed', [('Content-Type', 'application/x-test')])
        return [body]
    return app


def pipeline(strategy, auth):
    app = context_app(strategy)
    if auth is not None:
        app = auth_public_routes.AuthPublicRoutes(
            app, auth=auth(app), public_api_routes=PUBLIC_ROUTES)
    return json_ext.JsonExtensionMiddleware(app)


def latin1(s):
    """A header value as the WSGI server hands it over."""
    return s.encode('latin-1').decode('latin-1')


def run(app, method, path, headers):
    req = webob.Request.blank(path)
    req.method = method
    # blank() sets no Accept; drop Host-derived noise.
    for k, v in headers:
        key = 'HTTP_' + k.upper().replace('-', '_')
        if key in req.environ:
            req.environ[key] += ',' + latin1(v)
        else:
            req.environ[key] = latin1(v)
    try:
        resp = req.get_response(app)
    except Exception as e:
        # The WSGI server answers 500 for whatever escapes the application.
        return {'exception': '%s: %s' % (type(e).__name__, e)}
    out = {'status': resp.status,
           'headers': [[k, v] for k, v in resp.headerlist],
           'body': resp.body.decode('latin-1')}
    if resp.status_int == 299:
        passed = json.loads(resp.body)
        out = {'status': resp.status, 'context': passed['context'],
               'path': passed['path']}
    return out


# --- http_basic --------------------------------------------------------------

SALT = b'$2b$04$abcdefghijklmnopqrstuu'
SALT_Y = b'$2y$04$ABCDEFGHIJKLMNOPQRSTUu'


def htpasswd():
    long_pw = b'x' * 72
    lines = [
        b'# a comment line without a colon is skipped',
        b'',
        b'  myName:' + bcrypt.hashpw(b'myPassword', SALT) + b'  ',
        b'other:' + bcrypt.hashpw(b'p:with:colons', SALT_Y).replace(b'$2b$', b'$2y$', 1),
        b'legacy:' + bcrypt.hashpw(b'legacy', SALT).replace(b'$2b$', b'$2a$', 1),
        b'long:' + bcrypt.hashpw(long_pw, SALT),
        b'empty:' + bcrypt.hashpw(b'', SALT),
        b':' + bcrypt.hashpw(b'nameless', SALT),
        'ünï:'.encode() + bcrypt.hashpw('pässwörd'.encode(), SALT),
        b'myName:' + bcrypt.hashpw(b'second-entry-never-used', SALT),
    ]
    return b'\n'.join(lines) + b'\n'


def b64(s):
    if isinstance(s, str):
        s = s.encode('utf-8')
    return base64.b64encode(s).decode()


BASIC_CASES = [
    ('good', [('Authorization', 'Basic ' + b64('myName:myPassword'))]),
    ('good lowercase scheme', [('Authorization', 'basic ' + b64('myName:myPassword'))]),
    ('good upper scheme and spaces', [('Authorization', '  BASIC    ' + b64('myName:myPassword') + '  ')]),
    ('good tab separator', [('Authorization', 'Basic\t' + b64('myName:myPassword'))]),
    ('good 2y entry, colons in password', [('Authorization', 'Basic ' + b64('other:p:with:colons'))]),
    ('good 2a entry', [('Authorization', 'Basic ' + b64('legacy:legacy'))]),
    ('good 72 byte password', [('Authorization', 'Basic ' + b64('long:' + 'x' * 72))]),
    ('73 byte password is truncated to 72', [('Authorization', 'Basic ' + b64('long:' + 'x' * 73))]),
    ('71 byte password', [('Authorization', 'Basic ' + b64('long:' + 'x' * 71))]),
    ('empty password', [('Authorization', 'Basic ' + b64('empty:'))]),
    ('empty user name', [('Authorization', 'Basic ' + b64(':nameless'))]),
    ('utf-8 user and password', [('Authorization', 'Basic ' + b64('ünï:pässwörd'))]),
    ('wrong password', [('Authorization', 'Basic ' + b64('myName:wrong'))]),
    ('unknown user', [('Authorization', 'Basic ' + b64('nobody:myPassword'))]),
    ('user name prefix of another', [('Authorization', 'Basic ' + b64('myNa:myPassword'))]),
    ('user name case differs', [('Authorization', 'Basic ' + b64('myname:myPassword'))]),
    ('missing header', []),
    ('empty header', [('Authorization', '')]),
    ('blank header', [('Authorization', '   ')]),
    ('scheme only', [('Authorization', 'Basic')]),
    ('bearer', [('Authorization', 'Bearer abc')]),
    ('non-ascii scheme', [('Authorization', 'B\xe4sic abc')]),
    ('nbsp separator (python whitespace)', [('Authorization', 'Basic\xa0' + b64('myName:myPassword'))]),
    ('nel separator (python whitespace)', [('Authorization', 'Basic\x85' + b64('myName:myPassword'))]),
    ('bad base64 char', [('Authorization', 'Basic ab!d')]),
    ('base64 missing padding', [('Authorization', 'Basic ' + b64('myName:myPassword').rstrip('='))]),
    ('base64 one extra char', [('Authorization', 'Basic ' + b64('myName:myPassword') + 'A')]),
    ('base64 excess padding', [('Authorization', 'Basic ' + b64('abc:') + '==')]),
    ('base64 single pad after quad', [('Authorization', 'Basic ' + b64('abc') + '=')]),
    ('base64 pad in middle', [('Authorization', 'Basic ab=c')]),
    ('base64 urlsafe alphabet', [('Authorization', 'Basic ' + base64.urlsafe_b64encode(b'\xfb\xff:x').decode())]),
    ('base64 with inner space', [('Authorization', 'Basic ' + b64('myName:myPassword')[:4] + ' ' + b64('myName:myPassword')[4:])]),
    ('no colon', [('Authorization', 'Basic ' + b64('myNamemyPassword'))]),
    ('empty token', [('Authorization', 'Basic ' + b64(''))]),
    ('user not utf-8', [('Authorization', 'Basic ' + base64.b64encode(b'\xff\xfe:pw').decode())]),
    ('password not utf-8', [('Authorization', 'Basic ' + base64.b64encode(b'myName:\xff').decode())]),
    ('x-roles passed through', [('Authorization', 'Basic ' + b64('myName:myPassword')),
                                ('X-Roles', 'admin, member'), ('X-Project-Id', 'p1'),
                                ('X-User-Id', 'spoofed'), ('X-User-Name', 'spoofed'),
                                ('X-Auth-Token', 'tok'), ('OpenStack-System-Scope', 'all'),
                                ('X-Is-Admin-Project', 'False')]),
    ('x-roles on failure', [('Authorization', 'Basic ' + b64('myName:wrong')), ('X-Roles', 'admin')]),
]


def basic_cases():
    content = htpasswd()
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(content)
        path = f.name
    try:
        app = pipeline('http_basic', lambda a: auth_basic.BasicAuthMiddleware(a, path))
        out = []
        for name, headers in BASIC_CASES:
            for method, url in [('GET', '/v1/nodes')]:
                out.append({'name': name, 'method': method, 'path': url,
                            'headers': headers, 'want': run(app, method, url, headers)})
        # Public routes skip authentication (and keep what the client sent).
        for url in ['/', '/v1', '/v1/lookup', '/v1/heartbeat/abc']:
            headers = [('X-Roles', 'admin'), ('X-Auth-Token', 'tok')]
            out.append({'name': 'public ' + url, 'method': 'GET', 'path': url,
                        'headers': headers, 'want': run(app, 'GET', url, headers)})
        # A file entry that is not bcrypt, met at request time (the file
        # changed after start-up).
        bad = tempfile.NamedTemporaryFile(delete=False)
        bad.write(b'myName:' + bcrypt.hashpw(b'myPassword', SALT) + b'\n')
        bad.close()
        app2 = pipeline('http_basic', lambda a: auth_basic.BasicAuthMiddleware(a, bad.name))
        with open(bad.name, 'wb') as f:
            f.write(b'myName:{SHA}abcdef\n')
        headers = [('Authorization', 'Basic ' + b64('myName:myPassword'))]
        file_cases = [{'name': 'entry not bcrypt at request time', 'file': 'myName:{SHA}abcdef\n',
                       'method': 'GET', 'path': '/v1/nodes', 'headers': headers,
                       'want': run(app2, 'GET', '/v1/nodes', headers)}]
        os.unlink(bad.name)
        file_cases.append({'name': 'file gone at request time', 'file': None,
                           'method': 'GET', 'path': '/v1/nodes', 'headers': headers,
                           'want': run(app2, 'GET', '/v1/nodes', headers)})
        return {'file': content.decode('utf-8'), 'cases': out, 'file_cases': file_cases}
    finally:
        os.unlink(path)


def basic_startup():
    """validate_auth_file's verdicts (ConfigInvalid messages)."""
    cases = []
    for name, content in [
        ('ok', 'a:' + bcrypt.hashpw(b'x', SALT).decode() + '\n'),
        ('empty file', ''),
        ('only lines without colon', 'hello\nworld\n'),
        ('md5 entry', 'a:$apr1$abc$def\n'),
        ('sha entry', 'bob:{SHA}abc\n'),
        ('crypt entry after good one', 'a:' + bcrypt.hashpw(b'x', SALT).decode() + '\nbob:xyz\n'),
        ('2x prefix', 'carl:$2x$04$abc\n'),
        ('blank value', 'dave:\n'),
        ('indented bad entry', '   eve:plain   \n'),
        ('crlf lines', 'a:' + bcrypt.hashpw(b'x', SALT).decode() + '\r\n\r\n'),
        ('cr only lines', 'a:' + bcrypt.hashpw(b'x', SALT).decode() + '\rbob:plain\r'),
    ]:
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write(content)
            path = f.name
        try:
            auth_basic.validate_auth_file(path)
            err = None
        except Exception as e:
            err = str(e)
        os.unlink(path)
        cases.append({'name': name, 'file': content, 'error': err})
    try:
        auth_basic.validate_auth_file('/nonexistent/htpasswd')
        err = None
    except Exception as e:
        err = str(e)
    cases.append({'name': 'missing file', 'file': None, 'path': '/nonexistent/htpasswd', 'error': err})
    return cases


# --- public routes and noauth ------------------------------------------------

PATHS = ['/', '', '//', '/.json', '/.xml', '/v1', '/v1/', '/v1//', '/v1.json', '/v1.xml',
         '/v1.json/', '/v1/.json', '/v1x', '/v10', '/V1', '//v1', '/v1/nodes', '/v1/lookup',
         '/v1/lookup/', '/v1/lookup.json', '/v1/lookup.xml', '/v1/lookup.json.json',
         '/v1/lookup/x', '/lookup', '/v1/heartbeat/abc', '/v1/heartbeat/abc-123',
         '/v1/heartbeat/1be26c0b-03f2-4d2e-ae87-c02d7f33c123', '/v1/heartbeat/ABC',
         '/v1/heartbeat/a_b', '/v1/heartbeat/a.b', '/v1/heartbeat/', '/v1/heartbeat',
         '/v1/heartbeat/abc/', '/v1/heartbeat/abc.json', '/v1/heartbeat/abc.xml',
         '/v1/heartbeat/abc/x', '/v1/heartbeat/-', '/v1\n', '/v1/lookup\n', '/v1/\n',
         '/v1\n/', '/v1/continue_inspection', '/v1/drivers/ipmi/vendor_passthru/ipxe_config',
         '/nodes', '/v1/nodes.json', '/healthcheck', '/v1/heartbeat/abc\n']


def public_cases():
    app = pipeline('keystone-less', lambda a: (lambda env, sr: (sr('401 No', []), [b''])[1]))
    out = []
    for p in PATHS:
        r = run(app, 'GET', p, [])
        out.append({'path': p, 'public': r['status'].startswith('299'),
                    'app_path': r.get('path')})
    return out


ENVIRON_HEADERS = [
    ('none', []),
    ('all keystone headers', [
        ('X-Auth-Token', 'tok'), ('X-User-Id', 'u1'), ('X-User-Name', 'user'),
        ('X-Project-Id', 'p1'), ('X-Project-Name', 'proj'), ('X-Domain-Id', 'd1'),
        ('X-User-Domain-Id', 'ud'), ('X-User-Domain-Name', 'udn'),
        ('X-Project-Domain-Id', 'pd'), ('X-Project-Domain-Name', 'pdn'),
        ('X-Roles', 'admin, member,,reader '), ('OpenStack-System-Scope', 'all'),
        ('X-Is-Admin-Project', 'FALSE'), ('X-Service-Token', 'stok'),
        ('X-Service-User-Id', 'su'), ('X-Service-Roles', 'service'),
        ('X-Service-User-Name', 'sun'), ('X-Service-Project-Id', 'sp'),
        ('X-Service-Project-Name', 'spn'), ('X-Service-User-Domain-Id', 'sud'),
        ('X-Service-User-Domain-Name', 'sudn'), ('X-Service-Project-Domain-Id', 'spd'),
        ('X-Service-Project-Domain-Name', 'spdn')]),
    ('deprecated names', [('X-User', 'u2'), ('X-Tenant-Id', 't1'), ('X-Tenant-Name', 'tn'),
                          ('X-Role', 'r1,r2'), ('X-Storage-Token', 'st')]),
    ('tenant', [('X-Tenant', 't2')]),
    ('new beats deprecated', [('X-User-Id', 'new'), ('X-User', 'old'), ('X-Roles', 'a'),
                              ('X-Role', 'b'), ('X-Project-Id', 'p'), ('X-Tenant-Id', 't'),
                              ('X-Auth-Token', 'a'), ('X-Storage-Token', 's')]),
    ('empty values', [('X-User-Id', ''), ('X-Roles', ''), ('X-Is-Admin-Project', ''),
                      ('X-Project-Id', '')]),
    ('admin project true', [('X-Is-Admin-Project', 'True')]),
    ('admin project yes', [('X-Is-Admin-Project', 'yes')]),
    ('repeated header', [('X-Roles', 'a'), ('X-Roles', 'b'), ('X-User-Id', 'u'), ('X-User-Id', 'v')]),
]


def environ_cases():
    out = []
    for strategy in ['noauth', 'keystone']:
        app = pipeline(strategy, None)
        for name, headers in ENVIRON_HEADERS:
            out.append({'name': name, 'strategy': strategy, 'headers': headers,
                        'want': run(app, 'GET', '/v1/nodes', headers)})
    return out


# --- webob's 503 -------------------------------------------------------------

ACCEPTS = [None, '', '*/*', 'application/json', 'text/html', 'text/plain',
           'application/json, text/html', 'text/html, application/json',
           'text/html;q=0.5, application/json', 'application/json;q=0.5, text/html;q=0.6',
           'application/*', 'text/*', 'image/png', 'application/xml',
           'application/json;q=0', 'text/html;q=0, */*;q=0.1', '*/*;q=0.5, application/json;q=0.4',
           'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/html;level=1',
           'garbage', ',,,', 'application/json;q=1.5', 'application/json;q=abc',
           'text/plain, */*;q=0.1', ';;', 'application/json, */*', '*/json',
           'application/json;q=0.001', 'text/html;q=0.0001, application/json;q=0.00001']


def webob_cases():
    out = []
    for method in ['GET', 'HEAD']:
        for accept in ACCEPTS:
            exc = webob.exc.HTTPServiceUnavailable(
                'The Keystone service is temporarily unavailable.')
            req = webob.Request.blank('/v1/nodes')
            req.method = method
            if accept is not None:
                req.environ['HTTP_ACCEPT'] = accept
            resp = req.get_response(exc)
            out.append({'method': method, 'accept': accept, 'status': resp.status,
                        'headers': [[k, v] for k, v in resp.headerlist],
                        'body': resp.body.decode('latin-1')})
    return out


# --- keystone ----------------------------------------------------------------

FUTURE = '2099-01-01T00:00:00.000000Z'
PAST = '2001-01-01T00:00:00.000000Z'


def token(**kw):
    t = {
        'methods': ['password'],
        'user': {'domain': {'id': 'default', 'name': 'Default'}, 'id': 'u-demo',
                 'name': 'demo-member', 'password_expires_at': None},
        'audit_ids': ['aud1'],
        'expires_at': FUTURE,
        'issued_at': '2026-01-01T00:00:00.000000Z',
        'project': {'domain': {'id': 'default', 'name': 'Default'}, 'id': 'p-demo',
                    'name': 'demo'},
        'is_domain': False,
        'roles': [{'id': 'r1', 'name': 'member'}, {'id': 'r2', 'name': 'reader'}],
        'catalog': [{'endpoints': [{'id': 'e1', 'interface': 'public', 'region_id': 'RegionOne',
                                    'url': 'http://127.0.0.1:6385', 'region': 'RegionOne'}],
                     'id': 's1', 'type': 'baremetal', 'name': 'ironic'}],
    }
    for k, v in kw.items():
        if v is None:
            t.pop(k, None)
        else:
            t[k] = v
    return {'token': t}


SYSTEM = token(project=None, is_domain=None, system={'all': True},
               roles=[{'id': 'r0', 'name': 'admin'}, {'id': 'r1', 'name': 'member'},
                      {'id': 'r2', 'name': 'reader'}],
               user={'domain': {'id': 'default', 'name': 'Default'}, 'id': 'u-sys',
                     'name': 'system-admin', 'password_expires_at': None})
DOMAIN = token(project=None, is_domain=None, domain={'id': 'd-other', 'name': 'Other'},
               user={'domain': {'id': 'd-other', 'name': 'Other'}, 'id': 'u-other',
                     'name': 'other-domain-member', 'password_expires_at': None})
SERVICE = token(user={'domain': {'id': 'default', 'name': 'Default'}, 'id': 'u-ironic',
                      'name': 'ironic', 'password_expires_at': None},
                project={'domain': {'id': 'default', 'name': 'Default'}, 'id': 'p-service',
                         'name': 'service'},
                roles=[{'id': 'r0', 'name': 'admin'}, {'id': 'r9', 'name': 'service'}],
                is_admin_project=False)
SERVICE_NOROLE = token(user={'domain': {'id': 'default', 'name': 'Default'}, 'id': 'u-nova',
                             'name': 'nova', 'password_expires_at': None},
                       roles=[{'id': 'r1', 'name': 'member'}])
UNSCOPED = token(project=None, is_domain=None, roles=None, catalog=None)

TOKENS = {
    'demo': token(),
    'demo-not-admin-project': token(is_admin_project=False),
    'system': SYSTEM,
    'domain': DOMAIN,
    'service': SERVICE,
    'service-expired': token(expires_at=PAST, roles=[{'id': 'r9', 'name': 'service'}]),
    'service-norole': SERVICE_NOROLE,
    'service-system': token(project=None, is_domain=None, system={'all': True},
                            roles=[{'id': 'r9', 'name': 'service'}]),
    'expired': token(expires_at=PAST),
    'unscoped': UNSCOPED,
    'odd-roles': token(roles=[{'id': 'a', 'name': ' spaced '}, {'id': 'b', 'name': 'x,y'},
                              {'id': 'c', 'name': ''}]),
    'offset-expiry': token(expires_at='2099-01-01T00:00:00+02:00'),
    'kerberos-bound': token(bind={'kerberos': 'user@REALM'}),
    'other-bound': token(bind={'x509': 'abc'}),
    'appcred-no-rules': token(application_credential={'id': 'ac', 'name': 'n', 'restricted': True}),
    'appcred-rules-match': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'baremetal', 'path': '/v1/nodes', 'method': 'GET'}]}),
    'appcred-rules-wildcard': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'baremetal', 'path': '/v1/nodes/*', 'method': 'GET'}]}),
    'appcred-rules-recursive': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'baremetal', 'path': '/v1/**', 'method': 'GET'}]}),
    'appcred-rules-tag': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'baremetal', 'path': '/v1/nodes/{node_id}/states',
                          'method': 'GET'}]}),
    'appcred-rules-other-service': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'compute', 'path': '/v1/nodes', 'method': 'GET'}]}),
    'appcred-rules-empty': token(application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True, 'access_rules': []}),
    'appcred-rules-no-catalog': token(catalog=None, application_credential={
        'id': 'ac', 'name': 'n', 'restricted': True,
        'access_rules': [{'id': 'x', 'service': 'baremetal', 'path': '/v1/nodes', 'method': 'GET'}]}),
}


class FakeIdentity(object):
    """Stands in for keystonemiddleware's IdentityServer."""

    def __init__(self, table):
        self.table = table
        self.calls = []

    def verify_token(self, token, retry=True, allow_expired=False):
        self.calls.append([token, allow_expired])
        v = self.table.get(token, 'notfound')
        if v == 'notfound':
            raise ksm_exceptions.InvalidToken('Token authorization failed')
        if v == 'down':
            raise ksa_exceptions.ConnectFailure('Unable to establish connection')
        if v == 'error':
            raise ksm_exceptions.ServiceError('Failed to fetch token data from identity server')
        if v == 'unauthorized':
            raise ksm_exceptions.ServiceError(
                'Identity server rejected authorization necessary to fetch token data')
        if isinstance(v, dict) and allow_expired is False and v.get('_only_allow_expired'):
            raise ksm_exceptions.InvalidToken('Token authorization failed')
        body = json.loads(json.dumps(v))
        body.pop('_only_allow_expired', None)
        # keystoneclient's AccessInfoV3 adds "version".
        body['token']['version'] = 'v3'
        return body

    def invalidate(self):
        pass


TABLE = dict(TOKENS)
TABLE.update({'down': 'down', 'error': 'error', 'unauthorized': 'unauthorized',
              'garbage': 'notfound'})
TABLE['expired-allowed'] = dict(token(expires_at=PAST), _only_allow_expired=True)

KS_CONF = {
    'auth_type': 'password',
    'auth_url': 'http://127.0.0.1:1/v3',
    'www_authenticate_uri': 'http://keystone.example:5000/v3',
    'username': 'ironic', 'password': 'ironic', 'project_name': 'service',
    'user_domain_name': 'Default', 'project_domain_name': 'Default',
    'log_name': 'gen_cases',
}

KS_OPTIONS = {
    'default': {},
    'roles_required': {'service_token_roles_required': True},
    'service_type': {'service_type': 'baremetal'},
    'delay': {'delay_auth_decision': True},
    'no_uri': {'www_authenticate_uri': None},
}

S = 'X-Service-Token'
A = 'X-Auth-Token'
SPOOF = [('X-Roles', 'admin'), ('X-User-Id', 'spoof'), ('X-Project-Id', 'spoof'),
         ('X-Identity-Status', 'Confirmed'), ('X-Service-Identity-Status', 'Confirmed'),
         ('X-Is-Admin-Project', 'True'), ('X-Service-Roles', 'service'),
         ('X-Service-User-Id', 'spoof'), ('X-Tenant-Id', 'spoof'), ('X-User', 'spoof'),
         ('OpenStack-System-Scope', 'all'), ('X-Service-Catalog', '[]'),
         ('X-Domain-Name', 'spoof'), ('X-User-Domain-Name', 'spoof')]

KS_CASES = [
    # (name, options, method, path, headers)
    ('demo', 'default', 'GET', '/v1/nodes', [(A, 'demo')]),
    ('demo whitespace around token', 'default', 'GET', '/v1/nodes', [(A, '  demo  ')]),
    ('demo storage token', 'default', 'GET', '/v1/nodes', [('X-Storage-Token', 'demo')]),
    ('auth token beats storage token', 'default', 'GET', '/v1/nodes', [(A, 'garbage'), ('X-Storage-Token', 'demo')]),
    ('spoofed headers are scrubbed', 'default', 'GET', '/v1/nodes', [(A, 'demo')] + SPOOF),
    ('not admin project', 'default', 'GET', '/v1/nodes', [(A, 'demo-not-admin-project')]),
    ('system scoped', 'default', 'GET', '/v1/nodes', [(A, 'system')]),
    ('domain scoped other domain', 'default', 'GET', '/v1/nodes', [(A, 'domain')]),
    ('unscoped', 'default', 'GET', '/v1/nodes', [(A, 'unscoped')]),
    ('odd role names', 'default', 'GET', '/v1/nodes', [(A, 'odd-roles')]),
    ('expiry with offset', 'default', 'GET', '/v1/nodes', [(A, 'offset-expiry')]),
    ('garbage', 'default', 'GET', '/v1/nodes', [(A, 'garbage')]),
    ('garbage head', 'default', 'HEAD', '/v1/nodes', [(A, 'garbage')]),
    ('garbage post', 'default', 'POST', '/v1/nodes', [(A, 'garbage')]),
    ('garbage html accept', 'default', 'GET', '/v1/nodes', [(A, 'garbage'), ('Accept', 'text/html')]),
    ('missing token', 'default', 'GET', '/v1/nodes', []),
    ('missing token with spoofed headers', 'default', 'GET', '/v1/nodes', SPOOF),
    ('empty token', 'default', 'GET', '/v1/nodes', [(A, '')]),
    ('blank token', 'default', 'GET', '/v1/nodes', [(A, '   ')]),
    ('empty auth token, storage token', 'default', 'GET', '/v1/nodes', [(A, ''), ('X-Storage-Token', 'demo')]),
    ('repeated token header', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (A, 'demo')]),
    ('expired', 'default', 'GET', '/v1/nodes', [(A, 'expired')]),
    ('keystone unreachable', 'default', 'GET', '/v1/nodes', [(A, 'down')]),
    ('keystone unreachable json', 'default', 'GET', '/v1/nodes', [(A, 'down'), ('Accept', 'application/json')]),
    ('keystone unreachable head', 'default', 'HEAD', '/v1/nodes', [(A, 'down')]),
    ('keystone error', 'default', 'GET', '/v1/nodes', [(A, 'error')]),
    ('keystone rejects service user', 'default', 'GET', '/v1/nodes', [(A, 'unauthorized')]),
    ('kerberos bound token', 'default', 'GET', '/v1/nodes', [(A, 'kerberos-bound')]),
    ('other bind is ignored', 'default', 'GET', '/v1/nodes', [(A, 'other-bound')]),
    ('kerberos bound with service token', 'default', 'GET', '/v1/nodes', [(A, 'kerberos-bound'), (S, 'service')]),
    ('service token', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service')]),
    ('service token spoofed service headers', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service')] + SPOOF),
    ('service token without service role', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service-norole')]),
    ('service token without role, required', 'roles_required', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service-norole')]),
    ('service token with role, required', 'roles_required', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service')]),
    ('service token invalid', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'garbage')]),
    ('service token expired', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service-expired')]),
    ('service token empty', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, '')]),
    ('service token only', 'default', 'GET', '/v1/nodes', [(S, 'service')]),
    ('service token keystone down', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'down')]),
    ('system service token overrides system scope', 'default', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'service-system')]),
    ('project service token clears system scope', 'default', 'GET', '/v1/nodes', [(A, 'system'), (S, 'service')]),
    ('expired user token with service role allows expired', 'default', 'GET', '/v1/nodes', [(A, 'expired-allowed'), (S, 'service')]),
    ('expired user token, service token without role', 'default', 'GET', '/v1/nodes', [(A, 'expired-allowed'), (S, 'service-norole')]),
    ('expired user token, no service token', 'default', 'GET', '/v1/nodes', [(A, 'expired-allowed')]),
    ('appcred without rules', 'default', 'GET', '/v1/nodes', [(A, 'appcred-no-rules')]),
    ('appcred rules, no service_type', 'default', 'GET', '/v1/nodes', [(A, 'appcred-rules-match')]),
    ('appcred rules match', 'service_type', 'GET', '/v1/nodes', [(A, 'appcred-rules-match')]),
    ('appcred rules method differs', 'service_type', 'POST', '/v1/nodes', [(A, 'appcred-rules-match')]),
    ('appcred rules path differs', 'service_type', 'GET', '/v1/ports', [(A, 'appcred-rules-match')]),
    ('appcred rules json suffix', 'service_type', 'GET', '/v1/nodes.json', [(A, 'appcred-rules-match')]),
    ('appcred rules trailing slash', 'service_type', 'GET', '/v1/nodes/', [(A, 'appcred-rules-match')]),
    ('appcred wildcard one segment', 'service_type', 'GET', '/v1/nodes/abc', [(A, 'appcred-rules-wildcard')]),
    ('appcred wildcard two segments', 'service_type', 'GET', '/v1/nodes/abc/states', [(A, 'appcred-rules-wildcard')]),
    ('appcred recursive wildcard', 'service_type', 'GET', '/v1/nodes/abc/states', [(A, 'appcred-rules-recursive')]),
    ('appcred tag', 'service_type', 'GET', '/v1/nodes/abc/states', [(A, 'appcred-rules-tag')]),
    ('appcred tag needs a segment', 'service_type', 'GET', '/v1/nodes//states', [(A, 'appcred-rules-tag')]),
    ('appcred other service', 'service_type', 'GET', '/v1/nodes', [(A, 'appcred-rules-other-service')]),
    ('appcred empty rules', 'service_type', 'GET', '/v1/nodes', [(A, 'appcred-rules-empty')]),
    ('appcred rules with service token', 'service_type', 'POST', '/v1/ports', [(A, 'appcred-rules-match'), (S, 'service')]),
    ('appcred rules, no catalog', 'service_type', 'GET', '/v1/nodes', [(A, 'appcred-rules-no-catalog')]),
    ('appcred quoted path', 'service_type', 'GET', '/v1/nodes/a%20b/states', [(A, 'appcred-rules-tag')]),
    ('delay: garbage passes', 'delay', 'GET', '/v1/nodes', [(A, 'garbage')] + SPOOF),
    ('delay: missing passes', 'delay', 'GET', '/v1/nodes', []),
    ('delay: keystone down passes', 'delay', 'GET', '/v1/nodes', [(A, 'down')]),
    ('delay: valid', 'delay', 'GET', '/v1/nodes', [(A, 'demo')]),
    ('delay: invalid service token', 'delay', 'GET', '/v1/nodes', [(A, 'demo'), (S, 'garbage')]),
    ('no www_authenticate_uri', 'no_uri', 'GET', '/v1/nodes', [(A, 'garbage')]),
    ('public route, garbage token', 'default', 'GET', '/v1/lookup', [(A, 'garbage')] + SPOOF),
    ('public root, valid token', 'default', 'GET', '/', [(A, 'demo')]),
    ('public heartbeat, keystone down', 'default', 'POST', '/v1/heartbeat/abc', [(A, 'down')]),
]


def keystone_cases():
    out = []
    for name, opt, method, path, headers in KS_CASES:
        conf = dict(KS_CONF)
        conf.update(KS_OPTIONS[opt])
        conf = {k: v for k, v in conf.items() if v is not None}
        fake = FakeIdentity(TABLE)

        def make(a, conf=conf, fake=fake):
            mw = auth_token.AuthProtocol(a, conf)
            mw._identity_server = fake
            return mw
        app = pipeline('keystone', make)
        want = run(app, method, path, headers)
        out.append({'name': name, 'options': opt, 'method': method, 'path': path,
                    'headers': headers, 'want': want, 'identity_calls': fake.calls})
    return {'tokens': TABLE, 'options': KS_OPTIONS,
            'www_authenticate_uri': KS_CONF['www_authenticate_uri'],
            'auth_url': KS_CONF['auth_url'], 'cases': out}


def main():
    out = {
        'basic': basic_cases(),
        'basic_startup': basic_startup(),
        'public': public_cases(),
        'environ': environ_cases(),
        'webob_503': webob_cases(),
        'keystone': keystone_cases(),
    }
    path = os.path.join(HERE, 'cases.json')
    with open(path, 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write('\n')
    print('wrote', path, file=sys.stderr)


if __name__ == '__main__':
    main()
