"""Tools for hostile-client tests: a watchdog that watches a server while a
test attacks it.

    def test_attack(server):
        with hostile.Watchdog(server, rss_limit_mb=200) as wd:
            ... attack ...
        hostile.assert_healthy(server)

While the block runs, the watchdog
  - samples the server's RssAnon (/proc/PID/status) every `interval` seconds;
  - probes GET /api/version on a NEW connection every `interval` seconds, from
    the source address 127.0.0.2, so per-address connection caps that the
    attack (from 127.0.0.1) runs into do not apply to the probe.
On leaving the block it fails the test (AssertionError) when RssAnon went over
rss_limit_mb, a probe failed or took longer than probe_limit_s, or the server
process died. The figures stay on the object (max_rss_mb, probes,
max_probe_s) for the test to print or assert more.
"""
import os
import socket
import threading
import time

PROBE_SOURCE = "127.0.0.2"


def rss_anon_mb(pid):
    """The process's RssAnon in MiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024.0
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def probe_version(host, port, timeout=1.0, source=PROBE_SOURCE):
    """One GET /api/version on a fresh connection. Returns (ok, seconds,
    detail); never raises."""
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=timeout,
                                      source_address=(source, 0)) as s:
            s.sendall(b"GET /api/version HTTP/1.1\r\nHost: probe\r\n"
                      b"Connection: close\r\n\r\n")
            buf = b""
            while True:
                left = timeout - (time.monotonic() - start)
                if left <= 0:
                    return False, time.monotonic() - start, "timed out"
                s.settimeout(left)
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        took = time.monotonic() - start
        if not buf.startswith(b"HTTP/1.1 200") or b'"version"' not in buf:
            return False, took, f"bad reply {buf[:120]!r}"
        return True, took, ""
    except OSError as e:
        return False, time.monotonic() - start, f"{type(e).__name__}: {e}"


class Watchdog:
    def __init__(self, server, rss_limit_mb, probe_limit_s=1.0, interval=0.2):
        self.server = server
        self.pid = server.proc.pid
        self.rss_limit_mb = rss_limit_mb
        self.probe_limit_s = probe_limit_s
        self.interval = interval
        self.max_rss_mb = 0.0
        self.probes = 0
        self.max_probe_s = 0.0
        self.failures = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self):
        rss = rss_anon_mb(self.pid)
        if rss is None or self.server.proc.poll() is not None:
            self.failures.append(f"server exited ({self.server.proc.poll()})")
            return False
        self.max_rss_mb = max(self.max_rss_mb, rss)
        ok, took, detail = probe_version(self.server.host, self.server.port,
                                         timeout=self.probe_limit_s)
        self.probes += 1
        self.max_probe_s = max(self.max_probe_s, took)
        if not ok:
            self.failures.append(f"probe {self.probes} after {took:.3f}s: {detail}")
        return True

    def _run(self):
        while not self._stop.is_set():
            if not self._sample():
                return
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop.set()
        self._thread.join(timeout=10)
        # One last sample after the attack, so a short attack is still seen.
        self._sample()
        print(f"watchdog: max RssAnon {self.max_rss_mb:.1f} MiB (limit "
              f"{self.rss_limit_mb}), {self.probes} probes, slowest "
              f"{self.max_probe_s * 1000:.0f} ms")
        if exc_type is not None:
            return False
        assert not self.failures, (
            "server not responsive during the attack: " + "; ".join(self.failures[:5])
            + f"\n--- server stderr (tail) ---\n{self.server.stderr()[-3000:]}")
        assert self.max_rss_mb <= self.rss_limit_mb, (
            f"RssAnon reached {self.max_rss_mb:.1f} MiB, over the "
            f"{self.rss_limit_mb} MiB ceiling")
        return False


def assert_healthy(server, timeout=5.0):
    """The server is alive and answers /api/version and a small query."""
    assert server.proc.poll() is None, f"server exited: {server.stderr()[-3000:]}"
    ok, took, detail = probe_version(server.host, server.port, timeout=timeout)
    assert ok, f"/api/version after the attack: {detail}"
    c = server.http()
    status, _, body = c.get("/api/aggregators")
    assert status == 200 and b"sum" in body, (status, body[:200])
