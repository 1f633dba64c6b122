"""POST /api/query/exp end to end: data written with telnet `put`, expression
queries answered by the real server and checked value by value (values
worked out by hand from OpenTSDB's ExpressionIterator semantics), plus the
error answers. README: "Expressions"."""

from conftest import put_and_wait

T0 = 1700000000 - 1700000000 % 3600  # an hour boundary (seconds)
MS = 1000


def put_lines(server, lines, metric_counts):
    put_and_wait(server, lines, metric_counts, T0 - 3600, T0 + 7200)


def load(server):
    """a (sys.if.in): web01 i, web02 10+i at T0+10i, i < 6.
    b (sys.if.out): web01 2i except no point at i=3, web03 100+i; zero at i=0.
    """
    lines = []
    for i in range(6):
        ts = T0 + 10 * i
        lines.append(f"put sys.if.in {ts} {i} host=web01 dc=lga")
        lines.append(f"put sys.if.in {ts} {10 + i} host=web02 dc=lga")
        if i != 3:
            lines.append(f"put sys.if.out {ts} {2 * i} host=web01 dc=lga")
        lines.append(f"put sys.if.out {ts} {100 + i} host=web03 dc=lga")
    put_lines(server, lines, {"sys.if.in": 12, "sys.if.out": 11})


def query(expressions, *, outputs=None, metric_extra=None, time_extra=None, joined=True):
    by_host = [{"type": "wildcard", "tagk": "host", "filter": "*", "groupBy": True}]
    q = {"time": {"start": T0, "end": T0 + 59, "aggregator": "sum", **(time_extra or {})},
         "filters": [{"id": "f1", "tags": by_host}],
         "metrics": [{"id": "a", "metric": "sys.if.in", "filter": "f1"},
                     {"id": "b", "metric": "sys.if.out", "filter": "f1"}],
         "expressions": expressions}
    for m in q["metrics"]:
        m.update((metric_extra or {}).get(m["id"], {}))
    if outputs is not None:
        q["outputs"] = outputs
    return q


def run(server, body, status=200):
    got, out = server.http().post_json("/api/query/exp", body)
    assert got == status, out
    return out


def hosts(output):
    return [m["commonTags"].get("host") for m in output["meta"][1:]]


def column(output, host):
    i = hosts(output).index(host) + 1
    return [row[i] for row in output["dps"]]


def test_a_plus_b_union(server):
    load(server)
    out = run(server, query([{"id": "e", "expr": "a + b"}]))
    assert [o["id"] for o in out["outputs"]] == ["e"]
    e = out["outputs"][0]
    assert [row[0] for row in e["dps"]] == [(T0 + 10 * i) * MS for i in range(6)]
    assert hosts(e) == ["web01", "web02", "web03"]
    # web01: i + 2i, with b's missing point at i=3 filled with 0 (the
    # default metric fill); web02: b has no such series (0); web03: a has none.
    assert column(e, "web01") == [0.0, 3.0, 6.0, 3.0, 12.0, 15.0]
    assert column(e, "web02") == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert column(e, "web03") == [100.0, 101.0, 102.0, 103.0, 104.0, 105.0]
    assert e["dpsMeta"] == {"firstTimestamp": T0 * MS, "lastTimestamp": (T0 + 50) * MS,
                            "setCount": 6, "series": 3}
    assert e["meta"][0] == {"index": 0, "metrics": ["timestamp"]}
    assert e["meta"][1] == {"index": 1, "metrics": ["sys.if.in", "sys.if.out"],
                            "commonTags": {"dc": "lga", "host": "web01"}, "aggregatedTags": []}
    assert out["query"]["expressions"][0]["join"] == {
        "operator": "union", "useQueryTags": False, "includeAggTags": True}
    assert out["query"]["metrics"][0]["metric"] == "sys.if.in"


def test_divide_with_zeros(server):
    load(server)
    out = run(server, query([{"id": "r", "expr": "a / b"}, {"id": "z", "expr": "a / 0"}],
                            metric_extra={"b": {"fillPolicy": {"policy": "zero"}}}))
    r, z = out["outputs"]
    # b is 0 at i=0 (a real zero) and i=3 (the fill): JEXL gives 0, not Inf/NaN.
    assert column(r, "web01") == [0.0, 0.5, 0.5, 0.0, 0.5, 0.5]
    assert column(r, "web02") == [0.0] * 6
    assert column(z, "web01") == [0.0] * 6 and column(z, "web02") == [0.0] * 6


def test_intersection_vs_union(server):
    load(server)
    inter = {"operator": "intersection"}
    out = run(server, query([{"id": "e", "expr": "a - b", "join": inter}]))
    e = out["outputs"][0]
    assert hosts(e) == ["web01"] and e["dpsMeta"]["series"] == 1
    assert column(e, "web01") == [0.0, -1.0, -2.0, 3.0, -4.0, -5.0]
    # Only web02 of a and only web03 of b: nothing in common.
    body = query([{"id": "e", "expr": "a - b", "join": inter}])
    body["filters"] = [{"id": "f1", "tags": [{"type": "literal_or", "tagk": "host",
                                              "filter": "web02|web03", "groupBy": True}]}]
    err = run(server, body, 400)
    assert err["error"]["message"] == "No intersections found: expression [a - b]"
    # Joining on the query's tag keys only, without aggregated tags: a
    # summed over every host (aggregated "host") matches b summed likewise.
    body = query([{"id": "e", "expr": "a + b", "join": {"operator": "intersection",
                                                        "includeAggTags": False}}])
    body["filters"] = [{"id": "f1", "tags": [{"type": "wildcard", "tagk": "host",
                                              "filter": "*", "groupBy": False}]}]
    e = run(server, body)["outputs"][0]
    assert e["dpsMeta"]["series"] == 1
    assert e["meta"][1]["commonTags"] == {"dc": "lga"}
    assert e["meta"][1]["aggregatedTags"] == ["host"]
    assert [row[1] for row in e["dps"]] == [110.0, 115.0, 120.0, 125.0, 130.0, 135.0]


def test_fill_policies(server):
    load(server)
    inter = {"operator": "intersection"}
    nan = run(server, query([{"id": "e", "expr": "a + b", "join": inter}],
                            metric_extra={"b": {"fillPolicy": {"policy": "nan"}}}))
    assert column(nan["outputs"][0], "web01") == [0.0, 3.0, 6.0, "NaN", 12.0, 15.0]
    scalar = run(server, query([{"id": "e", "expr": "a + b", "join": inter}],
                               metric_extra={"b": {"fillPolicy": {"policy": "scalar",
                                                                  "value": 7}}}))
    assert column(scalar["outputs"][0], "web01") == [0.0, 3.0, 6.0, 10.0, 12.0, 15.0]
    # A nested expression's NaN takes that expression's fillPolicy.
    out = run(server, query([{"id": "n", "expr": "a + b", "join": inter,
                              "fillPolicy": {"policy": "scalar", "value": -1}},
                             {"id": "m", "expr": "n * 10", "join": inter}],
                            outputs=[{"id": "m", "alias": "ten times"}],
                            metric_extra={"b": {"fillPolicy": {"policy": "nan"}}}))
    m = out["outputs"][0]
    assert m["id"] == "m" and m["alias"] == "ten times"
    assert column(m, "web01") == [0.0, 30.0, 60.0, -10.0, 120.0, 150.0]


def test_downsampling_and_rate(server):
    load(server)
    lines = [f"put sys.if.in {T0 + 185} 40 host=web01 dc=lga"]
    put_lines(server, lines, {"sys.if.in": 13})
    ds = {"downsampler": {"interval": "1m", "aggregator": "max"}}
    body = query([{"id": "e", "expr": "a * 2"}], time_extra=ds)
    body["time"]["end"] = T0 + 239
    e = run(server, body)["outputs"][0]
    assert [row[0] for row in e["dps"]] == [T0 * MS, (T0 + 180) * MS]
    assert column(e, "web01") == [10.0, 80.0]
    assert column(e, "web02") == [30.0, 0.0]  # no bucket at T0+180: metric fill 0
    # With the downsampler's nan fill, empty buckets are rows too; the
    # metric's nan fill keeps them NaN.
    ds["downsampler"]["fillPolicy"] = {"policy": "nan"}
    body = query([{"id": "e", "expr": "a * 2"}], time_extra=ds,
                 metric_extra={"a": {"fillPolicy": {"policy": "nan"}}})
    body["time"]["end"] = T0 + 239
    e = run(server, body)["outputs"][0]
    assert [row[0] for row in e["dps"]] == [(T0 + 60 * i) * MS for i in range(4)]
    assert column(e, "web01") == [10.0, "NaN", "NaN", 80.0]
    # Rate per series: web02 rises 1 per 10 s.
    body = query([{"id": "e", "expr": "a * 10"}], time_extra={"rate": True})
    e = run(server, body)["outputs"][0]
    assert column(e, "web02")[-5:] == [1.0] * 5


def test_outputs_default_and_metrics(server):
    load(server)
    body = query([])
    body["expressions"] = []
    out = run(server, body)
    assert [o["id"] for o in out["outputs"]] == ["a", "b"]
    b = out["outputs"][1]
    assert hosts(b) == ["web01", "web03"]
    assert column(b, "web01") == [0.0, 2.0, 4.0, 0.0, 8.0, 10.0]
    out = run(server, query([{"id": "e", "expr": "a"}], outputs=[{"id": "b"}, {"id": "nope"}]))
    assert [o["id"] for o in out["outputs"]] == ["b"]


def test_errors(server):
    load(server)
    c = server.http()

    def err(body, status=400):
        got, out = c.post_json("/api/query/exp", body)
        assert got == status, out
        return out["error"]["message"]

    good = query([{"id": "e", "expr": "a + b"}])
    assert err({k: v for k, v in good.items() if k != "time"}) == "missing time"
    assert err({**good, "time": {"aggregator": "sum"}}) == "Invalid time: missing or empty start"
    assert err({**good, "metrics": []}) == "missing or empty metrics"
    assert err({**good, "metrics": [{"id": "a", "metric": "sys.if.in"}, {"metric": "x"}]}) == \
        "Invalid metric at index 1: missing or empty id"
    assert err({**good, "metrics": [{"id": "a.b", "metric": "x"}]}) == \
        "Unable to parse the given JSON"
    assert err({**good, "expressions": [{"id": "e", "expr": "a + c"}]}) == \
        "Expression [a + c] was missing input c"
    assert err({**good, "expressions": [{"id": "e", "expr": "a +* b"}]}) == \
        "Invalid expression at index 0: Invalid expression [a +* b]: expected a value at position 3"
    assert err({**good, "expressions": [{"id": "x", "expr": "y + a"},
                                        {"id": "y", "expr": "x"}]}).startswith(
        "Circular reference found: ")
    assert err({**good, "expressions": [{"id": "e", "expr": "e"}]}) == \
        "Self referencing expression found: e"
    assert "nests too deeply" in err({**good, "expressions": [
        {"id": "e", "expr": "(" * 1000 + "a" + ")" * 1000}]})
    assert "longer than 4096 bytes" in err({**good, "expressions": [
        {"id": "e", "expr": "a+" * 3000 + "a"}]})
    assert err({**good, "metrics": [{"id": "a", "metric": "no.such"}],
                "expressions": [{"id": "e", "expr": "a"}]}) == \
        "No such name for 'metrics': 'no.such'"
    status, _, _ = c.post("/api/query/exp", "{", {"Content-Type": "application/json"})
    assert status == 400
    status, _, _ = c.get("/api/query/exp")
    assert status == 405
    # The server still answers.
    assert run(server, good)["outputs"][0]["dpsMeta"]["series"] == 3


def test_limits_hold_for_the_whole_request(server_factory):
    s = server_factory(args=["--query-max-output-points", "20"])
    load(s)
    # The metric queries return 12 + 11 points: over 20 together.
    got, out = s.http().post_json("/api/query/exp", query([{"id": "e", "expr": "a + b"}]))
    assert got == 413, out
    assert "query.max_output_points" in out["error"]["message"]
