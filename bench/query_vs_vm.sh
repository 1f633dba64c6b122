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

if [ ! -x "$build/sundiald" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target sundiald ingest_load query_bench >/dev/null
command -v victoria-metrics >/dev/null || { echo "victoria-metrics is not installed (apt-get install victoria-metrics)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sundial-qbench.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {  # url
  for _ in $(seq 1 200); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "server at $1 did not come up" >&2; return 1
}

sd_port=$(free_port)
"$build/sundiald" --bind 127.0.0.1 --port "$sd_port" --data-dir "$work/sundial" \
  --log-level warn >"$work/sundial.log" 2>&1 &
sd_pid=$!; pids+=("$sd_pid")

vm_http=$(free_port); vm_tsdb=$(free_port)
victoria-metrics -storageDataPath="$work/vm" -retentionPeriod=100y \
  -httpListenAddr=127.0.0.1:"$vm_http" -opentsdbListenAddr=127.0.0.1:"$vm_tsdb" \
  -loggerLevel=ERROR ${VM_FLAGS:-} >"$work/vm.log" 2>&1 &
vm_pid=$!; pids+=("$vm_pid")

wait_http "http://127.0.0.1:$sd_port/api/version"
wait_http "http://127.0.0.1:$vm_http/health"

echo "== loading (hosts=$hosts, duration=${duration}s)"
"$build/bench/ingest_load" --protocol=telnet --port="$sd_port" --pid="$sd_pid" \
  --hosts="$hosts" --duration="$duration" --stats=sundial | tail -n 3
"$build/bench/ingest_load" --protocol=telnet --port="$vm_tsdb" --pid="$vm_pid" \
  --hosts="$hosts" --duration="$duration" --stats=vm --stats-port="$vm_http" | tail -n 3
curl -fsS "http://127.0.0.1:$vm_http/internal/force_flush" >/dev/null || true
rollup_stat() {  # name: a tsd.rollup.* figure from Sundial's /api/stats
  curl -fsS "http://127.0.0.1:$sd_port/api/stats" | python3 -c '
import json, sys
print(next((int(x["value"]) for x in json.load(sys.stdin) if x["metric"] == "tsd.rollup." + sys.argv[1]), 0))' "$1"
}
if [ "${ROLLUPS:-wait}" = wait ]; then
  waited=0
  while [ "$(rollup_stat hours_built)" -eq 0 ] && [ "$waited" -lt 90 ]; do sleep 1; waited=$((waited + 1)); done
  echo "== Sundial rolled up $(rollup_stat hours_built) series-hours (waited ${waited}s)"
fi
# Let both servers finish their post-load background work (page writes,
# merges) before the first query is timed.
sleep "${SETTLE:-5}"

echo "== queries (${secs}s per query and concurrency, alternating rounds; load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench/query_bench" --port="$sd_port" --vm-port="$vm_http" --seconds="$secs" --rounds=5
echo "== Sundial answered $(rollup_stat hours_read) series-hours from rollups"
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
