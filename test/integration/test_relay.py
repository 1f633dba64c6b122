"""The relay against real upstreams: VictoriaMetrics (OpenTSDB telnet and
/api/put listeners, remote_write) and a second sundiald (telnet and http),
plus faults against those real processes: an upstream down during ingest
and started mid-ingest, an upstream stopped (SIGSTOP) while forwarding, the
edge sundiald killed with -9 while ingest and forwarding both run, and an
upstream sundiald killed with -9 mid-stream; and, with a scripted upstream
(answers a real one cannot be made to give): 500s then 400s, 401s then 204,
and the disk budget exhausted during a long outage. After each, the points
at the upstream are compared with what Sundial acknowledged: nothing lost
but what the budget dropped (which equals the counted drops), or, for the
killed telnet upstream with ack=tcp, what its kernel had acknowledged and
it had not read (README "Guarantees"), and with ack=version nothing;
duplicates only from retries.
"""
import json
import os
import re
import signal
import time

import pytest

from conftest import free_port
from relay_util import (VM_BINARY, BackgroundIngest, FakeUpstream, VictoriaMetrics, ingest, key,
                        make_points, put_lines, relay_status, sundiald_keys, target, tcp_queues,
                        wait_caught_up, wait_until)

FAST_RETRY = ["--relay-max-backoff", "200ms", "--relay-timeout", "2s"]


def keys_of(points):
    return {key(m, tags, t) for m, tags, t, _ in points}


@pytest.fixture
def vm():
    if not os.access(VM_BINARY, os.X_OK):
        pytest.skip(f"{VM_BINARY} not installed (apt-get install victoria-metrics): "
                    "this test needs a real VictoriaMetrics upstream")
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


def vm_holds(vm, via, points, timeout=20):
    """Waits until VictoriaMetrics holds every point, then returns the keys
    it holds (repeats included)."""
    want = keys_of(points)
    return wait_until(lambda: (lambda k: k if set(k) >= want else None)(vm_keys(vm, via)),
                      timeout, f"VictoriaMetrics to hold the {via} points")


def sundiald_holds(server, points, timeout=20):
    """Waits until the sundiald holds every point (with its value), then
    returns what it holds of the metric."""
    want = {key(m, tags, t): v for m, tags, t, v in points}
    start, end = min(p[2] for p in points), max(p[2] for p in points)

    def done():
        got = sundiald_keys(server, points[0][0], start, end)
        return got if got is not None and all(got.get(k) == v for k, v in want.items()) else None
    return wait_until(done, timeout, "the upstream sundiald to hold every point")


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
    by_target = {(r["metric"], r["tags"]["target"]): r for r in stats
                 if r["metric"].startswith("tsd.relay.")}
    for t in ts:
        assert by_target[("tsd.relay.connected", t["id"])]["value"] == "1"
        assert by_target[("tsd.relay.lag_seconds", t["id"])]["value"] == "0.000"
        err = by_target[("tsd.relay.last_error", t["id"])]
        assert err["value"] == "0" and err["tags"]["error"] == ""
        assert by_target[("tsd.relay.last_error_time", t["id"])]["value"] == "0"
    _, _, metrics = s.http().get("/metrics")
    text = metrics.decode()
    assert "sundial_relay_points_sent_total" in text
    for t in ts:
        assert f'sundial_relay_lag_seconds{{target="{t["id"]}"}} 0.000' in text
        assert f'sundial_relay_connected{{target="{t["id"]}"}} 1' in text
        assert f'sundial_relay_last_error{{target="{t["id"]}",error=""}} 0' in text
    # One TYPE line per family, each family in one run.
    types = [line for line in text.splitlines() if line.startswith("# TYPE sundial_relay_")]
    assert len(types) == len(set(types)) == 11, types


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
            status, _, body = upstream.get_once(
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


def test_upstream_down_during_ingest_then_back_vm_http(server_factory, vm):
    # VictoriaMetrics (its OpenTSDB /api/put listener) is down when ingest
    # starts and is started while it goes on.
    url = f"http://127.0.0.1:{vm.put_port}/api/put?tag=via=http&batch=200"
    s = server_factory(args=["--relay-targets", url] + FAST_RETRY)
    points = make_points(3000)
    feed = BackgroundIngest(s, points, chunk=100, pause=0.05).start()
    t = wait_until(lambda: (lambda t: t if t["retries"] >= 2 and feed.acked >= 500 else None)(
        target(s, "http")), 15, "retries while ingest goes on")
    assert not t["connected"] and "connect" in t["lastError"] and t["pendingPoints"] > 0, t
    vm.start()
    mid = not feed.done()
    assert feed.join() == len(points) and feed.broken is None, feed.broken
    wait_caught_up(s, 1, timeout=30, min_sent=len(points))
    t = target(s, "http")
    assert t["pointsRejected"] == 0 and t["pointsDropped"] == 0, t
    got = vm_holds(vm, "http", points)
    assert set(got) == keys_of(points)
    print(f"VictoriaMetrics started {'during' if mid else 'after'} ingest; "
          f"{t['retries']} retries, {len(got) - len(points)} repeats")


def test_upstream_down_during_ingest_then_back_sundiald_telnet(server_factory):
    # A second sundiald, down when ingest starts (its port and data dir are
    # kept), is started while ingest goes on.
    up = server_factory()
    up.stop()
    s = server_factory(args=["--relay-targets", f"telnet://127.0.0.1:{up.port}?batch=200"]
                       + FAST_RETRY)
    points = make_points(3000, base=1700000000)
    feed = BackgroundIngest(s, points, chunk=100, pause=0.05).start()
    wait_until(lambda: target(s, "telnet")["retries"] >= 2 and feed.acked >= 500, 15,
               "retries while ingest goes on")
    up.restart()
    mid = not feed.done()
    assert feed.join() == len(points) and feed.broken is None, feed.broken
    wait_caught_up(s, 1, timeout=30, min_sent=len(points))
    assert target(s, "telnet")["pointsRejected"] == 0
    got = sundiald_holds(up, points)
    assert got == {key(m, tags, t): v for m, tags, t, v in points}
    print(f"upstream sundiald started {'during' if mid else 'after'} ingest")


def test_upstream_stopped_while_forwarding_vm_http(server_factory, vm):
    # VictoriaMetrics stops answering (SIGSTOP) for a few seconds: requests
    # time out and are retried; after SIGCONT everything arrives.
    vm.start()
    url = f"http://127.0.0.1:{vm.put_port}/api/put?tag=via=slow&batch=200&timeout=500ms"
    s = server_factory(args=["--relay-targets", url, "--relay-max-backoff", "200ms"])
    points = make_points(3000)
    feed = BackgroundIngest(s, points, chunk=100, pause=0.05).start()
    wait_until(lambda: target(s, "http")["pointsSent"] >= 400, 15, "forwarding to start")
    vm.proc.send_signal(signal.SIGSTOP)
    try:
        t = wait_until(lambda: (lambda t: t if t["retries"] >= 3 else None)(target(s, "http")),
                       15, "timed-out attempts")
        assert "timed out" in t["lastError"], t
        time.sleep(1)
    finally:
        vm.proc.send_signal(signal.SIGCONT)
    assert feed.join() == len(points) and feed.broken is None, feed.broken
    wait_caught_up(s, 1, timeout=30, min_sent=len(points))
    got = vm_holds(vm, "slow", points)
    assert set(got) == keys_of(points)
    print(f"stopped upstream: {target(s, 'http')['retries']} retries, "
          f"{len(got) - len(points)} repeats")


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


def test_auth_errors_keep_the_data_until_the_token_works(server_factory):
    # An expired token (401) for a while, then accepted: nothing is skipped.
    up = FakeUpstream(statuses=[401] * 8).start()
    try:
        url = f"http://127.0.0.1:{up.port}?batch=100&bearer=tok3n-secret"
        s = server_factory(args=["--relay-targets", url] + FAST_RETRY)
        points = make_points(500)
        ingest(s, points)
        t = wait_until(lambda: (lambda t: t if t["retries"] >= 3 else None)(target(s, "http")),
                       10, "401s to be retried")
        assert "HTTP 401" in t["lastError"] and t["pointsRejected"] == 0, t
        wait_caught_up(s, 1, timeout=20, min_sent=len(points))
        t = target(s, "http")
        assert t["pointsRejected"] == 0 and t["pointsSent"] == len(points), t
        assert t["retries"] >= 8, t
        assert set(up.received()) == keys_of(points)  # nothing lost
        assert [st for st, _ in up.requests[:8]] == [401] * 8
        assert "upstream refused the request (HTTP 401" in s.stderr()
        assert set(up.authorizations) == {"Bearer tok3n-secret"}
        # The last error, its time and connected in /api/stats and /metrics.
        _, _, body = s.http().get("/api/stats")
        stats = {r["metric"]: r for r in json.loads(body) if r["metric"].startswith("tsd.relay.")}
        err = stats["tsd.relay.last_error"]
        assert err["value"] == "1" and err["tags"]["error"].startswith("HTTP 401"), err
        assert err["tags"]["target"] == t["id"]
        assert abs(int(stats["tsd.relay.last_error_time"]["value"]) - time.time()) < 60
        assert stats["tsd.relay.connected"]["value"] == "1"
        float(stats["tsd.relay.lag_seconds"]["value"])
        _, _, metrics = s.http().get("/metrics")
        assert (f'sundial_relay_last_error{{target="{t["id"]}",error="HTTP 401: '
                '{\\"error\\":\\"scripted\\"}"} 1') in metrics.decode()
        # The token is never shown.
        _, _, relay = s.http().get("/api/relay")
        _, _, metrics = s.http().get("/metrics")
        for text in (s.stderr(), relay.decode(), metrics.decode()):
            assert "tok3n" not in text
    finally:
        up.stop()


def test_bad_target_url_is_reported_without_its_password(server_factory):
    s = server_factory(args=["--relay-targets", "http://bob:hunter2@127.0.0.1:1?tag=x&p=pw2"],
                       wait=False)
    assert s.proc.wait(timeout=15) != 0
    err = s.stderr()
    assert 'relay target "http://bob:***@127.0.0.1:1?tag=x&p=***"' in err, err
    assert "hunter2" not in err and "pw2" not in err


def test_kill_9_during_ingest_and_forwarding_vm_remote_write(server_factory, vm):
    # The edge is killed while points still arrive and the relay forwards
    # them; after the restart everything acknowledged reaches VictoriaMetrics.
    vm.start()
    url = f"remote-write://127.0.0.1:{vm.http_port}/api/v1/write?tag=via=rw&batch=100"
    s = server_factory(args=["--relay-targets", url] + FAST_RETRY)
    points = make_points(6000)
    feed = BackgroundIngest(s, points, chunk=100, pause=0.03).start()
    wait_until(lambda: feed.acked >= 1500 and target(s, "remote-write")["pointsSent"] >= 300,
               20, "ingest and forwarding to be under way")
    s.stop(signal.SIGKILL)
    feed.join()
    acked = feed.acked
    assert acked < len(points), "ingest ended before the kill"
    s.restart()
    # What was acknowledged before the kill must arrive without any help;
    # then the rest is sent (the chunk in flight at the kill again).
    got = vm_holds(vm, "rw", points[:acked], timeout=30)
    assert set(got) <= keys_of(points)
    ingest(s, points[acked:])
    wait_caught_up(s, 1, timeout=30)
    got = vm_holds(vm, "rw", points)
    assert set(got) == keys_of(points)
    print(f"kill -9 after {acked} acknowledged points; {len(got) - len(points)} repeats")


def test_upstream_sundiald_killed_mid_stream_telnet(server_factory):
    # A telnet batch counts as delivered only once the upstream's TCP
    # acknowledged it. The upstream is stopped (so its receive buffer fills
    # and the relay has bytes in flight), killed with -9, and restarted: the
    # batch in flight is sent again. Lost can be only what the upstream's
    # kernel had acknowledged and the process never read (its receive queue
    # at the kill: README "Guarantees"), never what was still unacknowledged.
    if tcp_queues(0) is None:
        pytest.skip("needs /proc/net/tcp to measure the socket queues")
    up = server_factory()
    s = server_factory(args=["--relay-targets",
                             f"telnet://127.0.0.1:{up.port}?batch=500&timeout=30s",
                             "--relay-max-backoff", "200ms"])
    # Wide lines (about 280 B) fill the stopped upstream's receive window
    # in a few chunks even where net.ipv4.tcp_rmem gives it megabytes.
    pad = "-" + "p" * 240
    points = [(m, {"host": tags["host"] + pad}, t, v)
              for m, tags, t, v in make_points(60000, base=1700000000, hosts=20)]
    n = 2000
    ingest(s, points[:n])
    wait_caught_up(s, 1, min_sent=n)
    sundiald_holds(up, points[:n])  # the upstream is idle: nothing unread
    up.send_signal(signal.SIGSTOP)
    try:
        def settled():  # the relay is blocked with bytes the upstream did not acknowledge
            before = tcp_queues(up.port)
            time.sleep(0.2)
            after = tcp_queues(up.port)
            return after if after == before and after["unacked"] > 0 else None
        # Until then, more points: a moment with bytes unacknowledged is not
        # enough, as a wide window may take them all once the relay catches up.
        q = None
        while q is None and n < len(points):
            ingest(s, points[n:n + 2000])
            n += 2000
            q = settled()
        if q is None:
            q = wait_until(settled, 10, "bytes unacknowledged by the stopped upstream")
        up.stop(signal.SIGKILL)
    finally:
        if up.proc.poll() is None:
            up.send_signal(signal.SIGCONT)
    ingest(s, points[n:n + 2000])  # while the upstream is down
    n += 2000
    up.restart()
    wait_caught_up(s, 1, timeout=40, min_sent=n)
    want = {key(m, tags, t): v for m, tags, t, v in points[:n]}

    def applied():  # the upstream has read everything the relay sent
        before = sundiald_keys(up, "relay.it", points[0][2], points[n - 1][2])
        time.sleep(0.2)
        after = sundiald_keys(up, "relay.it", points[0][2], points[n - 1][2])
        return after if after is not None and after == before else None
    got = wait_until(applied, 20, "the upstream to apply what it received")
    missing = [p for p in points[:n] if key(p[0], p[1], p[2]) not in got]
    assert all(got[k] == v for k, v in want.items() if k in got)
    lost_bytes = len(put_lines(missing))
    print(f"at the kill: {q['unread']} B unread by the upstream, {q['unacked']} B unacknowledged "
          f"by it; {len(missing)} points ({lost_bytes} B) lost of {n}")
    assert lost_bytes <= q["unread"], \
        f"lost {lost_bytes} B, more than the {q['unread']} B the upstream had acknowledged"
    assert target(s, "telnet")["retries"] >= 1  # the batch in flight was sent again


def test_upstream_sundiald_killed_mid_stream_telnet_ack_version(server_factory):
    # With ack=version a telnet batch counts as delivered only once the
    # upstream answered a `version` sent after it, so it has read (and, for
    # sundiald, written to its WAL) every line. The upstream is stopped while
    # its kernel holds a batch it has not read (what ack=tcp loses, see the
    # test above), killed with -9 and restarted: nothing is lost.
    if tcp_queues(0) is None:
        pytest.skip("needs /proc/net/tcp to measure the socket queues")
    up = server_factory()
    s = server_factory(args=["--relay-targets",
                             f"telnet://127.0.0.1:{up.port}?ack=version&batch=2000&timeout=30s",
                             "--relay-max-backoff", "200ms"])
    points = make_points(12000, base=1700000000, hosts=20)
    n = 2000
    ingest(s, points[:n])
    wait_caught_up(s, 1, min_sent=n)
    up.send_signal(signal.SIGSTOP)
    try:
        ingest(s, points[n:n + 6000])
        n += 6000

        def unread():  # the relay's batch sits in the stopped upstream's kernel
            before = tcp_queues(up.port)
            time.sleep(0.2)
            after = tcp_queues(up.port)
            return after if after == before and after["unread"] > 0 else None
        q = wait_until(unread, 10, "bytes the stopped upstream has not read")
        t = target(s, "telnet")
        assert t["pointsSent"] == 2000, t  # not counted before the reply
        up.stop(signal.SIGKILL)
    finally:
        if up.proc.poll() is None:
            up.send_signal(signal.SIGCONT)
    ingest(s, points[n:n + 2000])  # while the upstream is down
    n += 2000
    up.restart()
    t = wait_caught_up(s, 1, timeout=40, min_sent=n)[0]
    assert t["pointsRejected"] == 0 and t["pointsDropped"] == 0, t
    assert t["retries"] >= 1, t  # the batch in flight was sent again
    got = sundiald_holds(up, points[:n])
    assert set(got) == keys_of(points[:n])
    print(f"at the kill: {q['unread']} B unread by the upstream, {q['unacked']} B unacknowledged "
          f"by it; none of {n} points lost; {t['retries']} retries")


def test_ack_version_counts_points_the_upstream_refuses(server_factory):
    # A point the upstream refuses (here: more tags than its max_tags) gets
    # an error line before the version reply: counted as rejected, logged,
    # not sent again; the rest of its batch is delivered.
    up = server_factory(args=["--ingest-max-tags", "2"])
    s = server_factory(args=["--relay-targets",
                             f"telnet://127.0.0.1:{up.port}?ack=version"] + FAST_RETRY)
    good = make_points(300, base=1700000000)
    bad = [("relay.it", {"host": "x", "a": "1", "b": "2"}, 1700000000 + i, i) for i in range(5)]
    ingest(s, good[:150] + bad + good[150:])
    t = wait_caught_up(s, 1, min_sent=len(good) + len(bad))[0]
    assert t["pointsRejected"] == len(bad) and t["pointsSent"] == len(good), t
    refused = re.compile(r"upstream refused \d+ of \d+ points: put: illegal argument: Too many tags")
    assert refused.search(t["lastError"]), t
    assert refused.search(s.stderr())
    sundiald_holds(up, good)
    assert target(s, "telnet")["retries"] == 0


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
