#!/usr/bin/env bash
# sd_writes.sh: bytes the real server writes to disk per stored point under
# a Pi-style trickle (what wears out an SD card). For each profile (wal.sync
# value) and each series count it starts sundiald under strace with a fresh
# data dir and the default config otherwise, and feeds it in real time the
# way tcollector and collectd do: every 10 s one burst of N `put` lines (one
# point per series) on one telnet connection. It prints, over the feeding
# time, /proc/PID/io write_bytes per stored point, the floor the WAL's
# durability contract forces (4 KiB x fsyncs of the WAL that had new data /
# points), and a breakdown by what wrote it (sd_writes_attrib.py models the
# kernel's dirty-page accounting from the trace; bench/README.md explains).
#
# Usage: bench/sd_writes.sh
#   DURATION=600 (seconds of feeding per run), SERIES="200 20",
#   PROFILES="1000 10000" (wal.sync values), SUNDIALD=build/sundiald,
#   EXTRA="--flag value ..." (more server flags), KEEP=1 keeps the traces.
set -euo pipefail
cd "$(dirname "$0")/.."
sundiald=${SUNDIALD:-build/sundiald}
duration=${DURATION:-600}
read -r -a series_counts <<<"${SERIES:-200 20}"
read -r -a profiles <<<"${PROFILES:-1000 10000}"
read -r -a extra <<<"${EXTRA:-}"
command -v strace >/dev/null || { echo "strace is not installed (apt-get install strace)"; exit 1; }
[ -x "$sundiald" ] || { echo "no $sundiald (build it first)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/var/tmp}/sundial-sdwrites.XXXXXX")
spid= pid=
# strace exits when the server it started does: stop the server.
cleanup() {
  if [ -n "$spid" ]; then
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    wait "$spid" 2>/dev/null || true
  fi
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
write_bytes() { awk '/^write_bytes:/ {print $2}' "/proc/$1/io"; }
stat_of() {  # port metric
  curl -fsS "http://127.0.0.1:$1/api/stats" | python3 -c '
import json, sys
print(next((int(r["value"]) for r in json.load(sys.stdin) if r["metric"] == sys.argv[1]), 0))' "$2"
}

echo "sd_writes: burst of N puts every 10 s, ${duration} s per run, fs $(df -T "$work" | awk 'NR==2 {print $2}')"
for profile in "${profiles[@]}"; do
  for n in "${series_counts[@]}"; do
    run="$work/sync$profile-n$n"
    mkdir -p "$run"
    port=$(free_port)
    strace -f -ttt -y -o "$run/trace" \
      -e trace=openat,write,writev,pwrite64,pwritev,pwritev2,lseek,fsync,fdatasync,ftruncate,fallocate,unlink,unlinkat,rename,renameat,renameat2 \
      "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$run/data" --wal-sync "$profile" \
      "${extra[@]}" >"$run/log" 2>&1 &
    spid=$!
    pid=
    for _ in $(seq 1 200); do
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/version" 2>/dev/null; then
        pid=$(pgrep -P "$spid" | head -1); break
      fi
      sleep 0.1
    done
    [ -n "$pid" ] || { echo "sundiald did not start"; cat "$run/log"; exit 1; }
    sleep 2  # start-up writes are not part of the trickle
    before=$(write_bytes "$pid")
    t0=$(date +%s.%N)
    points=$(python3 - "$port" "$n" "$duration" <<'PY'
import random, socket, sys, time
port, n, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rnd = random.Random(14)
s = socket.create_connection(("127.0.0.1", port))
values = [rnd.uniform(0, 100) for _ in range(n)]
start = time.time()
sent = 0
k = 0
while True:
    due = start + 10 * k
    if due - start >= duration:
        break
    time.sleep(max(0.0, due - time.time()))
    now = int(time.time())
    lines = []
    for i in range(n):
        values[i] = max(0.0, values[i] + rnd.uniform(-1, 1))
        lines.append(f"put sys.m{i % 20} {now} {values[i]:.2f} host=h{i // 20} dc=dc1\n")
    s.sendall("".join(lines).encode())
    sent += n
    k += 1
# `version` answers once every line before it is applied.
s.sendall(b"version\n")
got = b""
while b"\n" not in got:
    got += s.recv(4096)
s.close()
time.sleep(max(0.0, start + duration - time.time()))
print(sent)
PY
)
    sleep 1.5  # the last interval's fsync
    after=$(write_bytes "$pid")
    t1=$(date +%s.%N)
    stored=$(stat_of "$port" tsd.storage.points_appended)
    syncs=$(stat_of "$port" tsd.storage.wal.syncs)
    kill "$pid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
    spid= pid=
    # fsyncs of WAL segments that had new bytes since the previous one.
    floor_syncs=$(awk -v a="$t0" -v b="$t1" '
      $2 >= a && $2 <= b && $3 ~ /^(write|writev|pwrite64)\(/ && $3 ~ /\/wal\/[0-9]+\.wal>/ {dirty[$1]=1; any=1}
      $2 >= a && $2 <= b && $3 ~ /^f(data)?sync\(/ && $3 ~ /\/wal\/[0-9]+\.wal>/ { if (any) n++; any=0 }
      END {print n+0}' "$run/trace")
    bytes=$((after - before))
    mkdir -p "$run/replay"
    python3 bench/sd_writes_attrib.py "$run/trace" "$run/data" "$t0" "$t1" "$run/replay" >"$run/attrib"
    wal_replay=$(sed -n 's/^REPLAY_WAL_BYTES=//p' "$run/attrib")
    echo
    echo "== wal.sync=$profile, $n series: $points points sent, $stored stored, $syncs WAL fsyncs"
    python3 - "$bytes" "$points" "$floor_syncs" "${wal_replay:-0}" <<'PY'
import sys
b, p, fs, wal = (int(x) for x in sys.argv[1:])
p = max(p, 1)
print(f"write_bytes {b} = {b / p:.2f} B/pt")
print(f"floor: {fs} WAL fsyncs with new data x 4 KiB = {4096 * fs / p:.2f} B/pt; "
      f"the WAL as written (replayed) = {wal / p:.2f} B/pt")
print(f"beyond the WAL: {(b - wal) / p:.2f} B/pt")
PY
    grep -v '^REPLAY_' "$run/attrib"
    [ -n "${KEEP:-}" ] || rm -f "$run/trace"
  done
done
