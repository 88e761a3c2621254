"""The [goironic] options of tempest.conf."""

from oslo_config import cfg

group = cfg.OptGroup(
    name='goironic',
    title='goironic: how the Ironic under test was started')

opts = [
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=['keystone', 'noauth'],
               help='[DEFAULT]auth_strategy of the Ironic under test: with '
                    'keystone, /v1 resources refuse requests without a '
                    'valid token; with noauth they accept them.'),
]
