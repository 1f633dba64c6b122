"""Transport, telnet commands, HTTP plumbing and process behaviour."""
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest


# ---- telnet ----

def test_telnet_version(server):
    t = server.telnet()
    t.send("version\n")
    first, second = t.read_lines(2)
    assert first.startswith("net.opentsdb.tools 2.4.1 built at revision ")
    assert second.startswith("Built on ")


def test_telnet_commands(server):
    t = server.telnet()
    t.send("help\r\ndropcaches\nfoo bar\nPut x 1 1 a=b\n")
    assert t.read_until("\n") == ("available commands: stats dropcaches version exit help put "
                                  "rollup histogram \n")
    assert t.read_until("\n") == "Caches dropped.\n"
    assert t.read_until("\n") == "unknown command: foo.  Try `help'.\n"
    assert t.read_until("\n") == "unknown command: Put.  Try `help'.\n"
    t.send("diediedie\n")
    assert t.read_until("\n") == "unknown command: diediedie.  Try `help'.\n"
    t.send("stats\n")
    assert t.read_until("\n").startswith("tsd.")


def test_telnet_exit_closes(server):
    t = server.telnet()
    t.send("dropcaches\nexit\nversion\n")
    assert t.read_to_close() == "Caches dropped.\n"


def test_telnet_overlong_line_closes(server_factory):
    s = server_factory(args=["--ingest-max-line-length", "1KiB"])
    t = s.telnet()
    t.send("version\n")
    t.read_lines(2)
    t.send("x" * 5000)
    assert t.read_to_close() == ""
    # The server is fine afterwards.
    t2 = s.telnet()
    t2.send("version\n")
    assert t2.read_until("\n").startswith("net.opentsdb.tools")


def test_telnet_line_split_across_packets(server):
    t = server.telnet()
    for piece in ["ver", "si", "on\r", "\n"]:
        t.send(piece)
        time.sleep(0.02)
    assert t.read_until("\n").startswith("net.opentsdb.tools")


def test_diediedie_when_enabled(server_factory):
    s = server_factory(args=["--telnet-diediedie", "true"])
    t = s.telnet()
    t.send("diediedie\n")
    assert t.read_until("\n") == "Cleaning up and exiting now.\n"
    assert s.proc.wait(timeout=10) == 0


# ---- HTTP ----

def test_http_version(server):
    status, headers, body = server.http().get("/api/version")
    assert status == 200
    assert headers["content-type"] == "application/json; charset=UTF-8"
    doc = json.loads(body)
    assert doc["version"] == "2.4.1"
    assert all(isinstance(v, str) for v in doc.values())
    for key in ("short_revision", "full_revision", "timestamp", "repo_status", "user", "host"):
        assert key in doc


def test_http_404_json(server):
    c = server.http()
    status, headers, body = c.get("/api/nosuchthing")
    assert status == 404
    assert body == b'{"error":{"code":404,"message":"Endpoint not found"}}'
    assert headers["content-type"] == "application/json; charset=UTF-8"
    status, headers, body = c.get("/nosuchpage")
    assert status == 404
    assert headers["content-type"].startswith("text/html")


def test_http_routing_rules(server):
    c = server.http()
    assert c.get("/API/Version/")[0] == 200
    assert c.get("/api/v1/version")[0] == 200
    status, _, body = c.get("/api/v2/version")
    assert status == 501
    assert json.loads(body)["error"]["details"] == "API version [2] is greater than the max [1]"
    status, _, body = c.request("DELETE", "/api/version")
    assert status == 405
    assert json.loads(body)["error"]["message"] == "Method not allowed"


def test_http_keep_alive_two_requests_one_connection(server):
    sock = socket.create_connection((server.host, server.port), timeout=10)
    req = b"GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n"
    replies = []
    for _ in range(2):
        sock.sendall(req)
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += sock.recv(4096)
        head, _, rest = buf.partition(b"\r\n\r\n")
        length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0]
                     .split(b":")[1])
        while len(rest) < length:
            rest += sock.recv(4096)
        replies.append((head, rest))
    sock.close()
    assert all(h.startswith(b"HTTP/1.1 200 OK") for h, _ in replies)
    assert all(b"connection: close" not in h.lower() for h, _ in replies)


def test_http_pipelining_in_order(server):
    sock = socket.create_connection((server.host, server.port), timeout=10)
    sock.sendall(b"GET /api/version HTTP/1.1\r\n\r\nGET /api/nope HTTP/1.1\r\n\r\n"
                 b"GET /api/version HTTP/1.1\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", data)
    assert statuses == [b"200", b"404", b"200"]


def test_http_body_limit_413(server_factory):
    s = server_factory(args=["--http-max-body-size", "4KiB"])
    status, _, body = s.http().post("/api/version", body="x" * 10000)
    assert status == 413
    assert json.loads(body)["error"]["code"] == 413


def test_http_malformed_request_400(server):
    sock = socket.create_connection((server.host, server.port), timeout=10)
    sock.sendall(b"GET / HTTP/1.1\r\nBad Header Line\r\n\r\n")
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    assert data.startswith(b"HTTP/1.1 400 ")
    assert b'"code":400' in data


def test_http_bare_405_for_head(server):
    sock = socket.create_connection((server.host, server.port), timeout=10)
    sock.sendall(b"HEAD /api/version HTTP/1.1\r\n\r\n")
    data = sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 405 ")


def test_http_gzip_request_body_is_inflated(server):
    # /api/version ignores bodies, but a bad gzip body must be a clean 400.
    c = server.http()
    status, _, body = c.request("GET", "/api/version", body=b"not gzip",
                                headers={"Content-Encoding": "gzip"})
    assert status == 400
    c = server.http()
    status, _, _ = c.request("GET", "/api/version", body=gzip.compress(b"{}"),
                             headers={"Content-Encoding": "gzip"})
    assert status == 200


# ---- process ----

def test_sigterm_exits_zero(server):
    t = server.telnet()
    t.send("version\n")
    t.read_lines(2)
    start = time.monotonic()
    assert server.stop(signal.SIGTERM) == 0
    assert time.monotonic() - start < 5


def test_sigint_exits_zero(server):
    assert server.stop(signal.SIGINT) == 0


def test_data_dir_created_and_locked(server_factory, server):
    assert os.path.isdir(server.data_dir)
    second = server_factory(data_dir=server.data_dir, wait=False)
    assert second.proc.wait(timeout=10) != 0
    assert "in use by another sundiald" in second.stderr()
    # The first one still serves.
    t = server.telnet()
    t.send("version\n")
    assert t.read_until("\n").startswith("net.opentsdb.tools")


def test_bad_command_line_exits_2(sundiald_path):
    for args in (["--no-such-option", "1"], ["--port", "notaport"], ["--wal-sync", "sometimes"],
                 ["stray"]):
        r = subprocess.run([sundiald_path] + args, capture_output=True, timeout=10)
        assert r.returncode == 2, args
        assert b"sundiald:" in r.stderr, args


def test_bad_config_file_exits_2(server_factory):
    s = server_factory(config="port = 1234\nbogus.key = 1\n", wait=False)
    assert s.proc.wait(timeout=10) == 2
    assert "sundial.conf:2" in s.stderr()


def test_config_file_is_read(server_factory):
    s = server_factory(config="telnet.diediedie = true\n")
    t = s.telnet()
    t.send("help\n")
    assert "diediedie" in t.read_until("\n")


def test_connection_limit(server_factory):
    s = server_factory(args=["--max-connections", "2"])
    a, b = s.telnet(), s.telnet()
    for t in (a, b):
        t.send("version\n")
        t.read_lines(2)
        # A connection counts as idle once the server has seen its reply
        # written, which can be just after the client read it (slow under
        # qemu): give that a moment, so that a is idle before b and both
        # are idle before c arrives.
        time.sleep(0.2)
    # Full: the longest-idle connection (a) is closed to make room for c.
    c = s.telnet()
    assert a.read_to_close() == ""
    c.send("version\n")
    assert c.read_until("\n").startswith("net.opentsdb.tools")
    # Full and nobody idle (b and c each mid-line): a newcomer is refused.
    for t in (b, c):
        t.send("put m")
    time.sleep(0.2)
    d = s.telnet()
    assert d.read_to_close() == ""


def test_idle_timeout(server_factory):
    s = server_factory(args=["--idle-timeout", "300ms"])
    t = s.telnet()
    t.send("version\n")
    t.read_lines(2)
    start = time.monotonic()
    assert t.read_to_close(timeout=5) == ""
    assert time.monotonic() - start < 4
    h = s.telnet()  # a silent connection is closed too
    assert h.read_to_close(timeout=5) == ""


def test_sighup_reopens_log_file(server_factory, tmp_path):
    log = tmp_path / "sundial.log"
    s = server_factory(args=["--log-file", str(log)])
    assert log.exists()
    moved = tmp_path / "sundial.log.1"
    os.rename(log, moved)
    s.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 5
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert log.exists()
    assert s.stop() == 0
    assert "stopped" in log.read_text()


def test_cors(server_factory):
    s = server_factory(args=["--http-cors-domains", "http://grafana.local, http://other"])
    c = s.http()
    status, headers, body = c.request("OPTIONS", "/api/version",
                                      headers={"Origin": "http://grafana.local"})
    assert status == 200
    assert headers["access-control-allow-origin"] == "http://grafana.local"
    assert "GET" in headers["access-control-allow-methods"]
    status, headers, body = c.get("/api/version", headers={"Origin": "http://other"})
    assert status == 200 and json.loads(body)["version"] == "2.4.1"
    status, headers, body = c.get("/api/version", headers={"Origin": "http://evil"})
    assert json.loads(body)["error"]["message"] == "CORS domain not allowed"


def test_options_without_cors_is_405(server):
    status, _, body = server.http().request("OPTIONS", "/api/version")
    assert status == 405
