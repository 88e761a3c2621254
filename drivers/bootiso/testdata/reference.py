"""Build a boot ISO with Ironic 21.4's own images.create_isolinux_image_for_bios
or create_esp_image_for_uefi (and genisoimage): the oracle of bootiso's tests.

Usage: python3 reference.py <request.json>
request.json: {"mode": "bios"|"uefi", "out": path, "kernel": path,
  "ramdisk": path, "params": [...], "inject": {"iso/path": "local file"},
  "publisher": str or null, "esp": path or null, "isolinux_bin": path,
  "repeat": N}
Prints the seconds the build took (best of repeat runs).
"""
import json
import sys
import time

from ironic.common import images
from ironic.conf import CONF


def main():
    with open(sys.argv[1]) as f:
        req = json.load(f)
    CONF([], project='ironic')
    CONF.set_override('isolinux_bin', req['isolinux_bin'])
    inject = {}
    for iso_path, local in sorted(req.get('inject', {}).items()):
        with open(local, 'rb') as f:
            inject[f.read()] = iso_path
    best = None
    for _ in range(req.get('repeat', 1)):
        start = time.perf_counter()
        if req['mode'] == 'uefi':
            images.create_esp_image_for_uefi(
                req['out'], req['kernel'], req['ramdisk'],
                esp_image=req['esp'], kernel_params=req['params'],
                inject_files=inject, publisher_id=req.get('publisher'))
        else:
            images.create_isolinux_image_for_bios(
                req['out'], req['kernel'], req['ramdisk'],
                kernel_params=req['params'], inject_files=inject,
                publisher_id=req.get('publisher'))
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    print('%.6f' % best)


main()
