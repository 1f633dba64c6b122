#!/usr/bin/env bash
# Rollup benchmark: query (c) of bench/query_bench.cc -- avg of one metric
# grouped by host over 1 day in 1 h buckets -- against Sundial with rollups,
# Sundial without rollups (rollup.enabled=false) and VictoriaMetrics, all
# loaded with the same DevOps data in one run; plus a 7-day variant (one
# metric, 100 hosts, 7 days at 60 s) and the rollup bytes on disk per raw
# point. Servers are stopped by their PIDs at the end.
#
#   bench/rollup_query.sh [build-dir]        (default: build-release)
#   env: SECONDS_PER_QUERY (default 5), HOSTS (100), DAYS (7), INTERVAL (60, s, for the 7-day set)
set -euo pipefail

build=${1:-build-release}
secs=${SECONDS_PER_QUERY:-5}
hosts=${HOSTS:-100}
days=${DAYS:-7}
interval=${INTERVAL:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load query_bench
bench_workdir rollupbench

wait_rollups() {  # port: a pass finished with nothing left to rebuild
  for _ in $(seq 1 600); do
    if [ "$(stat_of "$1" tsd.rollup.passes)" -gt 1 ] && [ "$(stat_of "$1" tsd.rollup.dirty_pending)" -eq 0 ]; then
      return 0
    fi
    sleep 0.5
  done
  echo "rollups on :$1 not built in time" >&2; return 1
}

start_sundial() {  # name extra-flags... ; sets port_<name> pid_<name>
  local name=$1; shift
  local port; port=$(free_port)
  "$build/sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$work/$name" \
    --log-level warn --rollup-build-interval 1s "$@" >"$work/$name.log" 2>&1 &
  pids+=("$!")
  eval "port_$name=$port pid_$name=$!"
  wait_http "http://127.0.0.1:$port/api/version"
}
load() {  # port pid stats-kind stats-port ingest_load-flags...
  local port=$1 pid=$2 kind=$3 sport=$4; shift 4
  "$build/bench/ingest_load" --protocol=telnet --port="$port" --pid="$pid" \
    --stats="$kind" --stats-port="$sport" "$@" | tail -n 1
}
rollup_bytes() {  # port: rollup bytes on disk per raw point
  local points rbytes
  points=$(stat_of "$1" tsd.storage.points_appended)
  rbytes=$(stat_of "$1" tsd.rollup.disk_bytes)
  echo "rollup bytes on disk: $rbytes for $points raw points = $(python3 -c "print(f'{$rbytes/$points:.4f}')") B/point"
}
urlenc() { python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
bench_one() {  # label target-kind port path
  "$build/bench/query_bench" --target="$2" --port="$3" --seconds="$secs" --path="$4" | tail -n +2 |
    awk -v l="$1" '{printf "%-28s conc %s  p50 %8.3f ms  p99 %8.3f ms  %7.0f q/s\n", l, $3, $4, $5, $6}'
}

# ---- 1 day, query (c): the DevOps set (hosts x 101 metrics x 1 h at 10 s) ----
start_sundial on
start_sundial off --rollup-enabled false
start_vm vm
echo "== DevOps set: $hosts hosts x 101 metrics x 1 h at 10 s"
load "$port_on" "$pid_on" sundial "$port_on" --hosts="$hosts" --duration=3600
load "$port_off" "$pid_off" sundial "$port_off" --hosts="$hosts" --duration=3600
load "$tsdb_vm" "$pid_vm" vm "$http_vm" --hosts="$hosts" --duration=3600
curl -fsS "http://127.0.0.1:$http_vm/internal/force_flush" >/dev/null || true
wait_rollups "$port_on"
s=1700000000; h=$((s + 3599))
c_sd="/api/query?start=$((h - 86400 + 1))&end=$h&m=$(urlenc 'avg:1h-avg:cpu.usage_user{host=*}')"
c_vm="/api/v1/query_range?start=$((h - 86400 + 1))&end=$h&step=3600&query=$(urlenc 'avg by (host) (avg_over_time({__name__="cpu.usage_user"}[1h]))')"
echo "== query (c): avg of cpu.usage_user by host, 1 day, 1 h buckets (${secs}s each)"
for round in 1 2; do
  bench_one "sundial rollups (round $round)" sundial "$port_on" "$c_sd"
  bench_one "sundial raw     (round $round)" sundial "$port_off" "$c_sd"
  bench_one "victoria        (round $round)" vm "$http_vm" "$c_vm"
done
rollup_bytes "$port_on"
for p in "$pid_on" "$pid_off" "$pid_vm"; do kill "$p"; wait "$p" 2>/dev/null || true; done
pids=()
echo "data dirs after a clean stop (bytes): rollups $(du -sb "$work/on" | cut -f1), no rollups $(du -sb "$work/off" | cut -f1), rollup/ $(du -sb "$work/on/rollup" | cut -f1)"

# ---- 7 days: one metric, hosts x 7 d at 10 s ----
start_sundial on7
start_sundial off7 --rollup-enabled false
start_vm vm7
dur=$((days * 86400))
echo "== $days-day set: $hosts hosts x 1 metric x $days d at ${interval} s"
load "$port_on7" "$pid_on7" sundial "$port_on7" --hosts="$hosts" --metrics=1 --duration="$dur" --interval="$interval"
load "$port_off7" "$pid_off7" sundial "$port_off7" --hosts="$hosts" --metrics=1 --duration="$dur" --interval="$interval"
load "$tsdb_vm7" "$pid_vm7" vm "$http_vm7" --hosts="$hosts" --metrics=1 --duration="$dur" --interval="$interval"
curl -fsS "http://127.0.0.1:$http_vm7/internal/force_flush" >/dev/null || true
wait_rollups "$port_on7"
e=$((s + dur - 1))
for span in 86400 "$dur"; do
  q_sd="/api/query?start=$((e - span + 1))&end=$e&m=$(urlenc 'avg:1h-avg:cpu.usage_user{host=*}')"
  q_vm="/api/v1/query_range?start=$((e - span + 1))&end=$e&step=3600&query=$(urlenc 'avg by (host) (avg_over_time({__name__="cpu.usage_user"}[1h]))')"
  echo "== avg by host in 1 h buckets over the last $((span / 86400)) day(s)"
  bench_one "sundial rollups" sundial "$port_on7" "$q_sd"
  bench_one "sundial raw" sundial "$port_off7" "$q_sd"
  bench_one "victoria" vm "$http_vm7" "$q_vm"
done
rollup_bytes "$port_on7"
