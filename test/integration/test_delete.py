"""Deleting data end to end: the delete flag of /api/query (refused with
OpenTSDB's 400 unless query.allow_delete is on), DELETE /api/series, and
that deletes survive restarts, kill -9 and compaction (which gives the
space back), while points written after a delete stay visible."""
import json
import os
import random
import signal
import threading
import time

import pytest

DAY = 86400
T_NOW = int(time.time())
T0 = T_NOW - T_NOW % 3600 - 3 * 3600  # three closed hours ago
ALLOW = ["--query-allow-delete", "true"]
ROLLUP_ARGS = ["--rollup-build-interval", "100ms", "--rollup-grace", "0", "--rollup-batch", "1h",
               "--query-inline-max-points", "0"]


def put(server, metric, ts_values, tags=None):
    pts = [{"metric": metric, "timestamp": t, "value": v, "tags": tags or {"host": "a"}}
           for t, v in ts_values]
    for i in range(0, len(pts), 5000):
        status, _, body = server.http().post("/api/put?sync", pts[i:i + 5000])
        assert status == 204, body


def query(server, metric, start, end, tags=None, extra=None):
    body = {"start": start, "end": end,
            "queries": [{"aggregator": "none", "metric": metric, "tags": tags or {}}]}
    body.update(extra or {})
    status, res = server.http().post_json("/api/query", body)
    return status, res


def dps(server, metric, start, end, tags=None):
    status, res = query(server, metric, start, end, tags)
    if status == 400 and "No such name" in str(res):
        return {}
    assert status == 200, res
    out = {}
    for r in res:
        for k, v in r["dps"].items():
            out[(r["tags"].get("host"), int(k))] = v
    return out


def wait_for(cond, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def test_delete_refused_without_allow_delete(server):
    put(server, "d.cpu", [(T0 + i, i) for i in range(10)])
    expect = "Deleting data is not enabled (tsd.http.query.allow_delete=false)"
    status, res = query(server, "d.cpu", T0, T0 + 100, extra={"delete": True})
    assert status == 400 and res["error"]["details"] == expect, res
    status, _, body = server.http().get(f"/api/query?start={T0}&m=none:d.cpu&delete")
    assert status == 400 and expect.encode() in body
    status, _, body = server.http().request("DELETE", "/api/series?metric=d.cpu")
    assert status == 400 and expect.encode() in body
    assert len(dps(server, "d.cpu", T0, T0 + 100)) == 10  # nothing removed


def test_delete_via_query_answers_then_removes(server_factory):
    s = server_factory(ALLOW)
    put(s, "d.cpu", [(T0 + i, i) for i in range(100)])
    put(s, "d.cpu", [(T0 + i, i) for i in range(100)], {"host": "b"})
    status, res = query(s, "d.cpu", T0 + 10, T0 + 19, {"host": "a"}, {"delete": True})
    assert status == 200, res
    assert len(res) == 1 and len(res[0]["dps"]) == 10  # the data as it was
    left = dps(s, "d.cpu", T0, T0 + 200, {"host": "*"})
    assert len(left) == 190
    assert not any(h == "a" and T0 + 10 <= t <= T0 + 19 for h, t in left)
    # GET form, and points written after a delete into the range are visible.
    status, _, body = s.http().get(f"/api/query?start={T0 + 50}&end={T0 + 59}&m=none:d.cpu&delete=true")
    assert status == 200, body
    assert len(dps(s, "d.cpu", T0, T0 + 200, {"host": "*"})) == 170
    # The DELETE method means the same (query string or JSON body).
    status, _, body = s.http().request(
        "DELETE", f"/api/query?start={T0 + 90}&end={T0 + 94}&m=none:d.cpu{{host=b}}")
    assert status == 200 and len(json.loads(body)[0]["dps"]) == 5, body
    status, _, body = s.http().request(
        "DELETE", "/api/query", {"start": T0 + 95, "end": T0 + 99,
                                 "queries": [{"aggregator": "none", "metric": "d.cpu",
                                              "tags": {"host": "b"}}]})
    assert status == 200 and len(json.loads(body)[0]["dps"]) == 5, body
    assert len(dps(s, "d.cpu", T0, T0 + 200, {"host": "*"})) == 160
    put(s, "d.cpu", [(T0 + 55, 555)])
    got = dps(s, "d.cpu", T0 + 50, T0 + 59, {"host": "a"})
    assert got == {("a", T0 + 55): 555}
    # /api/query/last skips deleted points.
    put(s, "d.last", [(T0 + i, i) for i in range(10)])
    status, _ = query(s, "d.last", T0 + 5, T0 + 9, extra={"delete": True})
    assert status == 200
    status, res = s.http().get_json("/api/query/last?timeseries=d.last{host=a}")
    assert status == 200 and res[0]["value"] == "4", res
    # Survives a clean restart and a kill -9.
    before = dps(s, "d.cpu", T0, T0 + 200, {"host": "*"})
    s.restart()
    assert dps(s, "d.cpu", T0, T0 + 200, {"host": "*"}) == before
    status, _ = query(s, "d.cpu", T0 + 60, T0 + 69, {"host": "b"}, {"delete": True})
    assert status == 200
    before = dps(s, "d.cpu", T0, T0 + 200, {"host": "*"})
    s.stop(signal.SIGKILL)
    s.restart()
    assert dps(s, "d.cpu", T0, T0 + 200, {"host": "*"}) == before


def test_delete_series(server_factory):
    s = server_factory(ALLOW)
    put(s, "d.mem", [(T0 + i, i) for i in range(20)], {"host": "a"})
    put(s, "d.mem", [(T0 + i, i) for i in range(20)], {"host": "b"})
    put(s, "d.mem", [(T0 + i, i) for i in range(20)], {"host": "c"})
    status, _, body = s.http().request("DELETE", "/api/series?metric=d.mem{host=a}")
    assert status == 200, body
    assert b'"series":1' in body and b'"removed":1' in body
    # JSON body with a time range: the series keeps its other points.
    status, _, body = s.http().request(
        "DELETE", "/api/series", {"metric": "d.mem", "tags": {"host": "b"},
                                  "start": T0, "end": T0 + 9})
    assert status == 200 and b'"series":1' in body and b'"removed":0' in body, body
    got = dps(s, "d.mem", T0, T0 + 100, {"host": "*"})
    assert {h for h, _ in got} == {"b", "c"} and len(got) == 30
    status, res = s.http().get_json("/api/search/lookup?m=d.mem")
    assert status == 200 and {r["tags"]["host"] for r in res["results"]} == {"b", "c"}, res
    status, res = s.http().get_json("/api/suggest?type=metrics&q=d.m")
    assert status == 200 and "d.mem" in res  # the metric name stays (README)
    s.stop(signal.SIGKILL)
    s.restart()
    status, res = s.http().get_json("/api/search/lookup?m=d.mem")
    assert {r["tags"]["host"] for r in res["results"]} == {"b", "c"}, res
    # Written again: listed again.
    put(s, "d.mem", [(T0 + 500, 1)], {"host": "a"})
    status, res = s.http().get_json("/api/search/lookup?m=d.mem")
    assert {r["tags"]["host"] for r in res["results"]} == {"a", "b", "c"}, res
    status, _, body = s.http().request("DELETE", "/api/series")
    assert status == 400
    status, _, body = s.http().request("DELETE", "/api/series?metric=nosuch.metric")
    assert status == 400 and b"No such name" in body


def test_delete_reaches_rollups(server_factory):
    s = server_factory(ALLOW + ROLLUP_ARGS)
    put(s, "d.rl", [(T0 + i, 1) for i in range(0, 3 * 3600, 60)])

    def hourly():
        body = {"start": T0, "end": T0 + 3 * 3600 - 1,
                "queries": [{"aggregator": "sum", "metric": "d.rl", "downsample": "1h-count"}]}
        status, res = s.http().post_json("/api/query", body)
        assert status == 200, res
        return {int(k): v for k, v in res[0]["dps"].items()} if res else {}

    wait_for(lambda: hourly() == {T0: 60, T0 + 3600: 60, T0 + 7200: 60})
    status, _ = query(s, "d.rl", T0 + 3600, T0 + 7199, extra={"delete": True})
    assert status == 200
    assert hourly() == {T0: 60, T0 + 7200: 60}
    time.sleep(0.5)  # a rebuild pass
    assert hourly() == {T0: 60, T0 + 7200: 60}
    s.restart()
    assert hourly() == {T0: 60, T0 + 7200: 60}


def part_bytes(data_dir):
    total = 0
    for root, _, files in os.walk(os.path.join(data_dir, "part")):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def test_delete_then_compaction_reclaims_space(server_factory):
    old = T_NOW - T_NOW % DAY - 10 * DAY  # a day partition that ended long ago
    s = server_factory(ALLOW + ["--storage-compact-after", "0"])
    rnd = random.Random(5)
    put(s, "d.old", [(old + i * 10, rnd.random()) for i in range(8000)])
    put(s, "d.keep", [(old + i * 10, i) for i in range(100)])
    s.restart()  # everything in page files
    status, _, body = s.http().request("DELETE", "/api/series?metric=d.old")
    assert status == 200, body
    assert dps(s, "d.old", old, old + DAY) == {}
    before = part_bytes(s.data_dir)
    # A server compacting at once (its first maintenance pass) drops the
    # deleted points from the cold file.
    s.restart(["--storage-compact-after", "1d"])
    wait_for(lambda: any(os.path.exists(os.path.join(r, "cold"))
                         for r, _, _ in os.walk(os.path.join(s.data_dir, "part"))))
    time.sleep(0.5)
    after = part_bytes(s.data_dir)
    assert after < before / 4, (before, after)
    assert dps(s, "d.old", old, old + DAY) == {}
    assert len(dps(s, "d.keep", old, old + DAY)) == 100
    s.restart()
    assert dps(s, "d.old", old, old + DAY) == {}
    assert len(dps(s, "d.keep", old, old + DAY)) == 100


def test_kill_during_deletes_is_all_or_nothing(server_factory):
    """Deletes of whole ranges race a kill -9: after the restart each range
    is either fully there or fully gone."""
    s = server_factory(ALLOW)
    ranges = [(T0 + k * 100, T0 + k * 100 + 99) for k in range(20)]
    put(s, "d.crash", [(t, t % 7) for a, b in ranges for t in range(a, b + 1)])
    done = []

    def deleter():
        c = s.http()
        for a, b in ranges:
            try:
                status, _ = (c.request("DELETE", "/api/series",
                                       {"metric": "d.crash", "start": a, "end": b})[:2])
                if status == 200:
                    done.append((a, b))
            except OSError:
                return

    th = threading.Thread(target=deleter)
    th.start()
    time.sleep(0.05)
    s.stop(signal.SIGKILL)
    th.join(timeout=30)
    s.restart()
    got = dps(s, "d.crash", T0, T0 + 3000)
    for a, b in ranges:
        n = sum(1 for (_, t) in got if a <= t <= b)
        assert n in (0, 100), (a, b, n)
        if (a, b) in done:
            assert n == 0, (a, b)
