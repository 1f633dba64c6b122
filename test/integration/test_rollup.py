"""Rollups end to end: data written in past hours is rolled up by the
server's builder (fast interval, no grace), queries with whole-hour
downsampling are answered from the rollups with the same values the raw
points give (computed here in Python, sequential double sums as the server
does), late points are reflected at once and after the rebuild, and the
answers survive a clean restart and a kill -9."""
import signal
import time

T_NOW = int(time.time())
T0 = T_NOW - T_NOW % 3600 - 6 * 3600  # six closed hours ago, an hour boundary
HOSTS = ("a", "b", "c")
# Small queries are answered inline from raw points; these go to the query
# threads, where rollups are used.
ARGS = ["--rollup-build-interval", "100ms", "--rollup-grace", "0", "--rollup-batch", "1h",
        "--query-inline-max-points", "0"]


def stats(server):
    status, body = server.http().get_json("/api/stats")
    assert status == 200
    return {r["metric"]: int(r["value"]) for r in body if r["metric"].startswith("tsd.rollup.")}


def wait_for(cond, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def points():
    pts = []
    for h, host in enumerate(HOSTS):
        for i in range(0, 6 * 3600, 70):
            v = (i // 70) % 50 + h if h != 1 else round(((i * 7) % 1000) / 100.0 + 0.01, 2)
            pts.append({"metric": "rl.cpu", "timestamp": T0 + i, "value": v, "tags": {"host": host}})
    return pts


def expected_avg(pts, bucket):
    """host -> {bucket start s: avg} as the raw downsampler computes it."""
    acc = {}
    for p in sorted(pts, key=lambda p: (p["tags"]["host"], p["timestamp"])):
        b = p["timestamp"] - p["timestamp"] % bucket
        s = acc.setdefault(p["tags"]["host"], {}).setdefault(b, [0.0, 0])
        s[0] += float(p["value"])
        s[1] += 1
    # Buckets starting before the query start are not printed.
    return {h: {str(b): s / n for b, (s, n) in d.items() if b >= T0} for h, d in acc.items()}


def query_avg(server, bucket="1h"):
    body = {"start": T0, "end": T0 + 6 * 3600 - 1,
            "queries": [{"aggregator": "avg", "metric": "rl.cpu", "downsample": bucket + "-avg",
                         "tags": {"host": "*"}}]}
    status, res = server.http().post_json("/api/query", body)
    assert status == 200, res
    return {r["tags"]["host"]: r["dps"] for r in res}


def put(server, pts):
    c = server.http()
    for i in range(0, len(pts), 5000):
        status, _, body = c.post("/api/put?sync", pts[i:i + 5000], {"Content-Type": "application/json"})
        assert status == 204, body


def all_built(server, hours=0):
    """At least `hours` series-hours built since start, the watermark past
    the data (only hours below it are read from rollups; it moves after a
    day's file is written), a finished pass and no hour waiting for a
    rebuild (late points mark theirs before the put is answered)."""
    s = stats(server)
    return (s["tsd.rollup.hours_built"] >= hours and s["tsd.rollup.passes"] > 0
            and s["tsd.rollup.watermark"] >= T0 + 6 * 3600
            and s["tsd.rollup.dirty_pending"] == 0)


def test_rollups_answer_like_raw_data_across_late_points_and_restarts(server_factory):
    s = server_factory(args=ARGS)
    pts = points()
    put(s, pts)
    wait_for(lambda: all_built(s, 6 * len(HOSTS)))
    read_before = stats(s)["tsd.rollup.hours_read"]
    assert query_avg(s) == expected_avg(pts, 3600)
    assert query_avg(s, "2h") == expected_avg(pts, 7200)
    assert stats(s)["tsd.rollup.hours_read"] > read_before  # served from rollups

    # A late point in a rolled-up hour shows at once (that hour is read raw)
    # and after its rebuild.
    late = {"metric": "rl.cpu", "timestamp": T0 + 3600 + 5, "value": 1000, "tags": {"host": "a"}}
    put(s, [late])
    pts.append(late)
    want = expected_avg(pts, 3600)
    assert query_avg(s) == want
    wait_for(lambda: all_built(s))
    assert query_avg(s) == want

    s.restart()
    assert query_avg(s) == want
    assert stats(s)["tsd.rollup.hours_read"] > 0

    # kill -9 right after a late point: the restart still answers with it.
    late2 = {"metric": "rl.cpu", "timestamp": T0 + 2 * 3600 + 9, "value": -500, "tags": {"host": "c"}}
    put(s, [late2])
    pts.append(late2)
    want = expected_avg(pts, 3600)
    s.stop(signal.SIGKILL)
    s.restart()
    assert query_avg(s) == want
    wait_for(lambda: all_built(s))
    assert query_avg(s) == want
    assert query_avg(s, "3h") == expected_avg(pts, 3 * 3600)


def test_rollups_can_be_turned_off(server_factory):
    s = server_factory(args=["--rollup-enabled", "false"])
    pts = points()
    put(s, pts)
    assert query_avg(s) == expected_avg(pts, 3600)
    assert stats(s) == {}


def test_rollup_watermark_is_reported_in_seconds(server_factory):
    s = server_factory(args=ARGS)
    put(s, points()[:10])
    wait_for(lambda: stats(s)["tsd.rollup.watermark"] >= T0 + 6 * 3600)
    # An hour boundary, and closed hours only: never past the current hour.
    w = stats(s)["tsd.rollup.watermark"]
    now = int(time.time())
    assert w % 3600 == 0 and w <= now - now % 3600


def batch_end(now_s, batch_s=6 * 3600):
    """The end of the last whole batch of closed hours (grace 0), seconds."""
    closed = now_s - now_s % 3600
    day = closed - closed % 86400
    return day + (closed - day) // batch_s * batch_s


def test_new_hours_are_rolled_up_in_batches_of_six_hours_by_default(server_factory):
    # The default rollup.batch: of the six closed hours written, only those
    # of 6-hour batches (from midnight UTC) that have ended are built; the
    # rest are answered from raw points, with the same values.
    args = list(ARGS)
    del args[args.index("--rollup-batch"):args.index("--rollup-batch") + 2]
    before = batch_end(int(time.time()))
    s = server_factory(args=args)
    pts = points()
    put(s, pts)
    wait_for(lambda: stats(s)["tsd.rollup.passes"] >= 2 and stats(s)["tsd.rollup.dirty_pending"] == 0)
    w = stats(s)["tsd.rollup.watermark"]
    after = batch_end(int(time.time()))
    assert w in (before, after), (w, before, after)
    assert query_avg(s) == expected_avg(pts, 3600)
    # Whole hours only, 1h..24h: anything else is refused at start.
    for bad in ("90m", "25h", "0"):
        r = server_factory(args=["--rollup-batch", bad], wait=False)
        assert r.proc.wait(timeout=10) == 2, bad
        assert "rollup batch must be whole hours" in r.stderr(), bad
