"""Build a config drive with Ironic 21.4's own build_configdrive.

Usage: python3 reference.py [--repeat N] [--user-data-64k] <input.json> <out.iso>
input.json: {"node": {"uuid": ..., "name": ...}, "configdrive": {...}}
Writes the ISO image (gunzipped, base64-decoded) that Ironic would store.
Prints the seconds build_configdrive took (best of --repeat N runs).
--user-data-64k replaces user_data with BenchmarkBuild64KiB's 64 KiB text.
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


def bench_user_data():
    """The Go benchmark's benchUserData, byte for byte."""
    out = '#cloud-config\nwrite_files:\n'
    i = 0
    while len(out) < 64 * 1024:
        out += ('  - path: /etc/motd.d/' + 'x' * (i % 17)
                + '\n    content: hello from the config drive\n')
        i += 1
    return out[:64 * 1024]


def main():
    args = sys.argv[1:]
    repeat = 1
    big = False
    while args[0].startswith('--'):
        if args[0] == '--repeat':
            repeat = int(args[1])
            args = args[2:]
        elif args[0] == '--user-data-64k':
            big = True
            args = args[1:]
    with open(args[0]) as f:
        spec = json.load(f)
    if big:
        spec['configdrive']['user_data'] = bench_user_data()
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
