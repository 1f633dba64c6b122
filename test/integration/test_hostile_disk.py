"""Damaged disks and tight limits against the real binary: thousands of day
partitions under a small `ulimit -n`, a damaged series.log header, and a full
disk (read-only start, reads served, writes refused, writes back once space
returns)."""
import contextlib
import os
import resource
import signal
import subprocess
import tempfile
import time

import pytest

import hostile

DAY_S = 86400
BASE_S = 1500000000 - 1500000000 % DAY_S  # a day boundary, 2017


@contextlib.contextmanager
def nofile_limit(n):
    """Children started inside inherit a soft RLIMIT_NOFILE of n."""
    old = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, old)


def put_lines(server, lines):
    t = server.telnet()
    t.send("".join(lines) + "version\n")
    t.read_until("net.opentsdb", timeout=60)  # every put before it was handled


def query_points(server, metric, start_s, end_s):
    status, body = server.http().get_json(
        f"/api/query?start={start_s}&end={end_s}&m=sum:{metric}")
    assert status == 200, body
    return sum(len(r["dps"]) for r in body)


def stat(server, name):
    status, body = server.http().get_json("/api/stats")
    assert status == 200
    return {tuple(sorted(r["tags"].items())): r["value"] for r in body
            if r["metric"] == name}


def test_thousands_of_partitions_restart_under_small_ulimit(server_factory):
    days = 2000
    s = server_factory(args=["--storage-max-open-files", "32",
                             "--storage-max-open-partitions", "16"])
    put_lines(s, [f"put disk.days {BASE_S + d * DAY_S + 60} {d} host=a\n" for d in range(days)])
    # kill -9: the restart replays the WAL across every partition.
    s.stop(signal.SIGKILL)
    with nofile_limit(128):
        s.restart()
    with hostile.Watchdog(s, rss_limit_mb=300):
        assert query_points(s, "disk.days", BASE_S, BASE_S + days * DAY_S) == days
    hostile.assert_healthy(s)
    # Again, after pages were written meanwhile (a clean stop fsyncs every
    # partition written since the replay, which takes long on a busy disk).
    s.stop(signal.SIGKILL)
    with nofile_limit(128):
        s.restart()
    assert query_points(s, "disk.days", BASE_S, BASE_S + days * DAY_S) == days
    put_lines(s, [f"put disk.days {BASE_S + days * DAY_S + 60} 1 host=a\n"])
    assert query_points(s, "disk.days", BASE_S, BASE_S + (days + 1) * DAY_S) == days + 1


def test_damaged_series_log_header_starts_and_serves(server_factory):
    s = server_factory()
    put_lines(s, [f"put hdr.m {BASE_S + i} {i} host=h{i % 5}\n" for i in range(100)])
    s.stop()
    path = os.path.join(s.data_dir, "series.log")
    with open(path, "r+b") as f:
        f.write(b"\xde\xad\xbe\xef" * 4)  # the whole 16-byte header
    s.restart()
    hostile.assert_healthy(s)
    assert query_points(s, "hdr.m", BASE_S, BASE_S + 200) == 100
    status, body = s.http().get_json(f"/api/query?start={BASE_S}&end={BASE_S + 200}"
                                     "&m=sum:hdr.m{host=*}")
    assert status == 200 and len(body) == 5
    put_lines(s, [f"put hdr.m {BASE_S + 150} 1 host=new\n"])
    assert query_points(s, "hdr.m", BASE_S, BASE_S + 200) == 101


def can_mount_tmpfs(path):
    if os.geteuid() != 0:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", path],
                       capture_output=True)
    return r.returncode == 0


def fill(path):
    """Writes a ballast file until the file system is full."""
    with open(path, "wb") as f:
        chunk = b"\0" * 65536
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError:
            pass
    # Leftover bytes below one chunk.
    with open(path, "ab", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 512)
        except OSError:
            pass


def test_full_disk_starts_read_only_and_recovers(server_factory):
    mnt = tempfile.mkdtemp(prefix="sundial-full-")
    if not can_mount_tmpfs(mnt):
        os.rmdir(mnt)
        pytest.skip("cannot mount a tmpfs here; storage_health_test covers it with a fault Env")
    try:
        data = os.path.join(mnt, "data")
        s = server_factory(data_dir=data, args=["--wal-segment-size", "1MiB",
                                                "--storage-resume-free-bytes", "1MiB"])
        put_lines(s, [f"put full.m {BASE_S + i} {i} host=a\n" for i in range(500)])
        s.stop(signal.SIGKILL)  # the points are in the WAL only
        fill(os.path.join(mnt, "ballast"))
        s.restart()
        with hostile.Watchdog(s, rss_limit_mb=300):
            assert query_points(s, "full.m", BASE_S, BASE_S + 1000) == 500
            ro = stat(s, "tsd.storage.read_only")
            assert any(v == "1" and dict(k).get("reason") == "disk_full"
                       for k, v in ro.items()), ro
            status, _, body = s.http().post(
                "/api/put", '{"metric":"full.m","timestamp":%d,"value":1,"tags":{"host":"a"}}'
                % (BASE_S + 600), {"Content-Type": "application/json"})
            assert status in (503, 507), (status, body)
            assert b'"error"' in body and b"read-only" in body, body
            t = s.telnet()
            t.send(f"put full.m {BASE_S + 601} 1 host=a\nversion\n")
            reply = t.read_until("net.opentsdb", timeout=10)
            assert "put:" in reply and "read-only" in reply, reply
        assert "read-only" in s.stderr()
        os.remove(os.path.join(mnt, "ballast"))
        # The maintenance thread notices within a few seconds.
        deadline = time.monotonic() + 20
        while True:
            status, _, body = s.http().post(
                "/api/put?details", '{"metric":"full.m","timestamp":%d,"value":1,'
                '"tags":{"host":"a"}}' % (BASE_S + 700), {"Content-Type": "application/json"})
            if status in (200, 204):
                break
            assert time.monotonic() < deadline, (status, body)
            time.sleep(0.5)
        assert query_points(s, "full.m", BASE_S, BASE_S + 1000) == 501
        ro = stat(s, "tsd.storage.read_only")
        assert all(v == "0" for v in ro.values()), ro
        s.stop()
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        os.rmdir(mnt)
