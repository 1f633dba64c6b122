#!/usr/bin/env bash
# Ingest benchmark: the same pre-generated DevOps load (ingest_load) against
# VictoriaMetrics (its OpenTSDB telnet and HTTP listeners) and Sundial, in
# one run, each server fresh, on loopback. Prints one line per run and the
# Sundial/VictoriaMetrics ratios.
#
#   bench/compare_ingest.sh [build dir] [extra ingest_load flags...]
#
# Needs the Debian package victoria-metrics. Defaults: 100 hosts x 101
# metrics x 1 h at 10 s (3,636,000 points, 8 tags each), 4 connections,
# HTTP batches of 5000 points.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
extra=("$@")
load="$build/bench/ingest_load"
sundiald="$build/sundiald"
vm="$(command -v victoria-metrics || true)"
[[ -x "$load" && -x "$sundiald" ]] || { echo "build ingest_load and sundiald in $build first" >&2; exit 1; }
[[ -n "$vm" ]] || { echo "victoria-metrics not found (apt-get install victoria-metrics)" >&2; exit 1; }

work="$(mktemp -d /tmp/sundial_compare.XXXXXX)"
server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$1$2" >/dev/null && return 0; sleep 0.05; done
  echo "server on :$1 did not come up" >&2; return 1
}

declare -A rate cpu rss
run() {  # run <server> <protocol>
  local server=$1 proto=$2 dir="$work/$1-$2"
  mkdir -p "$dir"
  local port stats_port args
  if [[ $server == vm ]]; then
    local http_port tel_port ot_http_port
    http_port=$(free_port); tel_port=$(free_port); ot_http_port=$(free_port)
    "$vm" -storageDataPath="$dir" -httpListenAddr="127.0.0.1:$http_port" \
      -opentsdbListenAddr="127.0.0.1:$tel_port" -opentsdbHTTPListenAddr="127.0.0.1:$ot_http_port" \
      -loggerLevel=ERROR >"$dir.log" 2>&1 &
    server_pid=$!
    wait_http "$http_port" /metrics
    port=$([[ $proto == telnet ]] && echo "$tel_port" || echo "$ot_http_port")
    args=(--stats=vm --stats-port="$http_port")
  else
    port=$(free_port)
    "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$dir" >"$dir.log" 2>&1 &
    server_pid=$!
    wait_http "$port" /api/version
    args=(--stats=sundial)
  fi
  local out
  out=$("$load" --protocol="$proto" --port="$port" --pid="$server_pid" "${args[@]}" "${extra[@]}" 2>/dev/null)
  stop_server
  printf '%-16s %s\n' "$server/$proto" "$out"
  rate[$server-$proto]=$(sed -E 's/.*points_per_s=([0-9.]+).*/\1/' <<<"$out")
  cpu[$server-$proto]=$(sed -E 's/.*server_cpu_us_per_point=([0-9.]+).*/\1/' <<<"$out")
  rss[$server-$proto]=$(sed -E 's/.*peak_rss_mb=([0-9.]+).*/\1/' <<<"$out")
}

echo "machine: $(nproc) cores, $(uname -r); load generator on the same machine"
for proto in telnet http; do
  run vm "$proto"
  run sundial "$proto"
done
echo
printf '%-8s %14s %14s %8s %16s %16s %14s %14s\n' protocol "sundial pts/s" "vm pts/s" ratio \
  "sundial us/pt" "vm us/pt" "sundial MB" "vm MB"
for proto in telnet http; do
  s=${rate[sundial-$proto]}; v=${rate[vm-$proto]}
  printf '%-8s %14.0f %14.0f %7.2fx %16s %16s %14s %14s\n' "$proto" "$s" "$v" \
    "$(python3 -c "print($s/$v)")" "${cpu[sundial-$proto]}" "${cpu[vm-$proto]}" \
    "${rss[sundial-$proto]}" "${rss[vm-$proto]}"
done
