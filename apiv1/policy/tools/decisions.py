#!/usr/bin/python3
"""Write apiv1/policy/testdata/decisions.json: Python Ironic's policy answers.

Every rule Ironic registers is evaluated with Ironic's own enforcer
(ironic.common.policy.get_enforcer(), oslo.policy, oslo.config) for a
matrix of callers (personas, as keystonemiddleware and Ironic's
ContextHook build their RequestContext) and targets (as the API's
check_owner_policy, check_port_policy_and_retrieve, ... build them:
dict(context.to_policy_values()) plus the object's attributes), in
several configurations (modes). The Go tests replay all of them.

For each mode, persona and target the answer of authorize() is one
character per registered rule: A (allowed), F (PolicyNotAuthorized, which
Ironic turns into HTTPForbidden) or S (InvalidScope). "enforce" answers
are policy.check's (Enforcer.enforce) for rules that are not registered
(custom rules of the policy file, and undefined ones).

"parses" records how oslo.policy parses and prints rule texts, quirks
included.

Usage (from the apiv1/policy directory; no server needed):

    /usr/bin/python3 tools/decisions.py > testdata/decisions.json
"""

import json
import logging
import os
import sys
import warnings

from oslo_config import cfg
from oslo_policy import _parser
from oslo_policy import policy as oslo_policy

from ironic.common import context as ironic_context
from ironic.common import policy
import ironic.conf  # noqa: registers auth_strategy and the rbac options

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, '..', 'testdata')

OWNER = 'owner-project'
LESSEE = 'lessee-project'
OTHER = 'other-project'

ADMIN = ['admin', 'member', 'reader']   # keystone's implied roles
MANAGER = ['manager', 'member', 'reader']
MEMBER = ['member', 'reader']
READER = ['reader']

# name -> RequestContext arguments (what from_environ reads from the
# headers keystonemiddleware sets).
PERSONAS = {
    'system-admin': dict(user_id='u-sysadmin', roles=ADMIN, system_scope='all'),
    'system-member': dict(user_id='u-sysmember', roles=MEMBER, system_scope='all'),
    'system-reader': dict(user_id='u-sysreader', roles=READER, system_scope='all'),
    'system-service': dict(user_id='u-syssvc', roles=['service'], system_scope='all'),
    'system-mixedcase': dict(user_id='u-sysmixed', roles=['Admin', 'MEMBER'], system_scope='all'),
    'owner-admin': dict(user_id='u-oa', project_id=OWNER, project_name='owner', roles=ADMIN),
    'owner-manager': dict(user_id='u-om', project_id=OWNER, project_name='owner', roles=MANAGER),
    'owner-member': dict(user_id='u-om', project_id=OWNER, project_name='owner', roles=MEMBER),
    'owner-reader': dict(user_id='u-or', project_id=OWNER, project_name='owner', roles=READER),
    'owner-service': dict(user_id='u-os', project_id=OWNER, project_name='owner', roles=['service']),
    'lessee-admin': dict(user_id='u-la', project_id=LESSEE, project_name='lessee', roles=ADMIN),
    'lessee-manager': dict(user_id='u-lmg', project_id=LESSEE, project_name='lessee', roles=MANAGER),
    'lessee-member': dict(user_id='u-lm', project_id=LESSEE, project_name='lessee', roles=MEMBER),
    'lessee-reader': dict(user_id='u-lr', project_id=LESSEE, project_name='lessee', roles=READER),
    'other-admin': dict(user_id='u-xa', project_id=OTHER, project_name='other', roles=ADMIN),
    'other-member': dict(user_id='u-xm', project_id=OTHER, project_name='other', roles=MEMBER),
    'other-reader': dict(user_id='u-xr', project_id=OTHER, project_name='other', roles=READER),
    'service-project': dict(user_id='u-svc', project_id='service-project-id', project_name='service',
                            roles=['service', 'admin'], project_domain_id='default'),
    'no-roles': dict(user_id='u-none', project_id=OTHER, project_name='other', roles=[]),
    'anonymous': dict(),
    'is-admin-context': dict(is_admin=True),
    'public-api': dict(is_public_api=True),
    'legacy-demo-admin': dict(user_id='u-demo', project_id='demo-id', project_name='demo',
                              project_domain_id='default', roles=['admin']),
    'legacy-baremetal-admin': dict(user_id='u-bm', project_id='bm-id', project_name='baremetal',
                                   project_domain_id='default', roles=['baremetal_admin']),
    'legacy-baremetal-observer': dict(user_id='u-bo', project_id='bm-id', project_name='baremetal',
                                      roles=['baremetal_observer']),
    'not-admin-project': dict(user_id='u-nap', project_id=OWNER, project_name='owner', roles=ADMIN,
                              is_admin_project=False),
    'domain-admin': dict(user_id='u-da', domain_id='some-domain', user_domain_id='default', roles=ADMIN),
    'domain-member-unowned': dict(user_id='u-dm', domain_id='some-domain', roles=MEMBER),
}

# name -> what Ironic adds to dict(cdict); None is Python's None.
TARGETS = {
    'plain': {},
    # check_owner_policy('node', ...): node.lessee only when set.
    'node-owned-leased': {'node.owner': OWNER, 'node.lessee': LESSEE},
    'node-owned': {'node.owner': OWNER},
    'node-unowned': {'node.owner': None},
    'node-leased-only': {'node.owner': None, 'node.lessee': LESSEE},
    # check_port_policy_and_retrieve / check_volume_policy_and_retrieve:
    # both keys, None when unset.
    'port-owned': {'node.owner': OWNER, 'node.lessee': None},
    'port-unowned': {'node.owner': None, 'node.lessee': None},
    # check_owner_policy('allocation', ...)
    'allocation-owned': {'allocation.owner': OWNER},
    'allocation-unowned': {'allocation.owner': None},
}

MODES = [
    dict(name='defaults'),
    dict(name='srbac', enforce_scope=True, enforce_new_defaults=True),
    dict(name='scope-only', enforce_scope=True),
    dict(name='overrides', policy_file='policy-override.yaml',
         policy_dirs=['policy-override.d'], service_role_elevated_access=True,
         service_project_name='service'),
    dict(name='overrides-new-defaults', policy_file='policy-override.yaml',
         policy_dirs=['policy-override.d'], enforce_new_defaults=True,
         default_rule='none-such'),
]

# Rules that only the override files define, and undefined names
# (policy.check falls back to the default rule).
EXTRA_RULES = [
    'custom:owner', 'custom:quoted', 'custom:literal-true', 'custom:int',
    'custom:not', 'custom:precedence', 'custom:admin-project', 'custom:list',
    'custom:list-bare', 'custom:empty', 'custom:null', 'custom:unparsable',
    'custom:role-template', 'custom:target-creds',
    'custom:from-dir', 'custom:undefined-ref', 'custom:nested-parens',
    'custom:float', 'custom:roles-kind', 'custom:system-kind', 'custom:case',
    'default', 'undefined:rule',
]

PARSES = [
    '', ' ', '@', '!', 'role:admin', 'role:admin or role:member',
    'role:a and role:b or role:c', 'role:a or role:b and role:c',
    'role:a or role:b and role:c or role:d', 'role:a and (role:b or role:c)',
    'not role:a', 'not role:a and role:b', 'not (role:a or role:b)',
    'role:a or not role:b and role:c', '(role:a)', '((role:a))',
    '(role:a or role:b) and role:c and role:d',
    'role:a or (role:b and role:c) and role:d',
    'role:a AND role:b OR NOT role:c', 'role:a or', 'or role:a', 'role:a role:b',
    '"quoted" or role:a', "'x':%(y)s", 'noColon', 'project_id:%(node.owner)s',
    '(project_id:%(node.owner)s)', 'True:%(node.owned)s', 'rule:foo',
    'http://example.com/%(x)s', 'role:a)', '(role:a', 'a:b:c',
    'role:a\tand\nrole:b',
]


def mode_conf(mode):
    conf = cfg.CONF
    conf.set_override('auth_strategy', 'keystone')
    conf.set_override('enforce_scope', mode.get('enforce_scope', False), 'oslo_policy')
    conf.set_override('enforce_new_defaults', mode.get('enforce_new_defaults', False), 'oslo_policy')
    pf = mode.get('policy_file')
    conf.set_override('policy_file', os.path.join(TESTDATA, pf) if pf else 'no-such-policy.yaml',
                      'oslo_policy')
    conf.set_override('policy_dirs', [os.path.join(TESTDATA, d) for d in mode.get('policy_dirs', [])],
                      'oslo_policy')
    conf.set_override('policy_default_rule', mode.get('default_rule', 'default'), 'oslo_policy')
    conf.set_override('rbac_service_role_elevated_access', mode.get('service_role_elevated_access', False))
    conf.set_override('rbac_service_project_name', mode.get('service_project_name', 'service'))
    policy._ENFORCER = None
    return policy.get_enforcer()


def target_for(ctx, extra):
    target = dict(ctx.to_policy_values())
    target.update(extra)
    return target


def authorize(enforcer, rule, ctx, extra):
    try:
        enforcer.authorize(rule, target_for(ctx, extra), ctx, do_raise=True)
        return 'A'
    except oslo_policy.PolicyNotAuthorized:
        return 'F'
    except oslo_policy.InvalidScope:
        return 'S'


def main():
    warnings.simplefilter('ignore')
    logging.disable(logging.CRITICAL)
    cfg.CONF([], project='ironic')
    rules = [r.name for r in policy.list_policies()]
    out = {
        'rules': rules,
        'extra_rules': EXTRA_RULES,
        'personas': PERSONAS,
        'targets': TARGETS,
        'modes': [],
        'parses': [{'rule': p, 'str': str(_parser.parse_rule(p))} for p in PARSES],
    }
    for mode in MODES:
        enforcer = mode_conf(mode)
        m = dict(mode, decisions={}, enforce={})
        for pname, kwargs in PERSONAS.items():
            ctx = ironic_context.RequestContext(**kwargs)
            m['decisions'][pname] = {}
            m['enforce'][pname] = {}
            for tname, extra in TARGETS.items():
                m['decisions'][pname][tname] = ''.join(
                    authorize(enforcer, r, ctx, extra) for r in rules)
                m['enforce'][pname][tname] = ''.join(
                    '1' if enforcer.enforce(r, target_for(ctx, extra), ctx) else '0'
                    for r in EXTRA_RULES)
        out['modes'].append(m)
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
