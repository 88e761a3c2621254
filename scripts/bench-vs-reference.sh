#!/usr/bin/env bash
# Measures this server against the reference Python Ironic in one session,
# with the shared load tool (development only: it needs ../shared).
#
#   scripts/bench-vs-reference.sh            # 1000 nodes, reads + writes, then start-up
#
# The reference runs on :6392 (state in /tmp/harness/ref-ironic-6392), ours
# on :6393 (state in /tmp/goironic-bench). Both are seeded with the same
# 1000 fake nodes (2 ports each) by the tool; results land in
# /tmp/goironic-bench/*.json and are printed side by side.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$HERE/../shared}
STATE=/tmp/goironic-bench
NODES=${NODES:-1000}
mkdir -p "$STATE"
(cd "$SHARED/tools/ironic-bench" && go build -o "$STATE/ironic-bench" .)
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic)
cat > "$STATE/ironic.conf" <<CONF
[DEFAULT]
host = bench-go
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_network_interfaces = noop
[api]
host_ip = 127.0.0.1
port = 6393
[database]
connection = sqlite:///$STATE/data/ironic.sqlite
CONF
NETWORK_INTERFACE=noop PORT=6392 "$SHARED/harness/reference-ironic.sh" up
setsid "$STATE/ironic" --config-file "$STATE/ironic.conf" >"$STATE/ironic.log" 2>&1 &
echo $! >"$STATE/ironic.pid"
trap 'kill -- -"$(cat "$STATE/ironic.pid")" 2>/dev/null || true' EXIT
sleep 1
run() { # name port pidfile
  "$STATE/ironic-bench" -url "http://127.0.0.1:$2" -nodes "$NODES" -scenario seed,reads,writes \
    -out "$STATE/$1.json" -watch "ironic=$3" 2>/dev/null | tail -21 >"$STATE/$1.txt"
}
run go 6393 "$STATE/ironic.pid"
run ref 6392 /tmp/harness/ref-ironic-6392/ironic.pid
paste <(awk '{print $1, $2, $4}' "$STATE/go.txt") <(awk '{print $4}' "$STATE/ref.txt") | column -t
grep RSS "$STATE"/go.txt "$STATE"/ref.txt
kill -- -"$(cat "$STATE/ironic.pid")" 2>/dev/null || true
sleep 1
rm -rf "$STATE/startup" && mkdir -p "$STATE/startup"
sed "s/port = 6393/port = 6394/; s#$STATE/data#$STATE/startup#" "$STATE/ironic.conf" >"$STATE/startup.conf"
"$STATE/ironic-bench" -url http://127.0.0.1:6394 -scenario startup -startup-runs 5 \
  -startup-cmd "$STATE/ironic --config-file $STATE/startup.conf" 2>/dev/null | tail -1
