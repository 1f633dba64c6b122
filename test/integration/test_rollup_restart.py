"""A restart does not read again what the rollup builder already rolled up:
after a clean stop and after a kill -9, the builder's first passes read no
sealed page (tsd.storage.pages_read stays 0 until a query runs) and build
no hour again, while the rollups still answer exactly like the raw points.
Points written after the restart are the only ones read."""
import signal
import time

from test_rollup import ARGS, T0, all_built, expected_avg, points, put, query_avg, wait_for


def counters(server):
    status, body = server.http().get_json("/api/stats")
    assert status == 200
    return {r["metric"]: int(r["value"]) for r in body}


def passes_done(server, n):
    """n more builder passes than when called (so that each saw the state)."""
    start = counters(server)["tsd.rollup.passes"]
    wait_for(lambda: counters(server)["tsd.rollup.passes"] >= start + n)


def test_restart_reads_no_rolled_up_page_again(server_factory):
    s = server_factory(args=ARGS)
    pts = points()
    put(s, pts)
    wait_for(lambda: all_built(s, 6 * 3))
    want = expected_avg(pts, 3600)

    # kill -9 first: the WAL still holds every point written (no checkpoint
    # yet), and each would be reported late again without the rollup STATE
    # naming the WAL segment its build started.
    for how in (signal.SIGKILL, signal.SIGTERM):
        s.stop(how)
        s.restart()
        passes_done(s, 3)
        c = counters(s)
        assert c["tsd.rollup.hours_built"] == 0, (how, c)
        assert c["tsd.storage.pages_read"] == 0, (how, c)
        assert c["tsd.rollup.dirty_pending"] == 0, (how, c)
        assert query_avg(s) == want  # no hour lost or doubled

    # A late point after the restart: only its hour is read and rebuilt.
    late = {"metric": "rl.cpu", "timestamp": T0 + 3600 + 5, "value": 1000, "tags": {"host": "a"}}
    put(s, [late])
    pts.append(late)
    want = expected_avg(pts, 3600)
    wait_for(lambda: all_built(s, 1))
    c = counters(s)
    assert c["tsd.rollup.hours_built"] == 1, c
    assert query_avg(s) == want
