#!/usr/bin/env bash
# Compares boot from volume with the reference Python Ironic (development
# only: it needs Debian's python3-ironic): both all-in-one on SQLite with
# fake-hardware, ipxe boot, the direct deploy interface and the cinder
# storage interface, each with its own fake Cinder (test/fakecinder's
# command, no auth). test/fakecinder/bfv-deploy-scenario.sh (deploy and
# undeploy) and bfv-scenario.sh (power cycle of an active node) run
# through the openstack CLI against each; the transcripts (UUIDs and
# times normalised, dictionary keys sorted) and the Cinder requests
# (bodies compared as JSON) are diffed.
#
#   dev/bfv-vs-reference.sh     # exit 0 when both agree
#
# Ports (127.0.0.1): reference REF_PORT (9890), ours GO_PORT (9891), fake
# Cinders 9896 and 9897. State in /tmp/goironic-bfv.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
STATE=/tmp/goironic-bfv
REF_PORT=${REF_PORT:-9890}
GO_PORT=${GO_PORT:-9891}
VOLUME=b00710a0-0000-4000-8000-00000000b0f1
rm -rf "$STATE" && mkdir -p "$STATE"/{ref,go}
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic && go build -o "$STATE/fake-cinder" ./test/fakecinder/cmd/fake-cinder)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT

conf() {  # $1 dir, $2 host, $3 API port, $4 Cinder port
  mkdir -p "$1"/{http,tftp,locks,images,master_images}
  cat >"$1/ironic.conf" <<CONF
[DEFAULT]
host = $2
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake,ipxe,pxe
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_storage_interfaces = fake,noop,cinder,external
enabled_vendor_interfaces = fake,no-vendor
[api]
host_ip = 127.0.0.1
port = $3
api_workers = 1
[database]
connection = sqlite:///$1/ironic.sqlite
[dhcp]
dhcp_provider = none
[deploy]
http_root = $1/http
http_url = http://127.0.0.1:8080
[pxe]
tftp_root = $1/tftp
tftp_master_path = $1/master_images
images_path = $1/images
instance_master_path = $1/master_images
[conductor]
automated_clean = false
[oslo_concurrency]
lock_path = $1/locks
[cinder]
auth_type = none
endpoint_override = http://127.0.0.1:$4/v3
CONF
  setsid "$STATE/fake-cinder" -listen "127.0.0.1:$4" -volume "$VOLUME" -portal 127.0.0.1:3260 -v >"$1/cinder.log" 2>&1 &
  PIDS+=($!)
}

conf "$STATE/ref" bfv-ref "$REF_PORT" 9896
/usr/bin/python3 -c "import sys; from ironic.cmd.dbsync import main; sys.argv=['ironic-dbsync','--config-file','$STATE/ref/ironic.conf','create_schema']; main()" >"$STATE/ref/dbsync.log" 2>&1
setsid /usr/bin/python3 -c "import sys; from ironic.cmd.singleprocess import main; sys.argv=['ironic','--config-file','$STATE/ref/ironic.conf']; main()" >"$STATE/ref/ironic.log" 2>&1 &
PIDS+=($!)
conf "$STATE/go" bfv-go "$GO_PORT" 9897
setsid "$STATE/ironic" --config-file "$STATE/go/ironic.conf" >"$STATE/go/ironic.log" 2>&1 &
PIDS+=($!)
for p in "$REF_PORT" "$GO_PORT"; do
  for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$p/" && break; sleep 0.2; done
done

# Transcript normalisation: UUIDs and times, and -f json objects with
# their keys sorted (Python keeps insertion order, we sort).
norm() {
  /usr/bin/python3 -c '
import json, re, sys
text = sys.stdin.read()
text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UUID", text)
text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+", "TS", text)
out, buf, depth = [], [], 0
for line in text.splitlines():
    if depth or line == "{":
        buf.append(line); depth += line.count("{") - line.count("}")
        if depth == 0:
            out.append(json.dumps(json.loads("\n".join(buf)), indent=2, sort_keys=True)); buf = []
    else:
        out.append(line)
print("\n".join(out))'
}
cinder_requests() {  # the fake Cinder log: method, path, action, status and JSON body per request
  /usr/bin/python3 -c '
import json, re, sys
uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
for line in open(sys.argv[1]):
    if "msg=\"fake-cinder body\"" in line:
        raw = json.loads(line.split(" body=", 1)[1])
        if not raw:
            continue
        body = json.loads(raw)
        meta = body.get("metadata") if isinstance(body, dict) else None
        for k, v in list((meta or {}).items()):
            d = json.loads(v); d.pop("last_seen", None); meta[k] = d
        print("  body", uuid.sub("UUID", json.dumps(body, sort_keys=True)))
    elif "msg=fake-cinder " in line:
        f = dict(re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", line.split("msg=fake-cinder ", 1)[1]))
        print(uuid.sub("UUID", " ".join(f.get(k, "") for k in ("method", "path", "action", "status"))))
' "$1"
}
rc=0
for sc in bfv-deploy-scenario bfv-scenario; do
  for side in ref go; do
    port=$REF_PORT; [[ $side == go ]] && port=$GO_PORT
    "$HERE/test/fakecinder/$sc.sh" "http://127.0.0.1:$port" 2>&1 | norm >"$STATE/$side/$sc.txt" || true
  done
  if diff -u "$STATE/ref/$sc.txt" "$STATE/go/$sc.txt"; then
    echo "bfv-vs-reference: $sc: same CLI transcript"
  else
    echo "bfv-vs-reference: $sc: transcripts differ"; rc=1
  fi
done
cinder_requests "$STATE/ref/cinder.log" >"$STATE/ref/cinder.txt"
cinder_requests "$STATE/go/cinder.log" >"$STATE/go/cinder.txt"
if diff -u "$STATE/ref/cinder.txt" "$STATE/go/cinder.txt"; then
  echo "bfv-vs-reference: same Cinder requests ($(grep -vc '^  body' "$STATE/go/cinder.txt") requests)"
else
  echo "bfv-vs-reference: Cinder requests differ (see $STATE)"; rc=1
fi
exit $rc
