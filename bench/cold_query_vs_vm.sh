#!/usr/bin/env bash
# Query after a restart with a cold page cache, Sundial vs VictoriaMetrics,
# in one run on one machine.
#
# Loads the same DevOps data (ingest_load over telnet: HOSTS hosts x METRICS
# metrics x DURATION s at 10 s) into sundiald and victoria-metrics, stops
# both, drops their data files from the page cache (bench/cold_cache.py:
# posix_fadvise(DONTNEED) on every file of each data dir, not the whole
# machine's cache), starts both again on the same data and times the query
#   avg of cpu.usage_user per host over the whole span in 1 h buckets
# (Sundial: /api/query avg:1h-avg:cpu.usage_user{host=*}; VictoriaMetrics:
# /api/v1/query_range avg by (host) (avg_over_time(...[1h])), step 1 h).
# Sundial runs with its bucket cache and rollups off, so that raw pages are
# read; VictoriaMetrics with -search.disableCache. Sundial's partitions stay
# page files (compaction off) unless COMPACT_AFTER is set (e.g. 1m): then the
# script restarts sundiald with it after the load, waits for both partitions
# to be compacted into cold files before the stop, and the cold files are
# what is read.
#
# Printed per server: the first query after the restart, then p50/p99 over
# ROUNDS queries with the cache dropped before each one (cold), then p50/p99
# over ROUNDS queries without dropping (warm), and the ratios
# Sundial / VictoriaMetrics of each. Both servers are stopped (by their
# PIDs) at the end.
#
#   bench/cold_query_vs_vm.sh [build-dir]      (default: build-release)
#   env: HOSTS (100), METRICS (101), DURATION (86400), ROUNDS (50),
#        COMPACT_AFTER (0 = page files), SUNDIAL_FLAGS (extra sundiald flags),
#        VM_FLAGS (extra victoria-metrics flags, e.g. -fs.disableMmap)
#
# A dropped file stays cached where a running process has it mapped:
# VictoriaMetrics maps its data files on 64-bit machines, so after its
# first query its "cold" rounds may read pages that the drop could not
# evict. The script prints how much of each server's files is still cached
# right after a drop (fincore); VM_FLAGS=-fs.disableMmap makes
# VictoriaMetrics read with pread, as Sundial does, and its rounds cold.
set -euo pipefail

build=${1:-build-release}
hosts=${HOSTS:-100}
metrics=${METRICS:-101}
duration=${DURATION:-86400}
rounds=${ROUNDS:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load
bench_workdir coldq

sd_port=$(free_port)
start_sundial() {  # [compact-after]: 0 (the default) leaves the partitions as they are
  # shellcheck disable=SC2086  # SUNDIAL_FLAGS is a list of flags
  "$build/sundiald" --bind 127.0.0.1 --port "$sd_port" --data-dir "$work/sundial" \
    --log-level warn --query-cache-size=0 --rollup-enabled=false \
    --storage-compact-after="${1:-0}" ${SUNDIAL_FLAGS:-} \
    >>"$work/sundial.log" 2>&1 &
  sd_pid=$!; pids+=("$sd_pid")
  wait_http "http://127.0.0.1:$sd_port/api/version"
}

start_sundial
# shellcheck disable=SC2086  # VM_FLAGS is a list of flags
start_vm vm -search.disableCache ${VM_FLAGS:-}
vm_http=$http_vm vm_tsdb=$tsdb_vm

echo "== loading (hosts=$hosts, metrics=$metrics, duration=${duration}s)"
"$build/bench/ingest_load" --protocol=telnet --port="$sd_port" --pid="$sd_pid" \
  --hosts="$hosts" --metrics="$metrics" --duration="$duration" --stats=sundial | tail -n 2
"$build/bench/ingest_load" --protocol=telnet --port="$vm_tsdb" --pid="$pid_vm" \
  --hosts="$hosts" --metrics="$metrics" --duration="$duration" --stats=vm \
  --stats-port="$vm_http" | tail -n 2
curl -fsS "http://127.0.0.1:$vm_http/internal/force_flush" >/dev/null || true
sleep "${SETTLE:-5}"
if [ "${COMPACT_AFTER:-0}" != 0 ]; then
  # Compaction starts only once the load is in: a partition compacted while
  # points still arrive keeps them in a page file beside its cold file for
  # an hour (the recompaction delay), and the query would read both.
  stop_pid "$sd_pid"
  start_sundial "$COMPACT_AFTER"
  waited=0
  while [ "$(stat_of "$sd_port" tsd.storage.partitions_compacted)" -lt 2 ] && [ "$waited" -lt 300 ]; do
    sleep 1; waited=$((waited + 1))
  done
  echo "== Sundial compacted $(stat_of "$sd_port" tsd.storage.partitions_compacted) partitions (waited ${waited}s)"
fi

echo "== stopping both, dropping their files from the page cache, starting both again"
stop_pid "$sd_pid"
stop_pid "$pid_vm"
python3 bench/cold_cache.py drop "$work/sundial" "$work/vm"
t0=$(date +%s%N)
start_sundial
echo "   sundiald up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
t0=$(date +%s%N)
# start_vm makes a fresh dir only if missing: the same data dir is reopened.
# shellcheck disable=SC2086
start_vm vm -search.disableCache ${VM_FLAGS:-}
echo "   victoria-metrics up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
vm_http=$http_vm
echo "   $(du -sh "$work/sundial" | cut -f1) Sundial, $(du -sh "$work/vm" | cut -f1) VictoriaMetrics on disk"

start=1700000000
end=$((start + duration - 1))
sd_url="http://127.0.0.1:$sd_port/api/query?start=$start&end=$end&m=avg:1h-avg:cpu.usage_user%7Bhost=*%7D"
promql='avg by (host) (avg_over_time({__name__="cpu.usage_user"}[1h]))'
vm_url="http://127.0.0.1:$vm_http/api/v1/query_range?start=$start&end=$end&step=3600&query=$(
  python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$promql")"

echo "== cold: first query after the restart, then $rounds queries with the files dropped before each"
python3 bench/cold_cache.py time --label sundial --url "$sd_url" --rounds "$rounds" \
  --drop "$work/sundial" --out "$work/sd.cold"
python3 bench/cold_cache.py time --label vm --url "$vm_url" --rounds "$rounds" \
  --drop "$work/vm" --out "$work/vm.cold"
if command -v fincore >/dev/null; then
  cached() { find "$1" -type f -exec fincore -b -n -o RES {} + 2>/dev/null | awk '{s += $1} END {printf "%.1f MB", s / 1e6}'; }
  python3 bench/cold_cache.py drop "$work/sundial" "$work/vm" >/dev/null
  echo "   still cached right after a drop: Sundial $(cached "$work/sundial"), VictoriaMetrics $(cached "$work/vm")"
fi
echo "== warm: $rounds queries without dropping"
python3 bench/cold_cache.py time --label sundial --url "$sd_url" --rounds "$rounds" --out "$work/sd.warm"
python3 bench/cold_cache.py time --label vm --url "$vm_url" --rounds "$rounds" --out "$work/vm.warm"

python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
def r(name):
    return [float(x) for x in open(w + "/" + name).read().split()]
sc, vc, sw, vw = r("sd.cold"), r("vm.cold"), r("sd.warm"), r("vm.warm")
print("== ratios Sundial / VictoriaMetrics (below 1: Sundial faster)")
print("   first query after restart %.2f" % (sc[0] / vc[0]))
print("   cold p50 %.2f   cold p99 %.2f" % (sc[1] / vc[1], sc[2] / vc[2]))
print("   warm p50 %.2f   warm p99 %.2f" % (sw[1] / vw[1], sw[2] / vw[2]))
EOF
echo "== Sundial pages read: $(stat_of "$sd_port" tsd.storage.pages_read)"
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
