#!/usr/bin/env python3
"""Soak: mixed ingest, queries and attacks against a real sundiald, with the
server's RssAnon sampled, to show that memory does not grow and that the
server keeps answering.

    bench/soak_hostile.py --sundiald build/sundiald --minutes 30

Starts its own server on a free 127.0.0.1 port with a temporary data dir
(removed afterwards) and runs, side by side until the time is up:
  - ingest: one telnet connection writing --series series, one point each
    every second (timestamps advance one second per round);
  - queries: a normal /api/query loop (sum and a 1m downsample over the
    last hour), counting answers and errors;
  - attacks, in turn, one every --attack-every seconds: a backtracking
    regexp, a long-value regexp, a 1ms downsample over decades, deeply
    nested JSON (plain and gzip), slowloris (half-sent requests), clients
    that ask for big results and never read, pipelined telnet `stats`
    without reading;
  - a probe: GET /api/version on a fresh connection from 127.0.0.2 every
    second (latency recorded).
Every --sample seconds it prints a row: elapsed, RssAnon, points written,
queries answered, probe p50/max. At the end it prints the RssAnon growth
between the first and the second half of the run, and fails (exit 1) when
the server died or a probe failed.
"""
import argparse
import gzip
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_anon_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def http_request(port, method, path, body=b"", headers=None, timeout=10.0,
                 source="127.0.0.1", read_reply=True):
    """One request on a fresh connection; returns (status, body bytes) or
    raises OSError. With read_reply=False the socket is returned unread."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                 source_address=(source, 0))
    head = f"{method} {path} HTTP/1.1\r\nHost: soak\r\nConnection: close\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    s.sendall(head.encode() + body)
    if not read_reply:
        return s
    buf = b""
    with s:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    status = int(buf.split(b" ", 2)[1]) if buf.startswith(b"HTTP/1.1 ") else 0
    return status, buf.partition(b"\r\n\r\n")[2]


class Soak:
    def __init__(self, args):
        self.args = args
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.points = 0
        self.queries_ok = 0
        self.query_errors = 0
        self.attacks = {}
        self.probe_times = []
        self.probe_failures = []
        self.port = free_port()
        self.workdir = tempfile.mkdtemp(prefix="sundial-soak-")
        self.now = int(time.time())
        cmd = [args.sundiald, "--bind", "127.0.0.1", "--port", str(self.port),
               "--data-dir", os.path.join(self.workdir, "data")] + args.server_args
        self.stderr = open(os.path.join(self.workdir, "stderr.log"), "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("sundiald did not start")
                time.sleep(0.05)

    # --- load ---------------------------------------------------------------
    def ingest(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        t = self.now - 3600
        while not self.stop.is_set():
            lines = "".join(
                f"put soak.metric {t} {(t + i) % 1000 / 10.0} host=h{i % 100} "
                f"dev=d{i}\n" for i in range(self.args.series))
            try:
                sock.sendall(lines.encode())
            except OSError:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                continue
            with self.lock:
                self.points += self.args.series
            t += 1
            self.stop.wait(1.0 if t > self.now else 0.01)
        sock.close()

    def queries(self):
        paths = ["/api/query?start=1h-ago&m=sum:soak.metric",
                 "/api/query?start=1h-ago&m=avg:1m-avg:soak.metric{host=h1}"]
        i = 0
        while not self.stop.is_set():
            try:
                status, _ = http_request(self.port, "GET", paths[i % 2])
                with self.lock:
                    if status == 200:
                        self.queries_ok += 1
                    else:
                        self.query_errors += 1
            except OSError:
                with self.lock:
                    self.query_errors += 1
            i += 1
            self.stop.wait(0.05)

    def probe(self):
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                status, body = http_request(self.port, "GET", "/api/version",
                                            timeout=1.0, source="127.0.0.2")
                took = time.monotonic() - start
                if status != 200 or took > 1.0:
                    raise OSError(f"status {status} after {took:.3f}s")
                with self.lock:
                    self.probe_times.append(took)
            except OSError as e:
                with self.lock:
                    self.probe_failures.append(f"{time.monotonic():.0f}: {e}")
            self.stop.wait(1.0)

    # --- attacks ------------------------------------------------------------
    def attack_regexp(self):
        q = {"start": "1h-ago", "queries": [{"aggregator": "sum", "metric": "soak.metric",
             "filters": [{"type": "regexp", "tagk": "host",
                          "filter": "(a+)+$" if self.attack_round % 2 else "(.*)*x",
                          "groupBy": False}]}]}
        return http_request(self.port, "POST", "/api/query", json.dumps(q).encode())

    def attack_downsample(self):
        return http_request(self.port, "GET",
                            "/api/query?start=1000000000&m=sum:1ms-avg-zero:soak.metric")

    def attack_nested(self):
        depth = 200000
        body = ("[" * depth + "]" * depth).encode()
        if self.attack_round % 2:
            return http_request(self.port, "POST", "/api/query", gzip.compress(body),
                                {"Content-Encoding": "gzip"})
        return http_request(self.port, "POST", "/api/query", body)

    def attack_slowloris(self):
        socks = []
        for _ in range(200):
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                s.sendall(b"POST /api/put HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n")
                socks.append(s)
            except OSError:
                break
        self.stop.wait(5)
        for s in socks:
            s.close()
        return 0, b""

    def attack_no_read(self):
        socks = []
        for _ in range(10):
            try:
                socks.append(http_request(
                    self.port, "GET", "/api/query?start=1h-ago&m=none:soak.metric",
                    read_reply=False))
            except OSError:
                break
        self.stop.wait(5)
        for s in socks:
            s.close()
        return 0, b""

    def attack_stats_pipeline(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        try:
            s.settimeout(5)
            for _ in range(2000):
                s.sendall(b"stats\n" * 50)
        except OSError:
            pass
        finally:
            s.close()
        return 0, b""

    def attacks_loop(self):
        kinds = [self.attack_regexp, self.attack_downsample, self.attack_nested,
                 self.attack_slowloris, self.attack_no_read, self.attack_stats_pipeline]
        self.attack_round = 0
        while not self.stop.wait(self.args.attack_every):
            fn = kinds[self.attack_round % len(kinds)]
            name = fn.__name__[len("attack_"):]
            try:
                status, _ = fn()
                outcome = str(status)
            except OSError as e:
                outcome = type(e).__name__
            with self.lock:
                self.attacks.setdefault(name, {}).setdefault(outcome, 0)
                self.attacks[name][outcome] += 1
            self.attack_round += 1

    # --- run ----------------------------------------------------------------
    def run(self):
        threads = [threading.Thread(target=f, daemon=True)
                   for f in (self.ingest, self.queries, self.probe, self.attacks_loop)]
        for t in threads:
            t.start()
        start = time.monotonic()
        end = start + self.args.minutes * 60
        samples = []
        print("elapsed_s  rss_anon_mb  points  queries_ok  query_err  probe_p50_ms  probe_max_ms")
        while time.monotonic() < end:
            time.sleep(min(self.args.sample, max(0.0, end - time.monotonic())))
            rss = rss_anon_mb(self.proc.pid)
            if rss is None or self.proc.poll() is not None:
                print("server died")
                break
            with self.lock:
                recent = self.probe_times[-60:] or [0.0]
                row = (time.monotonic() - start, rss, self.points, self.queries_ok,
                       self.query_errors, statistics.median(recent) * 1000,
                       max(recent) * 1000)
            samples.append(row)
            print("%9.0f  %11.1f  %6d  %10d  %9d  %12.1f  %12.1f" % row, flush=True)
        self.stop.set()
        for t in threads:
            t.join(timeout=30)
        return samples

    def finish(self, samples):
        alive = self.proc.poll() is None
        if alive:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.stderr.close()
        half = len(samples) // 2
        ok = alive and not self.probe_failures
        if half:
            first = statistics.mean(r[1] for r in samples[:half])
            second = statistics.mean(r[1] for r in samples[half:])
            print(f"RssAnon mean first half {first:.1f} MiB, second half {second:.1f} MiB, "
                  f"max {max(r[1] for r in samples):.1f} MiB")
        print("attacks (outcome: count):", json.dumps(self.attacks, sort_keys=True))
        print(f"probes: {len(self.probe_times)} ok, {len(self.probe_failures)} failed"
              + (f"; first failures: {self.probe_failures[:5]}" if self.probe_failures else ""))
        print("server", "alive until the end" if alive else "DIED: see " + self.workdir)
        if alive:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sundiald", default="build/sundiald")
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--series", type=int, default=1000)
    p.add_argument("--sample", type=float, default=30, help="seconds between rows")
    p.add_argument("--attack-every", type=float, default=10)
    p.add_argument("server_args", nargs="*", help="extra sundiald flags (after --)")
    args = p.parse_args()
    soak = Soak(args)
    sys.exit(soak.finish(soak.run()))


if __name__ == "__main__":
    main()
