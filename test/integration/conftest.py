"""Fixtures for end-to-end tests against the real sundiald binary.

    def test_x(server):                 # default server, fresh data dir
        t = server.telnet(); t.send("version\n"); t.read_until("\n")
        status, headers, body = server.http().get("/api/version")

    def test_y(server_factory):         # custom flags / config text
        s = server_factory(args=["--ingest-max-tags", "3"], config="log.level = debug\n")

The binary comes from --sundiald=PATH, else $SUNDIALD, else build/sundiald.
Each server gets its own mkdtemp() data dir and a free 127.0.0.1 port, and is
stopped (SIGTERM, then SIGKILL) when the test ends.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

START_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0


def pytest_addoption(parser):
    parser.addoption("--sundiald", default=None, help="path to the sundiald binary")


@pytest.fixture(scope="session")
def sundiald_path(request):
    path = (request.config.getoption("--sundiald") or os.environ.get("SUNDIALD")
            or os.path.join(os.path.dirname(__file__), "..", "..", "build", "sundiald"))
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        pytest.fail(f"sundiald binary not found at {path} (use --sundiald=PATH)")
    return path


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TelnetClient:
    """A line-protocol client with bounded reads."""

    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def send(self, text):
        self.sock.sendall(text.encode() if isinstance(text, str) else text)

    def read_until(self, marker, timeout=10.0):
        """Returns everything up to and including marker (str)."""
        m = marker.encode()
        deadline = time.monotonic() + timeout
        while m not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {marker!r} within {timeout}s; got {self.buf!r}")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before {marker!r}; got {self.buf!r}")
            self.buf += chunk
        i = self.buf.index(m) + len(m)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out.decode("utf-8", "replace")

    def read_lines(self, n, timeout=10.0):
        return [self.read_until("\n", timeout) for _ in range(n)]

    def read_to_close(self, timeout=10.0):
        """Reads until the server closes; returns the bytes (str)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"connection not closed within {timeout}s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                out, self.buf = self.buf, b""
                return out.decode("utf-8", "replace")
            self.buf += chunk

    def close(self):
        self.sock.close()


class HttpClient:
    """HTTP/1.1 keep-alive client (one connection; http.client reconnects
    transparently only if the server closed it)."""

    def __init__(self, host, port, timeout=30.0):
        self.conn = http.client.HTTPConnection(host, port, timeout=timeout)

    def request(self, method, path, body=None, headers=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        self.conn.request(method, path, body=body, headers=headers or {})
        resp = self.conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def post(self, path, body=None, headers=None):
        return self.request("POST", path, body=body, headers=headers)

    def get_json(self, path):
        status, _, data = self.get(path)
        return status, json.loads(data) if data else None

    def post_json(self, path, body):
        status, _, data = self.post(path, body, {"Content-Type": "application/json"})
        return status, json.loads(data) if data else None

    def close(self):
        self.conn.close()


class ServerProcess:
    def __init__(self, binary, args, config, data_dir, workdir):
        self.host = "127.0.0.1"
        self.data_dir = data_dir
        self.workdir = workdir
        self.stderr_path = os.path.join(workdir, "stderr.log")
        self.port = free_port()
        cmd = [binary, "--bind", self.host, "--port", str(self.port),
               "--data-dir", data_dir, "--io-threads", "2", "--query-threads", "2"]
        if config is not None:
            conf = os.path.join(workdir, "sundial.conf")
            with open(conf, "w") as f:
                f.write(config)
            cmd += ["--config", conf]
        cmd += list(args)
        self.cmd = cmd
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self._stderr)
        self._clients = []

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sundiald exited with {self.proc.returncode}: {self.stderr()}")
            try:
                socket.create_connection((self.host, self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(f"sundiald not listening after {START_TIMEOUT}s: {self.stderr()}")

    def stderr(self):
        self._stderr.flush()
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def telnet(self):
        c = TelnetClient(self.host, self.port)
        self._clients.append(c)
        return c

    def http(self):
        c = HttpClient(self.host, self.port)
        self._clients.append(c)
        return c

    def get_once(self, path):
        """One GET on a connection of its own, closed after the answer: for
        polling loops, which would otherwise leave one open connection per
        poll and reach max_connections_per_address."""
        c = HttpClient(self.host, self.port)
        try:
            return c.get(path)
        finally:
            c.close()

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def send_signal(self, signo):
        self.proc.send_signal(signo)

    def stop(self, signo=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Sends signo and returns the exit code (SIGKILL after timeout)."""
        for c in self._clients:
            c.close()
        self._clients = []
        if self.proc.poll() is None:
            self.proc.send_signal(signo)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise
        self._stderr.close()
        return self.proc.returncode

    def restart(self, args=()):
        """Stops and starts again on the same data dir and port."""
        self.stop()
        self._stderr = open(self.stderr_path, "ab")
        self.proc = subprocess.Popen(self.cmd + list(args), stdout=subprocess.DEVNULL,
                                     stderr=self._stderr)
        return self.wait_ready()


@pytest.fixture
def server_factory(sundiald_path):
    """Starts sundiald with extra args and/or config text; returns ServerProcess."""
    started = []
    dirs = []

    def start(args=(), config=None, data_dir=None, wait=True):
        workdir = tempfile.mkdtemp(prefix="sundial_it_")
        dirs.append(workdir)
        d = data_dir or os.path.join(workdir, "data")
        for attempt in range(3):
            s = ServerProcess(sundiald_path, args, config, d, workdir)
            started.append(s)
            if not wait:
                return s
            try:
                return s.wait_ready()
            except RuntimeError:
                # Lost a race for the port: try another one.
                if "cannot listen" not in s.stderr() or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    yield start
    for s in started:
        try:
            s.stop()
        except Exception:
            pass
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def server(server_factory):
    return server_factory()


def put_and_wait(server, lines, metric_counts, start, end):
    """Sends telnet put lines, then waits (bounded, 10 s) until /api/query
    over [start, end] sees every point. metric_counts: {metric: expected
    raw point count}."""
    t = server.telnet()
    t.send("".join(line + "\n" for line in lines))
    c = server.http()
    deadline = time.monotonic() + 10
    for metric, want in metric_counts.items():
        while True:
            status, body = c.post_json("/api/query", {
                "start": start, "end": end,
                "queries": [{"metric": metric, "aggregator": "sum",
                             "downsample": "0all-count"}]})
            got = sum(v for r in body for v in r["dps"].values()) if status == 200 else 0
            if got == want:
                break
            assert time.monotonic() < deadline, f"{metric}: {got} of {want} points visible"
            time.sleep(0.05)
    t.close()
