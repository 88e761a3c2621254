#!/usr/bin/env bash
# Load test of the ipxe_config endpoint (development only: needs wrk and
# python3). Starts our all-in-one server on 127.0.0.1:${PORT:-5750} over a
# fresh SQLite file, enrolls 1000 fake-hardware nodes with one port each,
# puts them in "deploying", and runs wrk at 16 connections on
# GET /v1/drivers/fake-hardware/vendor_passthru/ipxe_config with
# ?port_address= cycling over the 1000 MACs (${mac:hexhyp} form), then on
# one ?node_uuid=. The server is stopped at the end.
#
#   dev/bench-ipxe.sh        # DURATION=10s per measurement
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
STATE=/tmp/goironic-bench-ipxe
PORT=${PORT:-5750}
DURATION=${DURATION:-10s}
NODES=${NODES:-1000}
command -v wrk >/dev/null || { echo "bench-ipxe.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
rm -rf "$STATE" && mkdir -p "$STATE"
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic)
cat >"$STATE/ironic.conf" <<CONF
[DEFAULT]
host = bench-ipxe
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake,ipxe
enabled_network_interfaces = noop
default_network_interface = noop

[api]
host_ip = 127.0.0.1
port = $PORT

[database]
connection = sqlite:///$STATE/ironic.sqlite

[deploy]
http_url = http://10.0.2.2:5781
http_root = $STATE

[service_catalog]
endpoint_override = http://10.0.2.2:$PORT
CONF
"$STATE/ironic" --config-file "$STATE/ironic.conf" >"$STATE/ironic.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.2; done
python3 - "$PORT" "$NODES" "$STATE" <<'PY'
import concurrent.futures, json, sqlite3, sys, urllib.request
port, nodes, state = sys.argv[1], int(sys.argv[2]), sys.argv[3]
H = {"Content-Type": "application/json", "X-OpenStack-Ironic-API-Version": "1.82"}
def post(p, b):
    req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, p), json.dumps(b).encode(), H)
    return json.load(urllib.request.urlopen(req))
def mk(i):
    n = post("/v1/nodes", {"driver": "fake-hardware", "driver_info": {
        "deploy_kernel": "http://10.0.2.2:5781/k", "deploy_ramdisk": "http://10.0.2.2:5781/r"}})
    post("/v1/ports", {"node_uuid": n["uuid"], "address": "52:54:00:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)})
    return n["uuid"]
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    uuids = list(ex.map(mk, range(nodes)))
db = sqlite3.connect(state + "/ironic.sqlite")
db.execute("UPDATE nodes SET provision_state = 'deploying'")
db.commit()
open(state + "/uuid", "w").write(uuids[0])
PY
cat >"$STATE/macs.lua" <<LUA
local i = 0
request = function()
  i = (i + 1) % $NODES
  return wrk.format("GET", string.format(
    "/v1/drivers/fake-hardware/vendor_passthru/ipxe_config?port_address=52-54-00-%02X-%02X-%02X",
    math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256))
end
LUA
URL=http://127.0.0.1:$PORT
echo "== port_address over $NODES nodes, 16 connections"
wrk -t2 -c16 -d"$DURATION" -s "$STATE/macs.lua" "$URL" | grep -E "Latency|Requests/sec|Non-2xx"
echo "== node_uuid, 16 connections"
wrk -t2 -c16 -d"$DURATION" "$URL/v1/drivers/fake-hardware/vendor_passthru/ipxe_config?node_uuid=$(cat "$STATE/uuid")" | grep -E "Latency|Requests/sec|Non-2xx"
grep -c "cannot boot from the network" "$STATE/ironic.log" | sed 's/^/error scripts served: /' || true
