"""Many series, then the name searches that used to copy every series:
/api/search/lookup over all metrics and /api/suggest with an empty prefix.
The server's RssAnon must stay near what the series themselves cost, and
the answers must still be the right first `limit` entries."""
import json
import os
import time

import hostile

METRICS = 101
TAGS = "region=r{r} dc=dc{d} rack=rk{k} os=linux arch=x64 team=t{t} service=s{s}"


def sanitized(binary):
    """True for an AddressSanitizer build (its RSS is shadow memory and
    quarantine, so ceilings in MiB mean nothing there)."""
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def create_series(server, n):
    """n series with one point each, DevOps shape: 101 metrics per host."""
    t = server.telnet()
    lines = []
    for i in range(n):
        h, m = divmod(i, METRICS)
        tags = TAGS.format(r=h % 4, d=h % 16, k=h % 64, t=h % 8, s=h % 20)
        lines.append(f"put cpu.m{m} 1700000000 {i % 1000 / 10} host=host_{h} {tags}\n")
        if len(lines) == 20000:
            t.send("".join(lines))
            lines = []
    t.send("".join(lines) + "version\n")
    t.read_until("\n", timeout=60)  # answered after every line before it


def test_lookup_and_suggest_stay_bounded_with_many_series(server, sundiald_path):
    asan = sanitized(sundiald_path)
    n = 20000 if asan else 200000
    idle = hostile.rss_anon_mb(server.proc.pid)
    start = time.monotonic()
    create_series(server, n)
    took = time.monotonic() - start
    time.sleep(0.3)
    after_ingest = hostile.rss_anon_mb(server.proc.pid)
    per_series = (after_ingest - idle) * 1024 * 1024 / n
    print(f"{n} series in {took:.1f}s: RssAnon {idle:.1f} -> {after_ingest:.1f} MiB, "
          f"{per_series:.0f} bytes per series")
    if not asan:
        # README "Memory": about 500 bytes per idle series; 1 KB before.
        assert per_series < 700, per_series

    hosts = (n + METRICS - 1) // METRICS
    c = server.http()
    ceiling = after_ingest + (1024 if asan else 24)
    with hostile.Watchdog(server, rss_limit_mb=ceiling):
        for _ in range(2):
            status, body = c.get_json("/api/search/lookup?m=*%7Bos=linux%7D&limit=25")
            assert status == 200, body
            tsuids = [r["tsuid"] for r in body["results"]]
            assert len(tsuids) == 25 and tsuids == sorted(tsuids)
            assert all(r["tags"]["os"] == "linux" for r in body["results"])

            status, body = c.get_json("/api/search/lookup?m=cpu.m7&limit=1000")
            assert status == 200
            assert len(body["results"]) == min(1000, hosts - (1 if n % METRICS <= 7 else 0))
            assert all(r["metric"] == "cpu.m7" for r in body["results"])

            status, names = c.get_json("/api/suggest?type=tagv&q=&max=25")
            assert status == 200
            assert len(names) == 25 and names == sorted(names)

            status, names = c.get_json("/api/suggest?type=tagv&q=host_1&max=5")
            assert status == 200
            hosts = (n + METRICS - 1) // METRICS
            want = sorted(f"host_{h}" for h in range(hosts) if str(h).startswith("1"))[:5]
            assert names == want

            status, names = c.get_json("/api/suggest?type=metrics&q=cpu.m&max=1000")
            assert status == 200
            assert len(names) == METRICS and names == sorted(names)

    final = hostile.rss_anon_mb(server.proc.pid)
    print(f"after lookups and suggests: RssAnon {final:.1f} MiB")
    if not asan:
        assert final <= after_ingest + 16, (after_ingest, final)
    hostile.assert_healthy(server)


def test_series_limit_refuses_only_new_series(server_factory):
    """A client that makes up tag values (a request id, a timestamp) creates
    a series per point, each costing memory for good. storage.max_series
    bounds them: past it a point of a new series is refused like a bad
    point, on every protocol, while points of known series still go in."""
    import remote_write_codec as rw
    limit = 20
    server = server_factory(args=["--storage-max-series", str(limit)])
    t0 = int(time.time()) - 60
    refusal = f"too many series: {limit} exist (max_series = {limit}); this one is not created"

    # telnet: 25 series; the last 5 are refused, each with its own error.
    t = server.telnet()
    t.send("".join(f"put hostile.m {t0} {i} req=r{i}\n" for i in range(25)) + "version\n")
    out = t.read_until("Built on", timeout=30)
    errors = [l for l in out.splitlines() if l.startswith("put:")]
    assert errors == [f"put: illegal argument: {refusal}"] * 5, out

    # HTTP /api/put: a known series is stored, a new one is refused.
    c = server.http()
    status, _, data = c.post("/api/put?details", json.dumps([
        {"metric": "hostile.m", "timestamp": t0 + 1, "value": 7, "tags": {"req": "r0"}},
        {"metric": "hostile.m", "timestamp": t0 + 1, "value": 8, "tags": {"req": "new"}}]),
        {"Content-Type": "application/json"})
    body = json.loads(data)
    assert status == 400 and body["success"] == 1 and body["failed"] == 1, body
    assert refusal in body["errors"][0]["error"], body

    # InfluxDB line protocol (series <measurement>.<field>): a partial write.
    status, _, data = c.post("/write?db=x&precision=s",
                             f"hostile,req=r1 m=9 {t0 + 2}\nhostile,req=new m=1 {t0 + 2}\n")
    assert status == 400 and b"too many series" in data and b"dropped=1" in data, data

    # Prometheus remote_write: the new series is refused and named, the
    # known one stored (a 400, which Prometheus does not retry forever).
    status, _, data = c.post("/api/v1/write", rw.body([
        ({"__name__": "hostile.m", "req": "r2"}, [(10, (t0 + 3) * 1000)]),
        ({"__name__": "hostile.m", "req": "new"}, [(1, (t0 + 3) * 1000)])]), rw.HEADERS)
    assert status == 400 and b"too many series" in data, data
    assert b"the other series were stored (1 samples)" in data, data

    # The known series took every point meant for them.
    status, res = c.get_json(f"/api/query?start={t0 - 1}&m=sum:hostile.m%7Breq=r0%7Cr2%7D")
    assert status == 200, res
    dps = {r["tags"]["req"]: r["dps"] for r in res}
    assert dps["r0"] == {str(t0): 0, str(t0 + 1): 7}, dps
    assert dps["r2"] == {str(t0): 2, str(t0 + 3): 10}, dps
    status, res = c.get_json(f"/api/query?start={t0 - 1}&m=sum:hostile.m%7Breq=r1%7D")
    assert status == 200 and res[0]["dps"] == {str(t0): 1, str(t0 + 2): 9}, res
    status, names = c.get_json("/api/suggest?type=tagv&q=new&max=5")
    assert status == 200 and names == [], names

    # /api/uid/assign makes names without series: at most max_series of a
    # kind (tag values here: r0..r19 and the influx/remote ones exist).
    status, _, data = c.post("/api/uid/assign", json.dumps(
        {"tagv": [f"assigned{i}" for i in range(limit)]}), {"Content-Type": "application/json"})
    body = json.loads(data)
    assert status == 400, body
    assert any("too many names" in e for e in body["tagv_errors"].values()), body
    assert len(body["tagv"]) + len(body["tagv_errors"]) == limit, body


def vm_hwm_mb(pid):
    """The process's peak resident memory (VmHWM) in MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmHWM")


def emulated(binary):
    """True for an ARM build (run under qemu-arm here: its resident memory
    is the emulator's too)."""
    with open(binary, "rb") as f:
        head = f.read(20)
    return head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 0x28


def test_one_sum_over_many_compacted_series_stays_small(server_factory, sundiald_path):
    """One sum over thousands of series of a compacted day. Each member's
    pipeline runs to its end before the next one opens, so the server holds
    each member's few hourly buckets, not a decoded run of points per member
    (one sum over 20,000 compacted series took the server to 0.9 GB)."""
    # Sanitized or emulated: fewer series, and no ceiling on resident memory.
    small = sanitized(sundiald_path) or emulated(sundiald_path)
    series, points = (300, 700) if small else (3000, 700)
    t_now = int(time.time())
    day = t_now - t_now % 86400 - 5 * 86400  # a day partition that ended long ago
    s = server_factory(["--storage-compact-after", "0"])
    t = s.telnet()
    for h in range(series):
        # Series h holds the value h % 10 every 10 s from the day's start.
        t.send("".join(f"put wide.m {day + 10 * i} {h % 10} host=h{h}\n" for i in range(points)))
    t.send("version\n")
    t.read_until("\n", timeout=120)  # answered after every line before it
    s.restart(["--storage-compact-after", "1h"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, res = s.http().get_json("/api/stats")
        if any(r["metric"] == "tsd.storage.partitions_compacted" and int(r["value"]) >= 1
               for r in res):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the day was not compacted")
    # A fresh process, so that its peak is the query's and not the compaction's.
    # The runs of the 1 m sum below: 3,000 (300) x 700 points x 24 bytes.
    s.restart(["--query-cache-size", "0", "--rollup-enabled", "false",
               "--query-max-memory", "2MiB" if small else "16MiB"])
    before = vm_hwm_mb(s.proc.pid)
    c = s.http()
    url = f"/api/query?start={day}&end={day + 86399}&m=sum:1h-sum:wide.m"
    status, res = c.get_json(url)
    assert status == 200, res
    after = vm_hwm_mb(s.proc.pid)
    print(f"{series} series x {points} points: peak resident {before:.1f} -> {after:.1f} MiB")
    assert len(res) == 1 and len(res[0]["aggregateTags"]) == 1
    # Every hour holds 360 points per series (the last hour fewer).
    per_hour = {}
    for i in range(points):
        per_hour.setdefault(day + 10 * i - (10 * i) % 3600, 0)
        per_hour[day + 10 * i - (10 * i) % 3600] += 1
    total = sum(h % 10 for h in range(series))
    want = {str(k): float(n * total) for k, n in per_hour.items()}
    assert {k: float(v) for k, v in res[0]["dps"].items()} == want
    # 1-minute buckets are more than a member's decoded run: the members
    # stay open together, and what their runs hold counts against
    # query.max_memory (3,000 runs of 700 points of 24 bytes: 48 MiB; 300
    # runs: 4.8 MiB).
    status, res = c.get_json(url.replace("1h-sum", "1m-sum"))
    assert status == 413, res
    assert "query.max_memory" in res["error"]["message"], res
    after = vm_hwm_mb(s.proc.pid)
    print(f"after a 1m sum: peak resident {after:.1f} MiB")
    if not small:
        # Before, every member's decoded run was held at once, whatever
        # query.max_memory said: 60 MiB more for the 1 h sum.
        assert after - before < 24, (before, after)
    hostile.assert_healthy(s)
