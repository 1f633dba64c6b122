#!/usr/bin/env python3
"""Cold-cache helpers for bench/cold_query_vs_vm.sh.

  cold_cache.py drop DIR...
      Asks the kernel to drop every regular file under each DIR from the
      page cache (posix_fadvise(POSIX_FADV_DONTNEED) on the whole file).
      Only clean pages go, so stop the server (or let it sync) first. This
      touches only these files: the rest of the machine keeps its cache.

  cold_cache.py time --url URL --rounds N [--drop DIR]... [--label L]
      GETs URL once (the first query, timed alone), then N more times, and
      prints the first-query time and p50/p99/max in ms, one line. With
      --drop, the dirs are dropped from the page cache before every
      request, so that each one is a cold read.

Standard library only (runs on pyenv's python3 and Debian's).
"""
import argparse
import http.client
import os
import sys
import time
import urllib.parse


def drop(dirs):
    files = 0
    size = 0
    for d in dirs:
        for root, _, names in os.walk(d):
            for name in names:
                path = os.path.join(root, name)
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue  # removed meanwhile (a merge, a compaction)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    size += os.fstat(fd).st_size
                    files += 1
                finally:
                    os.close(fd)
    return files, size


def percentile(sorted_ms, q):
    if not sorted_ms:
        return 0.0
    i = min(len(sorted_ms) - 1, max(0, int(round(q * (len(sorted_ms) - 1)))))
    return sorted_ms[i]


def timed_get(conn, path):
    t0 = time.perf_counter()
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    ms = (time.perf_counter() - t0) * 1000.0
    if resp.status != 200:
        sys.exit("HTTP %d from %s: %s" % (resp.status, path, body[:300]))
    return ms, len(body)


def time_queries(args):
    u = urllib.parse.urlsplit(args.url)
    path = u.path + ("?" + u.query if u.query else "")
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    if args.drop:
        drop(args.drop)
    first, body_len = timed_get(conn, path)
    if body_len < args.min_bytes:
        sys.exit("%s: answer of %d bytes, expected at least %d" % (args.label, body_len, args.min_bytes))
    times = []
    for _ in range(args.rounds):
        if args.drop:
            drop(args.drop)
        ms, _ = timed_get(conn, path)
        times.append(ms)
    conn.close()
    times.sort()
    if not times:
        times = [first]
    print("%-8s first %8.2f ms  p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  (%d queries, %d-byte answer)"
          % (args.label, first, percentile(times, 0.5), percentile(times, 0.99), times[-1],
             len(times), body_len))
    if args.out:
        with open(args.out, "w") as f:
            f.write("%.3f %.3f %.3f\n" % (first, percentile(times, 0.5), percentile(times, 0.99)))


def time_ranges(args):
    fd = os.open(args.file, os.O_RDONLY)
    span = min(100 << 20, os.fstat(fd).st_size)
    shapes = [(1, 1200000), (10, 1200000), (40, 400000), (47, 1200000), (123, 400000),
              (123, 1200000), (300, 1200000)]
    try:
        for count, total in shapes:
            size = total // count
            stride = span // count
            times = []
            for _ in range(args.rounds):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                t0 = time.perf_counter()
                for i in range(count):
                    os.posix_fadvise(fd, i * stride, size, os.POSIX_FADV_WILLNEED)
                for i in range(count):
                    for off in range(0, size, 4096):
                        os.pread(fd, 1, i * stride + off)
                times.append((time.perf_counter() - t0) * 1000.0)
            times.sort()
            print("%4d ranges, %8d bytes: %6.2f ms" % (count, total, percentile(times, 0.5)))
    finally:
        os.close(fd)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drop")
    d.add_argument("dirs", nargs="+")
    t = sub.add_parser("time")
    t.add_argument("--url", required=True)
    t.add_argument("--rounds", type=int, default=50)
    t.add_argument("--drop", action="append", default=[])
    t.add_argument("--label", default="query")
    t.add_argument("--min-bytes", type=int, default=100)
    t.add_argument("--out", default="")
    r = sub.add_parser("ranges")
    r.add_argument("file")
    r.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    if args.cmd == "drop":
        files, size = drop(args.dirs)
        print("dropped %d files (%.1f MB) from the page cache" % (files, size / 1e6))
    elif args.cmd == "ranges":
        time_ranges(args)
    else:
        time_queries(args)


if __name__ == "__main__":
    main()
