"""InfluxDB line protocol end to end against the real sundiald: HTTP /write
and /api/v2/write (plain and gzip, partial writes, precision, errors),
/ping and /health, line protocol on the telnet port (a measurement with a
capital first letter included), series without tags read back with
/api/query, and real clients: Debian's python3-influxdb (the 1.x client
Home Assistant uses) and PyPI's influxdb-client (2.x API), whose writes are
read back and compared.
"""
import gzip
import json
import os
import shutil
import socket
import subprocess
import textwrap
import time
from urllib.parse import quote

import pytest

# Where scripts/install-deps.sh puts the 2.x client (a venv that also sees
# Debian's python3-influxdb).
INFLUX_VENV_PYTHON = "/opt/sundial-test-venv/bin/python"
DEBIAN_PYTHON = "/usr/bin/python3"
T0 = 1700000000  # seconds


def query(server, m, start=T0 - 3600, end=T0 + 3600):
    """The /api/query answer for m (e.g. "sum:cpu.usage_user") as a list."""
    c = server.http()
    status, _, body = c.get(f"/api/query?start={start}&end={end}&m={quote(m, safe=':{}=,')}")
    c.close()
    assert status == 200, body
    return json.loads(body)


def dps(server, m, **kw):
    """The data points of the only series group of query m, as {ts: value}."""
    res = query(server, m, **kw)
    assert len(res) == 1, res
    return {int(k): v for k, v in res[0]["dps"].items()}


def write(server, body, path="/write?db=test", headers=None):
    c = server.http()
    status, hdrs, data = c.post(path, body=body, headers=headers or {})
    c.close()
    return status, hdrs, data


def metrics(server):
    c = server.http()
    status, _, body = c.get("/metrics")
    c.close()
    assert status == 200
    out = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = int(value)
    return out


def sync_telnet(t):
    t.send("version\n")
    t.read_until("Built on")
    t.read_until("\n")


# ---- HTTP ----

def test_write_stores_each_numeric_field_as_a_series(server):
    body = (f"cpu,host=web01,region=eu usage_user=1.5,usage_system=2i,up=true,"
            f"msg=\"a \\\"string\\\"\" {T0}000000000\n"
            f"cpu,host=web02,region=eu usage_user=3.5 {T0}000000000\n")
    status, hdrs, data = write(server, body)
    assert status == 204, data
    assert data == b""
    assert hdrs["x-influxdb-version"].startswith("1.")
    assert hdrs["x-influxdb-build"] == "OSS"
    assert hdrs["request-id"]
    assert dps(server, "sum:cpu.usage_user") == {T0: 5.0}
    assert dps(server, "sum:cpu.usage_user{host=web01}") == {T0: 1.5}
    assert dps(server, "sum:cpu.usage_system") == {T0: 2}
    assert dps(server, "sum:cpu.up") == {T0: 1}
    # The string field made no series.
    c = server.http()
    status, _, body = c.get(f"/api/query?start={T0 - 60}&m=sum:cpu.msg")
    c.close()
    assert status == 400 and b"No such name for 'metrics'" in body
    m = metrics(server)
    assert m['sundial_ingest_points_accepted_total{protocol="influx"}'] == 4
    assert m["sundial_ingest_influx_string_fields_skipped_total"] == 1
    assert m["sundial_ingest_influx_requests_total"] == 1


def test_series_without_tags_is_queryable(server):
    assert write(server, f"room_temp value=21.5 {T0}\nroom_temp value=22 {T0 + 10}\n",
                 "/write?precision=s")[0] == 204
    res = query(server, "sum:room_temp.value")
    assert res[0]["tags"] == {}
    assert {int(k): v for k, v in res[0]["dps"].items()} == {T0: 21.5, T0 + 10: 22.0}


def test_precisions_and_receive_time(server):
    cases = {"ns": f"{T0}123456789", "u": f"{T0}123456", "us": f"{T0}123456",
             "ms": f"{T0}123", "s": f"{T0}", "m": f"{T0 // 60}", "h": f"{T0 // 3600}"}
    for p, ts in cases.items():
        status, _, data = write(server, f"prec_{p} v=1 {ts}\n", f"/write?precision={p}")
        assert status == 204, (p, data)
    res = query(server, "sum:prec_ns.v", start=T0 - 7200)
    assert res[0]["dps"] == {str(T0): 1.0}  # /api/query answers in seconds
    c = server.http()
    status, _, body = c.post("/api/query", body={
        "start": (T0 - 7200) * 1000, "end": (T0 + 60) * 1000, "msResolution": True,
        "queries": [{"aggregator": "sum", "metric": f"prec_{p}.v"} for p in cases]})
    assert status == 200, body
    got = {r["metric"]: list(r["dps"].keys()) for r in json.loads(body)}
    assert got["prec_ns.v"] == [str(T0 * 1000 + 123)]  # truncated to ms
    assert got["prec_u.v"] == [str(T0 * 1000 + 123)]
    assert got["prec_us.v"] == [str(T0 * 1000 + 123)]
    assert got["prec_ms.v"] == [str(T0 * 1000 + 123)]
    assert got["prec_s.v"] == [str(T0 * 1000)]
    assert got["prec_m.v"] == [str(T0 // 60 * 60000)]
    assert got["prec_h.v"] == [str(T0 // 3600 * 3600000)]
    # No timestamp: the receive time.
    before = int(time.time() * 1000)
    assert write(server, "now_metric v=7\n")[0] == 204
    after = int(time.time() * 1000)
    stamps = [int(k) for k in dps(server, "sum:now_metric.v", start=before // 1000 - 1,
                                  end=after // 1000 + 1)]
    assert len(stamps) == 1 and before // 1000 - 1 <= stamps[0] <= after // 1000 + 1


def test_bad_precision_is_400(server):
    status, _, data = write(server, "m v=1\n", "/write?precision=x")
    assert status == 400
    assert json.loads(data) == {"error": 'invalid precision "x" (use n, u, ms, s, m or h)'}
    status, _, data = write(server, "m v=1\n", "/api/v2/write?bucket=b&precision=x")
    assert status == 400
    assert json.loads(data) == {"error": 'invalid precision "x" (use ns, us, ms or s)'}


def test_all_bad_lines_is_400_naming_the_line(server):
    status, hdrs, data = write(server, "cpu\n")
    assert status == 400
    assert hdrs["content-type"].startswith("application/json")
    assert json.loads(data) == {"error": "unable to parse 'cpu': missing fields"}
    status, _, data = write(server, "cpu a=1x\ncpu b=\n")
    assert status == 400
    assert json.loads(data)["error"] == (
        "unable to parse 'cpu a=1x': invalid number (and 1 more bad lines)")


def test_partial_write_stores_good_lines_and_answers_400(server):
    body = (f"good,host=a v=1 {T0}\n"
            f"bad,host=a v=\n"
            f"good,host=b v=2 {T0}\n"
            f"also bad\n")
    status, _, data = write(server, body, "/write?db=x&precision=s")
    assert status == 400
    err = json.loads(data)["error"]
    assert err.startswith("partial write: unable to parse 'bad,host=a v=': missing field value")
    assert err.endswith("dropped=2")
    assert dps(server, "sum:good.v") == {T0: 3.0}
    m = metrics(server)
    assert m['sundial_ingest_points_accepted_total{protocol="influx"}'] == 2
    assert m['sundial_ingest_points_rejected_total{protocol="influx"}'] == 2


def test_gzip_body_and_v2_endpoint(server):
    body = "".join(f"gz,host=h{i} v={i} {T0}\n" for i in range(100)).encode()
    status, _, data = write(server, gzip.compress(body), "/write?db=x&precision=s",
                            headers={"Content-Encoding": "gzip"})
    assert status == 204, data
    assert dps(server, "sum:gz.v") == {T0: float(sum(range(100)))}
    status, _, data = write(server, f"v2m,t=x v=5i {T0}000\n",
                            "/api/v2/write?org=o&bucket=b&precision=ms",
                            headers={"Authorization": "Token abc"})
    assert status == 204, data
    assert dps(server, "sum:v2m.v") == {T0: 5}
    status, _, _ = write(server, b"not gzip", "/write", headers={"Content-Encoding": "gzip"})
    assert status == 400


def test_body_size_limit_applies(server_factory):
    s = server_factory(args=["--http-max-body-size", "2KiB"])
    status, _, _ = write(s, "m v=1\n" * 1000)
    assert status == 413


def test_empty_body_and_comments_are_204(server):
    assert write(server, "")[0] == 204
    assert write(server, "# nothing\n\n   \n")[0] == 204


def test_ping_and_health(server):
    c = server.http()
    status, hdrs, body = c.get("/ping")
    assert status == 204 and body == b""
    assert hdrs["x-influxdb-version"].startswith("1.")
    assert hdrs["x-influxdb-build"] == "OSS"
    assert hdrs["request-id"]
    status, hdrs, body = c.request("HEAD", "/ping")
    assert status == 204 and body == b""
    assert hdrs["x-influxdb-version"]
    status, _, body = c.get("/health")
    assert status == 200
    h = json.loads(body)
    assert h["name"] == "influxdb" and h["status"] == "pass"
    assert h["message"] == "ready for queries and writes"
    assert h["version"].startswith("1.")
    # The connection is still usable after HEAD (no stray body bytes).
    assert c.get("/api/version")[0] == 200
    # Other routes still refuse HEAD.
    assert c.request("HEAD", "/api/version")[0] == 405
    c.close()


def test_exactly_one_request_id_header_on_each_influx_route(server):
    """One X-Request-Id per reply (the client's when it sent one, else a
    generated one that Request-Id repeats), on every Influx route; http.client
    keeps repeated header fields, so a duplicate would show."""
    import http.client
    routes = [("POST", "/write?db=t", f"rid v=1 {T0}000000000\n"),
              ("POST", "/write?db=t&precision=bogus", "rid v=1\n"),
              ("POST", "/api/v2/write?bucket=b&precision=s", f"rid v=2 {T0}\n"),
              ("GET", "/ping", None), ("GET", "/ping?verbose=true", None),
              ("HEAD", "/ping", None), ("GET", "/health", None)]
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    seen = set()
    for method, path, body in routes:
        for client_id in (None, "influx-rid-7"):
            headers = {"X-Request-Id": client_id} if client_id else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            assert resp.status in (200, 204, 400), (method, path, resp.status)
            x_ids = [v for k, v in resp.getheaders() if k.lower() == "x-request-id"]
            ids = [v for k, v in resp.getheaders() if k.lower() == "request-id"]
            assert len(x_ids) == 1, (method, path, client_id, resp.getheaders())
            assert ids == x_ids, (method, path, client_id, resp.getheaders())
            if client_id:
                assert x_ids[0] == client_id
            else:
                assert x_ids[0] not in seen  # generated: new per request
                seen.add(x_ids[0])
    # Influx clients that send only Request-Id get it back in both headers.
    conn.request("GET", "/ping", headers={"Request-Id": "old-style-1"})
    resp = conn.getresponse()
    resp.read()
    assert [v for k, v in resp.getheaders()
            if k.lower() in ("x-request-id", "request-id")] == ["old-style-1"] * 2
    conn.close()


# ---- telnet port ----

def test_line_protocol_on_the_telnet_port(server):
    t = server.telnet()
    t.send(f"GETTER,host=a value=5 {T0}000000000\n"
           f"POSTAL_codes,zip=10115 n=1i {T0}000000000\n"
           f"put sys.cpu 1700000000 3 host=a\n"
           f"notag v=2.5 {T0}000000000\n"
           "cpu x=\n")
    assert t.read_until("\n") == "influx: unable to parse 'cpu x=': missing field value\n"
    sync_telnet(t)
    assert t.buf == b""
    assert dps(server, "sum:GETTER.value") == {T0: 5.0}
    assert dps(server, "sum:POSTAL_codes.n") == {T0: 1}
    assert dps(server, "sum:notag.v") == {T0: 2.5}
    assert dps(server, "sum:sys.cpu") == {T0: 3}
    # Telnet commands and unknown commands are unchanged.
    t.send("foo bar\n")
    assert t.read_until("\n") == "unknown command: foo.  Try `help'.\n"


def test_capital_letter_measurement_as_the_first_bytes(server):
    """The first bytes of a connection decide HTTP vs telnet: a measurement
    that starts like an HTTP method must stay on the telnet path."""
    for name in ("GET", "POST", "PUT", "HEAD", "DELETE", "OPTIONS"):
        sock = socket.create_connection((server.host, server.port), timeout=10)
        sock.sendall(f"{name} value=1 {T0}000000000\nversion\n".encode())
        data = b""
        while b"Built on" not in data:
            chunk = sock.recv(65536)
            assert chunk, data
            data += chunk
        sock.close()
        assert data.startswith(b"net.opentsdb"), data
        assert dps(server, f"sum:{name}.value") == {T0: 1.0}
    # Byte by byte: the server waits until it can decide.
    sock = socket.create_connection((server.host, server.port), timeout=10)
    for b in b"GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n":
        sock.sendall(bytes([b]))
    assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    sock.close()


# ---- real clients ----

def run_client(python, script, server):
    """Runs script with python (a subprocess, so that Debian's packages work
    under any pytest interpreter); returns its stdout."""
    proc = subprocess.run([python, "-c", textwrap.dedent(script), server.host, str(server.port)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def has_module(python, module):
    if not os.access(python, os.X_OK):
        return False
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True,
                          timeout=60).returncode == 0


def test_python3_influxdb_client(server):
    python = DEBIAN_PYTHON if has_module(DEBIAN_PYTHON, "influxdb") else INFLUX_VENV_PYTHON
    if not has_module(python, "influxdb"):
        pytest.skip("python3-influxdb is not installed (scripts/install-deps.sh installs it)")
    out = run_client(python, f"""
        import sys
        from influxdb import InfluxDBClient
        c = InfluxDBClient(host=sys.argv[1], port=int(sys.argv[2]), username="u",
                           password="p", database="home_assistant")
        print(c.ping())
        # Home Assistant's shape: measurement = unit, entity tags, value field.
        points = [{{"measurement": "°C", "tags": {{"domain": "sensor", "entity_id": "living"}},
                    "time": {T0} + i * 10, "fields": {{"value": 20.0 + i, "state": "on"}}}}
                  for i in range(5)]
        assert c.write_points(points, time_precision="s")
        assert c.write_points([{{"measurement": "hum", "time": {T0} * 1000,
                                 "fields": {{"value": 55}}}}], time_precision="ms")
        assert c.write(["lp,host=x v=7i {T0}"], params={{"db": "home_assistant",
                                                      "precision": "s"}}, protocol="line")
        print("ok")
    """, server)
    assert out.split()[-1] == "ok"
    assert out.split()[0].startswith("1.")  # ping() returns X-Influxdb-Version
    assert dps(server, "sum:°C.value{entity_id=living}") == {
        T0 + i * 10: 20.0 + i for i in range(5)}
    assert dps(server, "sum:hum.value") == {T0: 55}
    assert dps(server, "sum:lp.v") == {T0: 7}


def test_influxdb_client_v2_synchronous(server):
    if not has_module(INFLUX_VENV_PYTHON, "influxdb_client"):
        if os.environ.get("CI"):
            pytest.fail(f"influxdb-client missing in {INFLUX_VENV_PYTHON}; run scripts/install-deps.sh")
        pytest.skip(f"influxdb-client is not installed in {INFLUX_VENV_PYTHON} "
                    "(scripts/install-deps.sh installs it)")
    out = run_client(INFLUX_VENV_PYTHON, f"""
        import sys
        from influxdb_client import InfluxDBClient, Point, WritePrecision
        from influxdb_client.client.write_api import SYNCHRONOUS
        url = "http://%s:%s" % (sys.argv[1], sys.argv[2])
        with InfluxDBClient(url=url, token="t", org="o") as c:
            w = c.write_api(write_options=SYNCHRONOUS)
            for i in range(10):
                w.write(bucket="b", record=Point("disk").tag("host", "h1").tag("path", "/")
                        .field("used_percent", 40.5 + i).field("inodes", i)
                        .time({T0} + i, WritePrecision.S))
            w.write(bucket="b", record="v2line,host=h2 free=3u {T0}000", write_precision=WritePrecision.MS)
            w.write(bucket="b", record=[{{"measurement": "dictm", "tags": {{}},
                                          "fields": {{"x": 1.25}}, "time": {T0}000000000}}])
            print("ok")
    """, server)
    assert out.strip() == "ok"
    assert dps(server, "sum:disk.used_percent{host=h1}") == {T0 + i: 40.5 + i for i in range(10)}
    assert dps(server, "sum:disk.inodes") == {T0 + i: i for i in range(10)}
    assert dps(server, "sum:v2line.free") == {T0: 3}
    assert dps(server, "sum:dictm.x") == {T0: 1.25}
