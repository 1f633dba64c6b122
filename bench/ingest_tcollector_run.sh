#!/usr/bin/env bash
# Runs the real tcollector against sundiald on loopback for a bounded time
# and checks that it keeps its connection, never blacklists the server, and
# that every data point it sent was stored.
#
#   bench/ingest_tcollector_run.sh <tcollector checkout> [seconds] [--http]
#
# tcollector (github.com/OpenTSDB/tcollector) is not part of this
# repository. The script enables a few Linux collectors in a scratch copy,
# puts a counting proxy (ingest_count_proxy.py) between tcollector and the
# server, and compares what went through the proxy with the server's
# tsd.datapoints.added. Exit status 0 means every check passed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
tc_src="${1:?usage: $0 <tcollector dir> [seconds] [--http]}"
secs="${2:-75}"
mode="${3:-}"
sundiald="${SUNDIALD:-$root/build/sundiald}"

work="$(mktemp -d /tmp/sundial_tcollector.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
server_port="$(free_port)"
proxy_port="$(free_port)"

# A scratch copy with a few long-lived Linux collectors enabled.
cp -r "$tc_src" "$work/tcollector"
for c in procstats ifstat iostat dfstat netstat sysload; do
  ln -s "../../available/linux/long-lived/$c.py" "$work/tcollector/collectors/enabled/0/$c.py"
done

"$sundiald" --bind 127.0.0.1 --port "$server_port" --data-dir "$work/data" \
  >"$work/sundiald.log" 2>&1 &
pids+=($!)
python3 "$here/ingest_count_proxy.py" --listen "$proxy_port" --target "$server_port" \
  --out "$work/counts.json" &
pids+=($!)
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$server_port/api/version" >/dev/null && break
  sleep 0.1
done

http_args=()
[[ "$mode" == "--http" ]] && http_args=(--http)
echo "tcollector $(git -C "$tc_src" rev-parse --short HEAD 2>/dev/null || echo '?')" \
     "-> proxy :$proxy_port -> sundiald :$server_port for ${secs}s ${mode:-(TCP mode)}"
set +e
PYTHONPATH="$work/tcollector" timeout --signal=TERM "$secs" \
  python3 "$work/tcollector/tcollector.py" \
  -c "$work/tcollector/collectors/enabled" -H 127.0.0.1 -p "$proxy_port" \
  --logfile "$work/tcollector.log" --dedup-interval 0 "${http_args[@]}"
set -e
sleep 2  # let the last batch land
kill -TERM "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true

stats="$(curl -s "http://127.0.0.1:$server_port/api/stats")"
python3 - "$work/counts.json" "$mode" "$work/tcollector.log" <<PY
import json, sys
counts = json.load(open(sys.argv[1]))
mode = sys.argv[2]
stats = {(r["metric"], r["tags"].get("type")): int(r["value"]) for r in json.loads('''$stats''')}
log = open(sys.argv[3]).read()
added = stats[("tsd.datapoints.added", "all")]
errors = sum(v for (m, t), v in stats.items() if m == "tsd.rpc.errors")
sent = counts["http_points"] if mode == "--http" else counts["put_lines"]
blacklisted = log.lower().count("blacklisting")
print(f"connections from tcollector: {counts['connections']}")
if mode != "--http":
    print(f"version probes answered: {counts['version_probes']}")
if mode == "--http":
    print(f"HTTP requests: {counts['http_requests']}, statuses: {counts['http_statuses']}")
print(f"points sent by tcollector: {sent}")
print(f"points stored (tsd.datapoints.added): {added}")
print(f"rpc errors: {errors}; 'Blacklisting' in tcollector log: {blacklisted}")
ok = sent > 0 and sent == added and errors == 0 and blacklisted == 0
if mode != "--http":
    ok = ok and counts["connections"] == 1
else:
    ok = ok and set(counts["http_statuses"]) <= {"204", "200"}
print("RESULT:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
