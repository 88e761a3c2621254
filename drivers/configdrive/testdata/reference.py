"""Build a config drive with Ironic 21.4's own build_configdrive.

Usage: python3 reference.py <input.json> <out.iso>
input.json: {"node": {"uuid": ..., "name": ...}, "configdrive": {...}}
Writes the ISO image (gunzipped, base64-decoded) that Ironic would store.
Prints the seconds build_configdrive took (best of --repeat N runs).
"""
import base64
import gzip
import json
import sys
import time

from ironic.conductor import utils


class Node:
    def __init__(self, uuid, name):
        self.uuid = uuid
        self.name = name


def main():
    args = sys.argv[1:]
    repeat = 1
    if args[0] == '--repeat':
        repeat = int(args[1])
        args = args[2:]
    with open(args[0]) as f:
        spec = json.load(f)
    node = Node(spec['node']['uuid'], spec['node'].get('name'))
    best = None
    for _ in range(repeat):
        cd = json.loads(json.dumps(spec['configdrive']))
        start = time.perf_counter()
        out = utils.build_configdrive(node, cd)
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    with open(args[1], 'wb') as f:
        f.write(gzip.decompress(base64.b64decode(out)))
    print('%.6f' % best)


if __name__ == '__main__':
    main()
