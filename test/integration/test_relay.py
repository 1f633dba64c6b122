"""The relay against real upstreams: VictoriaMetrics (OpenTSDB telnet and
/api/put listeners, remote_write) and a second sundiald (telnet and http),
plus faults: an upstream down and back, slow, answering 500s then 400s,
sundiald killed with -9 while forwarding, and the disk budget exhausted
during a long outage. After each, the points at the upstream are compared
with what Sundial acknowledged: nothing lost but what the budget dropped
(which equals the counted drops); duplicates only from retries.
"""
import json
import os
import signal
import time

import pytest

from conftest import free_port
from relay_util import (VM_BINARY, FakeUpstream, VictoriaMetrics, ingest, key, make_points,
                        relay_status, target, wait_caught_up, wait_until)

FAST_RETRY = ["--relay-max-backoff", "200ms", "--relay-timeout", "2s"]


def keys_of(points):
    return {key(m, tags, t) for m, tags, t, _ in points}


@pytest.fixture
def vm():
    if not os.access(VM_BINARY, os.X_OK):
        pytest.skip(f"{VM_BINARY} not installed (Debian package victoria-metrics)")
    v = VictoriaMetrics()
    yield v
    v.cleanup()


def vm_keys(vm, via):
    rows = vm.export('{via="%s"}' % via)
    out = []
    for name, tags, t, _ in rows:
        tags = {k: v for k, v in tags.items() if k != "via"}
        out.append(key(name.replace("_", "."), tags, t))
    return out


def test_relay_to_victoriametrics_every_protocol(server_factory, vm):
    vm.start()
    targets = ",".join([
        f"telnet://127.0.0.1:{vm.telnet_port}?tag=via=telnet",
        f"http://127.0.0.1:{vm.put_port}/api/put?tag=via=http",
        f"remote-write://127.0.0.1:{vm.http_port}/api/v1/write?tag=via=rw",
    ])
    s = server_factory(args=["--relay-targets", targets] + FAST_RETRY)
    points = make_points(3000)
    ingest(s, points)
    ts = wait_caught_up(s, 3, min_sent=len(points))
    for t in ts:
        assert t["pointsSent"] == len(points), t
        assert t["pointsDropped"] == 0 and t["pointsRejected"] == 0, t
        assert t["connected"], t
    want = keys_of(points)
    for via in ("telnet", "http", "rw"):
        got = wait_until(lambda: (lambda k: k if set(k) >= want else None)(vm_keys(vm, via)),
                         20, f"VictoriaMetrics to show the {via} points")
        assert set(got) == want, via
    # The counters reach /api/stats and /metrics too.
    _, _, body = s.http().get("/api/stats")
    stats = json.loads(body)
    sent = [r for r in stats if r["metric"] == "tsd.relay.points_sent"]
    assert len(sent) == 3 and all(int(r["value"]) == len(points) for r in sent)
    _, _, metrics = s.http().get("/metrics")
    assert b"sundial_relay_points_sent" in metrics


def test_relay_to_second_sundiald_telnet_and_http(server_factory):
    upstream = server_factory()
    targets = (f"telnet://127.0.0.1:{upstream.port}?tag=via=telnet,"
               f"http://127.0.0.1:{upstream.port}?tag=via=http&batch=250")
    edge = server_factory(args=["--relay-targets", targets] + FAST_RETRY)
    points = make_points(2000, base=1700000000)
    ingest(edge, points)
    wait_caught_up(edge, 2, min_sent=len(points))
    for via in ("telnet", "http"):
        def count():
            status, _, body = upstream.http().get(
                "/api/query?start=1699990000&end=1700010000&m=sum:relay.it{host=*,via=%s}" % via)
            if status != 200:
                return None
            series = json.loads(body)
            n = sum(len(x["dps"]) for x in series)
            return series if n == len(points) else None
        series = wait_until(count, 20, f"the upstream sundiald to hold the {via} points")
        got = {(x["tags"]["host"], int(t), v) for x in series for t, v in x["dps"].items()}
        want = {(tags["host"], t, v) for _, tags, t, v in points}
        assert got == want


def test_upstream_down_then_back(server_factory, vm):
    # Sundial starts first: VictoriaMetrics is down during ingest.
    target_url = f"remote-write://127.0.0.1:{vm.http_port}/api/v1/write?tag=via=rw"
    s = server_factory(args=["--relay-targets", target_url] + FAST_RETRY)
    points = make_points(4000)
    ingest(s, points[:2000])
    t = wait_until(lambda: (lambda t: t if t["retries"] >= 2 and t["pendingBytes"] > 0 else None)(
        target(s, "remote-write")), 10, "retries and pending data")
    assert not t["connected"] and t["lastError"] and t["pendingPoints"] > 0, t
    ingest(s, points[2000:])
    vm.start()
    wait_caught_up(s, 1, timeout=30, min_sent=len(points))
    got = wait_until(lambda: (lambda k: k if set(k) >= keys_of(points) else None)(vm_keys(vm, "rw")),
                     20, "VictoriaMetrics to hold every point")
    assert set(got) == keys_of(points)


def test_slow_upstream_does_not_hold_up_ingest(server_factory):
    up = FakeUpstream(delay=0.3).start()
    try:
        s = server_factory(args=["--relay-targets", f"http://127.0.0.1:{up.port}?batch=200"]
                           + FAST_RETRY)
        points = make_points(3000)
        began = time.monotonic()
        ingest(s, points)
        ingest_s = time.monotonic() - began
        # Local reads see everything at once, whatever the upstream does.
        _, _, body = s.http().get(
            f"/api/query?start={points[0][2]}&end={points[-1][2]}&m=sum:relay.it{{host=*}}")
        assert sum(len(x["dps"]) for x in json.loads(body)) == len(points)
        t = target(s, "http")
        assert t["pendingBytes"] > 0 or t["pointsSent"] < len(points)
        assert t["lagSeconds"] >= 0
        wait_caught_up(s, 1, timeout=30, min_sent=len(points))
        assert set(up.received()) == keys_of(points)
        print(f"ingest of {len(points)} points took {ingest_s:.2f}s with a 0.3s/request upstream")
    finally:
        up.stop()


def test_upstream_timeouts_are_retried(server_factory):
    # Each reply takes 1.5s, the relay waits 1s: the first attempts time out.
    up = FakeUpstream(delay=1.5).start()
    try:
        s = server_factory(args=["--relay-targets", f"http://127.0.0.1:{up.port}?timeout=1s",
                                 "--relay-max-backoff", "200ms"])
        points = make_points(50)
        ingest(s, points)
        wait_until(lambda: target(s, "http")["retries"] >= 1, 10, "a timed-out attempt")
        up.delay = 0
        wait_caught_up(s, 1, timeout=20, min_sent=len(points))
        got = up.received()
        assert set(got) == keys_of(points)
        assert len(got) >= len(points)  # duplicates only from the retries
    finally:
        up.stop()


def test_500s_are_retried_and_400s_skipped(server_factory):
    up = FakeUpstream(statuses=[500, 500, 503, 400]).start()
    try:
        s = server_factory(args=["--relay-targets", f"http://127.0.0.1:{up.port}?batch=100"]
                           + FAST_RETRY)
        points = make_points(1000)
        ingest(s, points)
        wait_caught_up(s, 1, timeout=20, min_sent=len(points))
        t = target(s, "http")
        assert t["retries"] >= 3, t
        assert t["pointsRejected"] == 100, t
        assert t["pointsSent"] == len(points) - 100, t
        assert "HTTP 400" in t["lastError"]
        rejected = set(up.received(accepted=False))
        accepted = set(up.received())
        # The 400 batch is the only one missing; the 500s were sent again.
        statuses = [st for st, _ in up.requests]
        assert statuses[:4] == [500, 500, 503, 400]
        bad = {key(p["metric"], p["tags"], p["timestamp"] // 1000) for p in up.requests[3][1]}
        assert len(bad) == 100
        assert accepted == keys_of(points) - bad
        assert rejected >= bad
        assert "rejected a batch of 100 points" in s.stderr()
    finally:
        up.stop()


def test_kill_9_while_forwarding_then_restart(server_factory):
    up = FakeUpstream(delay=0.02).start()
    try:
        args = ["--relay-targets", f"http://127.0.0.1:{up.port}?batch=50"] + FAST_RETRY
        s = server_factory(args=args)
        points = make_points(6000)
        ingest(s, points)
        wait_until(lambda: target(s, "http")["pointsSent"] >= 500, 20, "forwarding to start")
        s.stop(signal.SIGKILL)
        before = len(up.received())
        assert before < len(points)
        s.restart()
        wait_caught_up(s, 1, timeout=40, min_sent=len(points))
        got = up.received()
        assert set(got) == keys_of(points)  # nothing lost
        dups = len(got) - len(points)
        assert dups >= 0
        # At least once: at most the batches in flight or not yet persisted
        # are sent twice.
        assert dups <= 2000, dups
        print(f"kill -9: {before} points delivered before, {dups} sent twice")
    finally:
        up.stop()


def wal_bytes(data_dir):
    d = os.path.join(data_dir, "wal")
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".wal"))


def test_disk_budget_drops_oldest_and_counts_them(server_factory):
    port = free_port()
    budget = 128 * 1024
    s = server_factory(
        args=["--relay-targets", f"http://127.0.0.1:{port}?max_pending={budget}&batch=500",
              "--wal-segment-size", "64KiB"] + FAST_RETRY)
    # Applied in steps, so that the WAL rotates into many small segments
    # (the budget drops whole segments).
    points = make_points(60000, hosts=100)
    ingest(s, points, chunk=3000, pause=0.15)
    t = wait_until(lambda: (lambda t: t if t["pointsDropped"] > 0 and
                            t["pendingBytes"] <= budget else None)(target(s, "http")),
                   20, "the budget to drop data")
    assert "over the disk budget" in s.stderr()
    # The WAL kept for the target stays near the budget (plus the segment
    # being written and one not yet checkpointed away).
    wait_until(lambda: wal_bytes(s.data_dir) <= budget + 4 * 64 * 1024, 20,
               "old WAL segments to be removed")
    up = FakeUpstream(port=port).start()
    try:
        t = wait_caught_up(s, 1, timeout=30)[0]
        dropped = t["pointsDropped"]
        got = set(up.received())
        assert got <= keys_of(points)
        assert len(points) - len(got) == dropped, (len(points), len(got), dropped)
        assert t["pointsSent"] >= len(got)
        # What survived is the newest data: the drops took the oldest.
        assert 0 < len(got) < len(points)
        assert got == keys_of(points[len(points) - len(got):])
        print(f"budget {budget} B: {dropped} of {len(points)} points dropped, "
              f"{len(got)} delivered")
    finally:
        up.stop()
