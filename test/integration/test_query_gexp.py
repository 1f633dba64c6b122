"""GET /api/query/gexp end to end: data written with telnet `put`, Graphite-
style expressions answered by the real server and checked value by value
(values worked out by hand from OpenTSDB's expression functions), plus the
error answers. README: "Expressions"."""
import time

from conftest import put_and_wait
import urllib.parse

T0 = 1700000000 - 1700000000 % 3600  # an hour boundary (seconds)
DAY = 86400


def put_lines(server, lines, metric_counts):
    put_and_wait(server, lines, metric_counts, T0 - 2 * DAY, T0 + 7200)


def load(server):
    """a (sys.if.in): web01 i, web02 10+i at T0+10i, i < 6.
    b (sys.if.out): web01 2i except no point at i=3, web03 -(100+i).
    c (sys.if.err): web01 1000+i a day earlier (for timeShift)."""
    lines = []
    for i in range(6):
        ts = T0 + 10 * i
        lines.append(f"put sys.if.in {ts} {i} host=web01 dc=lga")
        lines.append(f"put sys.if.in {ts} {10 + i} host=web02 dc=lga")
        if i != 3:
            lines.append(f"put sys.if.out {ts} {2 * i} host=web01 dc=lga")
        lines.append(f"put sys.if.out {ts} {-(100 + i)} host=web03 dc=lga")
        lines.append(f"put sys.if.err {ts - DAY} {1000 + i} host=web01 dc=lga")
    put_lines(server, lines, {"sys.if.in": 12, "sys.if.out": 11, "sys.if.err": 6})


def gexp(server, *exps, start=T0, end=T0 + 59, extra=""):
    q = f"/api/query/gexp?start={start}&end={end}" + "".join(
        "&exp=" + urllib.parse.quote(e, safe="") for e in exps) + extra
    return server.http().get_json(q)


def ok(server, *exps, **kw):
    status, body = gexp(server, *exps, **kw)
    assert status == 200, body
    return body


def by_host(body):
    return {r["tags"].get("host"): r for r in body}


def vals(r):
    return [v for _, v in sorted((int(t), v) for t, v in r["dps"].items())]


def test_each_function(server):
    load(server)
    # scale, with OpenTSDB's ",," and with a single ",".
    for e in ("scale(sum:sys.if.in{host=*},,2)", "scale(sum:sys.if.in{host=*},2)"):
        body = by_host(ok(server, e))
        assert vals(body["web01"]) == [0, 2, 4, 6, 8, 10]
        assert vals(body["web02"]) == [20, 22, 24, 26, 28, 30]
        assert body["web01"]["metric"] == "sys.if.in"
        assert body["web01"]["aggregateTags"] == []
        assert body["web01"]["tags"] == {"host": "web01", "dc": "lga"}
    assert list(ok(server, "scale(sum:sys.if.in{host=web01},,2)")[0]["dps"]) == \
        [str(T0 + 10 * i) for i in range(6)]
    # absolute
    body = by_host(ok(server, "absolute(sum:sys.if.out{host=web03})"))
    assert vals(body["web03"]) == [100, 101, 102, 103, 104, 105]
    # alias: @tag substitution, tags dropped.
    body = ok(server, "alias(sum:sys.if.in{host=*},,'@host in @dc')")
    assert sorted(r["metric"] for r in body) == ["web01 in lga", "web02 in lga"]
    assert all(r["tags"] == {} for r in body)
    # movingAverage over 2 points, and over '20sec' of time.
    body = by_host(ok(server, "movingAverage(sum:sys.if.in{host=*},,2)"))
    assert vals(body["web01"]) == [0, 0.5, 1.5, 2.5, 3.5, 4.5]
    body = by_host(ok(server, "movingAverage(sum:sys.if.in{host=*},,'20sec')"))
    assert vals(body["web02"]) == [0, 0, 11.5, 12.5, 13.5, 14.5]
    # highestCurrent / highestMax
    body = ok(server, "highestCurrent(sum:sys.if.out{host=*},,1)")
    assert [r["tags"]["host"] for r in body] == ["web01"]
    body = ok(server, "highestMax(absolute(sum:sys.if.out{host=*}),,1)")
    assert [r["tags"]["host"] for r in body] == ["web03"]
    # timeShift: yesterday's points, moved into today's window.
    body = ok(server, "timeShift(sum:sys.if.err{host=*},,'1day')")
    assert vals(body[0]) == [1000, 1001, 1002, 1003, 1004, 1005]
    assert list(body[0]["dps"])[0] == str(T0)
    # sumSeries / diffSeries / multiplySeries / divideSeries: union by tags.
    a, b = "sum:sys.if.in{host=*}", "sum:sys.if.out{host=*}"
    s = by_host(ok(server, f"sumSeries({a},,{b})"))
    assert vals(s["web01"]) == [0, 3, 6, 3, 12, 15]  # b's gap at i=3 is 0
    assert vals(s["web02"]) == [10, 11, 12, 13, 14, 15]
    assert vals(s["web03"]) == [-100, -101, -102, -103, -104, -105]
    d = by_host(ok(server, f"diffSeries({a},,{b})"))
    assert vals(d["web01"]) == [0, -1, -2, 3, -4, -5]
    m = by_host(ok(server, f"multiplySeries({a},,{b})"))
    assert vals(m["web01"]) == [0, 2, 8, 0, 32, 50]
    q = by_host(ok(server, f"divideSeries({b},,{a})"))
    assert vals(q["web01"]) == [0, 2, 2, 0, 2, 2]  # x / 0 is 0
    assert q["web01"]["metric"] == "sys.if.in"  # the first metric name
    # OpenTSDB 2.4's short names answer the same.
    for short, long in (("sum", "sumSeries"), ("difference", "diffSeries"),
                        ("multiply", "multiplySeries"), ("divide", "divideSeries")):
        assert ok(server, f"{short}({a},,{b})") == ok(server, f"{long}({a},,{b})"), short
    assert ok(server, "shift(sum:sys.if.err{host=*},,'1day')") == \
        ok(server, "timeShift(sum:sys.if.err{host=*},,'1day')")


def test_nesting_several_expressions_and_ms(server):
    load(server)
    body = ok(server,
              "alias(scale(sumSeries(sum:sys.if.in{host=web01},,sum:sys.if.out{host=web01}),,0.5),,x)",
              "absolute(sum:sys.if.out)", extra="&ms")
    assert [r["metric"] for r in body] == ["x", "sys.if.out"]
    assert vals(body[0]) == [0, 1.5, 3, 1.5, 6, 7.5]
    assert list(body[0]["dps"])[0] == str(T0 * 1000)
    assert body[1]["aggregateTags"] == ["host"]
    # Only points within [start, end] are written.
    body = ok(server, "scale(sum:sys.if.in{host=web01},,1)", start=T0 + 15, end=T0 + 35)
    assert vals(body[0]) == [2, 3]


def test_errors(server):
    load(server)
    c = server.http()

    def err(*exps, **kw):
        status, body = gexp(server, *exps, **kw)
        assert status == 400, body
        return body["error"]["message"]

    assert err() == "Missing parameter <code>exp</code>"
    assert err("nope(sum:sys.if.in)") == \
        "Invalid expression [nope(sum:sys.if.in)]: function nope has not been implemented at position 0"
    assert err("scale(sum:sys.if.in,,2") == \
        "Invalid expression [scale(sum:sys.if.in,,2]: missing ')' at position 22"
    assert "nested more than 16 deep" in err("absolute(" * 20 + "sum:sys.if.in" + ")" * 20)
    assert "longer than 4096 bytes" in err("scale(sum:sys.if.in," + "1" * 5000 + ")")
    assert err("scale(sum:sys.if.in,,x)") == "scale: unparseable scaling factor: x"
    assert err("movingAverage(sum:sys.if.in,,'5y')") == \
        "movingAverage: invalid moving window parameter: '5y'"
    assert err("highestCurrent(sum:sys.if.in,,0)") == \
        "highestCurrent: top n value must be greater than zero: 0"
    assert err("timeShift(sum:sys.if.in,,1d)") == \
        "timeShift: invalid timeshift parameter: 1d (e.g. '10min')"
    assert err("divideSeries(sum:sys.if.in)") == \
        "divideSeries: must have 2 to 26 series, got 1 instead"
    assert "No such name for 'metrics': 'no.such'" in err("absolute(sum:no.such)")
    assert err("absolute(sum:sys.if.in)", start="") == "Missing parameter <code>start</code>"
    status, _, _ = c.post("/api/query/gexp", "", {})
    assert status == 405
    # The server still answers.
    assert len(ok(server, "absolute(sum:sys.if.in{host=*})")) == 2


def test_limits_hold_for_the_whole_request(server_factory):
    s = server_factory(args=["--query-max-output-points", "30"])
    load(s)
    # 12 points read + 12 computed fit; a second expression does not.
    assert len(ok(s, "absolute(sum:sys.if.in{host=*})")) == 2
    status, body = gexp(s, "absolute(sum:sys.if.in{host=*})", "absolute(sum:sys.if.in{host=*})")
    assert status == 413, body
    assert "query.max_output_points" in body["error"]["message"]


def test_a_huge_fill_is_stopped_by_memory_or_deadline(server_factory):
    # No output limits: a 1 ms zero-fill over a year under movingAverage is
    # ended by query.max_memory or query.deadline, on the worker, quickly.
    s = server_factory(args=["--query-max-output-points", "0", "--query-max-output-bytes", "0",
                             "--query-deadline", "500ms"])
    load(s)
    start = time.monotonic()
    status, body = gexp(s, "movingAverage(sum:1ms-avg-zero:sys.if.in,,5)",
                        start=T0 - 365 * DAY, end=T0)
    took = time.monotonic() - start
    assert (status, took < 5.0) in ((413, True), (400, True)), (status, took, body)
    msg = body["error"]["message"]
    assert "query.max_memory" in msg or "query.deadline" in msg, msg
    # The server still answers.
    assert len(ok(s, "absolute(sum:sys.if.in{host=*})")) == 2
