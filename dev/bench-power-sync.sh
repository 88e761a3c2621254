#!/usr/bin/env bash
# One power sync pass over many redfish nodes on the Redfish BMC emulator,
# Python Ironic 21.4 (the reference) and ours in turn (development only:
# needs Debian's python3-ironic; not run by ./test.sh).
#
#   dev/bench-power-sync.sh [both|ref|go]
#
# For each: a fresh emulator (-bmcs $BMCS -listen-each -latency $LATENCY
# -fail-fraction $FAIL_FRACTION -fail-mode $FAIL_MODE, same seed, so the same
# BMCs fail), the server all-in-one on SQLite with the power sync disabled
# while one redfish node per BMC is created through the API, then every node
# made manageable with a known power state in the database
# (power_sync_bench.py prepare: 1 node in 10 recorded "power on" while its
# BMC is Off), and the server started again with
# [conductor]sync_power_state_interval = $INTERVAL: the first pass starts
# $INTERVAL s later. Its end is the reference's own statsd timer
# (ConductorManager._sync_power_states, [metrics]backend = statsd) or our
# "power sync pass" log line; the server is killed right then, so nothing
# after the pass counts. Reported: the pass's duration, the Redfish
# requests the emulator answered during it, the server's RSS before the
# pass, at its end and at its peak, and from the database: healthy nodes
# whose power_state is not their BMC's (stale), nodes in maintenance.
# Then dev/bmcload sends as many GETs to the same BMCs from as many
# goroutines as the pass had workers: the physical limit (x_plain is the
# pass's duration over it). "both" ends with ours against the reference.
#
# Knobs (defaults): BMCS (1000), LATENCY (50ms), FAIL_FRACTION (0.1),
# FAIL_MODE (500 | hang | ignore-reset), WORKERS
# ([conductor]sync_power_state_workers, 8), PERIODIC_WORKERS
# (periodic_max_workers, 8), FORCE (force_power_state_during_sync, false:
# the database follows the hardware), MAX_RETRIES
# (power_state_sync_max_retries, 3; 0 puts a node whose BMC fails in
# maintenance at the first pass), INTERVAL (60, Ironic's default; it also bounds our reads of one node), PASS_TIMEOUT (1200 s:
# give up waiting for the end of the pass). Ports: the emulator's shared
# listener 6590 (each BMC on a kernel-chosen port), the reference 6581,
# ours 6582, statsd 6591. State and logs: /tmp/goironic-psync/<ref|go>/;
# the figures: /tmp/goironic-psync/<ref|go>/result.json.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
WHICH=${1:-both}
STATE=${STATE:-/tmp/goironic-psync}
BMCS=${BMCS:-1000}
LATENCY=${LATENCY:-50ms}
FAIL_FRACTION=${FAIL_FRACTION:-0.1}
FAIL_MODE=${FAIL_MODE:-500}
WORKERS=${WORKERS:-8}
PERIODIC_WORKERS=${PERIODIC_WORKERS:-8}
FORCE=${FORCE:-false}
MAX_RETRIES=${MAX_RETRIES:-3}
INTERVAL=${INTERVAL:-60}
PASS_TIMEOUT=${PASS_TIMEOUT:-1200}
EMU_PORT=6590 STATSD_PORT=6591
PY=/usr/bin/python3
HELPER="$HERE/dev/power_sync_bench.py"

mkdir -p "$STATE"
(cd "$HERE" && go build -o "$STATE/redfish-emulator" ./test/redfishbmc/cmd/redfish-emulator && go build -o "$STATE/ironic" ./cmd/ironic &&
  go build -o "$STATE/bmcload" ./dev/bmcload)

PIDS=()
stop() { # pid: a process group this script started with setsid
  local keep=() p
  for p in "${PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  PIDS=("${keep[@]}")
  kill -KILL -- "-$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() { local p; for p in "${PIDS[@]}"; do stop "$p"; done; }
trap cleanup EXIT

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

wait_http() { # url
  for _ in $(seq 1 240); do
    curl -sf -o /dev/null --max-time 2 "$1" && return 0
    sleep 0.5
  done
  echo "bench-power-sync: $1 did not answer" >&2
  return 1
}

conf() { # impl port interval
  local impl=$1 port=$2 interval=$3 dir=$STATE/$1
  cat <<CONF
[DEFAULT]
host = psync-$impl
auth_strategy = noauth
rpc_transport = none
use_stderr = true
enabled_hardware_types = redfish
enabled_bios_interfaces = no-bios
enabled_boot_interfaces = ipxe
enabled_console_interfaces = no-console
enabled_deploy_interfaces = direct
enabled_inspect_interfaces = no-inspect
enabled_management_interfaces = redfish
enabled_network_interfaces = noop
enabled_power_interfaces = redfish
enabled_raid_interfaces = no-raid
enabled_rescue_interfaces = no-rescue
enabled_storage_interfaces = noop
enabled_vendor_interfaces = no-vendor
[api]
host_ip = 127.0.0.1
port = $port
api_workers = 1
[database]
connection = sqlite:///$dir/ironic.sqlite
[dhcp]
dhcp_provider = none
[deploy]
http_root = $dir/http
http_url = http://127.0.0.1:$EMU_PORT
[pxe]
tftp_root = $dir/tftp
tftp_master_path = $dir/master_images
images_path = $dir/images
instance_master_path = $dir/master_images
[oslo_concurrency]
lock_path = $dir/locks
[conductor]
automated_clean = false
sync_power_state_interval = $interval
sync_power_state_workers = $WORKERS
periodic_max_workers = $PERIODIC_WORKERS
force_power_state_during_sync = $FORCE
power_state_sync_max_retries = $MAX_RETRIES
CONF
  if [[ $impl == ref ]]; then
    printf '[metrics]\nbackend = statsd\n[metrics_statsd]\nstatsd_host = 127.0.0.1\nstatsd_port = %s\n' "$STATSD_PORT"
  fi
}

start_server() { # impl port interval -> sets SERVER_PID
  local impl=$1 port=$2 dir=$STATE/$1
  conf "$@" >"$dir/ironic.conf"
  if [[ $impl == ref ]]; then
    if [[ ! -s $dir/ironic.sqlite ]]; then
      "$PY" -c "import sys; from ironic.cmd.dbsync import main; sys.argv=['ironic-dbsync','--config-file','$dir/ironic.conf','create_schema']; main()" >>"$dir/ironic.log" 2>&1
    fi
    setsid "$PY" -c "import sys; from ironic.cmd.singleprocess import main; sys.argv=['ironic','--config-file','$dir/ironic.conf']; main()" \
      </dev/null >>"$dir/ironic.log" 2>&1 &
  else
    setsid "$STATE/ironic" --config-file "$dir/ironic.conf" </dev/null >>"$dir/ironic.log" 2>&1 &
  fi
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  wait_http "http://127.0.0.1:$port/"
}

# pass_end impl since -> prints "end_unix_time duration_seconds" once the
# first pass after byte offset since of the marker file has ended.
pass_end() {
  local impl=$1 since=$2 dir=$STATE/$1 deadline=$((SECONDS + PASS_TIMEOUT))
  while ((SECONDS < deadline)); do
    if [[ $impl == ref ]]; then
      local line
      line=$(tail -c +"$since" "$dir/statsd.txt" 2>/dev/null | grep -m1 'ConductorManager._sync_power_states:' || true)
      if [[ -n $line ]]; then
        awk '{split($2, a, /[:|]/); printf "%s %.3f\n", $1, a[2] / 1000}' <<<"$line"
        return 0
      fi
    else
      local line
      line=$(tail -c +"$since" "$dir/ironic.log" | grep -m1 'msg="power sync pass"' || true)
      if [[ -n $line ]]; then
        "$PY" -c '
import sys, datetime
f = dict(p.split("=", 1) for p in sys.argv[1].split() if "=" in p)
t = datetime.datetime.fromisoformat(f["time"]).timestamp()
print("%.3f %s" % (t, f["seconds"]))' "$line"
        return 0
      fi
    fi
    sleep 0.2
  done
  echo "bench-power-sync: no end of the pass within ${PASS_TIMEOUT}s" >&2
  return 1
}

run() { # impl port
  local impl=$1 port=$2 dir=$STATE/$1
  rm -rf "$dir" && mkdir -p "$dir"/{http,tftp,images,master_images,locks}
  setsid "$STATE/redfish-emulator" -listen "127.0.0.1:$EMU_PORT" -bmcs "$BMCS" -listen-each -latency "$LATENCY" \
    -fail-fraction "$FAIL_FRACTION" -fail-mode "$FAIL_MODE" -urls "$dir/bmcs.txt" -v \
    </dev/null >"$dir/emulator.log" 2>&1 &
  local emu=$!
  PIDS+=("$emu")
  for _ in $(seq 1 100); do [[ -s $dir/bmcs.txt ]] && break; sleep 0.2; done
  local statsd=""
  if [[ $impl == ref ]]; then
    setsid "$PY" "$HELPER" statsd "$STATSD_PORT" "$dir/statsd.txt" </dev/null >/dev/null 2>&1 &
    statsd=$!
    PIDS+=("$statsd")
  fi

  echo "== $impl: enrolling $BMCS nodes" >&2
  start_server "$impl" "$port" 0
  "$PY" "$HELPER" enroll "http://127.0.0.1:$port" "$dir/bmcs.txt"
  stop "$SERVER_PID"
  "$PY" "$HELPER" prepare "$dir/ironic.sqlite" >/dev/null

  echo "== $impl: one power sync pass ($INTERVAL s after the start)" >&2
  local since_log since_statsd
  since_log=$(($(stat -c %s "$dir/ironic.log") + 1))
  touch "$dir/statsd.txt"
  since_statsd=$(($(stat -c %s "$dir/statsd.txt") + 1))
  start_server "$impl" "$port" "$INTERVAL"
  local pid=$SERVER_PID
  # RSS samples, 4 a second: "unix_time kB".
  (while kill -0 "$pid" 2>/dev/null; do echo "$(date +%s.%N) $(rss_kb "$pid")"; sleep 0.25; done) >"$dir/rss.txt" 2>/dev/null &
  local sampler=$!
  local end
  end=$(pass_end "$impl" "$([[ $impl == ref ]] && echo "$since_statsd" || echo "$since_log")")
  local rss_end
  rss_end=$(rss_kb "$pid")
  stop "$pid"
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  read -r t_end seconds <<<"$end"
  local t_start
  t_start=$("$PY" -c "print('%.3f' % ($t_end - $seconds))")
  local window check
  window=$("$PY" "$HELPER" window "$dir/emulator.log" "$t_start" "$t_end")
  check=$("$PY" "$HELPER" check "$dir/ironic.sqlite" "$dir/bmcs.txt")
  # The physical limit: as many requests, as many at a time, same BMCs
  # (none when BMCs hang: a plain loop would wait for them as long as it
  # is told to).
  local plain=0
  if [[ $FAIL_MODE != hang ]]; then
    plain=$("$STATE/bmcload" -urls "$dir/bmcs.txt" -workers "$(( WORKERS < PERIODIC_WORKERS ? WORKERS : PERIODIC_WORKERS ))" \
      -requests "$("$PY" -c 'import json, sys; print(json.loads(sys.argv[1])["requests"])' "$window")")
  fi
  stop "$emu"
  if [[ -n $statsd ]]; then stop "$statsd"; fi
  "$PY" - "$impl" "$seconds" "$t_start" "$t_end" "$rss_end" "$dir/rss.txt" "$window" "$check" "$plain" <<'PY' | tee "$dir/result.json"
import json, sys
impl, seconds, t0, t1, rss_end, rss_file, window, check, plain = sys.argv[1:]
t0, t1 = float(t0), float(t1)
samples = [tuple(map(float, l.split())) for l in open(rss_file) if len(l.split()) == 2]
before = [kb for t, kb in samples if t < t0]
during = [kb for t, kb in samples if t0 <= t <= t1] + [float(rss_end)]
print(json.dumps({
    "impl": impl, "pass_seconds": float(seconds), "plain_loop_seconds": float(plain) or None,
    "x_plain": round(float(seconds) / float(plain), 2) if float(plain) else None,
    "rss_mib_before": round(before[-1] / 1024, 1) if before else None,
    "rss_mib_end": round(float(rss_end) / 1024, 1),
    "rss_mib_peak": round(max(during) / 1024, 1),
    **json.loads(window), **json.loads(check)}))
PY
}

echo "bench-power-sync: $BMCS BMCs, latency $LATENCY, $FAIL_FRACTION failing ($FAIL_MODE), sync_power_state_workers=$WORKERS periodic_max_workers=$PERIODIC_WORKERS force_power_state_during_sync=$FORCE power_state_sync_max_retries=$MAX_RETRIES" >&2
case $WHICH in
both)
  run ref 6581
  run go 6582
  "$PY" -c '
import json, sys
ref, go = (json.load(open(p)) for p in sys.argv[1:])
print("ours %.1f s, the reference %.1f s: %.1fx faster; requests %d vs %d; stale %d vs %d; RSS growth %.1f vs %.1f MiB" % (
    go["pass_seconds"], ref["pass_seconds"], ref["pass_seconds"] / go["pass_seconds"], go["requests"], ref["requests"],
    go["stale"], ref["stale"], go["rss_mib_peak"] - go["rss_mib_before"], ref["rss_mib_peak"] - ref["rss_mib_before"]))
' "$STATE/ref/result.json" "$STATE/go/result.json"
  ;;
ref) run ref 6581 ;;
go) run go 6582 ;;
*) echo "usage: $0 [both|ref|go]" >&2; exit 2 ;;
esac
