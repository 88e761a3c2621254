#!/usr/bin/python3
"""Write option/upstream_opts.go: the facts about every option Ironic reads.

This reads option metadata (section, name, type, default, help text,
choices, bounds, deprecation) from an installed Python Ironic and the
libraries it registers options from, and prints it as a Go table. Nothing
of Ironic is executed beyond importing its option definitions.

Usage (from the option directory; or go generate ./option):

    /usr/bin/python3 tools/extract_opts.py > upstream_opts.go && gofmt -w upstream_opts.go
"""

import json
import sys

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
from oslo_config import generator

# The namespaces Ironic's own sample generator uses, in the same order.
NAMESPACES = [
    'ironic',
    'ironic_lib.disk_utils',
    'ironic_lib.disk_partitioner',
    'ironic_lib.exception',
    'ironic_lib.json_rpc',
    'ironic_lib.mdns',
    'ironic_lib.metrics',
    'ironic_lib.metrics_statsd',
    'ironic_lib.utils',
    'oslo.db',
    'oslo.messaging',
    'oslo.middleware.cors',
    'oslo.middleware.healthcheck',
    'oslo.middleware.http_proxy_to_wsgi',
    'oslo.concurrency',
    'oslo.policy',
    'oslo.log',
    'oslo.service.service',
    'oslo.service.periodic_task',
    'oslo.service.sslutils',
    'osprofiler',
    'keystonemiddleware.auth_token',
]

# Kinds of oslo.config types, mapped to the Go Type constants.
KINDS = {
    'String': 'String',
    'Integer': 'Integer',
    'Float': 'Float',
    'Boolean': 'Boolean',
    'List': 'List',
    'Dict': 'Dict',
    'Port': 'Port',
    'HostAddress': 'HostAddress',
    'IPAddress': 'IPAddress',
    'Octal': 'Octal',
    'str': 'String',
    'int': 'Integer',
    'float': 'Float',
    'bool': 'Boolean',
}


def runtime_defaults():
    """Apply the default overrides Ironic's services apply at start-up."""
    import ironic.common.policy  # noqa: sets [oslo_policy]policy_file
    import ironic.common.rpc as ironic_rpc
    import ironic.db.sqlalchemy.models  # noqa: sets [database]connection
    from ironic.conf import opts as ironic_opts
    ironic_rpc.set_defaults(control_exchange='ironic')
    ironic_opts.update_opt_defaults()


def fmt(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return ','.join(fmt(v) for v in value)
    if isinstance(value, dict):
        return ','.join('%s:%s' % (k, fmt(v)) for k, v in sorted(value.items()))
    return str(value)


def kind_of(opt):
    t = opt.type
    if opt.multi:
        return 'MultiString'
    name = t.__name__ if isinstance(t, type) else type(t).__name__
    if name == 'List':
        return 'List'
    if name == 'ExplicitAbsolutePath':
        return 'String'
    return KINDS[name]


def choices_of(opt):
    ch = getattr(opt.type, 'choices', None)
    if ch is None:
        return None
    if isinstance(ch, dict):
        items = [(k, v or '') for k, v in ch.items()]
    else:
        items = [(k, '') for k in ch]
    if opt.dest == 'hash_ring_algorithm':
        # Built from a set (hashlib.algorithms_guaranteed): no stable order.
        items.sort()
    return [[fmt(k) if k is not None else None, v] for k, v in items]


def collect():
    runtime_defaults()
    conf = cfg.CONF
    # A section's auth plugin options are registered when auth_type names
    # the plugin; the sample lists the password plugin's. The application
    # credential plugin's own options are added to those sections too:
    # this service implements that plugin.
    appcred = [o for o in ks_loading.get_auth_plugin_conf_options(
        'v3applicationcredential')
        if o.dest.startswith('application_credential_')]
    extra = {
        # keystonemiddleware reads the credentials of its service user through
        # the auth plugin named by auth_type; "password" is what most
        # deployments use, so list its options like Ironic does for clients.
        'keystone_authtoken': ks_loading.get_auth_plugin_conf_options(
            'password') + appcred,
    }
    seen = set()
    out = []
    for ns, loader in generator._get_raw_opts_loaders(NAMESPACES):
        groups = list(loader())
        if ns in ('ironic', 'ironic_lib.json_rpc'):
            groups = [(g, list(opts) + appcred)
                      if any(o.dest == 'auth_url' for o in opts)
                      else (g, opts) for g, opts in groups]
        if ns == 'keystonemiddleware.auth_token':
            groups += list(extra.items())
        if ns == 'ironic':
            # [fake] is registered by ironic.conf but missing from the
            # list_opts the sample generator reads; the fake interfaces
            # read it.
            from ironic.conf import fake as fake_opts
            groups.append(('fake', fake_opts.opts))
        for grp, opts in groups:
            gname = getattr(grp, 'name', grp) or 'DEFAULT'
            for opt in opts:
                if (gname, opt.dest) in seen:
                    continue
                seen.add((gname, opt.dest))
                default = opt.default
                try:
                    info = conf._get_opt_info(
                        opt.dest, None if gname == 'DEFAULT' else gname)
                    default = info.get('default', info['opt'].default)
                except Exception:  # not registered globally
                    pass
                sample = opt.sample_default
                if sample is not None:
                    sample = fmt(sample)
                    if default is not None:
                        # Never bake this machine's values into the table.
                        default = sample
                dep = []
                for d in opt.deprecated_opts:
                    dep.append('%s.%s' % (d.group or gname,
                                          (d.name or opt.dest).replace('-', '_')))
                t = opt.type
                out.append(dict(
                    ns=ns, section=gname, name=opt.dest, kind=kind_of(opt),
                    default=fmt(default), sample=sample,
                    help=(opt.help or '').strip(), choices=choices_of(opt),
                    min=getattr(t, 'min', None), max=getattr(t, 'max', None),
                    secret=bool(opt.secret),
                    dep_removal=bool(opt.deprecated_for_removal),
                    dep_reason=(opt.deprecated_reason or '').strip(),
                    dep_since=opt.deprecated_since or '',
                    deprecated=dep, advanced=bool(opt.advanced)))
    # Sample order: DEFAULT first, then sections by name; namespaces and
    # options keep their registration order inside a section.
    out.sort(key=lambda o: (o['section'] != 'DEFAULT', o['section'],
                            NAMESPACES.index(o['ns'])))
    return out


def q(s):
    return json.dumps(s, ensure_ascii=False)


def num(v):
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        return '%.1f' % v
    return str(v)


def main():
    w = sys.stdout.write
    w('// Code generated by tools/extract_opts.py from Ironic 21.4 and its oslo libraries. DO NOT EDIT.\n\n'
      'package option\n\n'
      '// upstreamOpts lists every option Ironic 21.4 registers, as facts:\n'
      '// names, types, defaults and help text. Whether this service\n'
      '// implements an option is decided by the components that bind it\n'
      '// (see Binder), not here.\n'
      'func upstreamOpts() []Opt {\n\treturn []Opt{\n')
    for o in collect():
        w('\t\t{\n')
        w('\t\t\tSection: %s,\n\t\t\tName: %s,\n\t\t\tNamespace: %s,\n'
          '\t\t\tType: %s,\n' % (q(o['section']), q(o['name']), q(o['ns']),
                                 o['kind']))
        if o['default'] is None:
            w('\t\t\tNoDefault: true,\n')
        elif o['default'] != '':
            w('\t\t\tDefault: %s,\n' % q(o['default']))
        if o['sample'] is not None:
            w('\t\t\tSampleDefault: %s,\n' % q(o['sample']))
        if o['help']:
            w('\t\t\tHelp: %s,\n' % q(o['help']))
        if o['choices']:
            w('\t\t\tChoices: []Choice{\n')
            for value, desc in o['choices']:
                if value is None:
                    continue  # "unset" is always allowed
                w('\t\t\t\t{Value: %s' % q(value))
                if desc:
                    w(', Description: %s' % q(desc))
                w('},\n')
            w('\t\t\t},\n')
        if o['kind'] in ('Integer', 'Float', 'Octal', 'Port'):
            if o['min'] is not None:
                w('\t\t\tMin: %s,\n' % q(num(o['min'])))
            if o['max'] is not None:
                w('\t\t\tMax: %s,\n' % q(num(o['max'])))
        if o['secret']:
            w('\t\t\tSecret: true,\n')
        if o['advanced']:
            w('\t\t\tAdvanced: true,\n')
        if o['dep_removal']:
            w('\t\t\tDeprecatedForRemoval: true,\n')
        if o['dep_reason']:
            w('\t\t\tDeprecatedReason: %s,\n' % q(o['dep_reason']))
        if o['dep_since']:
            w('\t\t\tDeprecatedSince: %s,\n' % q(o['dep_since']))
        if o['deprecated']:
            w('\t\t\tDeprecatedNames: []string{%s},\n'
              % ', '.join(q(d) for d in o['deprecated']))
        w('\t\t},\n')
    w('\t}\n}\n')


if __name__ == '__main__':
    main()
