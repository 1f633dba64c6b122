#!/usr/bin/env bash
# backfill_memory.sh: memory and stop time of an out-of-order history
# backfill (the IoTDB benchmark's shape: 5 devices x 10 sensors, a point
# every 5 s from 1973, half of the batches going back in time; see
# bench/backfill_load.cc). Starts sundiald on loopback with a fresh data
# dir, sends POINTS points over 5 telnet connections as fast as the server
# takes them, prints RssAnon and RssFile (from /proc/PID/status) every
# SAMPLE seconds and their peaks, the engine's pending-page counters from
# /api/stats, then the time a SIGTERM stop takes.
#
# Usage: bench/backfill_memory.sh [build dir]     (default build)
#   POINTS=5000000 (50000000 for the long run), BATCH=100, OOO=0.5, MIX=0.25,
#   INTERVAL=5 (seconds between points), SEED=1,
#   SAMPLE=2, SUNDIAL_ARGS="..." (extra server options, e.g.
#   "--storage.pending_budget 4MiB")
set -euo pipefail
build=${1:-build}
points=${POINTS:-5000000}
sample=${SAMPLE:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/sundial-backfill.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# shellcheck disable=SC2086
"$build/sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$work/data" \
  ${SUNDIAL_ARGS:-} >"$work/log" 2>&1 &
pid=$!
loader=
cleanup() {
  [ -n "$loader" ] && kill "$loader" 2>/dev/null || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/version" 2>/dev/null && break
  sleep 0.1
done
field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }  # kB
stat() {  # a counter from /api/stats, summed over its tags (tsd.storage.memory: part=all)
  curl -fsS "http://127.0.0.1:$port/api/stats" |
    python3 -c "import json,sys; print(sum(int(float(m['value'])) for m in json.load(sys.stdin) if m['metric']=='$1' and m.get('tags',{}).get('part','all')=='all'))"
}
echo "sundiald pid $pid, idle RssAnon $(field $pid RssAnon) kB"
"$build/bench/backfill_load" --port="$port" --points="$points" --batch="${BATCH:-100}" \
  --ooo="${OOO:-0.5}" --mix="${MIX:-0.25}" --interval="${INTERVAL:-5}" --seed="${SEED:-1}" &
loader=$!
peak_anon=0
peak_file=0
t0=$(date +%s.%N)
while kill -0 "$loader" 2>/dev/null; do
  anon=$(field $pid RssAnon)
  file=$(field $pid RssFile)
  [ "$anon" -gt "$peak_anon" ] && peak_anon=$anon
  [ "$file" -gt "$peak_file" ] && peak_file=$file
  printf '%7.1f s  RssAnon %7d kB  RssFile %7d kB\n' \
    "$(echo "$(date +%s.%N) - $t0" | bc)" "$anon" "$file"
  sleep "$sample"
done
wait "$loader"
loader=
anon=$(field $pid RssAnon)
[ "$anon" -gt "$peak_anon" ] && peak_anon=$anon
echo "after the run: RssAnon $anon kB, RssFile $(field $pid RssFile) kB"
echo "peak while sampled: RssAnon $peak_anon kB, RssFile $peak_file kB, VmHWM $(field $pid VmHWM) kB"
for m in tsd.storage.pages_pending tsd.storage.pending_bytes_peak tsd.storage.append_waits \
         tsd.storage.memory tsd.storage.partitions_open tsd.storage.page_count; do
  v=$(stat "$m" 2>/dev/null || true)
  [ -n "$v" ] && echo "$m $v"
done
echo "partitions on disk: $(ls "$work/data/part" | wc -l), data dir $(du -sm "$work/data" | cut -f1) MiB"
t1=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid" || true
printf 'SIGTERM stop took %.2f s\n' "$(echo "$(date +%s.%N) - $t1" | bc)"
