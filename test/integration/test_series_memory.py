"""storage.head_memory against the real server: beyond the budget the
largest open pages are sealed early (counted in /api/stats as
tsd.storage.heads_sealed_early), and every point stays readable, exactly,
also after a restart."""
import os
import random
import time

from conftest import put_and_wait

HOSTS = 100
METRICS = 4
POINTS = 150


def stat(server, name, tags=None):
    status, body = server.http().get_json("/api/stats")
    assert status == 200, body
    for r in body:
        if r["metric"] == name and all(r["tags"].get(k) == v for k, v in (tags or {}).items()):
            return int(r["value"])
    raise AssertionError(f"{name} missing from /api/stats")


def read_series(server, metric, host, start, end):
    status, body = server.http().post_json("/api/query", {
        "start": start, "end": end, "msResolution": False,
        "queries": [{"metric": metric, "aggregator": "sum", "tags": {"host": host}}]})
    assert status == 200, body
    assert len(body) == 1, body
    return {int(k): v for k, v in body[0]["dps"].items()}


def test_head_memory_seals_early_and_keeps_every_point(server_factory):
    seed = int(os.environ.get("SUNDIAL_SEED", random.randrange(1 << 30)))
    print(f"SUNDIAL_SEED={seed}")
    rng = random.Random(seed)
    # The points are recent (heads of ended partitions are sealed whatever
    # the budget) and one second apart, inside one day partition: a head
    # that a new day's partition cut short would stay under half a page and
    # never be sealed for the budget. Within the span after 00:00 UTC, wait
    # until the whole span fits in the new day.
    span = POINTS - 1
    since_midnight = int(time.time()) % 86400
    if since_midnight <= span + 5:
        time.sleep(span + 6 - since_midnight)
    s = server_factory(["--storage-head-memory", os.environ.get("HM", "64KiB")])
    end = int(time.time())
    start = end - span
    want = {}
    lines = []
    for p in range(POINTS):
        t = start + p
        for h in range(HOSTS):
            for m in range(METRICS):
                v = rng.randrange(10000) / 100  # about 2 bytes a point: pages fill
                want.setdefault((f"mem.m{m}", f"h{h}"), {})[t] = v
                lines.append(f"put mem.m{m} {t} {v} host=h{h}")
    put_and_wait(s, lines, {f"mem.m{m}": HOSTS * POINTS for m in range(METRICS)}, start, end + 60)

    deadline = time.monotonic() + 10  # the budget is checked once a second
    while stat(s, "tsd.storage.heads_sealed_early") == 0:
        assert time.monotonic() < deadline, "no open page was sealed for head_memory"
        time.sleep(0.1)
    sealed = stat(s, "tsd.storage.heads_sealed_early")
    # Pages less than half full are never sealed for the budget: at most one
    # early seal per series for these ~300 bytes each.
    assert sealed <= HOSTS * METRICS, sealed
    assert stat(s, "tsd.storage.memory", {"part": "heads"}) > 0

    def check_all():
        for (metric, host) in [("mem.m0", "h0"), ("mem.m3", "h57"), ("mem.m1", "h99")]:
            assert read_series(s, metric, host, start, end + 60) == want[(metric, host)]

    check_all()
    s.restart()
    put_and_wait(s, [], {f"mem.m{m}": HOSTS * POINTS for m in range(METRICS)}, start, end + 60)
    check_all()


def test_head_memory_rejects_bad_sizes(server_factory):
    s = server_factory(["--storage-head-memory", "lots"], wait=False)
    assert s.proc.wait(timeout=10) != 0
    assert "storage.head_memory" in s.stderr() or "head" in s.stderr(), s.stderr()
