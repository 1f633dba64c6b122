#!/usr/bin/env bash
# The memory of one query over many compacted series: loads HOSTS series of
# one metric (ingest_load, 10 s points over DURATION s) with compaction off,
# restarts sundiald so that the partitions are compacted into cold files,
# then starts a fresh process and prints its peak resident memory (VmHWM)
# before and after each query, with the HTTP status and time:
#   sum:1h-avg:cpu.usage_user   (few buckets per series: read member by member)
#   sum:1m-avg:cpu.usage_user   (many buckets: read together, the decoded runs
#                                counted against query.max_memory; 413 over it)
#
#   bench/query_wide_memory.sh [build-dir]      (default: build-release)
#   env: HOSTS (20000), DURATION (21600), SUNDIAL_FLAGS (extra sundiald flags
#        for the query process, e.g. --query-max-memory=1GiB)
set -euo pipefail

build=${1:-build-release}
hosts=${HOSTS:-20000}
duration=${DURATION:-21600}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load
bench_workdir widemem

start_sundial() {  # flags...
  port=$(free_port)
  "$build/sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$work/data" \
    --log-level warn "$@" >>"$work/sundial.log" 2>&1 &
  pid=$!; pids+=("$pid")
  wait_http "http://127.0.0.1:$port/api/version"
}
peak_mb() { awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }

echo "== loading $hosts series x $((duration / 10)) points"
start_sundial --storage-compact-after=0
"$build/bench/ingest_load" --protocol=telnet --port="$port" --pid="$pid" \
  --hosts="$hosts" --metrics=1 --duration="$duration" --stats=sundial | tail -n 1
stop_pid "$pid"

echo "== compacting"
start_sundial --storage-compact-after=1m
waited=0
while [ "$(stat_of "$port" tsd.storage.partitions_compacted)" -lt 1 ] && [ "$waited" -lt 300 ]; do
  sleep 1; waited=$((waited + 1))
done
sleep 2  # a second partition, when the span crosses a day
stop_pid "$pid"
echo "   $(du -sh "$work/data" | cut -f1) on disk, compacted after ${waited}s"

# shellcheck disable=SC2086  # SUNDIAL_FLAGS is a list of flags
start_sundial --query-cache-size=0 --rollup-enabled=false ${SUNDIAL_FLAGS:-}
start=1700000000
end=$((start + duration - 1))
for ds in 1h-avg 1m-avg; do
  before=$(peak_mb)
  r=$(curl -s -o "$work/answer" -w '%{http_code} %{time_total}' \
    "http://127.0.0.1:$port/api/query?start=$start&end=$end&m=sum:$ds:cpu.usage_user")
  echo "sum:$ds: HTTP ${r% *} in ${r#* } s, $(stat -c %s "$work/answer") bytes;" \
       "peak resident $before -> $(peak_mb) MB"
done
stop_pid "$pid"
