#!/usr/bin/env bash
# Compares the flat network interface with the reference Python Ironic
# (development only: it needs ../shared): both all-in-one on SQLite with the
# reference harness's interfaces, default network interface flat, Neutron =
# test/fakeneutron's command (no auth). dev/flat_scenario.py sends the
# same VIF and port requests to each and prints the answers with the
# Neutron requests each caused; the two transcripts are diffed.
#
#   dev/flat-vs-reference.sh     # exit 0 when the transcripts agree
#
# Ports (127.0.0.1): reference REF_PORT (9790), ours GO_PORT (9791), fake
# Neutron FN_PORT (9796). State in /tmp/goironic-flat.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$HERE/../shared}
STATE=/tmp/goironic-flat
REF_PORT=${REF_PORT:-9790}
GO_PORT=${GO_PORT:-9791}
FN_PORT=${FN_PORT:-9796}
rm -rf "$STATE" && mkdir -p "$STATE"
(cd "$HERE" && go build -o "$STATE/ironic" ./cmd/ironic && go build -o "$STATE/fake-neutron" ./test/fakeneutron/cmd/fake-neutron)
setsid "$STATE/fake-neutron" -listen "127.0.0.1:$FN_PORT" -v >"$STATE/fake-neutron.log" 2>&1 &
FN_PID=$!
cat >"$STATE/ironic.conf" <<CONF
[DEFAULT]
host = flat-go
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware,ipmi,redfish
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,ipxe,pxe,redfish-virtual-media
enabled_console_interfaces = fake,no-console,ipmitool-socat
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect,redfish
enabled_management_interfaces = fake,ipmitool,redfish,noop
enabled_network_interfaces = noop,flat
default_network_interface = flat
enabled_power_interfaces = fake,ipmitool,redfish
enabled_raid_interfaces = fake,no-raid,agent,redfish
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor,ipmitool,redfish
[api]
host_ip = 127.0.0.1
port = $GO_PORT
[database]
connection = sqlite:///$STATE/ironic.sqlite
[dhcp]
dhcp_provider = none
[deploy]
http_root = $STATE/http
http_url = http://127.0.0.1:8080
[conductor]
automated_clean = false
[neutron]
auth_type = none
endpoint_override = http://127.0.0.1:$FN_PORT
cleaning_network = ironic-cleaning
CONF
setsid "$STATE/ironic" --config-file "$STATE/ironic.conf" >"$STATE/ironic.log" 2>&1 &
GO_PID=$!
REF_STATE=$STATE/ref
stop() {
  NETWORK_INTERFACE=flat PORT=$REF_PORT STATE_DIR=$REF_STATE NEUTRON_URL=http://127.0.0.1:$FN_PORT \
    "$SHARED/harness/reference-ironic.sh" down || true
  kill "$GO_PID" "$FN_PID" 2>/dev/null || true
}
trap stop EXIT
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$FN_PORT/" && break; sleep 0.2; done
NETWORK_INTERFACE=flat PORT=$REF_PORT STATE_DIR=$REF_STATE NEUTRON_URL=http://127.0.0.1:$FN_PORT RESET=1 \
  "$SHARED/harness/reference-ironic.sh" up
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$GO_PORT/" && break; sleep 0.2; done
/usr/bin/python3 "$HERE/dev/flat_scenario.py" "http://127.0.0.1:$REF_PORT" "http://127.0.0.1:$FN_PORT" ref >"$STATE/ref.txt"
/usr/bin/python3 "$HERE/dev/flat_scenario.py" "http://127.0.0.1:$GO_PORT" "http://127.0.0.1:$FN_PORT" go >"$STATE/go.txt"
if diff -u "$STATE/ref.txt" "$STATE/go.txt"; then
  echo "flat-vs-reference: same answers and Neutron requests ($(grep -c -- ' -> ' "$STATE/go.txt") requests)"
else
  echo "flat-vs-reference: transcripts differ (see $STATE)"; exit 1
fi
