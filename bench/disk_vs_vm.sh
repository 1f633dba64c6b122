#!/usr/bin/env bash
# Disk use after compaction: the same DevOps-style data (ingest_load's data
# set: hosts x metrics, one point per 10 s) sent over telnet to sundiald and
# to VictoriaMetrics' OpenTSDB listener, compacted by both (Sundial's
# maintenance compacts every ended partition; VictoriaMetrics gets
# /internal/force_merge), both stopped cleanly, then bytes per point of each
# data directory (du --apparent-size and du, that is blocks allocated) and
# the ratio Sundial / VictoriaMetrics. Sundial's figure includes everything
# in its data dir: cold files, rollups, index, WAL. Then what each process
# wrote to get there, per point (/proc/PID/io write_bytes minus
# cancelled_write_bytes, read once the compaction or merge is done, just
# before the stop): the WAL, pages and compaction for Sundial, parts and
# their merges for VictoriaMetrics; a flash card wears by this figure.
#
#   bench/disk_vs_vm.sh [build-dir]      (default: build-release)
#   env: HOSTS (10), METRICS (101), DAYS ("1 7": one run per figure),
#        VALUES ("decimal full": 2-decimal percentages with integer counters
#        and gauges, or full-precision double random walks),
#        SUNDIAL_FLAGS (extra sundiald flags, e.g. "--rollup.enabled false"),
#        SUNDIALD (another sundiald binary, e.g. one built from main),
#        KEEP (a directory: Sundial's data dirs are moved there, e.g. for
#        bench/query_engine_bench over cold files)
# Every server is stopped (by its PID) at the end.
set -euo pipefail

build=${1:-build-release}
hosts=${HOSTS:-10}
metrics=${METRICS:-101}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. bench/bench_lib.sh
bench_prepare sundiald ingest_load cold_file_stats
bench_workdir disk

# stop pid: SIGTERM and wait for the process to exit (a clean stop).
stop() {
  kill "$1" 2>/dev/null || true
  for _ in $(seq 1 600); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  echo "process $1 did not stop" >&2
}
# vm_metric port name: the sum of a VictoriaMetrics /metrics counter.
vm_metric() {
  curl -fsS "http://127.0.0.1:$1/metrics" | awk -v n="$2" '
    index($0, n) == 1 { s += $NF } END { printf "%d\n", s }'
}
# written pid: bytes the process caused to be written to disk so far.
written() {
  awk '/^write_bytes/ { w = $2 } /^cancelled_write_bytes/ { c = $2 } END { print w - c }' \
    "/proc/$1/io"
}
bpp() { python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]):.3f}')" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

printf '%-8s %-5s %10s | %-28s | %-28s | %s\n' values days points \
  "sundial B/pt (apparent, du)" "vm B/pt (apparent, du)" "ratio (apparent, du)"
for values in ${VALUES:-decimal full}; do
  for days in ${DAYS:-1 7}; do
    spec=(--hosts="$hosts" --metrics="$metrics" --duration=$((days * 86400)) --interval=10
          --values="$values" --connections=2)
    name=s_${values}_$days
    port=$(free_port)
    # shellcheck disable=SC2086
    "${SUNDIALD:-$build/sundiald}" --bind 127.0.0.1 --port "$port" --data-dir "$work/$name" \
      --log-level warn ${SUNDIAL_FLAGS:-} >"$work/$name.log" 2>&1 &
    spid=$!
    pids+=("$spid")
    wait_http "http://127.0.0.1:$port/api/version"
    "$build/bench/ingest_load" --protocol=telnet --port="$port" --pid="$spid" "${spec[@]}" \
      --stats=sundial --timeout=3600 | tail -n 1 >"$work/$name.load"
    points=$(sed -n 's/.* points=\([0-9]*\).*/\1/p' "$work/$name.load")
    [ -n "$points" ] || points=$(stat_of "$port" tsd.storage.points_appended)
    # Every day the data touches is a partition; all ended long ago, so
    # maintenance compacts them one after the other.
    parts=$(( (1700000000 % 86400 + days * 86400 + 86399) / 86400 ))
    for _ in $(seq 1 3600); do
      [ "$(stat_of "$port" tsd.storage.partitions_compacted)" -ge "$parts" ] && break
      sleep 0.5
    done
    [ "$(stat_of "$port" tsd.storage.partitions_compacted)" -ge "$parts" ] ||
      echo "warning: sundial compacted fewer than $parts partitions" >&2
    s_written=$(written "$spid")
    stop "$spid"
    s_app=$(du -sb "$work/$name" | cut -f1)
    s_du=$(( $(du -sk "$work/$name" | cut -f1) * 1024 ))

    vname=v_${values}_$days
    start_vm "$vname"
    eval "vhttp=\$http_$vname vtsdb=\$tsdb_$vname vpid=\$pid_$vname"
    "$build/bench/ingest_load" --protocol=telnet --port="$vtsdb" --stats=vm \
      --stats-port="$vhttp" --pid="$vpid" "${spec[@]}" --timeout=3600 >/dev/null
    curl -fsS "http://127.0.0.1:$vhttp/internal/force_flush" >/dev/null || true
    curl -fsS "http://127.0.0.1:$vhttp/internal/force_merge" >/dev/null || true
    sleep 2
    for _ in $(seq 1 3600); do
      [ "$(vm_metric "$vhttp" vm_active_merges)" -eq 0 ] && break
      sleep 0.5
    done
    v_written=$(written "$vpid")
    stop "$vpid"
    v_app=$(du -sb "$work/$vname" | cut -f1)
    v_du=$(( $(du -sk "$work/$vname" | cut -f1) * 1024 ))

    sa=$(bpp "$s_app" "$points"); sd=$(bpp "$s_du" "$points")
    va=$(bpp "$v_app" "$points"); vd=$(bpp "$v_du" "$points")
    printf '%-8s %-5s %10s | %-28s | %-28s | %s\n' "$values" "$days" "$points" \
      "$sa  $sd" "$va  $vd" "$(ratio "$sa" "$va")  $(ratio "$sd" "$vd")"
    sw=$(bpp "$s_written" "$points"); vw=$(bpp "$v_written" "$points")
    echo "  written to disk to get there: sundial $sw B/pt, vm $vw B/pt, ratio $(ratio "$sw" "$vw")"
    # Where Sundial's bytes go: the files by size, then what the cold
    # files spend them on (bench/cold_file_stats.cc).
    du -ab "$work/$name" | sort -n | tail -n 6 | sed "s|$work/||"
    "$build/bench/cold_file_stats" "$work/$name" | sed 's/^/    /'
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && rm -rf "${KEEP:?}/$name" && mv "$work/$name" "$KEEP/"; fi
    rm -rf "${work:?}/$name" "${work:?}/$vname"
  done
done
