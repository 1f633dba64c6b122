#!/usr/bin/env bash
# Bulk import benchmark: `sundiald import` of a tsdb import file vs live
# telnet ingest of the same points (ingest_load's pre-built bytes, and the
# same file sent live with zcat | nc) vs VictoriaMetrics'
# /api/v1/import (JSON lines) of the same points, in one run on one machine;
# then `sundiald export` of everything back out. Prints points/s of each,
# the ratios, and the servers' RssAnon (sampled every 0.2 s) while importing
# and exporting.
#
#   bench/import_vs_vm.sh [build-dir]      (default: build-release)
#   env: HOSTS (100), INTERVAL (10 s), STEPS (points per series, 990:
#        100 hosts x 101 metrics x 990 = 10 M points), CONNECTIONS (telnet
#        and import, 4). INTERVAL=95000 spreads the points over three years
#        (one per series about every 26 hours: every day partition is hit).
# Every server is stopped (by its PID) at the end.
set -euo pipefail

build=${1:-build-release}
hosts=${HOSTS:-100}
interval=${INTERVAL:-10}
duration=$(( ${STEPS:-990} * interval ))
conns=${CONNECTIONS:-4}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load
bench_workdir import

spec=(--hosts="$hosts" --duration="$duration" --interval="$interval")
echo "== generating the data set (${spec[*]})"
"$build/bench/ingest_load" --dump="$work/data.tsdb" "${spec[@]}"
points=$(wc -l <"$work/data.tsdb")
# VictoriaMetrics' JSON lines: one object per series with all its points.
python3 - "$work/data.tsdb" "$work/data.vm.jsonl" <<'PY'
import json, sys
series = {}
with open(sys.argv[1]) as f:
    for line in f:
        parts = line.split()
        key = (parts[0], tuple(parts[3:]))
        ts, vs = series.setdefault(key, ([], []))
        ts.append(int(parts[1]) * 1000)
        vs.append(float(parts[2]))
with open(sys.argv[2], "w") as out:
    for (metric, tags), (ts, vs) in series.items():
        labels = {"__name__": metric}
        labels.update(t.split("=", 1) for t in tags)
        out.write(json.dumps({"metric": labels, "values": vs, "timestamps": ts}) + "\n")
PY
gzip -1 -c "$work/data.tsdb" >"$work/data.tsdb.gz"
rm "$work/data.tsdb"
echo "points=$points file=$(du -h "$work/data.tsdb.gz" | cut -f1) (gzip)"

start_sundial() {  # name -> port_<name>, pid_<name>
  local port; port=$(free_port)
  "$build/sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$work/$1" \
    --log-level warn >"$work/$1.log" 2>&1 &
  pids+=("$!")
  eval "port_$1=$port pid_$1=$!"
  wait_http "http://127.0.0.1:$port/api/version"
}
# sample pid: the largest RssAnon (MiB) seen until the file $work/stop exists.
sample_rss() {
  local max=0 v
  while [ ! -e "$work/stop" ]; do
    v=$(awk '/RssAnon/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0)
    [ "${v:-0}" -gt "$max" ] && max=$v
    sleep 0.2
  done
  echo $((max / 1024))
}
now() { date +%s.%N; }

echo "== sundiald import ($conns connections)"
start_sundial imp
rm -f "$work/stop"; sample_rss "$pid_imp" >"$work/rss_imp" &
sampler=$!
t0=$(now)
"$build/sundiald" import --connections "$conns" --url "http://127.0.0.1:$port_imp" "$work/data.tsdb.gz" 2>"$work/import.err" || true
t1=$(now)
touch "$work/stop"; wait "$sampler"
tail -n 1 "$work/import.err"
import_rate=$(python3 -c "print(round($points / ($t1 - $t0)))")
echo "import points_per_s=$import_rate server_rss_anon_peak_mb=$(cat "$work/rss_imp")"

echo "== live telnet ingest (ingest_load, $conns connections)"
start_sundial tel
telnet_line=$("$build/bench/ingest_load" --protocol=telnet --port="$port_tel" --pid="$pid_tel" \
  --connections="$conns" "${spec[@]}" --stats=sundial --timeout=1200 | tail -n 1)
echo "$telnet_line"
telnet_rate=$(sed -n 's/.*points_per_s=\([0-9]*\).*/\1/p' <<<"$telnet_line")

echo "== live telnet ingest of the same file (zcat | put lines | nc, one connection)"
start_sundial nc
t0=$(now)
zcat "$work/data.tsdb.gz" | sed 's/^/put /' | nc -q 1 127.0.0.1 "$port_nc" >/dev/null
for _ in $(seq 1 12000); do
  [ "$(stat_of "$port_nc" tsd.storage.points_appended)" -ge "$points" ] && break
  sleep 0.1
done
t1=$(now)
nc_rate=$(python3 -c "print(round($points / ($t1 - $t0)))")
echo "nc points_per_s=$nc_rate"

echo "== VictoriaMetrics /api/v1/import"
start_vm vm
t0=$(now)
curl -fsS --data-binary @"$work/data.vm.jsonl" "http://127.0.0.1:$http_vm/api/v1/import"
curl -fsS "http://127.0.0.1:$http_vm/internal/force_flush" >/dev/null || true
for _ in $(seq 1 6000); do
  n=$(curl -fsS "http://127.0.0.1:$http_vm/metrics" |
      awk '/^vm_rows_added_to_storage_total/ {print $2}')
  [ "${n%.*}" -ge "$points" ] 2>/dev/null && break
  sleep 0.1
done
t1=$(now)
vm_rate=$(python3 -c "print(round($points / ($t1 - $t0)))")
echo "vm_import points_per_s=$vm_rate"

echo "== sundiald export (put lines to /dev/null)"
rm -f "$work/stop"; sample_rss "$pid_imp" >"$work/rss_exp" &
sampler=$!
t0=$(now)
"$build/sundiald" export --url "http://127.0.0.1:$port_imp" '*' >"$work/export.txt"
t1=$(now)
touch "$work/stop"; wait "$sampler"
exported=$(wc -l <"$work/export.txt")
echo "export points=$exported points_per_s=$(python3 -c "print(round($exported / ($t1 - $t0)))")" \
     "server_rss_anon_peak_mb=$(cat "$work/rss_exp")"

echo "== ratios"
python3 -c "print(f'import / telnet = {$import_rate / $telnet_rate:.2f}'); print(f'import / file over nc = {$import_rate / $nc_rate:.2f}'); print(f'import / vm_import = {$import_rate / $vm_rate:.2f}')"
