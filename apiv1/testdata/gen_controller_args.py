#!/usr/bin/env python3
"""Writes controller_args.json: the parameters of every exposed method of
Ironic's v1 controllers, as args.validate sees them (declaration order, the
validator of each, whether it has a default), the parameter method.body
fills, and whether the method takes *args or **kwargs.

Read from the installed Ironic 21.4 source (no Ironic code runs):
    /usr/bin/python3 apiv1/testdata/gen_controller_args.py > apiv1/testdata/controller_args.json
"""
import ast
import glob
import json
import os
import sys

SRC = '/usr/lib/python3/dist-packages/ironic/api/controllers/v1'
NAMED = {'string', 'boolean', 'uuid', 'name', 'uuid_or_name', 'string_list', 'integer', 'mac_address', 'patch'}


def validator(node):
    """A short name for a validator expression: args.<name>, or what builds
    it (schema, types, dict_valid, and_valid), or a module constant."""
    text = ast.unparse(node)
    if isinstance(node, ast.Attribute) and node.attr in NAMED:
        return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return text


out = {}
for fn in sorted(glob.glob(os.path.join(SRC, '*.py'))):
    tree = ast.parse(open(fn).read())
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for f in cls.body:
            if not isinstance(f, ast.FunctionDef):
                continue
            decs = f.decorator_list
            if not any(ast.unparse(d).startswith('method.expose') for d in decs):
                continue
            vals, body = {}, None
            for d in decs:
                if not isinstance(d, ast.Call):
                    continue
                name = ast.unparse(d.func)
                if name == 'args.validate':
                    vals = {k.arg: validator(k.value) for k in d.keywords}
                elif name == 'method.body':
                    body = d.args[0].value
            names = [a.arg for a in f.args.args][1:]
            first_default = len(names) - len(f.args.defaults)
            out[cls.name + '.' + f.name] = {
                'params': [{'name': n, 'validator': vals.get(n), 'required': i < first_default}
                           for i, n in enumerate(names)],
                'body': body,
                'varargs': f.args.vararg is not None,
                'kwargs': f.args.kwarg is not None,
                'validated': bool(vals) or any(ast.unparse(d) == 'args.validate()' for d in decs),
            }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write('\n')
