#!/usr/bin/env bash
# storage_series_memory.sh: anonymous memory per idle series of the real
# server. Starts sundiald on loopback with a fresh data dir, creates N series
# with telnet `put` (DevOps shape: 101 metrics per host, 8 tags, POINTS
# points each 10 s apart), waits until the server has applied every line,
# and prints RssAnon (from /proc/PID/status) and bytes per series above the
# idle server. Then it runs one /api/search/lookup and one /api/suggest and
# prints RssAnon again.
#
# With LIVE=1 the last point of every series is stamped now (the first
# POINTS*10 s before) and values are pseudo-random with 2 decimals (about
# 2 bytes a point), so the heads stay open as in live ingest: with
# POINTS=300 every open page fills at least once. It then also prints the
# engine's own estimate of its memory by part (/api/stats storage.memory)
# and the rest of RssAnon (malloc overhead and what the estimate misses).
#
# Usage: bench/storage_series_memory.sh [N ...]   (default 10000 100000 500000)
#   SUNDIALD=path (default build/sundiald), POINTS=6, SETTLE=11 (seconds
#   between the last put and the sample), LIVE=0, ARGS= (more sundiald
#   flags, e.g. ARGS="--storage.head_memory=4194304")
set -euo pipefail
sundiald=${SUNDIALD:-build/sundiald}
points=${POINTS:-6}
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10000 100000 500000)

rss_anon() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status"; }  # kB

for n in "${counts[@]}"; do
  work=$(mktemp -d "${TMPDIR:-/tmp}/sundial-mem.XXXXXX")
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  # shellcheck disable=SC2086
  "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$work/data" ${ARGS:-} >"$work/log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/api/version" 2>/dev/null && break
    sleep 0.1
  done
  idle=$(rss_anon $pid)
  # The peak RssAnon while the points go in, sampled every 0.5 s.
  ( peak=0; while kill -0 $pid 2>/dev/null && [ ! -e "$work/done" ]; do
      r=$(rss_anon $pid 2>/dev/null || echo 0); [ "${r:-0}" -gt $peak ] && peak=$r
      echo $peak >"$work/peak"; sleep 0.5; done ) &
  sampler=$!
  start=$(date +%s.%N)
  python3 - "$port" "$n" "$points" "${LIVE:-0}" <<'PY'
import socket, sys, time
port, n, points, live = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
metrics = 101
hosts = (n + metrics - 1) // metrics
s = socket.create_connection(("127.0.0.1", port))
t0 = int(time.time()) - 10 * (points - 1) if live else 1700000000
for p in range(points):
    made = 0
    buf = []
    for h in range(hosts):
        tags = (f"host=host_{h} region=r{h % 4} dc=dc{h % 16} rack=rk{h % 64} "
                f"os=linux arch=x64 team=t{h % 8} service=s{h % 20}")
        for m in range(metrics):
            if made == n:
                break
            made += 1
            v = (h * 7 + m + p) % 1000 / 10 if not live else ((h * 101 + m) * 7919 + p) * 2654435761 % 4294967291 % 10000 / 100
            buf.append(f"put cpu.m{m} {t0 + 10 * p} {v} {tags}\n")
        if len(buf) >= 20000:
            s.sendall("".join(buf).encode())
            buf = []
    s.sendall("".join(buf).encode())
# `version` answers only after every line before it was applied.
s.sendall(b"version\n")
got = b""
while b"\n" not in got:
    got += s.recv(4096)
s.close()
PY
  end=$(date +%s.%N)
  touch "$work/done"; wait $sampler 2>/dev/null || true
  # One maintenance slow tick (10 s) returns what the ingest burst freed.
  sleep "${SETTLE:-11}"
  rss=$(rss_anon $pid)
  printf 'series=%d points=%d ingest=%.1fs idle_rss_anon=%dkB rss_anon=%dkB bytes_per_series=%d\n' \
    "$n" "$((n * points))" "$(echo "$end - $start" | bc)" "$idle" "$rss" \
    "$(( (rss - idle) * 1024 / n ))"
  printf '  peak rss_anon during ingest=%dkB\n' "$(cat "$work/peak" 2>/dev/null || echo 0)"
  if [ "${LIVE:-0}" = 1 ]; then
    curl -fsS "http://127.0.0.1:$port/api/stats" | python3 -c '
import json, sys
rss, n = int(sys.argv[1]) * 1024, int(sys.argv[2])
parts = {}
for r in json.load(sys.stdin):
    if r["metric"] == "tsd.storage.memory":
        parts[r["tags"]["part"]] = int(r["value"])
    if r["metric"] == "tsd.storage.heads_sealed_early":
        print("  heads_sealed_early=%s" % r["value"])
est = parts.pop("all", 0)
for k, v in sorted(parts.items()):
    print("  %-12s %8.1f MB %6d B/series" % (k, v / 1e6, v // n))
print("  %-12s %8.1f MB %6d B/series" % ("other", (est - sum(parts.values())) / 1e6,
                                          (est - sum(parts.values())) // n))
print("  %-12s %8.1f MB %6d B/series  (RssAnon - estimate)" % ("unaccounted", (rss - est) / 1e6,
                                                               (rss - est) // n))
' "$rss" "$n"
  fi
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/search/lookup?m=*%7Bos=linux%7D&limit=25" || true
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/suggest?type=tagv&q=&max=25" || true
  printf '  after lookup+suggest: rss_anon=%dkB\n' "$(rss_anon $pid)"
  kill $pid; wait $pid 2>/dev/null || true
  # After the clean stop (every page written): page files per stored point.
  part=$(du -sb "$work/data/part" 2>/dev/null | cut -f1)
  printf '  page files after stop: %d bytes, %.2f B/pt\n' "${part:-0}" \
    "$(echo "${part:-0} / ($n * $points)" | bc -l)"
  rm -rf "$work"
  trap - EXIT
done
