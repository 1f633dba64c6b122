#!/usr/bin/env bash
# Relay benchmark: Sundial ingesting the DevOps data set (ingest_load, telnet)
# with no relay target, with one target whose upstream is down ("down": the
# relay's cost alone), and with one target forwarding to VictoriaMetrics
# (remote_write "rw", or its OpenTSDB /api/put listener "http"); plus VictoriaMetrics
# taking the same load itself, as the reference. All in one run, on loopback,
# each server fresh. Prints per configuration: local ingest points/s and
# Sundial's CPU, and for relay runs the forwarding throughput (points the
# upstream stored / seconds from the start of ingest until the relay had
# nothing pending), then the ratios.
#
#   bench/relay_forward.sh [build dir] [extra ingest_load flags...]
#   RUNS=3 TARGETS="none down rw http" bench/relay_forward.sh build --duration=1800
#
# Needs the Debian package victoria-metrics. Defaults: 100 hosts x 101
# metrics x 1 h at 10 s (3,636,000 points), 4 telnet connections.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
extra=("$@")
runs="${RUNS:-1}"
targets=(${TARGETS:-none down rw http})
load="$build/bench/ingest_load"
sundiald="$build/sundiald"
vm="$(command -v victoria-metrics || true)"
[[ -x "$load" && -x "$sundiald" ]] || { echo "build ingest_load and sundiald in $build first" >&2; exit 1; }
[[ -n "$vm" ]] || { echo "victoria-metrics not found (apt-get install victoria-metrics)" >&2; exit 1; }

work="$(mktemp -d /tmp/sundial_relay_bench.XXXXXX)"
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {
  for _ in $(seq 400); do curl -sf "http://127.0.0.1:$1$2" >/dev/null && return 0; sleep 0.05; done
  echo "server on :$1 did not come up" >&2; return 1
}
now() { date +%s.%N; }
field() { sed -E "s/.*[ ^]$1=([0-9.]+).*/\\1/" <<<" $2"; }

start_vm() {  # start_vm <dir>: sets vm_http, vm_put, vm_tel
  vm_http=$(free_port); vm_put=$(free_port); vm_tel=$(free_port)
  "$vm" -storageDataPath="$1" -httpListenAddr="127.0.0.1:$vm_http" -retentionPeriod=100y \
    -opentsdbListenAddr="127.0.0.1:$vm_tel" -opentsdbHTTPListenAddr="127.0.0.1:$vm_put" \
    -loggerLevel=ERROR >"$1.log" 2>&1 &
  pids+=($!)
  wait_http "$vm_http" /health
}

vm_rows() {  # rows VictoriaMetrics has stored
  curl -sf "http://127.0.0.1:$1/metrics" | awk '/^vm_rows_added_to_storage_total /{print $2}'
}

declare -A results  # "<config>" -> "rate cpu_us fwd_rate;" per run
run() {  # run <config> <run number>
  local cfg=$1 dir="$work/$1-$2"
  mkdir -p "$dir"
  if [[ $cfg == vm ]]; then
    start_vm "$dir/vm"
    local out
    out=$("$load" --protocol=telnet --port="$vm_tel" --pid="${pids[-1]}" --stats=vm \
      --stats-port="$vm_http" "${extra[@]}" 2>/dev/null)
    stop_all
    printf '%-14s %s\n' "vm" "$out"
    results[$cfg]+="$(field points_per_s "$out") $(field server_cpu_us_per_point "$out") 0;"
    return
  fi
  local relay_args=()
  if [[ $cfg == down ]]; then
    # A target whose upstream is down: the relay's own cost in Sundial, with
    # no upstream competing for the CPU.
    relay_args=(--relay-targets "remote-write://127.0.0.1:$(free_port)/api/v1/write")
  elif [[ $cfg != none ]]; then
    start_vm "$dir/vm"
    case $cfg in
      rw) relay_args=(--relay-targets "remote-write://127.0.0.1:$vm_http/api/v1/write?batch=5000") ;;
      http) relay_args=(--relay-targets "http://127.0.0.1:$vm_put/api/put?batch=5000") ;;
    esac
  fi
  local port
  port=$(free_port)
  "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$dir/sundial" "${relay_args[@]}" \
    >"$dir/sundial.log" 2>&1 &
  local spid=$!
  pids+=($spid)
  wait_http "$port" /api/version
  local t0 out fwd=0
  t0=$(now)
  out=$("$load" --protocol=telnet --port="$port" --pid="$spid" --stats=sundial "${extra[@]}" 2>/dev/null)
  if [[ $cfg != none && $cfg != down ]]; then
    local points
    points=$(field points "$out")
    for _ in $(seq 6000); do  # at most 10 minutes: until every point was delivered
      done_=$(curl -sf "http://127.0.0.1:$port/api/relay" | python3 -c '
import json, sys
t = json.load(sys.stdin)["targets"][0]
print(int(t["pendingBytes"] == 0 and t["pointsSent"] + t["pointsRejected"] >= int(sys.argv[1])))' "$points")
      [[ $done_ == 1 ]] && break
      sleep 0.1
    done
    local t1 rows
    t1=$(now)
    for _ in $(seq 100); do  # VictoriaMetrics counts rows once they reach its storage
      rows=$(vm_rows "$vm_http")
      [[ ${rows%.*} -ge $points ]] && break
      sleep 0.1
    done
    fwd=$(python3 -c "print(float('${rows:-0}') / ($t1 - $t0))")
    out+=" forwarded=$rows forward_seconds=$(python3 -c "print(round($t1 - $t0, 3))") forward_points_per_s=$(printf '%.0f' "$fwd")"
    [[ ${rows%.*} -ge $points ]] || echo "warning: the upstream stored $rows of $points points" >&2
  fi
  stop_all
  printf '%-14s %s\n' "sundial+$cfg" "$out"
  results[$cfg]+="$(field points_per_s "$out") $(field server_cpu_us_per_point "$out") $fwd;"
}

median() {  # median <config> <field index>
  python3 -c '
import statistics, sys
rows = [r.split() for r in sys.argv[1].split(";") if r.strip()]
print(statistics.median(float(r[int(sys.argv[2])]) for r in rows))' "${results[$1]}" "$2"
}

echo "machine: $(nproc) cores, $(uname -r); load generator on the same machine"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); runs: $runs"
configs=(vm "${targets[@]}")
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do run "$c" "$r"; done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians of $runs run(s)"
printf '%-14s %14s %12s %16s %14s %14s\n' config "ingest pts/s" "cpu us/pt" "forward pts/s" "ingest vs none" "fwd vs vm"
base=$(median none 0)
vm_rate=$(median vm 0)
for c in "${configs[@]}"; do
  rate=$(median "$c" 0)
  fwd=$(median "$c" 2)
  name=$([[ $c == vm ]] && echo "vm (own)" || echo "sundial+$c")
  printf '%-14s %14.0f %12.3f %16.0f %13.3fx %13.3fx\n' "$name" "$rate" "$(median "$c" 1)" "$fwd" \
    "$(python3 -c "print($rate/$base)")" "$(python3 -c "print($fwd/$vm_rate)")"
done
