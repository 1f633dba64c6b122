"""What a service manager or a container sees of sundiald: the systemd
notify protocol (STATUS= while recovering, READY=1 only once the WAL is
replayed, WATCHDOG=1 while the I/O threads answer, STOPPING=1 on SIGTERM),
the --health probe and the generated man page."""
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid

import pytest

from conftest import HttpClient, free_port

T0 = 1700000000 - 1700000000 % 3600


class NotifyListener:
    """A datagram socket standing in for systemd's $NOTIFY_SOCKET."""

    def __init__(self, tmp_path, abstract):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            self.name = "@sundial-test-" + uuid.uuid4().hex
            self.sock.bind("\0" + self.name[1:])
        else:
            self.name = str(tmp_path / "notify.sock")
            self.sock.bind(self.name)
        self.messages = []  # (monotonic time, assignments of one datagram)

    def receive_until(self, predicate, timeout):
        """Collects datagrams until predicate(assignments) holds for one;
        returns its assignments (list of "KEY=VALUE")."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching notify message in {timeout}s; "
                                   f"got {[m for _, m in self.messages]}")
            self.sock.settimeout(left)
            data = self.sock.recv(4096)
            assignments = data.decode().split("\n")
            self.messages.append((time.monotonic(), assignments))
            if predicate(assignments):
                return assignments

    def close(self):
        self.sock.close()


@pytest.fixture
def notify(tmp_path, monkeypatch):
    """A bound notify socket, exported as $NOTIFY_SOCKET to servers started
    by the test; factory(abstract) -> NotifyListener."""
    listeners = []

    def make(abstract=True, watchdog_usec=None):
        n = NotifyListener(tmp_path, abstract)
        listeners.append(n)
        monkeypatch.setenv("NOTIFY_SOCKET", n.name)
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
        if watchdog_usec:
            monkeypatch.setenv("WATCHDOG_USEC", str(watchdog_usec))
        else:
            monkeypatch.delenv("WATCHDOG_USEC", raising=False)
        return n

    yield make
    for n in listeners:
        n.close()


def put(server, points):
    status, _, body = server.http().post("/api/put?sync", points,
                                         {"Content-Type": "application/json"})
    assert status == 204, body


def query_sum(http, metric):
    status, res = http.post_json("/api/query", {"start": T0, "end": T0 + 3600, "queries": [
        {"aggregator": "sum", "metric": metric}]})
    assert status == 200, res
    return res


def test_ready_only_after_wal_replay_then_watchdog_and_stopping(server_factory, notify):
    # A socket path, as systemd's own /run/systemd/notify.
    first = server_factory()
    points = [{"metric": "svc.replayed", "timestamp": T0 + i, "value": i, "tags": {"h": "a"}}
              for i in range(500)]
    put(first, points)
    first.stop(signal.SIGKILL)  # nothing flushed: the restart must replay the WAL

    listener = notify(abstract=False, watchdog_usec=400_000)
    s = server_factory(data_dir=first.data_dir, wait=False)
    ready = listener.receive_until(lambda a: "READY=1" in a, timeout=30)
    # The moment READY=1 arrives, the server answers with the replayed data.
    http = HttpClient(s.host, s.port)
    try:
        res = query_sum(http, "svc.replayed")
        assert len(res) == 1 and len(res[0]["dps"]) == 500
        assert res[0]["dps"][str(T0 + 499)] == 499
    finally:
        http.close()
    statuses = [a for _, m in listener.messages for a in m if a.startswith("STATUS=")]
    assert any("write-ahead log" in st for st in statuses[:-1]), statuses
    assert any(a.startswith("STATUS=Serving on 127.0.0.1:") for a in ready), ready

    # WATCHDOG=1 every WATCHDOG_USEC/2 = 200 ms while the I/O threads answer.
    start = time.monotonic()
    for _ in range(3):
        listener.receive_until(lambda a: a == ["WATCHDOG=1"], timeout=5)
    assert time.monotonic() - start < 5

    assert s.stop(signal.SIGTERM) == 0
    stopping = listener.receive_until(lambda a: "STOPPING=1" in a, timeout=5)
    assert "STOPPING=1" in stopping


def test_notify_to_an_abstract_socket_without_watchdog(server_factory, notify):
    listener = notify(abstract=True)
    s = server_factory(wait=False)
    listener.receive_until(lambda a: "READY=1" in a, timeout=30)
    s.wait_ready()
    assert s.stop(signal.SIGTERM) == 0
    listener.receive_until(lambda a: "STOPPING=1" in a, timeout=5)
    # No WATCHDOG_USEC: no pings.
    assert not any("WATCHDOG=1" in m for _, m in listener.messages)


def run_health(sundiald_path, *args):
    return subprocess.run([sundiald_path, *args], capture_output=True, text=True, timeout=60)


def test_health_probe(server, sundiald_path):
    ok = run_health(sundiald_path, f"--health=http://127.0.0.1:{server.port}/api/version")
    assert ok.returncode == 0, ok.stderr
    # Without a URL: the configured port on loopback (bind 0.0.0.0 -> 127.0.0.1).
    ok = run_health(sundiald_path, "--port", str(server.port), "--bind", "0.0.0.0", "--health")
    assert ok.returncode == 0, ok.stderr
    missing = run_health(sundiald_path, f"--health=http://127.0.0.1:{server.port}/nope")
    assert missing.returncode == 1 and "404" in missing.stderr
    closed = run_health(sundiald_path, f"--health=http://127.0.0.1:{free_port()}/api/version")
    assert closed.returncode == 1 and "connect" in closed.stderr
    # Host names are resolved; one that cannot be is a clear failure.
    named = run_health(sundiald_path, f"--health=http://localhost:{server.port}/api/version")
    assert named.returncode == 0, named.stderr
    unknown = run_health(sundiald_path, f"--health=http://nonexistent.invalid:{server.port}/")
    assert unknown.returncode == 1 and "unknown host" in unknown.stderr, unknown.stderr


def test_health_probe_times_out_on_a_silent_server(sundiald_path):
    with socket.socket() as silent:  # accepts (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        start = time.monotonic()
        r = run_health(sundiald_path, f"--health=http://127.0.0.1:{silent.getsockname()[1]}/")
        assert r.returncode == 1 and "timed out" in r.stderr
        assert time.monotonic() - start < 20


def test_man_page_lists_every_option(sundiald_path):
    man = run_health(sundiald_path, "--man").stdout
    helptext = run_health(sundiald_path, "--help").stdout
    flags = [w for w in helptext.split() if w.startswith("--") and w[2:3].isalpha()]
    assert len(flags) > 30
    for flag in flags:
        flag = flag.split("[")[0].split("=")[0]
        assert flag.replace("-", "\\-") in man, flag
    assert man.startswith(".\\\"") and ".TH SUNDIALD 8" in man
    if shutil.which("groff"):
        check = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=man,
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and check.stderr == "", check.stderr


def test_systemd_unit_is_valid_for_this_systemd(sundiald_path, tmp_path):
    """systemd-analyze verify accepts the unit (systemd 252, bookworm, rejects
    Type=notify-reload, for one), pointed at this binary."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    src = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "systemd",
                       "sundial.service")
    with open(src) as f:
        unit = f.read()
    assert "\nType=notify\n" in unit and "\nWatchdogSec=" in unit
    assert "\nDocumentation=man:sundiald(8)\n" in unit
    (tmp_path / "sundial.service").write_text(unit.replace("/usr/bin/sundiald", sundiald_path))
    r = subprocess.run(["systemd-analyze", "verify", "--man=no",
                        str(tmp_path / "sundial.service")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
