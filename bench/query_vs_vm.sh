#!/usr/bin/env bash
# Query benchmark, Sundial vs VictoriaMetrics, in one run on one machine.
#
# Starts sundiald and victoria-metrics on loopback with fresh temp data dirs,
# loads both with the same DevOps data (ingest_load over telnet: 100 hosts x
# 101 metrics x 1 h at 10 s = 3.6 M points), runs query_bench against each
# (queries a, b, c at concurrency 1 and 2; see bench/query_bench.cc) and
# prints the p50 ratios Sundial / VictoriaMetrics. The two servers are
# measured in alternating rounds, so that both see the same machine load.
# Both servers are stopped (by their PIDs) at the end.
#
#   bench/query_vs_vm.sh [build-dir]      (default: build-release)
#   env: SECONDS_PER_QUERY (default 5), HOSTS (100), DURATION (3600),
#        VM_FLAGS (extra victoria-metrics flags, e.g. -search.disableCache),
#        SUNDIAL_FLAGS (extra sundiald flags, e.g. --query-cache-size=0),
#        SETTLE (seconds between loading and querying, default 5),
#        ROLLUPS (wait: before querying, wait up to 90 s for Sundial's rollup
#        builder, which looks for closed hours once a minute, to roll up the
#        loaded hours, as it would have long before on a server in service;
#        nowait: query at once, so (c) reads raw points. Default wait.)
set -euo pipefail

build=${1:-build-release}
secs=${SECONDS_PER_QUERY:-5}
hosts=${HOSTS:-100}
duration=${DURATION:-3600}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load query_bench
bench_workdir qbench

sd_port=$(free_port)
# shellcheck disable=SC2086  # SUNDIAL_FLAGS is a list of flags
"$build/sundiald" --bind 127.0.0.1 --port "$sd_port" --data-dir "$work/sundial" \
  --log-level warn ${SUNDIAL_FLAGS:-} >"$work/sundial.log" 2>&1 &
sd_pid=$!; pids+=("$sd_pid")

wait_http "http://127.0.0.1:$sd_port/api/version"
# shellcheck disable=SC2086  # VM_FLAGS is a list of flags
start_vm vm ${VM_FLAGS:-}
vm_http=$http_vm vm_tsdb=$tsdb_vm vm_pid=$pid_vm

echo "== loading (hosts=$hosts, duration=${duration}s)"
"$build/bench/ingest_load" --protocol=telnet --port="$sd_port" --pid="$sd_pid" \
  --hosts="$hosts" --duration="$duration" --stats=sundial | tail -n 3
"$build/bench/ingest_load" --protocol=telnet --port="$vm_tsdb" --pid="$vm_pid" \
  --hosts="$hosts" --duration="$duration" --stats=vm --stats-port="$vm_http" | tail -n 3
curl -fsS "http://127.0.0.1:$vm_http/internal/force_flush" >/dev/null || true
rollup_stat() { stat_of "$sd_port" "tsd.rollup.$1"; }
if [ "${ROLLUPS:-wait}" = wait ]; then
  waited=0
  # Rollups are read below the watermark (Unix seconds); the data starts at
  # 1700000000 (ingest_load's default).
  while [ "$(rollup_stat watermark)" -lt $((1700000000 + duration)) ] && [ "$waited" -lt 90 ]; do
    sleep 1; waited=$((waited + 1))
  done
  echo "== Sundial rolled up $(rollup_stat hours_built) series-hours (waited ${waited}s)"
fi
# Let both servers finish their post-load background work (page writes,
# merges) before the first query is timed.
sleep "${SETTLE:-5}"

echo "== queries (${secs}s per query and concurrency, alternating rounds; load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench/query_bench" --port="$sd_port" --vm-port="$vm_http" --seconds="$secs" --rounds=5
echo "== Sundial answered $(rollup_stat hours_read) series-hours from rollups;" \
  "bucket cache: $(stat_of "$sd_port" tsd.query.cache.hits) hits, $(stat_of "$sd_port" tsd.query.cache.misses) misses"
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
