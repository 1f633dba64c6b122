"""Bulk data in and out against real sundiald processes: GET /api/export in
each format, `sundiald export`, `sundiald import` (over the telnet port and
into a stopped server's data dir), and migration from a second sundiald with
resume after the import is killed (README "Import and export").
"""
import gzip
import json
import os
import random
import signal
import subprocess
import tempfile
import time

import pytest

from test_hostile_disk import can_mount_tmpfs, fill

START = 1356998400  # 2013-01-01


def put_lines(server, lines):
    t = server.telnet()
    t.send("".join(l + "\n" for l in lines) + "version\n")
    t.read_until("Built on")


def query(server, m, start=0, end=None):
    path = f"/api/query?start={start}&m={m}&ms=true" + (f"&end={end}" if end else "")
    c = server.http()
    status, body = c.get_json(path)
    c.close()
    assert status == 200, body
    return sorted(body, key=lambda r: json.dumps(r["tags"], sort_keys=True))


def export(server, params):
    c = server.http()
    status, _, body = c.get(f"/api/export?{params}")
    c.close()
    return status, body.decode()


def run_tool(binary, *args, stdin=None, timeout=120):
    p = subprocess.run([binary, *args], input=stdin, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def random_lines(seed, metrics=3, hosts=4, points=200, years=3, days=30):
    """Put lines on `days` random days over several years, out of order,
    ints and floats, every timestamp of a series distinct (a second point
    at one time would replace the first). Few days: every day is a
    partition, and each costs the engine a few fsyncs when it is closed."""
    rng = random.Random(seed)
    day_starts = [START - rng.randrange(years * 365) * 86400 for _ in range(days)]
    lines = []
    for m in range(metrics):
        for h in range(hosts):
            taken = set()  # milliseconds already used by this series
            while len(taken) < points:
                ts = rng.choice(day_starts) + rng.randrange(86400)
                if rng.random() < 0.3:
                    ts = ts * 1000 + rng.randrange(1000)
                ms = ts if ts > 10**11 else ts * 1000
                if ms in taken:
                    continue
                taken.add(ms)
                if rng.random() < 0.5:
                    v = str(rng.randrange(-10**12, 10**12))
                else:
                    v = repr(rng.uniform(-1e6, 1e6) * 10 ** rng.randrange(-8, 8))
                lines.append(f"put sys.m{m} {ts} {v} host=h{h} dc=d{h % 2}")
    rng.shuffle(lines)
    return lines


def test_export_formats(server):
    put_lines(server, ["put cpu 1356998400 1 host=a", "put cpu 1356998401 2.5 host=a",
                       "put cpu 1356998401500 -3 host=b dc=x", "put mem 1356998400 1e-5 host=a",
                       "put mem 1356998400 100.0 host=b"])
    status, body = export(server, "metric=*&start=2013/01/01-00:00:00")
    assert status == 200
    assert body == ("put cpu 1356998400 1 host=a\nput cpu 1356998401 2.5 host=a\n"
                    "put cpu 1356998401500 -3 dc=x host=b\nput mem 1356998400 1.0E-5 host=a\n"
                    "put mem 1356998400 100.0 host=b\n")
    status, body = export(server, "m=sum:cpu%7Bhost=b%7D&start=1356998000&format=json")
    assert status == 200
    assert [json.loads(l) for l in body.splitlines()] == [
        {"metric": "cpu", "tags": {"dc": "x", "host": "b"}, "timestamp": 1356998401500,
         "value": -3}]
    status, body = export(server, "metric=c?u&start=1356998000&format=csv")
    assert status == 200
    assert body == ("metric,timestamp,value,tags\ncpu,1356998400000,1,host=a\n"
                    "cpu,1356998401000,2.5,host=a\ncpu,1356998401500,-3,dc=x;host=b\n")
    # POST takes an /api/query body.
    c = server.http()
    status, _, data = c.post("/api/export?format=json", body={
        "start": 1356998000, "queries": [{"aggregator": "sum", "metric": "mem",
                                          "tags": {"host": "b"}}]})
    c.close()
    assert status == 200
    assert data.decode() == ('{"metric":"mem","tags":{"host":"b"},"timestamp":1356998400,'
                             '"value":100.0}\n')
    # Errors are OpenTSDB error documents.
    status, body = export(server, "metric=cpu")
    assert status == 400 and "Missing parameter" in body
    status, body = export(server, "metric=cpu&start=0&format=xml")
    assert status == 400 and "Unknown export format" in body
    status, body = export(server, "m=sum:nope&start=0")
    assert status == 400 and "No such name" in body
    status, body = export(server, "metric=nomatch*&start=0")
    assert status == 200 and body == ""


def test_export_import_round_trip(server_factory, sundiald_path, tmp_path):
    seed = int(os.environ.get("SUNDIAL_SEED", random.randrange(1 << 30)))
    print("seed", seed)
    src = server_factory()
    put_lines(src, random_lines(seed))
    for fmt in ("put", "json"):
        rc, out, err = run_tool(sundiald_path, "export", "--url", src.url(""), "--format", fmt,
                                "sys.*")
        assert rc == 0, err
        path = tmp_path / f"dump.{fmt}.gz"
        with gzip.open(path, "wt") as f:
            f.write(out)
        dst = server_factory()
        rc, _, err = run_tool(sundiald_path, "import", "--url", dst.url(""), str(path))
        assert rc == 0, err
        assert "imported 2400 points, rejected 0 lines" in err
        for m in ("none:sys.m0", "sum:sys.m1{host=*}", "max:1d-avg:sys.m2{dc=*}"):
            assert query(dst, m) == query(src, m), (fmt, m)


def test_import_reports_bad_lines(server, sundiald_path, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("cpu 1356998400 1 host=a\n"
                 "cpu 1356998401\n"
                 "\n"
                 "cpu 1356998402 x host=a\n"
                 "cpu 1356998403 4 host=a\n"
                 "cpu -5 4 host=a\n")
    rc, _, err = run_tool(sundiald_path, "import", "--url", server.url(""), str(f))
    assert rc == 1
    assert f"{f}:2: put: illegal argument: not enough arguments" in err
    assert f"{f}:4: put: invalid value: Invalid character 'x' in x" in err
    assert f"{f}:6: put: illegal argument:" in err
    assert "imported 2 points, rejected 3 lines" in err
    assert [r["dps"] for r in query(server, "sum:cpu")] == [
        {"1356998400000": 1, "1356998403000": 4}]
    # JSON from stdin; the cap on reported lines.
    body = "\n".join(json.dumps({"metric": "j", "timestamp": START + i, "value": i,
                                 "tags": {"k": "v"}}) for i in range(5))
    body += "\n{\"metric\": \"j\"}\n" * 3
    rc, _, err = run_tool(sundiald_path, "import", "--url", server.url(""), "--max-errors", "1",
                          "-", stdin=body.encode())
    assert rc == 1
    assert "<stdin>:6: missing or non-integer \"timestamp\"" in err
    assert "<stdin>:7:" not in err and "more rejected lines are only counted" in err
    assert "imported 5 points, rejected 3 lines" in err


def test_import_into_stopped_server_and_lock(server_factory, sundiald_path, tmp_path):
    srv = server_factory()
    put_lines(srv, ["put old 1356998400 1 host=a"])
    f = tmp_path / "hist.txt"
    # Years back, out of order.
    f.write_text("".join(f"old {START - d * 86400 * 30} {d} host=b\n" for d in range(40, 0, -1)))
    rc, _, err = run_tool(sundiald_path, "import", "--data-dir", srv.data_dir, str(f))
    assert rc == 3 and "in use by another sundiald" in err
    srv.stop()
    rc, _, err = run_tool(sundiald_path, "import", "--data-dir", srv.data_dir, str(f))
    assert rc == 0, err
    assert "imported 40 points" in err
    rc, out, err = run_tool(sundiald_path, "export", "--data-dir", srv.data_dir, "old")
    assert rc == 0, err
    assert len(out.splitlines()) == 41
    srv.restart()
    res = query(srv, "none:old{host=*}", start=START - 41 * 86400 * 30)
    assert len(res) == 2 and len(res[1]["dps"]) == 40
    assert res[1]["dps"][str((START - 86400 * 30 * 40) * 1000)] == 40


def test_migration_resumes_after_kill(server_factory, sundiald_path, tmp_path):
    src = server_factory()
    lines = []
    hours = 400
    for h in range(hours):
        for host in range(3):
            lines.append(f"put mig.a {START + h * 3600} {h * 10 + host} host=h{host}")
            lines.append(f"put mig.b {START + h * 3600 + 1} {h + 0.25} host=h{host} x=y")
    lines.append(f"put other {START} 1 host=a")
    put_lines(src, lines)
    dst = server_factory()
    state = tmp_path / "state"
    args = ["import", "--url", dst.url(""), "--from", src.url(""), "--metrics", "mig.*",
            "--start", str(START), "--end", str(START + hours * 3600), "--chunk", "1h",
            "--state", str(state)]
    p = subprocess.Popen([sundiald_path, *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not state.exists():
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=10)
    saved = state.read_text()
    assert "metric mig.a" in saved
    rc, _, err = run_tool(sundiald_path, *args)
    assert rc == 0, err
    for m in ("none:mig.a", "none:mig.b"):
        assert query(dst, m, start=START) == query(src, m, start=START)
    c = dst.http()
    status, body = c.get_json("/api/suggest?type=metrics")
    c.close()
    assert body == ["mig.a", "mig.b"]
    # A finished migration run again copies nothing; other arguments are refused.
    rc, _, err = run_tool(sundiald_path, *args)
    assert rc == 0 and "imported 0 points" in err
    rc, _, err = run_tool(sundiald_path, *args[:-4], "--chunk", "1d", "--state", str(state))
    assert rc == 3 and "another migration" in err


def stored_points(server):
    """The server's count of points acknowledged by storage."""
    c = server.http()
    status, body = c.get_json("/api/stats")
    c.close()
    assert status == 200
    return sum(int(r["value"]) for r in body if r["metric"] == "tsd.datapoints.added")


def test_bad_lines_do_not_store_their_batch_twice(server, sundiald_path, tmp_path):
    """A batch with bad lines: the bad ones are reported with their line
    numbers and the good ones are stored once (the server counts each
    acknowledged point)."""
    f = tmp_path / "mixed.txt"
    lines = [f"imp.m {START + i} {i} host=h{i % 5}" for i in range(3000)]
    lines[10] = "imp.m 1356998400 12x host=a"
    lines[2500] = "imp.m 1356998400 1 host"
    f.write_text("\n".join(lines) + "\n")
    before = stored_points(server)
    rc, _, err = run_tool(sundiald_path, "import", "--url", server.url(""), "--connections", "1",
                          str(f))
    assert rc == 1, err
    assert f"{f}:11: put: invalid value: Invalid character 'x' in 12x" in err, err
    assert f"{f}:2501: put: illegal argument: invalid tag: host" in err, err
    assert "imported 2998 points, rejected 2 lines" in err, err
    assert stored_points(server) - before == 2998
    res = query(server, "sum:imp.m")
    assert len(res[0]["dps"]) == 2998


def test_rules_the_importer_cannot_see_are_still_pinned(server_factory, sundiald_path,
                                                        tmp_path):
    """The server rejects a line for a rule the importer was not told
    about (its max_tags): the line is still reported with its number."""
    s = server_factory(["--ingest-max-tags", "2"])
    f = tmp_path / "tags.txt"
    f.write_text("imp.t 1356998400 1 a=1\nimp.t 1356998401 2 a=1 b=2 c=3\nimp.t 1356998402 3 a=1\n")
    rc, _, err = run_tool(sundiald_path, "import", "--url", s.url(""), str(f))
    assert rc == 1, err
    assert f"{f}:2: put: illegal argument: Too many tags" in err, err
    assert "imported 2 points, rejected 1 lines" in err, err


def test_import_stops_when_the_server_refuses_writes(server_factory, sundiald_path, tmp_path):
    """A read-only server (full disk) answers every put with a storage
    error: the import retries a bounded number of times, then stops with
    exit 4 and one message, not one rejection per line."""
    mnt = tempfile.mkdtemp(prefix="sundial-importfull-")
    if not can_mount_tmpfs(mnt):
        os.rmdir(mnt)
        pytest.skip("cannot mount a tmpfs here")
    try:
        s = server_factory(data_dir=os.path.join(mnt, "data"),
                           args=["--wal-segment-size", "1MiB",
                                 "--storage-resume-free-bytes", "1MiB"])
        put_lines(s, ["put imp.f 1356998400 1 host=a"])
        s.stop(signal.SIGKILL)
        fill(os.path.join(mnt, "ballast"))
        s.restart()
        f = tmp_path / "many.txt"
        f.write_text("".join(f"imp.f {START + i} {i} host=a\n" for i in range(20000)))
        t0 = time.monotonic()
        rc, _, err = run_tool(sundiald_path, "import", "--url", s.url(""), str(f), timeout=120)
        took = time.monotonic() - t0
        assert rc == 4, (rc, err)
        assert "the server refuses writes" in err and "read-only" in err, err
        assert "rejected 0 lines" in err, err
        assert err.count("HBase error") <= 1, err
        assert took < 60, took
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        os.rmdir(mnt)


def test_data_dir_that_holds_a_data_dir_is_refused(server_factory, sundiald_path, tmp_path):
    """--data-dir /var/lib/sundial when the data is in /var/lib/sundial/data
    (the .deb's layout) is refused, for import and export alike."""
    srv = server_factory(data_dir=str(tmp_path / "data"))
    put_lines(srv, ["put dd 1356998400 1 host=a"])
    srv.stop()
    f = tmp_path / "x.txt"
    f.write_text("dd 1356998401 2 host=a\n")
    rc, _, err = run_tool(sundiald_path, "import", "--data-dir", str(tmp_path), str(f))
    assert rc == 2 and f"use --data-dir {tmp_path}/data" in err, err
    assert not os.path.exists(tmp_path / "series.log") and not os.path.exists(tmp_path / "wal")
    rc, _, err = run_tool(sundiald_path, "export", "--data-dir", str(tmp_path), "dd")
    assert rc == 2 and f"use --data-dir {tmp_path}/data" in err, err
    rc, _, err = run_tool(sundiald_path, "import", "--data-dir", str(tmp_path / "data"), str(f))
    assert rc == 0, err


def test_host_names_in_urls(server, sundiald_path, tmp_path):
    f = tmp_path / "h.txt"
    f.write_text("hn 1356998400 1 host=a\n")
    rc, _, err = run_tool(sundiald_path, "import", "--url", f"http://localhost:{server.port}",
                          str(f))
    assert rc == 0 and "imported 1 points" in err, err
    t0 = time.monotonic()
    rc, _, err = run_tool(sundiald_path, "import", "--url", server.url(""), "--from",
                          "http://nonexistent.invalid:4242", "--metrics", "x", "--start", "0")
    assert rc == 3 and "unknown host nonexistent.invalid" in err, err
    rc, _, err = run_tool(sundiald_path, "import", "--url", "http://nonexistent.invalid:4242",
                          str(f))
    assert rc == 3 and "unknown host nonexistent.invalid" in err, err
    assert time.monotonic() - t0 < 10
    p = subprocess.run([sundiald_path, f"--health=http://localhost:{server.port}/api/version"],
                       capture_output=True, timeout=30)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([sundiald_path, "--health=http://nonexistent.invalid:4242/api/version"],
                       capture_output=True, timeout=30)
    assert p.returncode == 1 and b"unknown host" in p.stderr, p.stderr


def test_tool_usage_errors(sundiald_path):
    rc, _, err = run_tool(sundiald_path, "import", "x.txt")
    assert rc == 2 and "exactly one of --url and --data-dir" in err
    rc, _, err = run_tool(sundiald_path, "export", "--url", "http://127.0.0.1:1")
    assert rc == 2 and "nothing to export" in err
    rc, _, err = run_tool(sundiald_path, "import", "--url", "http://127.0.0.1:1", "x")
    assert rc == 3 and "connect" in err
