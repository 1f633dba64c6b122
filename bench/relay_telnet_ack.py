#!/usr/bin/env python3
"""Forwarding throughput to a second sundiald over telnet, ack=tcp against
ack=version: the edge ingests a backlog while its upstream is down, then the
upstream starts and the time until the relay has nothing pending is taken.
forward pts/s = backlog points / that time. Both servers on loopback, each
fresh per run; every process is stopped by its own PID.

    bench/relay_telnet_ack.py [build dir] [points] [runs] [batch]
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(binary, port, data, args=()):
    proc = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", str(port), "--data-dir", data,
                             "--io-threads", "1", "--query-threads", "1", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("sundiald did not start")


def ingest(port, n):
    c = socket.create_connection(("127.0.0.1", port))
    base = 1700000000
    for i in range(0, n, 20000):
        lines = "".join(f"put bench.relay {base + j // 100} {j} host=h{j % 100}\n"
                        for j in range(i, min(n, i + 20000)))
        c.sendall(lines.encode())
    c.sendall(b"version\n")
    buf = b""
    while b"Built on" not in buf:
        buf += c.recv(4096)
    c.close()


def pending(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/relay", timeout=10) as r:
        t = json.load(r)["targets"][0]
    return t["pendingBytes"], t["pointsSent"]


def accepted(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/stats", timeout=10) as r:
        return sum(int(x["value"]) for x in json.load(r)
                   if x["metric"] == "tsd.ingest.points.accepted")


def run(binary, n, ack, batch):
    work = tempfile.mkdtemp(prefix="sundial_ack_bench_")
    procs = []
    try:
        up_port, edge_port = free_port(), free_port()
        url = f"telnet://127.0.0.1:{up_port}?ack={ack}&batch={batch}"
        procs.append(start(binary, edge_port, f"{work}/edge",
                           ["--relay-targets", url, "--relay-max-backoff", "100ms"]))
        ingest(edge_port, n)
        procs.append(start(binary, up_port, f"{work}/up"))
        t0 = time.monotonic()
        deadline = t0 + 600
        while time.monotonic() < deadline:
            left, sent = pending(edge_port)
            if left == 0 and sent >= n:
                rate = n / (time.monotonic() - t0)
                got = accepted(up_port)
                if got < n:
                    raise RuntimeError(f"the upstream accepted {got} of {n} points")
                return rate
            time.sleep(0.02)
        raise RuntimeError("relay did not catch up")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 500000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    binary = os.path.join(build, "sundiald")
    rates = {"tcp": [], "version": []}
    for _ in range(runs):  # alternate, so load changes hit both alike
        for ack in rates:
            rates[ack].append(run(binary, n, ack, batch))
    for ack, r in rates.items():
        print(f"ack={ack:8} batch={batch}: median {statistics.median(r):,.0f} pts/s "
              f"(runs: {', '.join(f'{x:,.0f}' for x in r)})")
    print(f"version / tcp: {statistics.median(rates['version']) / statistics.median(rates['tcp']):.2f}")


if __name__ == "__main__":
    main()
