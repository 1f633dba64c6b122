"""Query endpoints end to end: Grafana's requests (opentsdb-compat.md §8)
replayed against the real server, asserting the fields Grafana reads, plus
OpenTSDB's error shapes, limits, streaming, and data in head, sealed and
out-of-order pages. Data is loaded through /api/put."""
import json
import urllib.parse

import pytest

T0 = 1700000000 - 1700000000 % 3600  # an hour boundary (seconds)


def put(server, points):
    c = server.http()
    for i in range(0, len(points), 5000):
        status, _, body = c.post("/api/put?sync", points[i:i + 5000],
                                 {"Content-Type": "application/json"})
        assert status == 204, body


def load_cpu(server, hosts=("web01", "web02"), n=60, step=10):
    pts = []
    for h, host in enumerate(hosts):
        for i in range(n):
            pts.append({"metric": "sys.cpu.user", "timestamp": T0 + i * step,
                        "value": i + 10 * h, "tags": {"host": host, "dc": "lga"}})
    put(server, pts)


def q(path, **params):
    return path + "?" + urllib.parse.urlencode(params)


# ---- Grafana: test button, template variables, query editor (§8.1, §8.2) ----

def test_grafana_lookups(server):
    load_cpu(server)
    c = server.http()
    # Test button: classic frontend and Go backend.
    assert c.get_json("/api/suggest?type=metrics&q=cpu&max=1000") == (200, [])
    assert c.get_json("/api/suggest?q=cpu&type=metrics") == (200, [])
    assert c.get_json("/api/suggest?type=metrics&q=sys") == (200, ["sys.cpu.user"])
    assert c.get_json("/api/suggest?type=metrics&q=") == (200, ["sys.cpu.user"])
    assert c.get_json("/api/suggest?type=tagk&q=") == (200, ["dc", "host"])
    assert c.get_json("/api/suggest?type=tagv&q=web&max=1") == (200, ["web01"])
    status, body = c.get_json("/api/suggest?type=bogus")
    assert status == 400 and body["error"]["message"] == "Invalid 'type' parameter:bogus"
    status, body = c.get_json("/api/suggest")
    assert status == 400 and body["error"]["message"] == "Missing parameter <code>type</code>"
    # tag_names(metric) and tag_values(metric, key); limit=0 is unlimited.
    status, body = c.get_json("/api/search/lookup?m=sys.cpu.user&limit=1000")
    assert status == 200
    assert sorted({k for r in body["results"] for k in r["tags"]}) == ["dc", "host"]
    status, body = c.get_json(q("/api/search/lookup", m="sys.cpu.user{host=*}", limit="0"))
    assert status == 200 and body["type"] == "LOOKUP"
    assert sorted(r["tags"]["host"] for r in body["results"]) == ["web01", "web02"]
    assert body["totalResults"] == 2
    status, body = c.get_json("/api/search/lookup?m=nope")
    assert status == 404 and body["error"]["message"] == "Unable to resolve one or more UIDs"
    # Query editor lists.
    status, aggs = c.get_json("/api/aggregators")
    assert status == 200 and len(aggs) == 35 and "zimsum" in aggs and "squareSum" in aggs
    status, filters = c.get_json("/api/config/filters")
    assert status == 200
    assert sorted(filters) == ["iliteral_or", "iwildcard", "literal_or", "not_iliteral_or",
                               "not_literal_or", "regexp", "wildcard"]


# ---- Grafana panel queries (§8.3 classic frontend, §8.5 Go backend) ----

def test_grafana_classic_panel_query(server):
    load_cpu(server)
    c = server.http()
    body = {
        "start": T0 * 1000,            # ms; no "end" (range ends now)
        "queries": [
            {"metric": "sys.cpu.user", "aggregator": "sum", "downsample": "1m-avg",
             "filters": [{"type": "wildcard", "tagk": "host", "filter": "*", "groupBy": True}],
             "refId": "A", "hide": False, "alias": "$tag_host"},
            {"metric": "sys.cpu.user", "aggregator": "avg", "downsample": "1m-max",
             "tags": {"host": "web01|web02"}},
        ],
        "msResolution": False, "globalAnnotations": True, "showQuery": True,
    }
    status, res = c.post_json("/api/query", body)
    assert status == 200, res
    assert len(res) == 4
    for r in res:
        assert set(r) >= {"metric", "tags", "aggregateTags", "dps", "query"}
        assert r["metric"] == "sys.cpu.user"
        assert r["tags"]["host"] in ("web01", "web02")   # group-by key in tags
        assert r["tags"]["dc"] == "lga"
        assert isinstance(r["dps"], dict)
    by_index = {}
    for r in res:
        by_index.setdefault(r["query"]["index"], []).append(r)
    assert sorted(by_index) == [0, 1]
    web01 = [r for r in by_index[0] if r["tags"]["host"] == "web01"][0]
    # 1m-avg of 0,1,...,5 then 6..11 ...: keys are seconds, values doubles.
    assert web01["dps"][str(T0)] == 2.5
    assert web01["dps"][str(T0 + 60)] == 8.5
    assert len(web01["dps"]) == 10


def test_grafana_backend_panel_query(server):
    load_cpu(server)
    c = server.http()
    body = {"start": T0, "end": T0 + 599,   # seconds
            "queries": [{"aggregator": "sum", "downsample": "2m-sum-null",
                         "filters": [{"filter": "web01", "groupBy": False, "tagk": "host",
                                      "type": "literal_or"}],
                         "metric": "sys.cpu.user"}]}
    status, _, data = c.post("/api/query?arrays=true", json.dumps(body),
                             {"Content-Type": "application/json"})
    assert status == 200
    res = json.loads(data)
    assert len(res) == 1 and res[0]["aggregateTags"] == []
    assert res[0]["dps"][:2] == [[T0, 66.0], [T0 + 120, 210.0]]
    assert len(res[0]["dps"]) == 5
    # Fill policies: a gap is null with -null and "NaN" with -nan.
    put(server, [{"metric": "gappy", "timestamp": T0 + s, "value": 1, "tags": {"host": "a"}}
                 for s in (0, 180)])
    for fill, want in (("null", None), ("nan", "NaN"), ("zero", 0.0)):
        status, res = c.post_json("/api/query", {"start": T0, "end": T0 + 180, "queries": [
            {"aggregator": "sum", "metric": "gappy", "downsample": "1m-sum-" + fill}]})
        assert status == 200
        assert res[0]["dps"] == {str(T0): 1.0, str(T0 + 60): want, str(T0 + 120): want,
                                 str(T0 + 180): 1.0}


def test_rate_and_counters(server):
    put(server, [{"metric": "ctr", "timestamp": T0 + i * 10, "value": v, "tags": {"host": "a"}}
                 for i, v in enumerate([10, 20, 5, 15])])
    c = server.http()
    status, res = c.post_json("/api/query", {"start": T0, "end": T0 + 100, "queries": [
        {"aggregator": "sum", "metric": "ctr", "rate": True,
         "rateOptions": {"counter": True, "counterMax": 100, "resetValue": 0, "dropResets": False}}]})
    assert status == 200
    assert res[0]["dps"] == {str(T0 + 10): 1.0, str(T0 + 20): 8.5, str(T0 + 30): 1.0}
    status, res = c.get_json(q("/api/query", start=T0, end=T0 + 100, m="sum:rate{dropcounter}:ctr"))
    assert status == 200 and res[0]["dps"] == {str(T0 + 10): 1.0, str(T0 + 30): 1.0}


def test_get_form_and_output_flags(server):
    load_cpu(server)
    c = server.http()
    status, res = c.get_json(q("/api/query", start=T0, end=T0 + 20, m="sum:sys.cpu.user",
                               show_tsuids="", ms=""))
    assert status == 200 and len(res) == 1
    assert res[0]["aggregateTags"] == ["host"] and res[0]["tags"] == {"dc": "lga"}
    assert res[0]["dps"] == {str(T0 * 1000): 10, str((T0 + 10) * 1000): 12,
                             str((T0 + 20) * 1000): 14}   # integers stay integers
    assert len(res[0]["tsuids"]) == 2
    # Raw braces and pipes in the query string, several m=.
    status, _, data = c.get(f"/api/query?start={T0}&end={T0 + 10}"
                            "&m=max:sys.cpu.user{host=web01|web02}&m=min:sys.cpu.user{}{dc=lga}")
    assert status == 200
    res = json.loads(data)
    assert [r["dps"][str(T0)] for r in res] == [0, 10, 0]


def test_errors_have_opentsdb_shape(server):
    load_cpu(server)
    c = server.http()
    cases = [
        ("GET", "/api/query?m=sum:sys.cpu.user", None, 400, "Missing parameter <code>start</code>"),
        ("GET", "/api/query?start=1h-ago", None, 400, "Missing sub queries"),
        ("GET", "/api/query?start=1h-ago&m=sum:nope", None, 400, "No such name for 'metrics': 'nope'"),
        ("GET", "/api/query?start=1h-ago&m=sum:sys.cpu.user{zone=a}", None, 400,
         "No such name for 'tagk': 'zone'"),
        ("GET", "/api/query?start=1h-ago&m=foo:x", None, 400, "No such aggregation function: foo"),
        ("GET", "/api/query?start=1h-ago&m=sum:10m-avg-bad:x", None, 400, "Unrecognized fill policy: bad"),
        ("POST", "/api/query", "", 400, "Missing message content"),
        ("POST", "/api/query", "{nope", 400, "Unable to parse the given JSON"),
        ("POST", "/api/query", '{"queries":[]}', 400, "Missing start time"),
        ("POST", "/api/query", '{"start":"1h-ago"}', 400, "Missing queries"),
        ("DELETE", "/api/query?start=1h-ago&m=sum:x", None, 400, "Bad request"),
        ("PUT", "/api/query", "{}", 405, "Method not allowed"),
    ]
    for method, path, body, code, message in cases:
        status, _, data = c.request(method, path, body=body)
        assert status == code, (path, data)
        err = json.loads(data)["error"]
        assert err["code"] == code and err["message"] == message, (path, err)


def test_query_last(server):
    load_cpu(server)
    c = server.http()
    status, res = c.get_json("/api/query/last?timeseries=sys.cpu.user%7Bhost=web02%7D&resolve")
    assert status == 200 and len(res) == 1
    assert res[0]["metric"] == "sys.cpu.user" and res[0]["tags"]["host"] == "web02"
    assert res[0]["timestamp"] == (T0 + 590) * 1000 and res[0]["value"] == "69"
    status, res = c.post_json("/api/query/last", {"queries": [{"metric": "sys.cpu.user"}]})
    assert status == 200 and len(res) == 2 and "metric" not in res[0]


def test_limits_answer_413(server_factory):
    s = server_factory(args=["--query-max-series", "1"])
    load_cpu(s)
    status, body = s.http().get_json(f"/api/query?start={T0}&m=sum:sys.cpu.user")
    assert status == 413 and "limit of 1 time series" in body["error"]["message"]
    status, _ = s.http().get_json(f"/api/query?start={T0}&m=sum:sys.cpu.user%7Bhost=web01%7D")
    assert status == 200


def test_same_answers_on_io_thread_and_query_threads(server_factory):
    # Small queries are answered on the I/O thread, others on the query
    # threads (and one that outgrows the small bound moves there): all give
    # the same bytes as with inlining switched off.
    paths = [f"/api/query?start={T0}&m=sum:sys.cpu.user",
             f"/api/query?start={T0}&m=max:1m-max:sys.cpu.user%7Bhost=web01%7D",
             f"/api/query?start={T0}&m=sum:nope",
             f"/api/query?start={T0}&m=none:rate:sys.cpu.user%7Bhost=*%7D"]
    answers = []
    for args in (["--query-inline-max-points", "0"], [],
                 ["--query-inline-max-points", "70", "--query-inline-max-series", "1"]):
        s = server_factory(args=args)
        load_cpu(s)
        c = s.http()
        answers.append([c.get(p)[0::2] for p in paths])
    assert answers[0][0][0] == 200 and answers[0][2][0] == 400
    assert answers[1] == answers[0] and answers[2] == answers[0]


def test_large_result_streams(server):
    pts = [{"metric": "big", "timestamp": T0 + i, "value": i * 0.5, "tags": {"host": "a"}}
           for i in range(30000)]
    put(server, pts)
    status, headers, data = server.http().get(f"/api/query?start={T0}&end={T0 + 30000}&m=none:big")
    assert status == 200
    assert headers.get("transfer-encoding") == "chunked"
    res = json.loads(data)
    assert len(res[0]["dps"]) == 30000 and res[0]["dps"][str(T0 + 29999)] == 14999.5


def test_head_sealed_and_out_of_order_points_all_appear(server):
    # Enough points per series to fill and seal several 512-byte pages,
    # then out-of-order and duplicate writes into the sealed range.
    n = 3000
    put(server, [{"metric": "seal", "timestamp": T0 + i, "value": i * 1.25, "tags": {"host": "a"}}
                 for i in range(n)])
    put(server, [{"metric": "seal", "timestamp": T0 + i, "value": -1, "tags": {"host": "a"}}
                 for i in range(0, n, 100)])  # overwrite: last write wins
    put(server, [{"metric": "seal", "timestamp": T0 + n + 5, "value": 7, "tags": {"host": "a"}}])

    def check():
        status, res = server.http().get_json(f"/api/query?start={T0}&end={T0 + n + 10}&m=sum:seal")
        assert status == 200
        dps = res[0]["dps"]
        assert len(dps) == n + 1
        for i in range(n):
            want = -1 if i % 100 == 0 else i * 1.25
            assert dps[str(T0 + i)] == want, i
        assert dps[str(T0 + n + 5)] == 7

    check()
    server.restart()  # sealed pages now come from the page files
    check()


# ---- groups of one query on several threads ----

def test_groups_run_at_once_answer_as_one_thread(server):
    """A query whose groups are small runs them on the query threads at
    once (the server here has two): every answer, limit errors included,
    must be the one the same data gives with --query-threads 1."""
    import random
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    pts = []
    for h in range(40):
        walk = rng.uniform(0, 100)
        counter = 0
        for i in range(0, 7200, 10):
            walk += rng.uniform(-1, 1)
            counter += rng.randrange(1000)
            tags = {"host": f"h{h:02d}", "dc": f"dc{h % 3}"}
            pts.append({"metric": "g.cpu", "timestamp": T0 + i, "value": round(walk, 2),
                        "tags": tags})
            pts.append({"metric": "g.bytes", "timestamp": T0 + i, "value": counter, "tags": tags})
    put(server, pts)
    queries = [
        "avg:1h-avg:g.cpu{host=*}",
        "sum:5m-p95-zero:g.cpu{host=*}",
        "max:10m-avg:rate{counter}:g.bytes{host=*}",
        "avg:1m-count:g.cpu{dc=*}",
        "p90:15m-max-null:g.cpu{host=*,dc=*}",
        "sum:2m-sum:g.bytes{host=h0*}",
        "avg:g.cpu{dc=dc1}",
    ]

    def answers(srv):
        c = srv.http()
        out = []
        for m in queries:
            status, _, body = c.get(q("/api/query", start=T0, end=T0 + 7199, m=m))
            out.append((m, status, body))
        return out

    with_lanes = answers(server)
    for m, status, body in with_lanes:
        assert status == 200, (m, body)
    assert json.loads(with_lanes[0][2])[0]["dps"], "no data"
    server.restart(["--query-threads", "1"])
    assert answers(server) == with_lanes
    # A raw-point limit that a group passes halfway: the same 413.
    server.restart(["--query-threads", "1", "--query-max-points", "15000"])
    one = answers(server)
    server.restart(["--query-max-points", "15000"])
    assert answers(server) == one
    assert any(status == 413 for _, status, _ in one), [s for _, s, _ in one]
    assert any(status == 200 for _, status, _ in one)
