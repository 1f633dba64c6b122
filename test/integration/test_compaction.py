"""Compaction end to end: with the default storage.compact_after (1h) a
partition that ended long ago becomes a cold file at the first maintenance
pass; every point reads back bit for bit (2-decimal values, full-precision
doubles, big integers, irregular millisecond timestamps); a late point
written after the compaction is read through the merge at once and across
restarts."""
import os
import random
import time

DAY = 86400
T_NOW = int(time.time())
OLD = T_NOW - T_NOW % DAY - 5 * DAY  # a day partition that ended long ago


def call(server, fn):
    c = server.http()
    try:
        return fn(c)
    finally:
        c.close()


def put(server, points):
    for i in range(0, len(points), 5000):
        status, _, body = call(server, lambda c: c.post("/api/put?sync", points[i:i + 5000]))
        assert status == 204, body


def dps(server, metric, start_ms, end_ms):
    status, res = call(server, lambda c: c.post_json("/api/query", {
        "start": start_ms, "end": end_ms, "msResolution": True,
        "queries": [{"aggregator": "none", "metric": metric}]}))
    assert status == 200, res
    assert len(res) == 1, res
    return {int(k): v for k, v in res[0]["dps"].items()}


def stat(server, name):
    status, res = call(server, lambda c: c.get_json("/api/stats"))
    assert status == 200, res
    return next((int(r["value"]) for r in res if r["metric"] == name), 0)


def wait_for(cond, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


def part_files(data_dir):
    names = set()
    for _, _, files in os.walk(os.path.join(data_dir, "part")):
        names.update(files)
    return names


def data_set(seed):
    print(f"seed={seed}")
    rnd = random.Random(seed)
    sets = {"c.dec": {}, "c.full": {}, "c.int": {}}
    t_ms = OLD * 1000 + 1000
    walk = 5000
    for i in range(3000):
        # Mostly every 10 s, some jitter in milliseconds, some gaps.
        t_ms += 10000 if i % 17 else rnd.randrange(1, 400000)
        walk += rnd.randrange(-100, 101)
        sets["c.dec"][t_ms] = walk / 100
        sets["c.full"][t_ms] = rnd.uniform(-1e6, 1e6)
        sets["c.int"][t_ms] = rnd.randrange(-2**62, 2**62)
    return sets


def test_compacted_soon_reads_back_exactly_and_takes_late_points(server_factory):
    sets = data_set(1414)
    # Written with compaction off (an import would be compacted piecemeal
    # while it runs), then started with the default storage.compact_after.
    s = server_factory(["--storage-compact-after", "0"])
    for metric, pts in sets.items():
        put(s, [{"metric": metric, "timestamp": t, "value": v, "tags": {"host": "a"}}
                for t, v in pts.items()])
    # The partitions are now page files, ended days ago; 1h is the default.
    s.restart(["--storage-compact-after", "1h"])
    wait_for(lambda: stat(s, "tsd.storage.partitions_compacted") >= 1)
    time.sleep(0.5)
    wait_for(lambda: "cold" in part_files(s.data_dir) and "pages" not in part_files(s.data_dir))
    lo, hi = OLD * 1000, (OLD + DAY) * 1000 - 1
    for metric, pts in sets.items():
        got = dps(s, metric, lo, hi)
        assert got == pts, metric  # floats compare by value: exact doubles

    # A late point (and an overwrite) in the compacted partition.
    t_late = OLD * 1000 + 5
    t_over = next(iter(sets["c.dec"]))
    put(s, [{"metric": "c.dec", "timestamp": t_late, "value": 42.5, "tags": {"host": "a"}},
            {"metric": "c.dec", "timestamp": t_over, "value": -1.25, "tags": {"host": "a"}}])
    want = dict(sets["c.dec"])
    want[t_late] = 42.5
    want[t_over] = -1.25
    assert dps(s, "c.dec", lo, hi) == want
    s.restart()
    assert dps(s, "c.dec", lo, hi) == want
    # The late page waits for a later compaction (once an hour at most);
    # meanwhile the merge serves it next to the cold file.
    time.sleep(1)
    assert {"cold", "pages"} <= part_files(s.data_dir)
    assert dps(s, "c.dec", lo, hi) == want
    for metric in ("c.full", "c.int"):
        assert dps(s, metric, lo, hi) == sets[metric]


def test_partition_not_compacted_before_compact_after(server_factory):
    s = server_factory(["--storage-compact-after", "30d"])
    put(s, [{"metric": "c.keep", "timestamp": OLD + i * 10, "value": i, "tags": {"host": "a"}}
            for i in range(100)])
    s.restart()
    time.sleep(1.5)
    assert stat(s, "tsd.storage.partitions_compacted") == 0
    assert "cold" not in part_files(s.data_dir)
    assert len(dps(s, "c.keep", OLD * 1000, (OLD + DAY) * 1000)) == 100


def test_big_pages_read_back_across_page_size_changes_and_compaction(server_factory):
    # README: storage.page_size 2048 or 4096 for faster reads of page files.
    # Written with 4096-byte pages (several sealed per series, the rest open
    # and replayed from the WAL), read back from the page files, then after a
    # restart with the default 512 (a user changing the setting), then
    # compacted: every point exactly, each time.
    sets = data_set(4096)
    s = server_factory(["--storage-compact-after", "0", "--storage-page-size", "4096"])
    for metric, pts in sets.items():
        put(s, [{"metric": metric, "timestamp": t, "value": v, "tags": {"host": "a"}}
                for t, v in pts.items()])
    lo, hi = OLD * 1000, (OLD + DAY) * 1000 - 1
    for args in (["--storage-compact-after", "0", "--storage-page-size", "4096"],
                 ["--storage-compact-after", "0"]):
        s.restart(args)
        for metric, pts in sets.items():
            assert dps(s, metric, lo, hi) == pts, (metric, args)
        assert stat(s, "tsd.storage.pages_read") > 0
    s.restart(["--storage-compact-after", "1h"])
    wait_for(lambda: stat(s, "tsd.storage.partitions_compacted") >= 1)
    time.sleep(0.5)
    wait_for(lambda: "cold" in part_files(s.data_dir) and "pages" not in part_files(s.data_dir))
    for metric, pts in sets.items():
        assert dps(s, metric, lo, hi) == pts, metric
