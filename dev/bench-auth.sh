#!/usr/bin/env bash
# Measures what keystone authentication costs (development only: it needs
# ../shared and wrk). In one session it starts the shared harness's
# Keystone, the reference Python Ironic with keystonemiddleware
# (AUTH=keystone, :6392), ours with auth_strategy = keystone (:6393) and
# ours with noauth (:6394), creates one node on each, and runs wrk on
# GET /v1/nodes/{uuid} with a system admin's token (the token cache is
# warm after wrk's first call) at 1 and 16 connections.
#
#   dev/bench-auth.sh        # DURATION=10s per measurement
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$HERE/../shared}
STATE=/tmp/goironic-bench-auth
DURATION=${DURATION:-10s}
export KEYSTONE_PORT=${KEYSTONE_PORT:-5800} KEYSTONE_STATE_DIR=$STATE/keystone
KS=http://127.0.0.1:$KEYSTONE_PORT
command -v wrk >/dev/null || { echo "bench-auth.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
rm -rf "$STATE/go" && mkdir -p "$STATE/go"
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic)
BAREMETAL_URL=http://127.0.0.1:6393 "$SHARED/harness/keystone.sh" up
conf() { # port auth
  cat <<CONF
[DEFAULT]
host = bench-auth-$1
auth_strategy = $2
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_network_interfaces = noop
default_network_interface = noop
[api]
host_ip = 127.0.0.1
port = $1
[database]
connection = sqlite:///$STATE/go/ironic-$1.sqlite
[dhcp]
dhcp_provider = none
[keystone_authtoken]
auth_type = password
auth_url = $KS/v3
www_authenticate_uri = $KS/v3
username = ironic
password = ${IRONIC_SERVICE_PASSWORD:-ironic}
project_name = service
user_domain_name = Default
project_domain_name = Default
CONF
}
pids=()
stop() {
  for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done
  PORT=6392 "$SHARED/harness/reference-ironic.sh" down || true
  "$SHARED/harness/keystone.sh" down || true
}
trap stop EXIT
for spec in 6393:keystone 6394:noauth; do
  port=${spec%%:*}
  conf "$port" "${spec#*:}" >"$STATE/go/ironic-$port.conf"
  setsid "$STATE/ironic" --config-file "$STATE/go/ironic-$port.conf" >"$STATE/go/ironic-$port.log" 2>&1 &
  pids+=($!)
done
AUTH=keystone NETWORK_INTERFACE=noop PORT=6392 KEYSTONE_URL=$KS "$SHARED/harness/reference-ironic.sh" up
eval "$("$SHARED/harness/keystone.sh" env system-admin)"
TOKEN=$(openstack token issue -f value -c id)
sleep 1
node() { # port
  curl -sf -X POST -H "X-Auth-Token: $TOKEN" -H 'Content-Type: application/json' \
    -H 'X-OpenStack-Ironic-API-Version: 1.82' -d '{"driver": "fake-hardware"}' \
    "http://127.0.0.1:$1/v1/nodes" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])'
}
measure() { # label port conns
  local uuid; uuid=$(node "$2")
  local out
  out=$(wrk -t1 -c"$3" -d"$DURATION" -H "X-Auth-Token: $TOKEN" -H 'X-OpenStack-Ironic-API-Version: 1.82' \
    "http://127.0.0.1:$2/v1/nodes/$uuid")
  if grep -q Non-2xx <<<"$out"; then echo "bench-auth.sh: $1 answered errors:" >&2; echo "$out" >&2; exit 1; fi
  printf '%-22s c%-3s %10s req/s\n' "$1" "$3" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
}
for c in 1 16; do
  measure "reference(keystone)" 6392 "$c"
  measure "ours(keystone)" 6393 "$c"
  measure "ours(noauth)" 6394 "$c"
done
