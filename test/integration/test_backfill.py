"""A backfill of out-of-order history against the real sundiald: the
engine's memory budgets hold (its own counters on /api/stats, not timing),
every point reads back, and kill -9 right after the backfill was
acknowledged loses nothing (README "Backfill and import: what bounds
memory").
"""
import os
import random
import signal

DEVICES = 5
STEPS = 1500
STEP_S = 120          # 1500 steps of 2 min: 50 hours, 51 one-hour partitions
START = 94694400      # 1973-01-01
PENDING_BUDGET = 64 * 1024
PARK_BUDGET = 16 * 1024

ARGS = ["--storage-partition-duration", "1h", "--storage-max-open-partitions", "8",
        "--storage-pending-budget", "64KiB", "--storage-ooo-park-budget", "16KiB"]


def stats(server):
    c = server.http()
    status, body = c.get_json("/api/stats")
    c.close()
    assert status == 200
    return {r["metric"]: int(r["value"]) for r in body if "type" not in r["tags"]}


def value(dev, step):
    return step * 0.25 + dev


def backfill_lines(seed):
    """Every step once per device; half of the steps in order, the other
    half afterwards in random order (each a jump to another partition)."""
    rng = random.Random(seed)
    late = list(range(1, STEPS, 2))
    rng.shuffle(late)
    order = list(range(0, STEPS, 2)) + late
    return [f"put bf.temp {START + s * STEP_S} {value(d, s)} dev=d{d}\n"
            for s in order for d in range(DEVICES)]


def send_acknowledged(server, lines):
    t = server.telnet()
    for i in range(0, len(lines), 2000):
        t.send("".join(lines[i:i + 2000]))
    # `version` answers once every earlier line is in the WAL.
    t.send("version\n")
    t.read_until("Built on")
    t.read_until("\n")
    t.close()


def check_all_points(server):
    c = server.http()
    for d in range(DEVICES):
        status, body = c.post_json("/api/query", {
            "start": START, "end": START + STEPS * STEP_S,
            "queries": [{"metric": "bf.temp", "aggregator": "sum", "tags": {"dev": f"d{d}"}}]})
        assert status == 200, body
        assert len(body) == 1
        dps = body[0]["dps"]
        assert len(dps) == STEPS, f"d{d}: {len(dps)} of {STEPS} points"
        for s in range(STEPS):
            assert dps[str(START + s * STEP_S)] == value(d, s), (d, s)
    c.close()


def test_backfill_budgets_hold_and_kill9_loses_nothing(server_factory):
    seed = int(os.environ.get("SUNDIAL_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    server = server_factory(ARGS)
    send_acknowledged(server, backfill_lines(seed))
    st = stats(server)
    print({k: v for k, v in st.items() if k.startswith("tsd.storage.")})
    assert st["tsd.storage.points_appended"] == DEVICES * STEPS
    # An Append seals at most two pages per point of its batch before it
    # checks the budget; a telnet batch is at most a few thousand points of
    # which only the out-of-order ones seal small pages: allow one batch of
    # pages over the budget.
    assert st["tsd.storage.pending_bytes_peak"] <= PENDING_BUDGET + 2 * 4096 * 600
    assert st["tsd.storage.ooo_parked_bytes"] <= PARK_BUDGET
    assert st["tsd.storage.partitions_open"] <= 8 + 2  # max_open, plus pinned ones
    check_all_points(server)

    # kill -9 with pages still parked, pending or in closed, unsynced files.
    server.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=10)
    server.restart()
    check_all_points(server)

    # A clean stop syncs what is left; everything is still there after it.
    assert server.stop() == 0
    server.restart()
    check_all_points(server)
