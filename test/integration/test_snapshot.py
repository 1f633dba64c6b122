"""Online snapshots end to end: POST /api/snapshot while a writer sends
puts, then a second server started on a `cp -a` copy answers with exactly
the batches acknowledged up to the snapshot moment; annotations and meta
data are in the snapshot; listing and removing
snapshots; a kill -9 during a snapshot; a full disk (507, nothing left)."""
import http.client
import json
import os
import random
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from test_hostile_disk import can_mount_tmpfs, fill

T_NOW = int(time.time())
T0 = T_NOW - T_NOW % 3600 - 2 * 86400  # two days ago: several partitions


def series_points(server, metric, start, end):
    status, res = server.http().get_json(
        f"/api/query?start={start}&end={end}&m=none:{metric}{{w=*}}")
    if status == 400 and "No such name" in json.dumps(res):
        return set()
    assert status == 200, res
    return {(r["tags"]["w"], int(t)) for r in res for t in r["dps"]}


class Writer(threading.Thread):
    """Sends batches of puts (each one /api/put?sync), recording when each
    was sent and acknowledged. Batch k holds times T0 + k * 100 .. + 99."""

    def __init__(self, server, metric, batches, first=0):
        super().__init__()
        self.server, self.metric, self.batches, self.first = server, metric, batches, first
        self.sent, self.acked, self.latency = [], [], []
        self.stop = False

    def run(self):
        c = self.server.http()
        rnd = random.Random(3)
        for k in range(self.first, self.first + self.batches):
            if self.stop:
                return
            pts = [{"metric": self.metric, "timestamp": T0 + k * 100 + i,
                    "value": rnd.random(), "tags": {"w": str(k % 3)}} for i in range(100)]
            self.sent.append(time.monotonic())
            try:
                status, _, _ = c.post("/api/put?sync", pts)
            except (OSError, http.client.HTTPException):
                return  # the server was killed: this batch is not acknowledged
            now = time.monotonic()
            assert status == 204
            self.acked.append(now)
            self.latency.append(now - self.sent[-1])


def batch_set(metric_k):
    return {(str(k % 3), T0 + k * 100 + i) for k in metric_k for i in range(100)}


def copy_snapshot(path):
    dst = tempfile.mkdtemp(prefix="sundial-restore-")
    subprocess.run(["cp", "-a", path, os.path.join(dst, "data")], check=True)
    return os.path.join(dst, "data")


def test_snapshot_during_ingest_restores_acknowledged_points(server_factory):
    s = server_factory(["--rollup-build-interval", "100ms", "--rollup-grace", "0", "--rollup-batch", "1h"])
    # Data before: sealed pages, some compacted-looking old partitions.
    w0 = Writer(s, "snap.m", 300)
    w0.run()
    s.restart()
    # Heavy ingest: three writers, each on its own connection and metric.
    w = Writer(s, "snap.m", 100000, first=300)
    others = [Writer(s, f"snap.n{i}", 100000) for i in range(2)]
    for x in [w] + others:
        x.start()
    while len(w.acked) < 50 or min(len(o.acked) for o in others) < 50:
        time.sleep(0.01)
    req_sent = time.monotonic()
    acked_before = 300 + sum(1 for a in list(w.acked) if a <= req_sent)
    others_acked = [sum(1 for a in list(o.acked) if a <= req_sent) for o in others]
    status, _, body = s.http().post("/api/snapshot")
    resp_at = time.monotonic()
    assert status == 200, body
    snap = json.loads(body)
    sent_before_resp = 300 + sum(1 for t in list(w.sent) if t <= resp_at)
    others_sent = [sum(1 for t in list(o.sent) if t <= resp_at) for o in others]
    time.sleep(0.2)
    for x in [w] + others:
        x.stop = True
    for x in [w] + others:
        x.join(timeout=60)
    print(f"snapshot: {snap['bytes']} bytes, {snap['filesLinked']} linked, "
          f"{snap['filesCopied']} copied, appends paused {snap['pauseMicros']} us; "
          f"put latency max {max(w.latency) * 1000:.1f} ms over {len(w.latency)} batches")
    assert snap["path"] == os.path.join(s.data_dir, "snapshots", snap["name"])
    assert os.path.isdir(snap["path"])
    assert snap["pauseMicros"] < 1000000
    # A server on a copy of the snapshot.
    restored = copy_snapshot(snap["path"])
    s2 = server_factory(data_dir=restored,
                        args=["--rollup-build-interval", "100ms", "--rollup-grace", "0", "--rollup-batch", "1h",
                              "--query-inline-max-points", "0"])
    got = series_points(s2, "snap.m", T0, T0 + 10 ** 7)
    k = len({t for _, t in got}) // 100
    assert got == batch_set(range(k)), "not a prefix of whole batches"
    assert acked_before <= k <= sent_before_resp, (acked_before, k, sent_before_resp)
    for o, lo, hi in zip(others, others_acked, others_sent):
        got_o = series_points(s2, o.metric, T0, T0 + 10 ** 7)
        k_o = len({t for _, t in got_o}) // 100
        assert got_o == batch_set(range(k_o)), f"{o.metric}: not a prefix of whole batches"
        assert lo <= k_o <= hi, (o.metric, lo, k_o, hi)
    # Hourly counts (rollups where built, raw otherwise) agree with the points.
    want = {}
    for _, t in got:
        want[t - t % 3600] = want.get(t - t % 3600, 0) + 1
    for _ in range(2):  # before and after a rollup pass
        status, res = s2.http().get_json(
            f"/api/query?start={T0}&end={T0 + 10 ** 7}&m=sum:1h-count:snap.m")
        assert status == 200, res
        assert {int(t): int(v) for t, v in res[0]["dps"].items()} == want
        time.sleep(0.5)
    # The original still has everything, and keeps its snapshot out of its data.
    assert len(series_points(s, "snap.m", T0, T0 + 10 ** 7)) == 100 * (300 + len(w.acked))
    s2.stop()


def test_snapshot_holds_annotations_and_meta(server_factory):
    """meta.log (annotations, UID and TS meta) is in the snapshot as of the
    snapshot moment: a server on a copy answers /api/annotation, annotated
    /api/query and the meta endpoints as the original did then."""
    s = server_factory()
    c = s.http()
    pts = [{"metric": "snap.a", "timestamp": T0 + i * 60, "value": i, "tags": {"host": h}}
           for h in ("a", "b") for i in range(30)]
    assert c.post("/api/put?sync", pts)[0] == 204
    tsuid = "000001000001000001"  # snap.a{host=a}: the first series

    def post(path, body, method="POST"):
        status, _, data = c.request(method, path, body)
        assert status == 200, (path, status, data)

    # Dead records too: a changed note and a deleted one.
    post("/api/annotation", {"tsuid": tsuid, "startTime": T0 + 60, "description": "deploy",
                             "custom": {"owner": "ops"}})
    post("/api/annotation", {"tsuid": tsuid, "startTime": T0 + 60, "notes": "v2"})
    post("/api/annotation", {"startTime": T0 + 120, "description": "global"})
    post("/api/annotation", {"startTime": T0 + 180, "description": "deleted"})
    status, _, _ = c.request("DELETE", f"/api/annotation?start_time={T0 + 180}")
    assert status == 204
    post("/api/uid/uidmeta", {"uid": "000001", "type": "metric", "displayName": "Snap A"})
    post("/api/uid/tsmeta", {"tsuid": tsuid, "description": "series a", "units": "ms"})

    reads = [
        f"/api/annotation?tsuid={tsuid}&start_time={T0 + 60}",
        f"/api/annotation?start_time={T0 + 120}",
        f"/api/annotation?start_time={T0 + 180}",
        "/api/uid/uidmeta?uid=000001&type=metric",
        f"/api/uid/tsmeta?tsuid={tsuid}",
        f"/api/query?start={T0}&end={T0 + 3600}&m=sum:snap.a{{host=a}}&global_annotations",
        f"/api/query?start={T0}&end={T0 + 3600}&m=sum:snap.a&global_annotations",
    ]

    def answers(server):
        out = []
        cl = server.http()
        for path in reads:
            status, _, data = cl.get(path)
            out.append((path, status, json.loads(data) if data else None))
        return out

    before = answers(s)
    status, _, body = c.post("/api/snapshot")
    assert status == 200, body
    snap = json.loads(body)
    # Changes after the snapshot are not in it.
    post("/api/annotation", {"tsuid": tsuid, "startTime": T0 + 60, "description": "later"})
    post("/api/annotation", {"startTime": T0 + 240, "description": "after"})
    post("/api/uid/uidmeta", {"uid": "000001", "type": "metric", "displayName": "Later"})
    assert answers(s) != before
    assert os.path.isfile(os.path.join(snap["path"], "meta.log"))
    restored = copy_snapshot(snap["path"])
    s2 = server_factory(data_dir=restored)
    assert answers(s2) == before
    got = dict((p, (st, b)) for p, st, b in before)
    assert got[reads[0]][0] == 200 and got[reads[0]][1]["notes"] == "v2"
    assert got[reads[2]][0] == 404  # the deleted one stays deleted
    assert got[reads[3]][1]["displayName"] == "Snap A"
    q = got[reads[5]][1]
    assert [a["description"] for a in q[0]["annotations"]] == ["deploy"]
    assert [a["description"] for a in q[0]["globalAnnotations"]] == ["global"]
    status, _, data = s2.http().get(f"/api/annotation?start_time={T0 + 240}")
    assert status == 404, data
    assert "meta.log" not in s2.stderr(), s2.stderr()  # read cleanly: nothing to repair
    s2.stop()


def test_snapshot_list_delete_and_names(server_factory):
    s = server_factory()
    t = s.telnet()
    t.send("".join(f"put snap.l {T0 + i} {i} host=a\n" for i in range(1000)) + "version\n")
    t.read_until("net.opentsdb")
    names = []
    for _ in range(2):
        status, _, body = s.http().post("/api/snapshot")
        assert status == 200, body
        names.append(json.loads(body)["name"])
    assert names[0] != names[1]
    status, listed = s.http().get_json("/api/snapshot")
    assert status == 200
    assert [x["name"] for x in listed] == sorted(names)
    for x in listed:
        assert x["bytes"] > 0 and abs(x["created"] / 1000 - time.time()) < 120, x
    status, _, body = s.http().request("DELETE", "/api/snapshot/" + names[0])
    assert status == 200, body
    assert not os.path.exists(os.path.join(s.data_dir, "snapshots", names[0]))
    status, _, _ = s.http().request("DELETE", "/api/snapshot/" + names[0])
    assert status == 404
    for bad in ("a..b", "x/y", "..", "%2e%2e"):
        status, _, body = s.http().request("DELETE", "/api/snapshot/" + bad)
        assert status in (400, 404), (bad, status, body)
        assert os.path.isdir(os.path.join(s.data_dir, "snapshots", names[1]))
    status, _, _ = s.http().request("DELETE", "/api/snapshot/a..b")
    assert status == 400
    # The engine ignores snapshots/: a restart, the disk-use stats.
    s.restart()
    status, listed = s.http().get_json("/api/snapshot")
    assert [x["name"] for x in listed] == [names[1]]
    status, res = s.http().get_json(f"/api/query?start={T0}&m=sum:snap.l")
    assert status == 200 and len(res[0]["dps"]) == 1000


def test_snapshot_count_is_limited(server_factory):
    s = server_factory(["--storage-max-snapshots", "2"])
    s.telnet().send(f"put snap.m {T0} 1 host=a\n")
    for _ in range(2):
        status, _, body = s.http().post("/api/snapshot")
        assert status == 200, body
    status, _, body = s.http().post("/api/snapshot")
    assert status == 409, body
    assert "max_snapshots = 2" in json.loads(body)["error"]["details"], body
    status, listed = s.http().get_json("/api/snapshot")
    assert len(listed) == 2
    status, _, body = s.http().request("DELETE", "/api/snapshot/" + listed[0]["name"])
    assert status == 200, body
    status, _, body = s.http().post("/api/snapshot")
    assert status == 200, body


def wait_for_partial(snaps, timeout):
    """Polls snaps/ (bounded) until a <name>.partial directory appears;
    returns its name, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            for n in os.listdir(snaps):
                if n.endswith(".partial"):
                    return n
        except FileNotFoundError:
            pass
    return None


def test_kill_during_snapshot_leaves_usable_data_dir(server_factory):
    """kill -9 while a snapshot is being written (proved: after the kill
    its <name>.partial dir exists and <name> does not) and while three
    connections ingest: the restart keeps every acknowledged point, removes
    the half snapshot and lists none."""
    s = server_factory(["--wal-segment-size", "256MiB"])
    rnd = random.Random(9)
    c = s.http()
    # Enough open pages, index and active WAL segment (all copied, not
    # linked) that writing the snapshot takes a while: ~1.2 M points over
    # several day partitions.
    for k in range(60):
        pts = [{"metric": "snap.k", "timestamp": T0 + k * 5000 + i, "value": rnd.random(),
                "tags": {"host": f"h{i % 8}"}} for i in range(5000)]
        assert c.post("/api/put?sync", pts)[0] == 204
    for k in range(60):
        pts = [{"metric": "snap.k2", "timestamp": T0 - 86400 * (k % 3) + i, "value": rnd.random(),
                "tags": {"host": f"h{k}"}} for i in range(15000)]
        assert c.post("/api/put?sync", pts)[0] == 204
    snaps = os.path.join(s.data_dir, "snapshots")
    landed = None
    for attempt in range(5):
        writers = [Writer(s, f"snap.w{i}", 2000, first=attempt * 2000) for i in range(3)]
        for w in writers:
            w.start()
        while min(len(w.acked) for w in writers) < 5:
            time.sleep(0.01)
        result = []

        def snapshot():
            try:
                result.append(s.http().post("/api/snapshot")[0])
            except OSError:
                result.append("killed")

        th = threading.Thread(target=snapshot)
        th.start()
        partial = wait_for_partial(snaps, 30)
        s.stop(signal.SIGKILL)
        th.join(timeout=30)
        for w in writers:
            w.stop = True
        for w in writers:
            w.join(timeout=30)
        left = os.listdir(snaps) if os.path.isdir(snaps) else []
        done = [n for n in left if not n.endswith(".partial")]
        mid = partial is not None and partial in left and partial[:-len(".partial")] not in left
        print(f"attempt {attempt}: saw {partial}, after the kill {left}, answer {result}")
        s.restart()
        left_after = os.listdir(snaps) if os.path.isdir(snaps) else []
        assert not [n for n in left_after if n.endswith(".partial")], left_after
        status, listed = s.http().get_json("/api/snapshot")
        assert status == 200 and sorted(x["name"] for x in listed) == sorted(done), (listed, done)
        # Every acknowledged point survived the kill (and the restart).
        for w in writers:
            got = series_points(s, w.metric, T0, T0 + 10 ** 8)
            want = batch_set(range(attempt * 2000, attempt * 2000 + len(w.acked)))
            assert want <= got, (w.metric, len(want - got))
        for name in done:  # a snapshot that finished first: try again
            assert s.http().request("DELETE", "/api/snapshot/" + name)[0] == 200
        if mid:
            landed = partial
            break
    assert landed, "no kill landed while a snapshot was being written"
    assert "removed the unfinished snapshot " + landed in s.stderr(), s.stderr()[-2000:]
    for metric, n in (("snap.k", 300000), ("snap.k2", 900000)):
        status, res = s.http().get_json(
            f"/api/query?start={T0 - 3 * 86400}&end={T0 + 400000}&m=sum:0all-count:{metric}")
        assert status == 200 and sum(res[0]["dps"].values()) == n, (metric, res)


def test_snapshot_on_full_disk_is_507_and_leaves_nothing(server_factory):
    mnt = tempfile.mkdtemp(prefix="sundial-snapfull-")
    if not can_mount_tmpfs(mnt):
        os.rmdir(mnt)
        pytest.skip("cannot mount a tmpfs here")
    try:
        s = server_factory(data_dir=os.path.join(mnt, "data"),
                           args=["--storage-resume-free-bytes", "64KiB"])
        rnd = random.Random(4)
        c = s.http()
        for k in range(4):
            pts = [{"metric": "snap.f", "timestamp": T0 + k * 10000 + i, "value": rnd.random(),
                    "tags": {"host": "a"}} for i in range(10000)]
            assert c.post("/api/put?sync", pts)[0] == 204
        fill(os.path.join(mnt, "ballast"))
        status, _, body = s.http().post("/api/snapshot")
        assert status == 507, (status, body)
        snaps = os.path.join(s.data_dir, "snapshots")
        assert os.listdir(snaps) == [], os.listdir(snaps)
        os.remove(os.path.join(mnt, "ballast"))
        status, _, body = s.http().post("/api/snapshot")
        assert status == 200, body
        s.stop()
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        os.rmdir(mnt)
