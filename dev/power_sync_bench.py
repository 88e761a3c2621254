#!/usr/bin/python3
"""Helpers of dev/bench-power-sync.sh (development only).

  power_sync_bench.py statsd PORT FILE          log "<unix time> <metric>" lines received on UDP PORT
  power_sync_bench.py enroll API BMCS           create one redfish node per BMC of the emulator's -urls file
  power_sync_bench.py prepare DB                make every node manageable with a known power state (SQLite)
  power_sync_bench.py window EMULOG START END   count the emulator's requests answered in [START, END]
  power_sync_bench.py check DB BMCS             compare each node's power_state (SQLite) with its BMC's PowerState

prepare records "power off" (the emulator's systems start Off) on nine
nodes of ten and "power on" on every tenth (by id): a pass must correct
those. It also records what a manage (verify) would have cached: the
vendor, the boot mode and the secure boot state, so the pass sees nodes
as they are after enrollment.
"""
import base64
import concurrent.futures
import datetime
import json
import socket
import sqlite3
import sys
import time
import urllib.error
import urllib.request

HEADERS = {"Content-Type": "application/json", "X-OpenStack-Ironic-API-Version": "1.82"}


def api(method, url, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=HEADERS)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def bmcs(path):
    out = []
    with open(path) as f:
        for line in f:
            name, url, system = line.split()
            if name != "default":
                out.append((name, url, system))
    return out


def statsd(port, path):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", int(port)))
    with open(path, "a", buffering=1) as f:
        while True:
            data, _ = s.recvfrom(65536)
            now = time.time()
            for line in data.decode(errors="replace").splitlines():
                f.write("%.3f %s\n" % (now, line))


def enroll(url, path):
    def one(b):
        name, addr, system = b
        api("POST", url + "/v1/nodes", {
            "name": "psync-" + name, "driver": "redfish",
            "driver_info": {"redfish_address": addr, "redfish_system_id": system,
                            "redfish_username": "admin", "redfish_password": "password"},
            "bios_interface": "no-bios", "boot_interface": "ipxe", "console_interface": "no-console",
            "deploy_interface": "direct", "inspect_interface": "no-inspect", "management_interface": "redfish",
            "network_interface": "noop", "power_interface": "redfish", "raid_interface": "no-raid",
            "rescue_interface": "no-rescue", "storage_interface": "noop", "vendor_interface": "no-vendor",
        })
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        list(ex.map(one, bmcs(path)))


def prepare(db):
    c = sqlite3.connect(db)
    c.execute("""UPDATE nodes SET provision_state = 'manageable',
        power_state = CASE WHEN id % 10 = 0 THEN 'power on' ELSE 'power off' END,
        properties = '{"vendor": "goironic"}', boot_mode = 'uefi', secure_boot = 0""")
    c.commit()
    print(c.execute("SELECT count(*) FROM nodes WHERE provision_state = 'manageable'").fetchone()[0])


def parse_time(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def window(path, start, end):
    start, end = float(start), float(end)
    n, by = 0, {}
    with open(path) as f:
        for line in f:
            if 'msg="redfish request"' not in line:
                continue
            fields = dict(p.split("=", 1) for p in line.split() if "=" in p and not p.startswith('msg'))
            t = parse_time(fields["time"])
            if start <= t <= end:
                n += 1
                key = fields.get("method", "?") + " " + fields.get("status", "?")
                by[key] = by.get(key, 0) + 1
    print(json.dumps({"requests": n, "by_method_status": dict(sorted(by.items()))}))


def bmc_power(addr, system):
    req = urllib.request.Request(addr + system, headers={
        "Authorization": "Basic " + base64.b64encode(b"admin:password").decode()})
    try:
        with urllib.request.urlopen(req, timeout=3) as r:
            return json.loads(r.read()).get("PowerState")
    except (urllib.error.URLError, OSError):
        return None


def check(db, path):
    c = sqlite3.connect(db)
    rows = {r[0]: r[1:] for r in c.execute(
        "SELECT name, power_state, maintenance, fault, maintenance_reason FROM nodes")}
    targets = [(rows["psync-" + name], addr, system) for name, addr, system in bmcs(path)]
    with concurrent.futures.ThreadPoolExecutor(50) as ex:
        actual = list(ex.map(lambda t: bmc_power(t[1], t[2]), targets))
    want = {"On": "power on", "Off": "power off"}
    out = {"nodes": len(targets), "healthy": 0, "stale": 0, "failing": 0, "maintenance": 0,
           "fault_power_failure": 0, "stale_names": [], "maintenance_reasons": []}
    for (name, _, _), (row, _, _), a in zip(bmcs(path), targets, actual):
        power, maint, fault, reason = row
        out["maintenance"] += bool(maint)
        out["fault_power_failure"] += fault == "power failure"
        if reason and len(out["maintenance_reasons"]) < 2:
            out["maintenance_reasons"].append(reason)
        if a is None:
            out["failing"] += 1
            continue
        out["healthy"] += 1
        if power != want.get(a):
            out["stale"] += 1
            out["stale_names"].append("psync-" + name)
    out["stale_names"] = out["stale_names"][:10]
    print(json.dumps(out))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"statsd": statsd, "enroll": enroll, "prepare": prepare, "window": window, "check": check}[cmd](*args)


if __name__ == "__main__":
    main()
