#!/usr/bin/env python3
"""Replays the WAL's writes and fsyncs of an sd_writes.sh trace (KEEP=1)
with their original timing on a fresh file, and prints what the kernel
charged this process for them (/proc/self/io write_bytes). Compared with
sd_writes_attrib.py's replay (same calls, no pauses), it shows how much
of the server's write_bytes the WAL costs only because of timing
(writeback between calls, folio sizes).

Usage: sd_writes_timed_wal.py TRACE SCRATCH_DIR [T_START T_END]
"""
import ctypes
import os
import re
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(\w+)\((\d+)<([^>]*)>(.*)\)\s+=\s+(-?\d+)")


def write_bytes():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def main():
    trace, scratch = sys.argv[1], sys.argv[2]
    t0 = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    t1 = float(sys.argv[4]) if len(sys.argv) > 4 else 1e30
    ops = []
    with open(trace, errors="replace") as fh:
        for line in fh:
            m = LINE.match(line)
            if not m or not re.search(r"/wal/\d+\.wal$", m.group(5)):
                continue
            t, call, ret = float(m.group(2)), m.group(3), int(m.group(7))
            if not t0 <= t <= t1 or ret < 0:
                continue
            if call == "pwrite64":
                off = int(re.search(r",\s*(\d+)$", m.group(6)).group(1))
                ops.append((t, "w", off, ret))
            elif call in ("fsync", "fdatasync"):
                ops.append((t, "s", 0, 0))
            elif call == "fallocate":
                am = re.search(r",\s*([A-Z_|0-9]+),\s*(\d+),\s*(\d+)$", m.group(6))
                if am:
                    keep = 1 if "KEEP_SIZE" in am.group(1) else 0
                    ops.append((t, "a", int(am.group(2)) + int(am.group(3)), keep))
    if not ops:
        print("no WAL calls in the trace")
        return
    path = os.path.join(scratch, "timed_wal")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    start, before = time.time(), write_bytes()
    for t, op, off, n in ops:
        time.sleep(max(0.0, start + (t - ops[0][0]) - time.time()))
        if op == "w":
            os.pwrite(fd, b"\x5a" * n, off)
        elif op == "a":  # fallocate up to off; n is 1 for FALLOC_FL_KEEP_SIZE
            libc.fallocate(fd, n, ctypes.c_int64(0), ctypes.c_int64(off))
        else:
            os.fdatasync(fd)
    print(f"timed WAL replay: {sum(1 for o in ops if o[1] == 'w')} writes, "
          f"{sum(1 for o in ops if o[1] == 's')} fsyncs, {write_bytes() - before} bytes charged")
    os.close(fd)
    os.unlink(path)


if __name__ == "__main__":
    main()
