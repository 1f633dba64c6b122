#!/usr/bin/env python3
"""A loopback TCP proxy that counts the data points a client sends.

Used by ingest_tcollector_run.sh to check that every line tcollector sends
is stored: it forwards bytes unchanged in both directions and counts, on the
client-to-server side, `put` lines (telnet mode) or the elements of
POST /api/put JSON bodies (HTTP mode). Counts go to --out as JSON every
second and at exit.

    ingest_count_proxy.py --listen 14243 --target 14242 --out counts.json
"""
import argparse
import json
import signal
import socket
import sys
import threading
import time

lock = threading.Lock()
counts = {"connections": 0, "put_lines": 0, "version_probes": 0, "http_requests": 0, "http_points": 0,
          "http_statuses": {}}


def pump(src, dst, on_data=None):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if on_data:
                on_data(data)
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class TelnetCounter:
    def __init__(self):
        self.partial = b""

    def __call__(self, data):
        buf = self.partial + data
        lines = buf.split(b"\n")
        self.partial = lines.pop()
        n = sum(1 for line in lines if line.startswith(b"put "))
        v = sum(1 for line in lines if line.rstrip(b"\r") == b"version")
        with lock:
            counts["put_lines"] += n
            counts["version_probes"] += v


class HttpRequestCounter:
    def __init__(self):
        self.buf = b""

    def __call__(self, data):
        self.buf += data
        while True:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buf[:head_end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                k, _, v = line.partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v.strip())
            if len(self.buf) < head_end + 4 + length:
                return
            body = self.buf[head_end + 4:head_end + 4 + length]
            self.buf = self.buf[head_end + 4 + length:]
            points = 0
            if head.startswith("POST") and "/api/put" in head.split("\r\n")[0]:
                parsed = json.loads(body)
                points = len(parsed) if isinstance(parsed, list) else 1
            with lock:
                counts["http_requests"] += 1
                counts["http_points"] += points


class HttpResponseCounter:
    def __init__(self):
        self.buf = b""

    def __call__(self, data):
        self.buf += data
        while b"\r\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\r\n")
            if line.startswith(b"HTTP/1."):
                status = line.split(b" ")[1].decode()
                with lock:
                    counts["http_statuses"][status] = counts["http_statuses"].get(status, 0) + 1


def handle(client, target):
    upstream = socket.create_connection(("127.0.0.1", target))
    first = client.recv(65536, socket.MSG_PEEK)
    is_http = bool(first) and 65 <= first[0] <= 90
    with lock:
        counts["connections"] += 1
    up = HttpRequestCounter() if is_http else TelnetCounter()
    down = HttpResponseCounter() if is_http else None
    threading.Thread(target=pump, args=(client, upstream, up), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, down), daemon=True).start()


def dump(path):
    with lock:
        text = json.dumps(counts, sort_keys=True)
    with open(path + ".tmp", "w") as f:
        f.write(text + "\n")
    import os
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--target", type=int, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", args.listen))
    srv.listen(16)
    signal.signal(signal.SIGTERM, lambda *_: (dump(args.out), sys.exit(0)))

    def dumper():
        while True:
            time.sleep(1)
            dump(args.out)

    threading.Thread(target=dumper, daemon=True).start()
    while True:
        client, _ = srv.accept()
        threading.Thread(target=handle, args=(client, args.target), daemon=True).start()


if __name__ == "__main__":
    main()
