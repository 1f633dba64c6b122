"""The rest of OpenTSDB's HTTP API against the real server: annotations
(durable across restart and kill -9, in /api/query results, Grafana's
annotation request), /api/uid/*, /api/query/last errors, X-Request-ID,
/api/stats/{query,threads,jvm}, /api/serializers, /api/config, the pre-/api
endpoints and the answers of those README lists as left out."""
import json
import signal
import socket
import time
import urllib.parse

from conftest import free_port

T0 = 1700000000 - 1700000000 % 3600  # an hour boundary (seconds)
TSUID = "000001000001000001"  # sys.cpu.user{host=web01}: the first series


def put(server, points):
    status, _, body = server.http().post("/api/put?sync", points,
                                         {"Content-Type": "application/json"})
    assert status == 204, body


def load(server, start=T0, n=10):
    put(server, [{"metric": "sys.cpu.user", "timestamp": start + i * 60, "value": i,
                  "tags": {"host": host}} for host in ("web01", "web02") for i in range(n)])


def req(server, method, path, body=None, headers=None):
    status, hdrs, data = server.http().request(method, path, body=body, headers=headers)
    return status, hdrs, (json.loads(data) if data else None)


def q(path, **params):
    return path + "?" + urllib.parse.urlencode(params)


# ---- annotations ----

def test_annotation_crud_with_opentsdb_shapes(server):
    load(server)
    note = {"tsuid": TSUID, "startTime": T0 + 60, "description": "deploy",
            "notes": "v1.2", "custom": {"owner": "jdoe"}}
    status, _, body = req(server, "POST", "/api/annotation", note)
    assert status == 200
    assert body == {"tsuid": TSUID, "description": "deploy", "notes": "v1.2",
                    "custom": {"owner": "jdoe"}, "endTime": 0, "startTime": T0 + 60}
    # GET by query string, tsuid in lower case, start in ms.
    status, _, body = req(server, "GET", q("/api/annotation", tsuid=TSUID.lower(),
                                           start_time=(T0 + 60) * 1000))
    assert status == 200 and body["description"] == "deploy"
    # POST merges: only the given field changes.
    status, _, body = req(server, "POST", "/api/annotation",
                          {"tsuid": TSUID, "startTime": T0 + 60, "notes": "v1.3"})
    assert status == 200 and body["description"] == "deploy" and body["notes"] == "v1.3"
    # POST with nothing to change: 304, as OpenTSDB.
    status, _, _ = req(server, "POST", "/api/annotation", {"tsuid": TSUID, "startTime": T0 + 60})
    assert status == 304
    # PUT replaces every field.
    status, _, body = req(server, "PUT", "/api/annotation",
                          {"tsuid": TSUID, "startTime": T0 + 60, "notes": "only"})
    assert status == 200 and body["description"] == "" and body["custom"] is None
    # The alias and the query-string form of a write.
    status, _, body = req(server, "POST", q("/api/annotations", start_time=T0 + 120,
                                            description="global via qs"))
    assert status == 200 and "tsuid" not in body and body["startTime"] == T0 + 120
    # DELETE, then 404 with OpenTSDB's wording.
    status, _, _ = req(server, "DELETE", q("/api/annotation", tsuid=TSUID, start_time=T0 + 60))
    assert status == 204
    status, _, body = req(server, "GET", q("/api/annotation", tsuid=TSUID, start_time=T0 + 60))
    assert status == 404
    assert body["error"]["message"] == "Unable to locate annotation in storage"


def test_annotation_errors(server):
    cases = [
        ("GET", "/api/annotation", None, 400, "Missing start time"),
        ("POST", "/api/annotation", {"description": "x"}, 400,
         "The start timestamp has not been set"),
        ("POST", "/api/annotation", "{not json", 400, "Unable to parse the given JSON"),
        ("POST", "/api/annotation", {"tsuid": "XYZ", "startTime": 5}, 400, "Invalid TSUID: XYZ"),
        ("DELETE", "/api/annotation", {"description": "x"}, 400,
         "Unable to delete Annotation information"),
        ("GET", "/api/annotation/bulk", None, 405, "Method not allowed"),
        ("DELETE", "/api/annotation/bulk", {"global": True}, 400, "Missing the start time value"),
        ("DELETE", "/api/annotation/bulk", {"startTime": "1h-ago"}, 400,
         "Missing the TSUIDs or global annotations flag"),
        ("POST", "/api/annotation/bulk", [{"description": "no start"}], 400,
         "The start timestamp has not been set"),
    ]
    for method, path, body, code, message in cases:
        status, _, data = req(server, method, path, body)
        assert status == code, (method, path, data)
        assert data["error"]["code"] == code and data["error"]["message"] == message, data


def test_annotation_bulk(server):
    load(server)
    notes = [{"tsuid": TSUID, "startTime": T0 + i * 60, "description": f"n{i}"} for i in range(5)]
    notes.append({"startTime": T0 + 30, "description": "global"})
    status, _, body = req(server, "POST", "/api/annotation/bulk", notes)
    assert status == 200 and len(body) == 6 and body[5]["description"] == "global"
    status, _, body = req(server, "DELETE", "/api/annotation/bulk",
                          {"tsuids": [TSUID], "startTime": str(T0 + 60),
                           "endTime": str(T0 + 180)})
    assert status == 200
    assert body == {"tsuids": [TSUID], "global": False, "startTime": (T0 + 60) * 1000,
                    "endTime": (T0 + 180) * 1000, "totalDeleted": 3}
    status, _, body = req(server, "DELETE", q("/api/annotation/bulk", start_time=T0,
                                              end_time=T0 + 3600, tsuids=TSUID, **{"global": ""}))
    assert status == 200 and body["totalDeleted"] == 3 and body["global"] is True


def test_annotations_in_query_results(server):
    load(server)
    req(server, "POST", "/api/annotation", {"tsuid": TSUID, "startTime": T0 + 60,
                                            "description": "series note"})
    req(server, "POST", "/api/annotation", {"startTime": T0 + 120, "description": "global note"})
    req(server, "POST", "/api/annotation", {"tsuid": TSUID, "startTime": T0 + 7200,
                                            "description": "out of range"})
    base = {"start": T0, "end": T0 + 600,
            "queries": [{"aggregator": "sum", "metric": "sys.cpu.user",
                         "tags": {"host": "web01"}}]}
    status, _, res = req(server, "POST", "/api/query", dict(base, globalAnnotations=True))
    assert status == 200 and len(res) == 1
    assert [a["description"] for a in res[0]["annotations"]] == ["series note"]
    assert [a["description"] for a in res[0]["globalAnnotations"]] == ["global note"]
    keys = list(res[0].keys())
    assert keys.index("annotations") < keys.index("globalAnnotations") < keys.index("dps")
    # Not asked for globals: none; noAnnotations: neither.
    status, _, res = req(server, "POST", "/api/query", base)
    assert "globalAnnotations" not in res[0] and "annotations" in res[0]
    status, _, res = req(server, "POST", "/api/query",
                         dict(base, globalAnnotations=True, noAnnotations=True))
    assert "annotations" not in res[0] and "globalAnnotations" not in res[0]
    # The other series has no annotation of its own; GET flags work too.
    status, _, res = req(server, "GET", q("/api/query", start=T0, end=T0 + 600,
                                          m="sum:sys.cpu.user{host=web02}") + "&global_annotations")
    assert "annotations" not in res[0] and len(res[0]["globalAnnotations"]) == 1
    # Aggregated over both hosts: the member's annotation is there.
    status, _, res = req(server, "GET", q("/api/query", start=T0, end=T0 + 600,
                                          m="sum:sys.cpu.user") + "&no_annotations")
    assert "annotations" not in res[0]
    status, _, res = req(server, "GET", q("/api/query", start=T0, end=T0 + 600,
                                          m="sum:sys.cpu.user"))
    assert [a["description"] for a in res[0]["annotations"]] == ["series note"]


def test_grafana_annotation_request(server):
    # Exactly what Grafana's OpenTSDB data source sends for an annotation
    # query (datasource.ts annotationEvent -> performTimeSeriesQuery): one
    # sum sub-query on the annotation's target metric, globalAnnotations
    # always true; start "<n>h-ago" for a relative range (no end) or ms.
    now = int(time.time())
    start = now - now % 60 - 1800
    load(server, start=start, n=20)
    req(server, "POST", "/api/annotation", {"tsuid": TSUID, "startTime": start + 120,
                                            "description": "deploy 42"})
    req(server, "POST", "/api/annotation", {"startTime": start + 240, "description": "outage"})
    bodies = [
        {"start": "1h-ago", "queries": [{"aggregator": "sum", "metric": "sys.cpu.user"}],
         "msResolution": False, "globalAnnotations": True},
        {"start": (start - 60) * 1000, "end": (now + 60) * 1000,
         "queries": [{"aggregator": "sum", "metric": "sys.cpu.user"}],
         "msResolution": False, "globalAnnotations": True, "showQuery": True},
    ]
    for body in bodies:
        status, _, res = req(server, "POST", "/api/query", body,
                             {"Content-Type": "application/json"})
        assert status == 200, res
        # Grafana reads only results[0]: annotations, or globalAnnotations
        # when "global" is ticked; each event is {text: description,
        # time: floor(startTime) * 1000}, so startTime must be seconds.
        first = res[0]
        events = [{"text": a["description"], "time": int(a["startTime"]) * 1000}
                  for a in first["annotations"]]
        assert events == [{"text": "deploy 42", "time": (start + 120) * 1000}]
        events = [{"text": a["description"], "time": int(a["startTime"]) * 1000}
                  for a in first["globalAnnotations"]]
        assert events == [{"text": "outage", "time": (start + 240) * 1000}]


def test_annotations_survive_restart_and_kill9(server):
    load(server)
    status, _, _ = req(server, "POST", "/api/annotation",
                       {"tsuid": TSUID, "startTime": T0 + 1, "description": "before restart"})
    assert status == 200
    server.restart()
    status, _, body = req(server, "GET", q("/api/annotation", tsuid=TSUID, start_time=T0 + 1))
    assert status == 200 and body["description"] == "before restart"
    # Kill -9 right after each acknowledgement: nothing acknowledged is lost.
    for i in range(3):
        status, _, _ = req(server, "POST", "/api/annotation",
                           {"startTime": T0 + 100 + i, "description": f"kill {i}"})
        assert status == 200
        status, _, _ = req(server, "DELETE", q("/api/annotation", tsuid=TSUID, start_time=T0 + 1))
        assert status == 204
        server.stop(signal.SIGKILL)
        server.restart()
        for j in range(i + 1):
            status, _, body = req(server, "GET", q("/api/annotation", start_time=T0 + 100 + j))
            assert status == 200 and body["description"] == f"kill {j}"
        status, _, _ = req(server, "GET", q("/api/annotation", tsuid=TSUID, start_time=T0 + 1))
        assert status == 404
        req(server, "POST", "/api/annotation", {"tsuid": TSUID, "startTime": T0 + 1,
                                                "description": "again"})


def test_annotations_are_bounded_by_meta_max_bytes(server_factory):
    """Annotations live in memory, so storage.meta_max_bytes bounds them: a
    client that keeps posting big ones gets 507 once the store is full,
    never an exhausted server. What is stored stays readable; deleting
    makes room again; the bound and the data hold across a restart."""
    server = server_factory(args=["--storage-meta-max-bytes", "64KiB"])
    notes = "n" * 8000  # about 8 KB per annotation
    stored = []
    status = 200
    for i in range(100):  # bounded: 64 KiB holds about 8 of them
        status, _, body = req(server, "POST", "/api/annotation",
                              {"startTime": T0 + i, "description": f"a{i}", "notes": notes})
        if status != 200:
            break
        stored.append(i)
    assert status == 507, body
    assert 5 <= len(stored) <= 8, stored
    assert body["error"]["code"] == 507
    assert body["error"]["message"] == "meta data store is full", body
    assert "over its bound of 65536" in body["error"]["details"], body
    assert "storage.meta_max_bytes" in body["error"]["details"], body
    # A bulk write that would overflow is refused whole.
    status, _, body = req(server, "POST", "/api/annotation/bulk",
                          [{"startTime": T0 + 500, "description": "small"},
                           {"startTime": T0 + 501, "description": "big", "notes": notes}])
    assert status == 507, body
    status, _, _ = req(server, "GET", q("/api/annotation", start_time=T0 + 500))
    assert status == 404
    # Everything stored is still there; a delete makes room for one more.
    for i in stored:
        status, _, body = req(server, "GET", q("/api/annotation", start_time=T0 + i))
        assert status == 200 and body["description"] == f"a{i}", body
    status, _, _ = req(server, "DELETE", q("/api/annotation", start_time=T0 + stored[0]))
    assert status == 204
    status, _, body = req(server, "POST", "/api/annotation",
                          {"startTime": T0 + 1000, "description": "room again", "notes": notes})
    assert status == 200, body
    server.restart(args=["--storage-meta-max-bytes", "64KiB"])
    status, _, body = req(server, "GET", q("/api/annotation", start_time=T0 + 1000))
    assert status == 200 and body["description"] == "room again"
    status, _, body = req(server, "POST", "/api/annotation",
                          {"startTime": T0 + 1001, "description": "over", "notes": notes})
    assert status == 507, body


# ---- /api/query/last errors ----

def test_query_last_unknown_names(server):
    load(server)
    cases = [("sys.cpu.nice{host=web01}", "No such name for 'metrics': 'sys.cpu.nice'"),
             ("sys.cpu.user{dc=web01}", "No such name for 'tagk': 'dc'"),
             ("sys.cpu.user{host=web03}", "No such name for 'tagv': 'web03'")]
    for ts, message in cases:
        status, _, body = req(server, "GET", q("/api/query/last", timeseries=ts))
        assert status == 400 and body["error"]["message"] == message, body
    status, _, body = req(server, "POST", "/api/query/last",
                          {"queries": [{"metric": "nope", "tags": {}}]})
    assert status == 400 and "No such name for 'metrics'" in body["error"]["message"]
    status, _, body = req(server, "GET", q("/api/query/last", timeseries="sys.cpu.user{host=web01}"))
    assert status == 200 and body[0]["tsuid"] == TSUID


# ---- X-Request-ID ----

def test_request_id_echoed_on_success_and_errors(server):
    load(server)
    for method, path, body, code in [
            ("GET", "/api/version", None, 200),
            ("GET", "/api/nothing", None, 404),
            ("DELETE", "/api/version", None, 405),
            ("GET", q("/api/query/last", timeseries="nope"), None, 400),
            ("POST", "/api/query", {"start": T0, "queries": [{"aggregator": "sum",
                                                             "metric": "sys.cpu.user"}]}, 200),
            ("POST", "/api/put", "[broken", 400),
            ("GET", "/nothing.html", None, 404)]:
        status, hdrs, _ = server.http().request(method, path, body=body,
                                                headers={"X-Request-ID": "bench-42"})
        assert status == code, path
        assert hdrs.get("x-request-id") == "bench-42", (path, hdrs)
    # Too long or unprintable values are not echoed (no header injection).
    status, hdrs, _ = server.http().request("GET", "/api/version",
                                            headers={"X-Request-ID": "x" * 129})
    assert status == 200 and "x-request-id" not in hdrs
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall(b"GET /api/version HTTP/1.1\r\nX-Request-ID: caf\xc3\xa9\r\n"
                  b"Connection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 200 ") and b"X-Request-ID" not in data


# ---- /api/uid/* ----

def test_uid_assign(server):
    load(server)
    status, _, body = req(server, "GET", "/api/uid/assign?metric=new.metric,sys.cpu.user&tagk=dc")
    assert status == 400
    assert body == {"metric": {"new.metric": "000002"},
                    "metric_errors": {"sys.cpu.user": "Name already exists with UID: 000001"},
                    "tagk": {"dc": "000002"}}
    status, _, body = req(server, "POST", "/api/uid/assign", {"tagv": ["web09"]})
    assert status == 200 and body == {"tagv": {"web09": "000003"}}
    status, _, body = req(server, "GET", "/api/uid/assign")
    assert status == 400 and body["error"]["message"] == "Missing values to assign UIDs"
    # Assigned names exist for suggest and survive a restart.
    server.restart()
    status, _, body = req(server, "GET", "/api/suggest?type=metrics&q=new")
    assert body == ["new.metric"]


def test_uid_meta_and_ts_meta(server):
    load(server)
    status, _, body = req(server, "GET", "/api/uid/uidmeta?uid=000001&type=metric")
    assert status == 200 and body["name"] == "sys.cpu.user" and body["type"] == "METRIC"
    assert body["displayName"] == "" and body["custom"] is None
    status, _, body = req(server, "POST", "/api/uid/uidmeta",
                          {"uid": "000001", "type": "metric", "displayName": "CPU user",
                           "custom": {"unit": "%"}})
    assert status == 200 and body["displayName"] == "CPU user" and body["custom"] == {"unit": "%"}
    status, _, body = req(server, "POST", "/api/uid/uidmeta",
                          {"uid": "000001", "type": "metric", "notes": "n"})
    assert body["displayName"] == "CPU user" and body["notes"] == "n"
    status, _, _ = req(server, "POST", "/api/uid/uidmeta", {"uid": "000001", "type": "metric"})
    assert status == 304
    status, _, body = req(server, "GET", "/api/uid/uidmeta?uid=00FFFF&type=metric")
    assert status == 404 and body["error"]["message"] == "Could not find the requested UID"
    status, _, body = req(server, "GET", "/api/uid/uidmeta?uid=000001&type=bogus")
    assert status == 400
    # TS meta by tsuid and by m=; set fields survive a restart.
    status, _, body = req(server, "POST", "/api/uid/tsmeta",
                          {"tsuid": TSUID, "description": "web01 user cpu", "units": "%"})
    assert status == 200 and body["description"] == "web01 user cpu"
    server.restart()
    status, _, body = req(server, "GET", "/api/uid/tsmeta?tsuid=" + TSUID)
    assert status == 200 and body["units"] == "%" and body["metric"]["displayName"] == "CPU user"
    assert [t["name"] for t in body["tags"]] == ["host", "web01"]
    status, _, body = req(server, "GET", q("/api/uid/tsmeta", m="sys.cpu.user{host=*}"))
    assert status == 200 and sorted(m["tsuid"] for m in body) == [TSUID, "000001000001000002"]
    status, _, body = req(server, "GET", "/api/uid/tsmeta?tsuid=000009000001000001")
    assert status == 404
    status, _, _ = req(server, "DELETE", "/api/uid/tsmeta?tsuid=" + TSUID)
    assert status == 204
    status, _, body = req(server, "GET", "/api/uid/tsmeta?tsuid=" + TSUID)
    assert body["description"] == ""
    status, _, _ = req(server, "DELETE", "/api/uid/uidmeta?uid=000001&type=metric")
    assert status == 204


def test_uid_routes_answer_bytes_that_are_not_utf8(server):
    """Names may hold bytes that are not UTF-8 (ingest reads them as Latin-1,
    as OpenTSDB does), and so may percent-decoded query-string fields. The
    UID routes answer them as U+FFFD; before, the JSON writer threw on a
    worker thread and the server died."""
    t = server.telnet()
    t.send(b"put bad\xffmetric %d 1 host=web\xff01\nversion\n" % T0)
    t.read_until("\n")  # version's first line: the put was taken
    t.close()
    status, _, body = req(server, "GET", "/api/uid/uidmeta?uid=000001&type=metric")
    assert status == 200 and body["name"] == "bad\ufffdmetric"
    # A field given in the query string, not UTF-8 after percent-decoding.
    status, _, body = req(server, "POST", "/api/uid/uidmeta?uid=000001&type=metric"
                                          "&display_name=CPU%FF")
    assert status == 200 and body["displayName"] == "CPU\ufffd"
    status, _, body = req(server, "GET", "/api/uid/uidmeta?uid=000001&type=metric")
    assert status == 200 and body["displayName"] == "CPU\ufffd"
    status, _, body = req(server, "POST", "/api/uid/tsmeta?tsuid=" + TSUID + "&notes=n%FE")
    assert status == 200 and body["notes"] == "n\ufffd"
    assert [t["name"] for t in body["tags"]] == ["host", "web\ufffd01"]
    status, _, body = req(server, "GET", "/api/uid/tsmeta?m=bad%FFmetric")
    assert status == 200 and [m["tsuid"] for m in body] == [TSUID]
    status, _, body = req(server, "GET", "/api/uid/assign?metric=new%FFname")
    assert status == 200 and body == {"metric": {"new\ufffdname": "000002"}}
    assert req(server, "GET", "/api/version")[0] == 200


def test_uid_rename_keeps_data_and_survives_kill9(server):
    load(server)
    status, _, body = req(server, "GET", "/api/uid/rename?metric=sys.cpu.user&name=sys.cpu.usr")
    assert status == 200 and body == {"result": "true"}
    status, _, body = req(server, "POST", "/api/uid/rename", {"tagv": "web01", "name": "web-01"})
    assert status == 200
    server.stop(signal.SIGKILL)
    server.restart()
    status, _, res = req(server, "GET", q("/api/query", start=T0, end=T0 + 600,
                                          m="sum:sys.cpu.usr{host=web-01}"))
    assert status == 200 and len(res[0]["dps"]) == 10
    status, _, body = req(server, "GET", "/api/uid/rename?metric=sys.cpu.user&name=x")
    assert status == 400 and body == {"result": "false",
                                      "error": "No such name for 'metrics': 'sys.cpu.user'"}
    load(server)  # the old name is new again
    status, _, body = req(server, "GET", "/api/uid/rename?metric=sys.cpu.user&name=sys.cpu.usr")
    assert status == 400 and "already exists" in body["error"]
    status, _, body = req(server, "GET", "/api/uid/rename?name=x")
    assert status == 400
    assert body["error"]["message"] == "Missing necessary values to rename UID"


# ---- stats, serializers ----

def test_stats_query_threads_jvm_serializers(server):
    load(server)
    req(server, "POST", "/api/query", {"start": T0, "queries": [{"aggregator": "sum",
                                                                 "metric": "sys.cpu.user"}]},
        {"X-Request-ID": "q-1"})
    req(server, "GET", q("/api/query", start=T0, m="sum:nope"))
    status, _, body = req(server, "GET", "/api/stats/query")
    assert status == 200 and body["running"] == []
    done = body["completed"]
    assert len(done) == 2 and done[0]["httpResponse"]["code"] == 400
    assert done[1]["httpResponse"] == {"code": 200, "reasonPhrase": "OK"}
    assert done[1]["requestId"] == "q-1" and "sys.cpu.user" in done[1]["query"]
    assert done[1]["elapsed"] >= 0 and done[1]["queryStartTimestamp"] > 0
    status, _, threads = req(server, "GET", "/api/stats/threads")
    assert status == 200 and len(threads) >= 2
    assert all({"threadID", "name", "state", "cpuTimeMs"} <= set(t) for t in threads)
    names = {t["name"] for t in threads}
    assert {"sd-io", "sd-maintenance"} <= names, names
    status, _, body = req(server, "GET", "/api/stats/jvm")
    assert status == 404 and "JVM" in body["error"]["message"]
    status, _, body = req(server, "GET", "/api/serializers")
    assert status == 200 and body[0]["serializer"] == "json"
    assert "formatAnnotationV1" in body[0]["formatters"] and "parsePutV1" in body[0]["parsers"]
    status, _, body = req(server, "GET", "/api/dropcaches")
    assert body == {"status": "200", "message": "Caches dropped"}


# ---- /api/config, the pre-/api endpoints, and what README lists as left out ----

def test_api_config_is_the_effective_options_with_secrets_masked(server_factory):
    relay = f"http://127.0.0.1:{free_port()}?bearer=tok-123&batch=50"
    s = server_factory(args=["--relay-targets", relay, "--query-max-series", "1234"])
    for method in ("GET", "POST"):
        status, hdrs, raw = s.http().request(method, "/api/config")
        assert status == 200 and hdrs["content-type"].startswith("application/json")
        body = json.loads(raw)
        assert list(body) == sorted(body)  # OpenTSDB's sorted flat object
        assert all(isinstance(v, str) for v in body.values())
        assert body["query.max_series"] == "1234"          # from the command line
        assert body["port"] == str(s.port)
        assert body["wal.segment_size"] == "64MiB"          # a default
        assert body["relay.targets"].endswith("?bearer=********&batch=50")
        assert b"tok-123" not in raw


def text(server, path, method="GET"):
    status, hdrs, data = server.http().request(method, path)
    return status, hdrs.get("content-type", ""), data.decode()


def test_pre_api_endpoints(server):
    load(server)
    # /version: text lines, or the /api/version JSON when asked.
    status, ctype, body = text(server, "/version")
    assert status == 200 and ctype.startswith("text/plain")
    assert body.startswith("net.opentsdb.tools 2.4.1 built at revision ") and "\nBuilt on " in body
    api_version = req(server, "GET", "/api/version")[2]
    for path in ("/version?json", "/version/json"):
        assert req(server, "GET", path)[2] == api_version, path
    # /aggregators and /suggest: the /api JSON arrays.
    assert req(server, "GET", "/aggregators")[2] == req(server, "GET", "/api/aggregators")[2]
    status, _, body = req(server, "GET", "/suggest?type=metrics&q=sys")
    assert status == 200 and body == ["sys.cpu.user"]
    # /stats: telnet-style lines, JSON with ?json.
    status, ctype, body = text(server, "/stats")
    assert status == 200 and ctype.startswith("text/plain")
    assert any(l.startswith("tsd.rpc.received ") for l in body.splitlines())
    status, _, body = req(server, "GET", "/stats?json")
    assert status == 200 and any(r["metric"] == "tsd.datapoints.added" for r in body)
    # /dropcaches: text, as OpenTSDB's non-API form.
    for method in ("GET", "DELETE"):
        assert text(server, "/dropcaches", method)[::2] == (200, "Caches dropped.\n")
    # Left out: /q, /logs, /s/* are 404 HTML pages.
    for path in ("/q?start=1h-ago&m=sum:sys.cpu.user&ascii", "/logs", "/logs?json",
                 "/s/queryui.nocache.js"):
        status, ctype, _ = text(server, path)
        assert status == 404 and ctype.startswith("text/html"), path


def test_left_out_api_endpoints_answer_as_documented(server):
    load(server)
    cases = [
        ("GET", "/api/tree", 404, "Endpoint not found"),
        ("POST", "/api/tree/branch", 404, "Endpoint not found"),
        ("GET", "/api/rollup", 404, "Endpoint not found"),
        ("POST", "/api/histogram", 404, "Endpoint not found"),
        ("GET", "/api/stats/region_clients", 404, "Sundial has no HBase region clients"),
        ("GET", "/api/stats/jvm", 404, "Sundial does not run on a JVM"),
    ] + [("GET", f"/api/search/{kind}?query=x", 400, "Searching is not enabled")
         for kind in ("tsmeta", "tsmeta_summary", "tsuids", "uidmeta", "annotation")]
    for method, path, code, message in cases:
        status, _, body = req(server, method, path)
        assert status == code and body["error"]["message"] == message, (path, body)
    # /api/uid/tsmeta is served, its per-series counters are 0.
    status, _, body = req(server, "GET", q("/api/uid/tsmeta", tsuid=TSUID))
    assert status == 200 and body["totalDatapoints"] == 0 and body["created"] == 0
