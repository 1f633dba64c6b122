"""Prometheus remote_write (POST /api/v1/write) and the Graphite plaintext
listener (graphite.port), against the real server."""
import json
import os
import socket
import time

import pytest

import remote_write_codec as rw
from conftest import free_port


def now_s():
    """A minute ago: queries end at the current time by default."""
    return int(time.time()) - 60


def query(server, m, start, tags=None):
    if tags is None:
        return server.http().get_json(f"/api/query?start={start}&m={m}")
    agg, metric = m.split(":", 1)
    status, _, data = server.http().post("/api/query", json.dumps({
        "start": start,
        "queries": [{"aggregator": agg, "metric": metric, "tags": tags}]}),
        {"Content-Type": "application/json"})
    return status, json.loads(data)


def stats(server):
    status, body = server.http().get_json("/api/stats")
    assert status == 200
    out = {}
    for r in body:
        key = r["metric"]
        tags = {k: v for k, v in r["tags"].items() if k != "host"}
        if tags:
            key += "{" + ",".join(f"{k}={v}" for k, v in sorted(tags.items())) + "}"
        out[key] = int(r["value"])
    return out


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


def post_write(server, body, headers=None, path="/api/v1/write"):
    return server.http().post(path, body, rw.HEADERS if headers is None else headers)


# ---- remote_write ----

def test_remote_write_stores_series_with_and_without_tags(server):
    t0 = now_s() * 1000
    status, _, data = post_write(server, rw.body([
        ({"__name__": "node_load1", "instance": "127.0.0.1:9100", "job": "node", "empty": ""},
         [(0.5, t0), (0.75, t0 + 1000)]),
        ({"__name__": "up"}, [(1.0, t0)]),
    ]))
    assert status == 204, data
    status, body = query(server, "sum:node_load1", t0 // 1000 - 10,
                         tags={"instance": "127.0.0.1:9100"})
    assert status == 200, body
    assert len(body) == 1
    assert body[0]["tags"] == {"instance": "127.0.0.1:9100", "job": "node"}
    assert list(body[0]["dps"].values()) == [0.5, 0.75]
    status, body = query(server, "sum:up", t0 // 1000 - 10)
    assert status == 200 and body[0]["tags"] == {}
    assert list(body[0]["dps"].values()) == [1.0]
    s = stats(server)
    assert s["tsd.ingest.points.accepted{protocol=remote_write}"] == 3
    assert s["tsd.ingest.remote_write.requests"] == 1


def test_remote_write_push_alias_and_missing_encoding_header(server):
    t0 = now_s() * 1000
    status, _, _ = post_write(server, rw.body([({"__name__": "alias_m"}, [(2, t0)])]),
                              path="/api/v1/push")
    assert status == 204
    status, _, _ = post_write(server, rw.body([({"__name__": "alias_m"}, [(3, t0 + 1)])]),
                              headers={"Content-Type": "application/x-protobuf"})
    assert status == 204
    status, body = query(server, "sum:alias_m", t0 // 1000 - 10)
    assert list(body[0]["dps"].values()) in ([3.0], [2.0, 3.0])


def test_remote_write_stale_markers_and_nan_are_dropped_and_counted(server):
    t0 = now_s() * 1000
    status, _, _ = post_write(server, rw.body([
        ({"__name__": "stale_m", "a": "b"},
         [(1, t0), (rw.STALE_NAN, t0 + 1000), (float("nan"), t0 + 2000),
          (float("inf"), t0 + 3000), (4, t0 + 4000)]),
    ]))
    assert status == 204
    status, body = query(server, "sum:stale_m", t0 // 1000 - 10)
    assert list(body[0]["dps"].values()) == [1.0, 4.0]
    s = stats(server)
    assert s["tsd.ingest.remote_write.stale_dropped"] == 1
    assert s["tsd.ingest.points.rejected{protocol=remote_write}"] == 2
    assert s["tsd.ingest.points.accepted{protocol=remote_write}"] == 2
    status, _, text = server.http().get("/metrics")
    assert b'sundial_ingest_remote_write_stale_dropped_total 1' in text


@pytest.mark.parametrize("payload,message", [
    (b"\x05not snappy", b"snappy"),
    (rw.snappy_literal(b"\x0a\x05\x01"), b"runs past its message"),
    (rw.snappy_literal(b"\xff" * 12), b"varint"),
    (rw.body([({"job": "x"}, [(1, 1000)])]), b"__name__"),
    (rw.body([({"__name__": "m", "a": "x\x01y"}, [(1, 1000)])]), b"control character"),
])
def test_remote_write_bad_bodies_get_400_with_text(server, payload, message):
    status, headers, data = post_write(server, payload)
    assert status == 400, data
    assert headers["content-type"].startswith("text/plain")
    assert message in data, data
    assert stats(server)["tsd.ingest.remote_write.bad_requests"] == 1


def test_remote_write_one_bad_series_does_not_lose_the_batch(server):
    # A partial write: the bad series is refused and named in the 400 (which
    # Prometheus does not retry), the good ones are stored.
    t0 = now_s() * 1000
    status, _, data = post_write(server, rw.body([
        ({"__name__": "good_one", "host": "a"}, [(1, t0), (2, t0 + 1000)]),
        ({"instance": "x"}, [(1, t0)]),
        ({"__name__": "good_two"}, [(3, t0)]),
    ]))
    assert status == 400 and b"series 1" in data, data
    assert b"the other series were stored (3 samples)" in data, data
    status, body = query(server, "sum:good_one", t0 // 1000 - 10)
    assert status == 200 and list(body[0]["dps"].values()) == [1.0, 2.0]
    status, body = query(server, "sum:good_two", t0 // 1000 - 10)
    assert status == 200 and list(body[0]["dps"].values()) == [3.0]
    s = stats(server)
    assert s["tsd.ingest.points.rejected{protocol=remote_write}"] == 1
    assert s["tsd.ingest.points.accepted{protocol=remote_write}"] == 3
    assert s["tsd.ingest.remote_write.bad_requests"] == 1


def test_remote_write_size_limit_checked_from_the_snappy_header(server_factory):
    server = server_factory(args=["--http-max-body-size", "1024"])
    # A 5-byte body whose header claims 1 MiB: refused before allocating.
    status, _, data = post_write(server, rw.varint(1 << 20) + b"\x00")
    assert status == 413, data
    big = rw.body([({"__name__": "big", "k": "v" * 2000}, [(1, 1000)])])
    assert len(big) > 1024
    status, _, _ = post_write(server, big)
    assert status == 413
    small = rw.body([({"__name__": "small"}, [(1, now_s() * 1000)])])
    assert post_write(server, small)[0] == 204


def test_remote_write_wrong_encoding_or_version_is_415(server):
    payload = rw.body([({"__name__": "m"}, [(1, 1000)])])
    status, _, data = post_write(server, payload, {"Content-Encoding": "br"})
    assert status == 415
    import gzip
    status, _, data = post_write(server, gzip.compress(payload), {"Content-Encoding": "gzip"})
    assert status == 415 and b"snappy" in data
    headers = dict(rw.HEADERS)
    headers["Content-Type"] = "application/x-protobuf;proto=io.prometheus.write.v2.Request"
    status, _, data = post_write(server, payload, headers)
    assert status == 415 and b"2.0" in data


def test_remote_write_get_is_405(server):
    status, _, _ = server.http().get("/api/v1/write")
    assert status == 405


# ---- Graphite ----

@pytest.fixture
def graphite_server(server_factory):
    for _ in range(3):
        port = free_port()
        try:
            s = server_factory(args=["--graphite-port", str(port)])
        except RuntimeError:
            continue  # lost the port to another process
        s.graphite_port = port
        return s
    pytest.fail("could not start a server with a Graphite port")


def listening_ports(pid):
    """TCP ports the process listens on, from /proc (its socket inodes
    matched against /proc/net/tcp{,6} entries in state LISTEN)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table) as f:
            for line in list(f)[1:]:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:
                    ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


def test_graphite_port_is_off_by_default(server):
    # The default config opens one listener: the OpenTSDB/HTTP port.
    assert listening_ports(server.proc.pid) == {server.port}


def graphite_send(server, text, close=True):
    sock = socket.create_connection((server.host, server.graphite_port), timeout=10)
    sock.sendall(text.encode())
    if close:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(10)
        assert sock.recv(100) == b""  # carbon never answers
        sock.close()
        return None
    return sock


def accepted(server, protocol):
    return stats(server).get(f"tsd.ingest.points.accepted{{protocol={protocol}}}", 0)


def test_graphite_plain_and_tagged_lines(graphite_server):
    s = graphite_server
    t = now_s()
    graphite_send(s, f"servers.a.cpu 0.5 {t}\n"
                     f"servers.a.cpu 0.25 {t + 1}.5\r\n"
                     f"disk.used;datacenter=dc1;rack=a1 42 {t}\n"
                     f"disk.used;rack=a2;datacenter=dc1 43 {t}\n")
    assert wait_for(lambda: accepted(s, "graphite") == 4)
    status, body = query(s, "sum:servers.a.cpu", t - 10)
    assert status == 200 and body[0]["tags"] == {}
    dps = body[0]["dps"]
    assert list(dps.values()) == [0.5, 0.25]
    status, body = query(s, "sum:disk.used{rack=a1}", t - 10)
    assert body[0]["tags"] == {"datacenter": "dc1", "rack": "a1"}
    assert list(body[0]["dps"].values()) == [42.0]
    status, body = query(s, "sum:disk.used", t - 10)
    assert list(body[0]["dps"].values()) == [85.0]


def test_graphite_now_timestamps(graphite_server):
    s = graphite_server
    before = time.time()
    graphite_send(s, "now.a 1 -1\nnow.b 2\n")
    assert wait_for(lambda: accepted(s, "graphite") == 2)
    for m in ("now.a", "now.b"):
        status, body = query(s, f"sum:{m}", int(before) - 5)
        (ts,) = body[0]["dps"].keys()
        assert before - 2 <= int(ts) <= time.time() + 2


def test_graphite_bad_lines_are_counted_not_answered(graphite_server):
    s = graphite_server
    t = now_s()
    sock = graphite_send(s, "bad\n"
                            f"bad.value abc {t}\n"
                            f"bad.tag;k {t} 1\n"
                            f"bad.tag2;k=~v 1 {t}\n"
                            f"a nan {t}\n"
                            f"good.one 7 {t}\n", close=False)
    assert wait_for(lambda: accepted(s, "graphite") == 1)
    s2 = stats(s)
    assert s2["tsd.ingest.points.rejected{protocol=graphite}"] == 5
    # The connection stays open and keeps working; nothing was sent back.
    sock.sendall(f"good.two 8 {t}\n".encode())
    assert wait_for(lambda: accepted(s, "graphite") == 2)
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(100)
    sock.close()
    assert "graphite: " in wait_for(lambda: "bad lines" in s.stderr() and s.stderr())


def test_graphite_with_nc(graphite_server):
    import shutil
    import subprocess
    nc = shutil.which("nc")
    if nc is None:
        pytest.skip("nc (netcat-openbsd) is not installed")
    s = graphite_server
    t = now_s()
    subprocess.run([nc, "-q0", s.host, str(s.graphite_port)],
                   input=f"nc.metric;via=nc 3 {t}\n".encode(), timeout=10, check=False)
    assert wait_for(lambda: accepted(s, "graphite") == 1)
    status, body = query(s, "sum:nc.metric{via=nc}", t - 10)
    assert list(body[0]["dps"].values()) == [3.0]


def test_graphite_line_limit_closes_like_telnet(graphite_server):
    s = graphite_server
    sock = socket.create_connection((s.host, s.graphite_port), timeout=10)
    try:
        sock.sendall(b"x" * (80 * 1024))
        sock.settimeout(10)
        assert sock.recv(100) == b""  # closed: longer than ingest.max_line_length
    except ConnectionResetError:
        pass
    finally:
        sock.close()
