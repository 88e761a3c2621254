"""Registers goironic's tests and options with tempest.

Tempest finds plugins through the "tempest.test_plugins" entry point; the
Go runner (test/tempest) publishes this one by putting a dist-info
directory on PYTHONPATH, so nothing is installed.
"""

import os

from tempest import config
from tempest.test_discover import plugins

from goironic_tempest import config as goironic_config


class GoironicTempestPlugin(plugins.TempestPlugin):

    def load_tests(self):
        base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return os.path.join(base, 'goironic_tempest', 'tests'), base

    def register_opts(self, conf):
        config.register_opt_group(conf, goironic_config.group,
                                  goironic_config.opts)

    def get_opt_lists(self):
        return [(goironic_config.group.name, goironic_config.opts)]
