# Shell helpers shared by the benchmark scripts that start Sundial and
# VictoriaMetrics on loopback (query_vs_vm.sh, rollup_query.sh). Sourced,
# not run. Expects `build` (a build dir) to be set; the scripts run from the
# repository root.

# bench_prepare target...: configures $build (Release) if it has no
# sundiald yet, builds the targets, and checks that victoria-metrics exists.
bench_prepare() {
  if [ ! -x "$build/sundiald" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build" -j2 --target "$@" >/dev/null
  command -v victoria-metrics >/dev/null ||
    { echo "victoria-metrics is not installed (apt-get install victoria-metrics)"; exit 1; }
}

# bench_workdir name: a fresh temp dir in $work; every PID added to `pids`
# is stopped, and the dir removed, when the script exits.
bench_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/sundial-$1.XXXXXX")
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {  # url
  for _ in $(seq 1 200); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "server at $1 did not come up" >&2; return 1
}
stop_pid() {  # pid: SIGTERM, then wait for a clean stop
  kill "$1"
  for _ in $(seq 1 600); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  echo "process $1 did not stop in 60 s" >&2; return 1
}
# stat_of port metric: a figure from Sundial's /api/stats (0 if absent).
stat_of() {
  curl -fsS "http://127.0.0.1:$1/api/stats" | python3 -c '
import json, sys
print(next((int(r["value"]) for r in json.load(sys.stdin) if r["metric"] == sys.argv[1]), 0))' "$2"
}

# start_vm name [flags...]: victoria-metrics on two free ports with a data
# dir under $work; sets http_<name>, tsdb_<name> and pid_<name>.
start_vm() {
  local name=$1 http tsdb; shift
  http=$(free_port); tsdb=$(free_port)
  victoria-metrics -storageDataPath="$work/$name" -retentionPeriod=100y \
    -httpListenAddr=127.0.0.1:"$http" -opentsdbListenAddr=127.0.0.1:"$tsdb" \
    -loggerLevel=ERROR "$@" >"$work/$name.log" 2>&1 &
  pids+=("$!")
  eval "http_$name=$http tsdb_$name=$tsdb pid_$name=$!"
  wait_http "http://127.0.0.1:$http/health"
}
