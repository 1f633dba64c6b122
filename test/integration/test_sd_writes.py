"""SD-card writes against the real sundiald: the disk-write counters of
/api/stats, telnet `stats` and /metrics exist and grow with writes, and
kill -9 loses no acknowledged point while sealed pages wait in memory to be
written to the page file in batches (README "Running on an SD card").
"""
import os
import random
import signal
import time

import pytest

BASE = 1700000000


def stat_values(server):
    """{metric: int value} of /api/stats (untagged records only)."""
    c = server.http()
    status, body = c.get_json("/api/stats")
    c.close()
    assert status == 200
    return {r["metric"]: int(r["value"]) for r in body if set(r["tags"]) == {"host"}}


def sync_telnet(t):
    """Returns once every line sent before is applied (`version` answers
    after them)."""
    t.send("version\n")
    t.read_until("Built on")


def proc_io_readable():
    try:
        with open("/proc/self/io") as f:
            return "write_bytes:" in f.read()
    except OSError:
        return False


def count_points(server, metric):
    c = server.http()
    status, body = c.post_json("/api/query", {
        "start": BASE - 10, "end": BASE + 100000,
        "queries": [{"metric": metric, "aggregator": "sum", "downsample": "0all-count",
                     "tags": {"host": "*"}}]})
    c.close()
    assert status == 200, body
    return {r["tags"]["host"]: int(sum(r["dps"].values())) for r in body}


def test_disk_write_counters_exist_and_grow(server):
    if not proc_io_readable():
        pytest.skip("/proc/self/io is not readable here: the counters are absent by design")
    before = stat_values(server)
    assert "tsd.storage.disk.bytes_written" in before
    assert "tsd.storage.disk.bytes_written_per_1000_points" in before
    t = server.telnet()
    # 5,000 points: more WAL than the one block its header already dirtied
    # (the kernel counts a page when it becomes dirty, not again after).
    for batch in range(5):
        t.send("".join(f"put sd.m {BASE + batch * 1000 + i} {i}.5 host=h{i % 7}\n"
                       for i in range(1000)))
        sync_telnet(t)
    time.sleep(1.5)  # the WAL's fsync interval (1 s) makes the writes real
    after = stat_values(server)
    assert after["tsd.storage.points_appended"] == 5000
    assert after["tsd.storage.disk.bytes_written"] > before["tsd.storage.disk.bytes_written"]
    # bytes per 1000 points: at least the WAL's bytes, whatever the file system
    assert after["tsd.storage.disk.bytes_written_per_1000_points"] > 0
    t.send("stats\n")
    text = t.read_until("tsd.storage.disk.bytes_written_per_1000_points")
    assert "tsd.storage.disk.bytes_written " in text
    c = server.http()
    status, _, body = c.get("/metrics")
    assert status == 200
    assert b"sundial_storage_disk_bytes_written_total " in body
    assert b"sundial_storage_disk_bytes_written_per_1000_points " in body


def test_kill9_keeps_points_of_pages_waiting_to_be_written(server):
    # 40 series x 2500 points: each series seals several 512-byte pages;
    # some reach the page file (128 or more wait), the rest are in memory
    # when the process dies. Twice, so that the second run also recovers
    # from pages written after a replay.
    seed = int(os.environ.get("SUNDIAL_TEST_SEED", time.time()))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    series, per_series = 40, 2500
    expected = {}
    for run in range(2):
        t = server.telnet()
        start = run * per_series
        for chunk in range(start, start + per_series, 500):
            lines = []
            for i in range(chunk, chunk + 500):
                for s in range(series):
                    v = rnd.uniform(0, 100)
                    lines.append(f"put sd.kill {BASE + i * 10} {v:.2f} host=h{s}\n")
            t.send("".join(lines))
            sync_telnet(t)
        for s in range(series):
            expected[f"h{s}"] = start + per_series
        assert stat_values(server)["tsd.storage.pages_sealed"] > series
        server.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=10)
        server.restart()
        assert count_points(server, "sd.kill") == expected


def wal_layout(path):
    """(records, records moved to the next block, end of the last record) of
    a WAL segment: a 16-byte header, then records of a 9-byte header (crc,
    length, type) and the payload. Zeros from a record's end to the next
    block are padding before a moved record; zeros to the end of the file
    are allocated ahead."""
    with open(path, "rb") as f:
        data = f.read()
    off, records, moved = 16, 0, 0
    while off + 9 <= len(data):
        boundary = (off // 4096 + 1) * 4096
        if (off % 4096 and not any(data[off:boundary]) and
                any(data[boundary:boundary + 9])):
            off, moved = boundary, moved + 1
            continue
        if not any(data[off:off + 9]):
            break  # allocated ahead
        off += 9 + int.from_bytes(data[off + 4:off + 8], "little")
        records += 1
    return records, moved, off


def test_wal_allocated_ahead_and_block_aligned_replays_without_damage(server_factory):
    # --wal-sync batch fsyncs before every acknowledgement, so each burst's
    # record (1-3 KB) that would straddle two blocks starts at the next one;
    # the segment is allocated ahead of its records. After kill -9 the
    # restart replays every burst and reports no damage: the zeros before
    # a moved record and after the last one are not taken for it.
    seed = int(os.environ.get("SUNDIAL_TEST_SEED", time.time()))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    s = server_factory(args=["--wal-sync", "batch"])
    t = s.telnet()
    expected = {}
    bursts = 80
    for burst in range(bursts):
        n = rnd.randint(150, 500)
        lines = []
        for i in range(n):
            host = f"h{i}"
            lines.append(f"put sd.align {BASE + burst * 10} {rnd.uniform(0, 100):.2f} host={host}\n")
            expected[host] = expected.get(host, 0) + 1
        t.send("".join(lines))
        sync_telnet(t)
    wal_dir = os.path.join(s.data_dir, "wal")
    segment = os.path.join(wal_dir, sorted(f for f in os.listdir(wal_dir) if f.endswith(".wal"))[-1])
    written = stat_values(s)["tsd.storage.wal.bytes_written"]
    assert written < 256 * 1024
    # Allocated ahead: zeros after the records, the file at least 256 KiB.
    assert os.path.getsize(segment) >= 256 * 1024
    records, moved, end = wal_layout(segment)
    print(f"{records} records, {moved} moved to the next block, {written} bytes written, end {end}")
    assert records >= bursts
    assert moved >= 5
    assert end > written + 16  # the header, the records and the padding
    s.send_signal(signal.SIGKILL)
    s.proc.wait(timeout=10)
    s.restart()
    assert count_points(s, "sd.align") == expected
    assert stat_values(s)["tsd.storage.corruptions_skipped"] == 0
    assert "skipped" not in s.stderr(), s.stderr()[-2000:]


def test_series_lost_from_series_log_come_back_from_the_wal(server_factory):
    # A new series is fsynced with the WAL batch that first uses it;
    # series.log gets it only before a checkpoint or a clean stop drops
    # that WAL (a few new series then cost it no block of its own). After
    # kill -9 series.log holds its header only. The restart brings every
    # series back under its id, a series created after it gets a new id,
    # and a clean stop leaves series.log complete.
    s = server_factory(args=["--wal-sync", "batch"])
    t = s.telnet()
    t.send("".join(f"put sd.new {BASE + i * 10} {i} host=h{h}\n"
                   for i in range(20) for h in range(30)))
    sync_telnet(t)
    s.send_signal(signal.SIGKILL)
    s.proc.wait(timeout=10)
    path = os.path.join(s.data_dir, "series.log")
    assert os.path.getsize(path) == 16
    s.restart()
    expected = {f"h{h}": 20 for h in range(30)}
    assert count_points(s, "sd.new") == expected
    t = s.telnet()
    t.send(f"put sd.new {BASE + 500} 1 host=late\nput sd.new {BASE + 500} 1 host=h0\n")
    sync_telnet(t)
    expected.update({"late": 1, "h0": 21})
    assert count_points(s, "sd.new") == expected
    s.stop()
    assert os.path.getsize(path) > 16
    s.restart()
    assert count_points(s, "sd.new") == expected
    assert stat_values(s)["tsd.storage.corruptions_skipped"] == 0
