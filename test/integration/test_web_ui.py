"""The built-in web page: its embedded files over HTTP, /api/status, and the
page itself in headless Chromium (ui_browser.py, run with Debian's python3,
which has python3-selenium)."""
import gzip
import json
import os
import re
import shutil
import subprocess
import time
import urllib.parse

import pytest

from conftest import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
UI_DIR = os.path.join(HERE, "..", "..", "src", "server", "ui")

# The page's files, their types, and the bound on their total size.
ASSETS = {
    "/ui/index.html": "text/html; charset=utf-8",
    "/ui/style.css": "text/css; charset=utf-8",
    "/ui/query.js": "text/javascript; charset=utf-8",
    "/ui/chart.js": "text/javascript; charset=utf-8",
    "/ui/status.js": "text/javascript; charset=utf-8",
    "/ui/app.js": "text/javascript; charset=utf-8",
}
MAX_TOTAL_BYTES = 128 * 1024

METRIC = "ui.cpu.user"


def put_sample_data(server):
    """Two series of METRIC (host=web01, web02), one point a minute for the
    last hour, through telnet; waits until a query sees them all."""
    now = int(time.time())
    lines = []
    for i in range(60):
        t = now - 3600 + i * 60
        lines.append(f"put {METRIC} {t} {i % 10} host=web01\n")
        lines.append(f"put {METRIC} {t} {i % 7 + 3}.5 host=web02\n")
    t = server.telnet()
    t.send("".join(lines) + "version\n")
    t.read_until("Built on")
    t.close()
    c = server.http()
    status, _, body = c.get(f"/api/query?start=2h-ago&m=sum:{METRIC}%7Bhost=*%7D")
    assert status == 200, body
    assert sorted(len(r["dps"]) for r in json.loads(body)) == [60, 60]


def test_root_serves_the_page(server):
    status, headers, body = server.http().get("/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b"<title>Sundial</title>" in body
    # Every script and style sheet the page names is embedded.
    names = set(re.findall(rb'(?:src|href)="(/ui/[^"]+)"', body))
    assert {n.decode() for n in names} == set(ASSETS) - {"/ui/index.html"}
    # /ui and /ui/ answer the page too; other pages stay 404 HTML.
    for path in ("/ui", "/ui/"):
        s, h, b = server.http().get(path)
        assert (s, b) == (200, body)
    s, h, _ = server.http().get("/ui/nosuch.js")
    assert s == 404 and h["content-type"].startswith("text/html")
    s, h, _ = server.http().get("/nosuchpage")
    assert s == 404 and h["content-type"].startswith("text/html")


def test_assets_types_gzip_etag_and_size(server):
    c = server.http()
    total = 0
    for path, ctype in ASSETS.items():
        status, headers, plain = c.get(path)
        assert status == 200, path
        assert headers["content-type"] == ctype, path
        assert "content-encoding" not in headers, path
        assert headers["cache-control"] == "no-cache"
        assert headers["x-content-type-options"] == "nosniff"
        assert "default-src 'self'" in headers["content-security-policy"]
        etag = headers["etag"]
        assert re.fullmatch(r'"[0-9a-f]{20}"', etag), etag
        # The bytes are the source file's, unchanged.
        with open(os.path.join(UI_DIR, path[len("/ui/"):]), "rb") as f:
            assert plain == f.read(), path
        total += len(plain)

        status, headers, packed = c.get(path, headers={"Accept-Encoding": "gzip"})
        assert status == 200
        assert headers["content-encoding"] == "gzip", path
        assert headers["etag"] == etag
        assert "accept-encoding" in headers["vary"].lower()
        assert len(packed) < len(plain)
        assert gzip.decompress(packed) == plain, path

        # Revalidation: 304 without a body, for the tag alone or in a list.
        for inm in (etag, f'"other", W/{etag}', "*"):
            status, headers, body = c.get(path, headers={"If-None-Match": inm})
            assert (status, body) == (304, b""), (path, inm)
            assert headers["etag"] == etag
        status, _, body = c.get(path, headers={"If-None-Match": '"stale"'})
        assert status == 200 and body == plain
    print(f"embedded web page: {total} bytes in {len(ASSETS)} files (bound {MAX_TOTAL_BYTES})")
    assert total <= MAX_TOTAL_BYTES


def test_gzip_off_serves_plain_bytes(server_factory):
    s = server_factory(args=["--http-gzip-responses", "false"])
    status, headers, body = s.http().get("/ui/app.js", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in headers
    with open(os.path.join(UI_DIR, "app.js"), "rb") as f:
        assert body == f.read()


def test_page_only_answers_get(server):
    status, headers, body = server.http().post("/", body="x")
    assert status == 405
    assert json.loads(body)["error"]["message"] == "Method not allowed"


def test_api_status(server):
    put_sample_data(server)
    status, headers, body = server.http().get("/api/status")
    assert status == 200
    assert headers["content-type"] == "application/json; charset=UTF-8"
    doc = json.loads(body)
    assert doc["version"]["version"] == "2.4.1"
    assert doc["series"] == 2
    assert doc["points_stored"] == 120
    assert doc["uptime"] >= 0
    assert abs(doc["now"] / 1000 - time.time()) < 60
    assert doc["read_only"] is False
    assert doc["wal"]["bytes"] > 0 and doc["wal"]["files"] >= 1
    assert doc["free_bytes"] > 0
    assert isinstance(doc["partitions"], list)
    for p in doc["partitions"]:
        assert p["start"] < p["end"] and p["bytes"] >= 0
    assert set(doc["rollup"]) == {"watermark", "disk_bytes", "dirty_pending"}


def points_out(server):
    """tsd.query.points.emitted per endpoint from /api/stats, and the same
    counters from /metrics."""
    stats = json.loads(server.http().get("/api/stats")[2])
    by_endpoint = {r["tags"]["endpoint"]: int(r["value"]) for r in stats
                   if r["metric"] == "tsd.query.points.emitted"}
    prom = {}
    for line in server.http().get("/metrics")[2].decode().splitlines():
        m = re.fullmatch(r'sundial_query_points_emitted_total\{endpoint="(\w+)"\} (\d+)', line)
        if m:
            prom[m.group(1)] = int(m.group(2))
    assert prom == by_endpoint
    return by_endpoint


# /api/query answered on the I/O thread (small) and on the worker pool.
@pytest.mark.parametrize("args", [[], ["--query-inline-max-points", "0"]], ids=["inline", "pool"])
def test_points_out_are_counted_per_endpoint(server_factory, args):
    server = server_factory(args=args)
    put_sample_data(server)  # 2 series of 60 points
    before = points_out(server)
    assert set(before) == {"query", "last", "exp", "gexp", "export"}
    c = server.http()
    by_host = urllib.parse.quote(f"sum:{METRIC}{{host=*}}", safe="")
    assert c.get(f"/api/query?start=2h-ago&m={by_host}")[0] == 200
    assert c.get(f"/api/query/last?timeseries={urllib.parse.quote(METRIC)}")[0] == 200
    exp = {"time": {"start": "2h-ago", "aggregator": "sum"},
           "filters": [{"id": "f", "tags": [{"type": "wildcard", "tagk": "host", "filter": "*",
                                             "groupBy": True}]}],
           "metrics": [{"id": "a", "metric": METRIC, "filter": "f"}],
           "expressions": [{"id": "e", "expr": "a * 2"}]}
    assert c.post("/api/query/exp", exp, {"Content-Type": "application/json"})[0] == 200
    gexp = urllib.parse.quote(f"scale(sum:{METRIC}{{host=*}},2)", safe="")
    assert c.get(f"/api/query/gexp?start=2h-ago&exp={gexp}")[0] == 200
    status, _, body = c.get(f"/api/export?start=2h-ago&m=sum:{urllib.parse.quote(METRIC)}")
    assert status == 200 and len(body.decode().splitlines()) == 120
    # Errors send no points.
    assert c.get("/api/query?start=2h-ago&m=sum:no.such.metric")[0] == 400
    after = points_out(server)
    assert {k: after[k] - before[k] for k in after} == {
        "query": 120, "last": 2, "exp": 120, "gexp": 120, "export": 120}


def test_api_status_lists_partitions_after_restart(server):
    put_sample_data(server)
    # A clean stop writes every page to its partition's files.
    server.restart()
    doc = json.loads(server.http().get("/api/status")[2])
    assert doc["series"] == 2
    assert doc["partitions"], doc
    parts = doc["partitions"]
    assert [p["start"] for p in parts] == sorted(p["start"] for p in parts)
    assert sum(p["bytes"] for p in parts) > 0
    for p in parts:
        assert p["files"] >= 1
        assert p["end"] - p["start"] == 24 * 3600 * 1000  # the default partition span


def browser_tools():
    """Why the browser test cannot run here, or None if it can."""
    missing = [n for n in ("chromium", "chromedriver") if shutil.which(n) is None]
    if missing:
        return f"{' and '.join(missing)} not installed (Debian: chromium chromium-driver)"
    py = "/usr/bin/python3"
    if not os.access(py, os.X_OK):
        return "/usr/bin/python3 not found"
    r = subprocess.run([py, "-c", "import selenium"], capture_output=True, timeout=60)
    if r.returncode != 0:
        return "python3-selenium not installed for /usr/bin/python3"
    return None


def screenshot_dir(sundiald_path):
    """Where the browser test keeps its screenshots: the build tree's
    test/integration directory (ctest's working directory for the
    integration tests) beside the binary under test, else the current
    directory; not pytest's tmp dir, which is rotated away."""
    build_dir = os.path.join(os.path.dirname(os.path.abspath(sundiald_path)), "test", "integration")
    base = build_dir if os.path.isdir(build_dir) else os.getcwd()
    out = os.path.join(base, "web_ui_screenshots")
    os.makedirs(out, exist_ok=True)
    return out


def test_page_in_browser(server_factory, sundiald_path):
    why = browser_tools()
    if why:
        pytest.skip(f"browser test skipped: {why}")
    # A relay target on a port nobody listens on: the status view shows its lag.
    dead = f"http://127.0.0.1:{free_port()}"
    server = server_factory(args=["--relay-targets", dead, "--relay-max-backoff", "200ms",
                                  "--relay-timeout", "2s"])
    put_sample_data(server)
    base = f"http://{server.host}:{server.port}"
    shots = screenshot_dir(sundiald_path)
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "ui_browser.py"), base,
                        shots, METRIC, "ui.cpu.u"],
                       capture_output=True, text=True, timeout=240)
    print(f"screenshots: {shots}/ui-query.png {shots}/ui-status.png")
    if r.returncode == 2:
        pytest.skip(f"browser test skipped: {r.stderr.strip()}")
    # chromedriver's native stack frames ("#3 0x55... <unknown>") say nothing
    # and would push the message that does out of the shown tail.
    err = "\n".join(l for l in r.stderr.splitlines() if not re.match(r"#\d+ 0x[0-9a-f]+ ", l))
    assert r.returncode == 0, err[-4000:]
    obs = json.loads(r.stdout)
    print(f"page load {obs['load_ms']} ms, {obs['transfer_bytes']} bytes transferred (headless Chromium, loopback)")

    # Loads without console errors.
    assert obs["console_errors_query"] == []
    assert obs["console_errors_restore"] == []
    assert obs["console_errors_status"] == []
    assert obs["console_errors_error_page"] == []
    # Autocomplete offers the metric after a prefix.
    assert METRIC in obs["suggestions"]
    assert obs["metric_after_pick"] == METRIC
    assert obs["tagk_suggestions"] == ["host"]
    assert obs["tagv_suggestions"] == ["web01", "web02"]
    # The query draws one series per host.
    assert obs["state"] == "done"
    assert obs["series_count"] == 2
    assert obs["legend"] == [f"{METRIC}{{host=web01}}", f"{METRIC}{{host=web02}}"]
    assert obs["m_expr"] == f"sum:{METRIC}{{host=*}}"
    assert f"m=sum:{METRIC}{{host=*}}" in obs["url"] and "start=2h-ago" in obs["url"]
    assert obs["curl"].startswith("curl -sG ") and f"'m=sum:{METRIC}{{host=*}}'" in obs["curl"]
    # Hover shows a value of each series (web02's end in .5).
    assert len(obs["tooltip_values"]) == 2
    assert all(re.fullmatch(r"-?[0-9.]+", v) for v in obs["tooltip_values"]), obs["tooltip_values"]
    assert obs["tooltip_values"][1].endswith(".5")
    assert obs["legend_values"] == obs["tooltip_values"]
    # Drag zooms, reset undoes it.
    assert (obs["zoomed"], obs["zoomed_after_reset"]) == ("true", "false")
    # "Query this range" turns the zoomed span into absolute From/To (ms).
    start, end = int(obs["zoom_query_start"]), int(obs["zoom_query_end"])
    assert 0 < end - start < 3600 * 1000 and abs(end / 1000 - time.time()) < 7200
    assert obs["zoom_query_series"] == 2
    # The absolute pickers show the zoomed range (to the second).
    assert obs["zoom_pickers_ms"] == [start // 1000 * 1000, end // 1000 * 1000]
    # Picking an absolute range with them queries exactly that range.
    picked_from, picked_to = obs["abs_picked_ms"]
    assert (obs["abs_start"], obs["abs_end"]) == (str(picked_from), str(picked_to))
    assert f"start={picked_from}" in obs["abs_url"] and f"end={picked_to}" in obs["abs_url"]
    assert obs["abs_series"] == 2
    # A URL with a query restores the builder and the chart.
    assert obs["restored_start"] == "2h-ago"
    assert obs["restored"] == [
        {"metric": METRIC, "aggregator": "sum", "ds_interval": "5m", "ds_fn": "max",
         "ds_fill": "zero", "rate": False, "filters": [["host", "web01"]]},
        {"metric": METRIC, "aggregator": "max", "ds_interval": "", "ds_fn": "avg",
         "ds_fill": "none", "rate": True, "filters": []},
    ]
    assert obs["restored_series_count"] == 2
    # The status view.
    assert "2.4.1" in obs["status_version"] and "Sundial" in obs["status_version"]
    assert obs["status_series"] == "2"
    assert re.fullmatch(r"[0-9.]+", obs["status_points_rate"])
    assert re.fullmatch(r"[0-9.]+", obs["status_points_out_rate"])
    assert obs["relay_section_shown"] is True
    assert len(obs["relay_rows"]) == 1
    url, state, pending, lag, sent, _ = obs["relay_rows"][0]
    assert url == f"{dead}/api/put (http)" and state == "not connected"
    assert int(pending) > 0 and lag.endswith(" behind") and sent == "0"
    # API errors are shown in the page, as text.
    assert "No such name for 'metrics': 'no.such.metric'" in obs["error_unknown_metric"]
    assert "<b>bold</b>" in obs["error_markup_text"]
    assert obs["error_markup_elements"] == 0
    assert "Cannot read the query in the URL" in obs["mixed_error"] and "nonsense" in obs["mixed_error"]
    assert obs["mixed_series_count"] == 1
