"""Authentication at the edge of the API: which paths need a token.

Ironic (keystonemiddleware) lets the version documents (GET / and
GET /v1) through without a token and refuses everything else with 401
and a WWW-Authenticate header naming Keystone. With auth_strategy=noauth
everything is let through.
"""

import json

import urllib3

from tempest import config
from tempest.lib import decorators
from tempest import test

CONF = config.CONF


class TestAuthentication(test.BaseTestCase):
    """Requests with no token or a bad one, straight over HTTP."""

    # Only to find the baremetal endpoint in the catalog.
    credentials = ['primary']

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.service_available.ironic:
            raise cls.skipException('Ironic is not enabled')

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.endpoint = cls.os_primary.auth_provider.base_url(
            filters={'service': CONF.baremetal.catalog_type,
                     'endpoint_type': CONF.baremetal.endpoint_type,
                     'region': CONF.identity.region}).rstrip('/')
        cls.http = urllib3.PoolManager(retries=False, timeout=30)

    def _get(self, path, headers=None):
        resp = self.http.request('GET', self.endpoint + path,
                                 headers=headers or {})
        return resp.status, resp.headers, resp.data

    def _keystone(self):
        return CONF.goironic.auth_strategy == 'keystone'

    @decorators.idempotent_id('a26e2b94-ba08-467b-adfe-1ae43651b7b4')
    def test_root_without_token(self):
        status, _, body = self._get('/')
        self.assertEqual(200, status, body)
        doc = json.loads(body)
        self.assertEqual('v1', doc['default_version']['id'])

    @decorators.idempotent_id('3c24c252-f25b-4046-a19f-62579ae8b96e')
    def test_v1_without_token(self):
        status, headers, body = self._get('/v1')
        self.assertEqual(200, status, body)
        self.assertIn('X-OpenStack-Ironic-API-Maximum-Version', headers)

    @decorators.idempotent_id('f4700836-bc4e-4942-a070-c5ed6b6f5606')
    def test_nodes_without_token(self):
        status, headers, body = self._get('/v1/nodes')
        if not self._keystone():
            self.assertEqual(200, status, body)
            return
        self.assertEqual(401, status, body)
        self.assertIn('Keystone uri=', headers.get('WWW-Authenticate', ''))

    @decorators.idempotent_id('7e639f16-bdaf-46d7-8b82-8dd3fa15d3bd')
    def test_nodes_with_bad_token(self):
        status, _, body = self._get('/v1/nodes',
                                    {'X-Auth-Token': 'not-a-token'})
        self.assertEqual(401 if self._keystone() else 200, status, body)
