#!/usr/bin/env bash
# Ingest benchmark: the same pre-generated DevOps load (ingest_load) against
# VictoriaMetrics (its OpenTSDB telnet and HTTP listeners), InfluxDB 1.x
# (its OpenTSDB listener, when installed) and Sundial, in one run, each
# server fresh, on loopback. Prints one line per server run and, per
# protocol, the medians and Sundial's ratios to each peer.
#
#   bench/compare_ingest.sh [build dir] [extra ingest_load flags...]
#   RUNS=3 bench/compare_ingest.sh build     # each server 3 times, medians
#
# Needs the Debian package victoria-metrics. Optional: the Debian package
# influxdb (1.6); its binary is started from a config written to a temp dir
# (only the [[opentsdb]] listener, plus the HTTP API for /debug/vars, both
# on loopback ports; data, WAL and meta in the temp dir) and stopped by PID.
# Set PEERS="vm" to leave InfluxDB out. Defaults: 100 hosts x 101 metrics x
# 1 h at 10 s (3,636,000 points, 8 tags each), 4 connections, HTTP batches
# of 5000 points.
#
# PROTOS picks the protocols (default "telnet http"); "influx" is InfluxDB
# line protocol over HTTP: Sundial's /write against VictoriaMetrics'
# /influx/write (InfluxDB itself is left out of it), with INFLUX_FLAGS
# (default: 1000 hosts x the 10 cpu fields x 1 h at 10 s = 3,600,000
# points, 10,000 series, 8 tags, 5000 lines per request), e.g.
#   PROTOS=influx PEERS=vm bench/compare_ingest.sh build
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
extra=("$@")
runs="${RUNS:-1}"
protos=(${PROTOS:-telnet http})
influx_flags=(${INFLUX_FLAGS:---hosts=1000 --metrics=10 --batch=5000})
load="$build/bench/ingest_load"
sundiald="$build/sundiald"
vm="$(command -v victoria-metrics || true)"
influxd="$(command -v influxd || true)"
[[ -x "$load" && -x "$sundiald" ]] || { echo "build ingest_load and sundiald in $build first" >&2; exit 1; }
[[ -n "$vm" ]] || { echo "victoria-metrics not found (apt-get install victoria-metrics)" >&2; exit 1; }
peers=(${PEERS:-vm influx})
if [[ -z "$influxd" ]]; then
  peers=("${peers[@]/influx/}")
  echo "influxd not found: InfluxDB left out (optional: apt-get install influxdb)" >&2
fi

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
  for _ in $(seq 400); do curl -sf "http://127.0.0.1:$1$2" >/dev/null && return 0; sleep 0.05; done
  echo "server on :$1 did not come up" >&2; return 1
}
wait_tcp() {
  for _ in $(seq 400); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
  echo "listener on :$1 did not come up" >&2; return 1
}

# InfluxDB 1.x config: everything under $1, listeners on loopback only.
influx_conf() {  # influx_conf <dir> <opentsdb port> <http port> <rpc port>
  cat <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$4"
[meta]
  dir = "$1/meta"
[data]
  dir = "$1/data"
  wal-dir = "$1/wal"
  query-log-enabled = false
[retention]
  enabled = false
[shard-precreation]
  enabled = false
[monitor]
  store-enabled = false
[subscriber]
  enabled = false
[continuous_queries]
  enabled = false
[logging]
  level = "error"
[http]
  enabled = true
  bind-address = "127.0.0.1:$3"
  log-enabled = false
[[opentsdb]]
  enabled = true
  bind-address = "127.0.0.1:$2"
  database = "opentsdb"
  log-point-errors = false
EOF
}

declare -A results  # "<server>-<proto>" -> space-separated "rate cpu_s us rss" per run
run() {  # run <server> <protocol> <run number>
  local server=$1 proto=$2 dir="$work/$1-$2-$3"
  mkdir -p "$dir"
  local port args
  case $server in
    vm)
      local http_port tel_port ot_http_port
      http_port=$(free_port); tel_port=$(free_port); ot_http_port=$(free_port)
      "$vm" -storageDataPath="$dir" -httpListenAddr="127.0.0.1:$http_port" \
        -opentsdbListenAddr="127.0.0.1:$tel_port" -opentsdbHTTPListenAddr="127.0.0.1:$ot_http_port" \
        -loggerLevel=ERROR >"$dir.log" 2>&1 &
      server_pid=$!
      wait_http "$http_port" /metrics
      port=$([[ $proto == telnet ]] && echo "$tel_port" || echo "$ot_http_port")
      args=(--stats=vm --stats-port="$http_port")
      if [[ $proto == influx ]]; then
        port=$http_port
        args+=(--path=/influx/write)
      fi
      ;;
    influx)
      local http_port rpc_port
      port=$(free_port); http_port=$(free_port); rpc_port=$(free_port)
      influx_conf "$dir" "$port" "$http_port" "$rpc_port" >"$dir/influxdb.conf"
      "$influxd" run -config "$dir/influxdb.conf" >"$dir.log" 2>&1 &
      server_pid=$!
      wait_http "$http_port" /ping
      wait_tcp "$port"
      # The telnet listener creates its database on first use; /api/put
      # does not, so create it up front for both.
      curl -sf -XPOST "http://127.0.0.1:$http_port/query" \
        --data-urlencode "q=CREATE DATABASE opentsdb" >/dev/null
      args=(--stats=influx --stats-port="$http_port" --timeout=900)
      ;;
    sundial)
      port=$(free_port)
      "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$dir" >"$dir.log" 2>&1 &
      server_pid=$!
      wait_http "$port" /api/version
      args=(--stats=sundial --path=/write)
      ;;
  esac
  [[ $proto == influx ]] && args+=("${influx_flags[@]}")
  local out
  out=$("$load" --protocol="$proto" --port="$port" --pid="$server_pid" "${args[@]}" "${extra[@]}" 2>/dev/null)
  stop_server
  printf '%-16s %s\n' "$server/$proto" "$out"
  local f=()
  for key in points_per_s server_cpu_s server_cpu_us_per_point peak_rss_mb; do
    f+=("$(sed -E "s/.*[ ^]$key=([0-9.]+).*/\\1/" <<<" $out")")
  done
  results[$server-$proto]+="${f[*]};"
}

median() {  # median <server-proto> <field index 0..3>
  python3 -c '
import statistics, sys
rows = [r.split() for r in sys.argv[1].split(";") if r.strip()]
print(statistics.median(float(r[int(sys.argv[2])]) for r in rows))' "${results[$1]}" "$2"
}

echo "machine: $(nproc) cores, $(uname -r); load generator on the same machine"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); runs: $runs"
servers=("${peers[@]}" sundial)
for ((r = 1; r <= runs; r++)); do
  for proto in "${protos[@]}"; do
    for server in "${servers[@]}"; do
      [[ $proto == influx && $server == influx ]] && continue
      [[ -n "$server" ]] && run "$server" "$proto" "$r"
    done
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians of $runs run(s): points/s, server CPU s, server CPU us/point, peak RSS MB"
printf '%-8s %-8s %14s %12s %10s %10s %10s\n' protocol server "points/s" "cpu s" "us/pt" "RSS MB" "sundial x"
for proto in "${protos[@]}"; do
  s_rate=$(median "sundial-$proto" 0)
  for server in "${servers[@]}"; do
    [[ -n "$server" ]] || continue
    [[ $proto == influx && $server == influx ]] && continue
    rate=$(median "$server-$proto" 0)
    printf '%-8s %-8s %14.0f %12.3f %10.3f %10.1f %9.2fx\n' "$proto" "$server" "$rate" \
      "$(median "$server-$proto" 1)" "$(median "$server-$proto" 2)" \
      "$(median "$server-$proto" 3)" "$(python3 -c "print($s_rate/$rate)")"
  done
done
