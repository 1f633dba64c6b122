"""Helpers for the relay tests: a VictoriaMetrics process, a scriptable
HTTP upstream, point generation and waiting on /api/relay.

Every process started here is stopped by its own PID; every loop is
bounded by a deadline.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import TelnetClient, free_port

VM_BINARY = "/usr/bin/victoria-metrics"


def wait_until(pred, timeout, what, interval=0.05):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


def relay_status(server):
    status, _, body = server.get_once("/api/relay")
    assert status == 200, body
    return json.loads(body)


def target(server, protocol):
    for t in relay_status(server)["targets"]:
        if t["protocol"] == protocol:
            return t
    raise AssertionError(f"no {protocol} target in /api/relay")


def wait_caught_up(server, n_targets, timeout=30.0, min_sent=None):
    """Waits until every target has nothing pending (and sent >= min_sent)."""
    def done():
        ts = relay_status(server)["targets"]
        if len(ts) != n_targets:
            return False
        for t in ts:
            if t["pendingBytes"] != 0:
                return False
            if min_sent is not None and t["pointsSent"] + t["pointsRejected"] < min_sent:
                return False
        return ts
    return wait_until(done, timeout, "the relay to catch up")


def make_points(n, metric="relay.it", base=None, hosts=10):
    """n distinct points (metric, tags, t seconds, value); recent enough for
    VictoriaMetrics' default retention."""
    base = base if base is not None else int(time.time()) - 3 * 3600
    return [(metric, {"host": f"h{i % hosts}"}, base + i // hosts, i) for i in range(n)]


def put_lines(points):
    return "".join(f"put {m} {t} {v} " + " ".join(f"{k}={tv}" for k, tv in sorted(tags.items()))
                   + "\n" for m, tags, t, v in points)


def ingest(server, points, chunk=5000, pause=0.0):
    """Sends points over telnet and waits until the server has applied them
    (a `version` round trip after the last line). With pause, waits that
    long after each chunk has been applied."""
    t = server.telnet()
    for i in range(0, len(points), chunk):
        t.send(put_lines(points[i:i + chunk]))
        if pause:
            t.send("version\n")
            t.read_until("\n", timeout=30)
            time.sleep(pause)
    t.send("version\n")
    t.read_until("\n", timeout=30)


def key(metric, tags, t):
    return (metric, tuple(sorted(tags.items())), int(t))


class BackgroundIngest:
    """Feeds points over telnet from a thread, `chunk` at a time with a
    `version` round trip after each, so `acked` counts the points the server
    confirmed it applied (what Sundial acknowledged). Ends when every point
    is sent, on stop(), or when the connection breaks (server killed)."""

    def __init__(self, server, points, chunk=100, pause=0.02):
        self.host, self.port = server.host, server.port
        self.points, self.chunk, self.pause = points, chunk, pause
        self.acked = 0
        self.broken = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        c = None
        try:
            c = TelnetClient(self.host, self.port)
            for i in range(0, len(self.points), self.chunk):
                if self._stop.is_set():
                    break
                part = self.points[i:i + self.chunk]
                c.send(put_lines(part) + "version\n")
                c.read_until("Built on ", timeout=30)  # one per version reply
                c.read_until("\n", timeout=30)
                self.acked = i + len(part)
                if self.pause:
                    time.sleep(self.pause)
        except (OSError, TimeoutError, ConnectionError) as e:
            self.broken = e
        finally:
            if c is not None:
                c.close()

    def stop(self):
        self._stop.set()

    def join(self, timeout=60):
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "ingest thread still running"
        return self.acked

    def done(self):
        return not self._thread.is_alive()


def sundiald_keys(server, metric, start, end):
    """(metric, tags, t) -> value of every point the sundiald holds for
    metric in [start, end] seconds (repeats of a point are stored as one)."""
    status, _, body = server.get_once(
        f"/api/query?start={start}&end={end}&m=sum:{metric}{{host=*}}")
    if status != 200:
        return None
    out = {}
    for series in json.loads(body):
        tags = {"host": series["tags"]["host"]}
        for t, v in series["dps"].items():
            out[key(metric, tags, t)] = v
    return out


def tcp_queues(port):
    """For loopback TCP connections to `port` (IPv4, /proc/net/tcp): the
    bytes the server side has received but not read (acknowledged by its
    kernel) and the bytes the client side has sent but not had
    acknowledged. None without /proc."""
    try:
        with open("/proc/net/tcp") as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        return None
    unread = unacked = 0
    for row in rows:
        cols = row.split()
        local_port = int(cols[1].split(":")[1], 16)
        remote_port = int(cols[2].split(":")[1], 16)
        tx, rx = (int(x, 16) for x in cols[4].split(":"))
        if cols[3] not in ("01", "08"):  # ESTABLISHED, CLOSE_WAIT
            continue
        if local_port == port:
            unread += rx
        elif remote_port == port:
            unacked += tx
    return {"unread": unread, "unacked": unacked}


class VictoriaMetrics:
    """A victoria-metrics process on loopback ports with its own data dir."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="sundial_vm_")
        self.http_port = free_port()
        self.telnet_port = free_port()
        self.put_port = free_port()
        self.proc = None

    def start(self):
        log = open(os.path.join(self.dir, "vm.log"), "ab")
        self.proc = subprocess.Popen(
            [VM_BINARY, f"-storageDataPath={self.dir}/data",
             f"-httpListenAddr=127.0.0.1:{self.http_port}",
             f"-opentsdbListenAddr=127.0.0.1:{self.telnet_port}",
             f"-opentsdbHTTPListenAddr=127.0.0.1:{self.put_port}",
             "-search.latencyOffset=0", "-search.disableCache", "-loggerLevel=ERROR"],
            stdout=subprocess.DEVNULL, stderr=log)
        log.close()
        wait_until(self._healthy, 20, "victoria-metrics to start")
        return self

    def _healthy(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"victoria-metrics exited with {self.proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/health", timeout=1):
                return True
        except OSError:
            return False

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def export(self, match):
        """Every sample of series matching `match`, as a list of
        (name, tags, t seconds, value) (duplicates kept as stored)."""
        urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/internal/force_flush",
                               timeout=10).read()
        data = urllib.parse.urlencode({"match[]": match}).encode()
        out = []
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/api/v1/export",
                                    data=data, timeout=30) as r:
            for line in r.read().decode().splitlines():
                if not line.strip():
                    continue
                row = json.loads(line)
                tags = dict(row["metric"])
                name = tags.pop("__name__")
                for t, v in zip(row["timestamps"], row["values"]):
                    out.append((name, tags, t // 1000, v))
        return out


class FakeUpstream:
    """An OpenTSDB-style /api/put receiver whose replies a test scripts.

    statuses: replies for the first requests, in order (then 204 for all).
    delay: seconds to wait before each reply. Every request's points are kept
    with the status it got, so a test can tell accepted from rejected ones.
    """

    def __init__(self, port=None, statuses=(), delay=0.0):
        self.port = port or free_port()
        self.statuses = list(statuses)
        self.delay = delay
        self.requests = []  # (status, [points])
        self.authorizations = []  # the Authorization header of each request
        self.lock = threading.Lock()
        self.httpd = None
        self.thread = None

    def start(self):
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if upstream.delay:
                    time.sleep(upstream.delay)
                with upstream.lock:
                    status = upstream.statuses.pop(0) if upstream.statuses else 204
                    points = json.loads(body) if body else []
                    upstream.requests.append((status, points))
                    upstream.authorizations.append(self.headers.get("Authorization"))
                self.send_response(status)
                reply = b"" if status == 204 else b'{"error":"scripted"}'
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(timeout=10)
            self.httpd = None

    def received(self, accepted=True):
        """Keys of points in requests answered 2xx (or, with accepted=False,
        in the others)."""
        with self.lock:
            reqs = list(self.requests)
        out = []
        for status, points in reqs:
            if (200 <= status < 300) == accepted:
                out += [key(p["metric"], p["tags"], p["timestamp"] // 1000) for p in points]
        return out
