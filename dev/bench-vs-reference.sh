#!/usr/bin/env bash
# Measures this server against the reference Python Ironic in one session,
# with the shared load tool (development only: it needs ../shared).
#
#   dev/bench-vs-reference.sh            # 1000 nodes: reads + writes, then start-up
#   dev/bench-vs-reference.sh lifecycle  # provisioning lifecycle, then RSS with 10,000 nodes
#
# Both run all-in-one on SQLite with the reference harness's interfaces and
# [conductor]automated_clean = false: the reference on :6392 (state in
# /tmp/harness/ref-ironic-6392), ours on :6393 (state in
# /tmp/goironic-bench). "lifecycle" takes LC_NODES (20) nodes one after
# another and a burst of BURST (100) nodes at once through enroll → manage
# → provide → active (with a config drive) → deleted → available on each,
# then seeds ours with BIG (10,000) nodes (2 ports each), waits one power
# sync interval and reads its RSS.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$HERE/../shared}
STATE=/tmp/goironic-bench
MODE=${1:-requests}
NODES=${NODES:-1000}
LC_NODES=${LC_NODES:-20}
BURST=${BURST:-100}
BIG=${BIG:-10000}
rm -rf "$STATE" && mkdir -p "$STATE"
(cd "$SHARED/tools/ironic-bench" && go build -o "$STATE/ironic-bench" .)
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic)
cat > "$STATE/ironic.conf" <<CONF
[DEFAULT]
host = bench-go
auth_strategy = noauth
rpc_transport = none
# the reference harness's interfaces (fake first: the defaults)
enabled_hardware_types = fake-hardware,ipmi,redfish
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,ipxe,pxe,redfish-virtual-media
enabled_console_interfaces = fake,no-console,ipmitool-socat
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect,redfish
enabled_management_interfaces = fake,ipmitool,redfish,noop
enabled_network_interfaces = noop,flat
default_network_interface = noop
enabled_power_interfaces = fake,ipmitool,redfish
enabled_raid_interfaces = fake,no-raid,agent,redfish
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor,ipmitool,redfish
[dhcp]
dhcp_provider = none
[api]
host_ip = 127.0.0.1
port = 6393
[database]
connection = sqlite:///$STATE/data/ironic.sqlite
[conductor]
automated_clean = false
CONF
NETWORK_INTERFACE=noop PORT=6392 "$SHARED/harness/reference-ironic.sh" up
REF_PID=/tmp/harness/ref-ironic-6392/ironic.pid
setsid "$STATE/ironic" --config-file "$STATE/ironic.conf" >"$STATE/ironic.log" 2>&1 &
echo $! >"$STATE/ironic.pid"
trap 'kill -- -"$(cat "$STATE/ironic.pid")" 2>/dev/null || true' EXIT
sleep 1
bench() { # name port pidfile args...
  local name=$1 port=$2 pid=$3; shift 3
  "$STATE/ironic-bench" -url "http://127.0.0.1:$port" -out "$STATE/$name.json" -watch "ironic=$pid" "$@" \
    2>"$STATE/$name.err" | tee "$STATE/$name.txt"
}
case $MODE in
requests)
  bench go 6393 "$STATE/ironic.pid" -nodes "$NODES" -scenario seed,reads,writes >/dev/null
  bench ref 6392 "$REF_PID" -nodes "$NODES" -scenario seed,reads,writes >/dev/null
  paste <(tail -21 "$STATE/go.txt" | awk '{print $1, $2, $4}') <(tail -21 "$STATE/ref.txt" | awk '{print $4}') | column -t
  grep RSS "$STATE"/go.txt "$STATE"/ref.txt
  kill -- -"$(cat "$STATE/ironic.pid")" 2>/dev/null || true
  sleep 1
  mkdir -p "$STATE/startup"
  sed "s/port = 6393/port = 6394/; s#$STATE/data#$STATE/startup#" "$STATE/ironic.conf" >"$STATE/startup.conf"
  "$STATE/ironic-bench" -url http://127.0.0.1:6394 -scenario startup -startup-runs 5 \
    -startup-cmd "$STATE/ironic --config-file $STATE/startup.conf" 2>/dev/null | tail -1
  ;;
lifecycle)
  lc=(-nodes 0 -scenario lifecycle -lifecycle-nodes "$LC_NODES" -burst-nodes "$BURST")
  bench lc-go 6393 "$STATE/ironic.pid" "${lc[@]}"
  bench lc-ref 6392 "$REF_PID" "${lc[@]}"
  bench seed-go 6393 "$STATE/ironic.pid" -nodes "$BIG" -scenario seed -seed-concurrency 16
  sleep 70 # one power sync interval over every node
  echo "RSS of ours with $BIG nodes after a power sync pass: $(awk '/VmRSS/ {print $2/1024 " MiB"}' /proc/"$(cat "$STATE/ironic.pid")"/status)"
  ;;
*) echo "usage: $0 [requests|lifecycle]" >&2; exit 2 ;;
esac
