#!/usr/bin/python3
"""Write apiv1/policy/testdata/defaults.json: every policy rule Ironic registers.

This reads the rule defaults of an installed Python Ironic (the list its
enforcer registers and oslopolicy-sample-generator prints, namespace
ironic.api: ironic.common.policy.list_policies()) and prints them as JSON,
in registration order: name, check string, scope types, description,
operations, and the deprecation facts (deprecated for removal, or the
deprecated rule used when [oslo_policy] enforce_new_defaults is off).
Nothing of Ironic is executed beyond importing its policy module.

Usage (go generate ./apiv1/policy runs it through pygen; by hand, from
the apiv1/policy directory):

    /usr/bin/python3 tools/extract_policies.py > testdata/defaults.json
    go test . -run TestDefaults -update   # regenerates defaults_table.go
"""

import json
import sys

from ironic.common import policy


def rule(default):
    dep = default.deprecated_rule
    out = {
        'name': default.name,
        'check_str': default.check_str,
        'description': default.description,
        # RuleDefault has no operations; DocumentedRuleDefault a list.
        'operations': ([{'method': op['method'], 'path': op['path']}
                        for op in default.operations]
                       if hasattr(default, 'operations') else None),
        'scope_types': (list(default.scope_types)
                        if default.scope_types is not None else None),
        'deprecated_for_removal': bool(default.deprecated_for_removal),
        'deprecated_reason': default.deprecated_reason,
        'deprecated_since': default.deprecated_since,
        'deprecated_rule': None,
    }
    if dep:  # RuleDefault keeps "no deprecated rule" as []
        out['deprecated_rule'] = {
            'name': dep.name,
            'check_str': dep.check_str,
            'deprecated_reason': dep.deprecated_reason,
            'deprecated_since': dep.deprecated_since,
        }
    return out


def main():
    rules = [rule(d) for d in policy.list_policies()]
    json.dump(rules, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
