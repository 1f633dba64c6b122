"""The bucket cache of /api/query end to end (query.cache_size): repeated
fixed-interval downsampling queries are answered from it (tsd.query.cache.*
in /api/stats), and late points, overwrites and points at the live edge
still show in the next answer. A server with --query-cache-size 0 answers
the same and reports no cache counters. Data is loaded through /api/put at
timestamps a day ago, well below the cache's watermark (wall clock - 60 s)."""
import json
import time

STEP = 10  # seconds between points


def hour_a_day_ago():
    t = int(time.time()) - 86400
    return t - t % 3600


def put(server, points):
    status, _, body = server.http().post("/api/put?sync", points,
                                         {"Content-Type": "application/json"})
    assert status == 204, body


def load(server, t0, model):
    """Two hours of points every STEP s for hosts a and b; model[host][t] = v."""
    pts = []
    for h, host in enumerate(("a", "b")):
        model[host] = {}
        for i in range(2 * 3600 // STEP):
            t, v = t0 + i * STEP, (i * 7 + h * 3) % 101
            model[host][t] = v
            pts.append({"metric": "cache.m", "timestamp": t, "value": v,
                        "tags": {"host": host}})
    put(server, pts)


def cache_stats(server):
    status, body = server.http().get_json("/api/stats")
    assert status == 200
    return {r["metric"]: int(r["value"]) for r in body if r["metric"].startswith("tsd.query.cache.")}


def query(server, body):
    status, _, data = server.http().post("/api/query", body, {"Content-Type": "application/json"})
    assert status == 200, data
    return data


def minute_avgs(points, start_ms, end_ms):
    """1m-avg of {t: v} (seconds), buckets whose start is in [start_ms, end_ms],
    as {"t": avg}: the buckets' points all lie in the scan window here."""
    buckets = {}
    for t in sorted(points):
        buckets.setdefault(t - t % 60, []).append(points[t])
    return {str(b): sum(v) / len(v) for b, v in buckets.items()
            if start_ms <= b * 1000 <= end_ms}


def by_host(data):
    return {r["tags"]["host"]: r["dps"] for r in json.loads(data)}


def assert_matches(data, model, start, end):
    got = by_host(data)
    assert sorted(got) == sorted(model)
    for host, pts in model.items():
        want = minute_avgs(pts, start, end)
        assert sorted(got[host]) == sorted(want), host
        for k, v in want.items():
            assert abs(got[host][k] - v) <= 1e-9 * max(1.0, abs(v)), (host, k, got[host][k], v)


def panel(t0):
    """An unaligned start and end (ms)."""
    return {"start": (t0 + 7) * 1000 + 250, "end": (t0 + 5400) * 1000 + 999,
            "queries": [{"metric": "cache.m", "aggregator": "sum", "downsample": "1m-avg",
                         "tags": {"host": "*"}}]}


def test_cache_hits_and_late_points_show(server):
    t0 = hour_a_day_ago()
    model = {}
    load(server, t0, model)
    body = panel(t0)
    start, end = body["start"], body["end"]
    first = query(server, body)
    assert_matches(first, model, start, end)
    before = cache_stats(server)
    assert set(before) == {"tsd.query.cache.hits", "tsd.query.cache.misses",
                           "tsd.query.cache.entries", "tsd.query.cache.bytes"}
    assert before["tsd.query.cache.entries"] >= 2 and before["tsd.query.cache.bytes"] > 0
    second = query(server, body)
    assert second == first
    after = cache_stats(server)
    assert after["tsd.query.cache.hits"] >= before["tsd.query.cache.hits"] + 2  # both hosts

    # A late point between two existing ones and an overwrite, both inside
    # buckets the cache already answered.
    late_t, over_t = t0 + 1800 + 5, t0 + 2700
    put(server, [{"metric": "cache.m", "timestamp": late_t, "value": 100000, "tags": {"host": "a"}},
                 {"metric": "cache.m", "timestamp": over_t, "value": 5000, "tags": {"host": "b"}}])
    model["a"][late_t] = 100000
    model["b"][over_t] = 5000
    third = query(server, body)
    assert third != first
    assert_matches(third, model, start, end)
    got = by_host(third)
    assert got["a"][str(t0 + 1800)] > 10000
    assert got["b"][str(t0 + 2700)] > 500
    # And again (the buckets stored back after the late points are right).
    assert query(server, body) == third
    assert cache_stats(server)["tsd.query.cache.hits"] > after["tsd.query.cache.hits"]


def test_live_edge_is_always_read(server):
    now = int(time.time())
    start = now - now % 60 - 600  # a minute boundary: no bucket cut at the start
    pts = [{"metric": "cache.live", "timestamp": start + i * 5, "value": i, "tags": {"host": "a"}}
           for i in range(120)]  # up to at least 5 s ago
    put(server, pts)
    body = {"start": start * 1000,
            "queries": [{"metric": "cache.live", "aggregator": "sum", "downsample": "1m-count"}]}
    first = query(server, body)
    assert sum(json.loads(first)[0]["dps"].values()) == 120
    assert query(server, body) == first
    assert cache_stats(server)["tsd.query.cache.hits"] > 0
    # Newer than the watermark: never in an entry, read by every query.
    put(server, [{"metric": "cache.live", "timestamp": now - 1, "value": 1, "tags": {"host": "a"}},
                 {"metric": "cache.live", "timestamp": now - 2, "value": 1, "tags": {"host": "a"}}])
    assert sum(json.loads(query(server, body))[0]["dps"].values()) == 122


def test_cache_off_answers_the_same(server_factory):
    t0 = hour_a_day_ago()
    on = server_factory()
    off = server_factory(args=["--query-cache-size", "0"])
    model = {}
    load(on, t0, model)
    load(off, t0, {})
    body = panel(t0)
    want = query(on, body)
    assert query(on, body) == want
    assert query(off, body) == want
    assert query(off, body) == want
    assert cache_stats(off) == {}
    assert cache_stats(on)["tsd.query.cache.hits"] > 0
