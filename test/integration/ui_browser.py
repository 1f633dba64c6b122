"""Drives the built-in web page in headless Chromium and reports what it saw.

    /usr/bin/python3 ui_browser.py BASE_URL OUT_DIR METRIC PREFIX

Run by test_web_ui.py in a subprocess with Debian's python3, which has
python3-selenium (pytest may run under another interpreter). It does the
page's user steps against a running sundiald that holds METRIC with two
`host` values and relays to one (unreachable) target, and prints one JSON
object of observations on stdout; the test asserts on them. Screenshots go
to OUT_DIR. Exit 2: Selenium or the
browser is missing (the test skips); any other failure is a traceback.
"""
import json
import os
import sys
import time

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:
    print(f"selenium is not importable: {e}", file=sys.stderr)
    sys.exit(2)

WAIT = 45  # seconds for any one condition (a loaded 2-core CI machine is slow)


def find_binary(names):
    for n in names:
        for d in ("/usr/bin", "/usr/lib/chromium", "/usr/local/bin"):
            p = os.path.join(d, n)
            if os.access(p, os.X_OK):
                return p
    return None


def start_browser():
    chrome = find_binary(["chromium", "chromium-browser", "google-chrome"])
    driver_bin = find_binary(["chromedriver"])
    if not chrome or not driver_bin:
        print(f"chromium ({chrome}) or chromedriver ({driver_bin}) not found", file=sys.stderr)
        sys.exit(2)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1280,1000", "--no-first-run", "--disable-extensions",
              "--disable-background-networking"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(driver_bin), options=opts)
    d.set_page_load_timeout(30)
    d.set_script_timeout(30)
    return d


def wait(d, fn, what):
    """Waits until fn() is truthy. The status view rebuilds its tables on
    every refresh, so an element found a moment ago may be gone: a stale
    reference counts as "not yet" and fn is tried again."""
    return WebDriverWait(d, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda _: fn(), message=f"timed out waiting for {what}")


# One snapshot of the status view, read in a single script call so that a
# refresh cannot replace the table between two reads.
STATUS_SNAPSHOT = """
const text = id => { const e = document.getElementById(id); return e ? e.textContent : null; };
return {
  version: text('st-version'), series: text('st-series'), uptime: text('st-uptime'),
  points_rate: text('st-points-rate'), points_out_rate: text('st-points-out-rate'),
  relay_shown: (() => { const e = document.getElementById('relay-section');
                        return !!e && !e.hidden && e.offsetParent !== null; })(),
  relay_rows: Array.from(document.querySelectorAll('#relay-table tbody tr'))
      .map(tr => Array.from(tr.querySelectorAll('td')).map(td => td.innerText)),
};
"""


def severe_logs(d):
    return [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]


def chart_done(d):
    return d.find_element(By.ID, "chart").get_attribute("data-state") in ("done", "error")


def main():
    base, out_dir, metric, prefix = sys.argv[1:5]
    obs = {}
    d = start_browser()
    try:
        # 1. The page loads; type a prefix and take the suggested metric.
        d.get(base + "/")
        wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#queries .query .metric"), "the builder")
        obs["load_ms"] = d.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return n ? Math.round(n.loadEventEnd - n.startTime) : null;")
        obs["transfer_bytes"] = d.execute_script(
            "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
            ".filter(e => !e.name.includes('/api/')).reduce((a, e) => a + (e.transferSize || 0), 0);")
        metric_input = d.find_element(By.CSS_SELECTOR, "#queries .query .metric")
        metric_input.click()
        metric_input.send_keys(prefix)
        # The list is rebuilt as answers arrive: read it in one script call,
        # and retry a click that meets a replaced element.
        visible = ("return Array.from(document.querySelectorAll('.suggestions:not([hidden]) li'))"
                   ".map(li => li.textContent)")
        obs["suggestions"] = wait(d, lambda: metric in d.execute_script(visible) and
                                  d.execute_script(visible), "metric suggestions")

        def pick():
            try:
                for li in d.find_elements(By.CSS_SELECTOR, ".suggestions li"):
                    if li.text == metric:
                        ActionChains(d).click(li).perform()
                        return True
            except StaleElementReferenceException:
                pass
            return metric_input.get_attribute("value") == metric
        wait(d, pick, "a click on the suggestion")
        obs["metric_after_pick"] = metric_input.get_attribute("value")

        # 2. Group by host=* and run: one series per host.
        d.find_element(By.CSS_SELECTOR, "#queries .query .add-filter").click()
        # Tag keys and values are suggested from the metric's own series.
        d.find_element(By.CSS_SELECTOR, ".filter .tag-key").send_keys("ho")
        obs["tagk_suggestions"] = wait(d, lambda: d.execute_script(visible), "tag key suggestions")
        d.find_element(By.CSS_SELECTOR, ".filter .tag-key").send_keys("st")
        value_input = d.find_element(By.CSS_SELECTOR, ".filter .tag-value")
        value_input.send_keys("web")
        obs["tagv_suggestions"] = wait(d, lambda: len(d.execute_script(visible)) >= 2 and
                                       d.execute_script(visible), "tag value suggestions")
        value_input.clear()
        value_input.send_keys("*")
        d.find_element(By.CSS_SELECTOR, "#start").clear()
        d.find_element(By.CSS_SELECTOR, "#start").send_keys("2h-ago")
        d.find_element(By.ID, "run").click()
        wait(d, lambda: chart_done(d), "the chart")
        chart = d.find_element(By.ID, "chart")
        obs["state"] = chart.get_attribute("data-state")
        obs["series_count"] = int(chart.get_attribute("data-series-count"))
        obs["legend"] = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".legend-item .legend-label")]
        obs["url"] = d.current_url
        obs["m_expr"] = d.find_element(By.ID, "m-expr").text
        obs["curl"] = d.find_element(By.ID, "curl").get_attribute("value")

        # 3. Hover: the tooltip shows every series' value at that time.
        canvas = d.find_element(By.CSS_SELECTOR, "#chart canvas")
        ActionChains(d).move_to_element_with_offset(canvas, 40, 0).perform()
        wait(d, lambda: d.find_element(By.CLASS_NAME, "chart-tooltip").is_displayed(), "the tooltip")
        obs["tooltip_values"] = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".tooltip-row .tooltip-value")]
        obs["legend_values"] = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".legend-value")]
        d.save_screenshot(os.path.join(out_dir, "ui-query.png"))

        # 4. Drag to zoom, then reset.
        ActionChains(d).move_to_element_with_offset(canvas, -200, 0).click_and_hold() \
            .move_by_offset(150, 0).release().perform()
        obs["zoomed"] = chart.get_attribute("data-zoomed")
        d.find_element(By.CLASS_NAME, "chart-reset").click()
        obs["zoomed_after_reset"] = chart.get_attribute("data-zoomed")
        # Zoom again and query just that span: absolute times in the URL.
        ActionChains(d).move_to_element_with_offset(canvas, -200, 0).click_and_hold() \
            .move_by_offset(150, 0).release().perform()
        d.find_element(By.ID, "use-zoom").click()
        wait(d, lambda: d.find_element(By.ID, "start").get_attribute("value").isdigit(), "a zoomed range")
        wait(d, lambda: chart_done(d) and "end=" in d.current_url, "the zoomed query")
        obs["zoom_query_start"] = d.find_element(By.ID, "start").get_attribute("value")
        obs["zoom_query_end"] = d.find_element(By.ID, "end").get_attribute("value")
        obs["zoom_query_series"] = int(chart.get_attribute("data-series-count"))
        # The absolute pickers follow the zoomed range (local time, seconds).
        picker_ms = ("return ['abs-from', 'abs-to'].map(id => {"
                     "  const v = document.getElementById(id).value;"
                     "  return v ? new Date(v).getTime() : null; });")
        obs["zoom_pickers_ms"] = d.execute_script(picker_ms)

        # 4b. Absolute range from the pickers: 90 to 30 minutes ago (whole
        # seconds, local time as a datetime-local input holds it).
        obs["abs_picked_ms"] = d.execute_script(
            "const from = Math.floor(Date.now() / 1000) * 1000 - 90 * 60000, to = from + 60 * 60000;"
            "const local = ms => new Date(ms - new Date(ms).getTimezoneOffset() * 60000)"
            "  .toISOString().slice(0, 19);"
            "for (const [id, ms] of [['abs-from', from], ['abs-to', to]]) {"
            "  const el = document.getElementById(id);"
            "  el.value = local(ms);"
            "  el.dispatchEvent(new Event('change', {bubbles: true}));"
            "}"
            "return [from, to];")
        d.find_element(By.ID, "run").click()
        wait(d, lambda: chart_done(d) and f"start={obs['abs_picked_ms'][0]}" in d.current_url,
             "the query of the picked range")
        obs["abs_start"] = d.find_element(By.ID, "start").get_attribute("value")
        obs["abs_end"] = d.find_element(By.ID, "end").get_attribute("value")
        obs["abs_url"] = d.current_url
        obs["abs_series"] = int(chart.get_attribute("data-series-count"))
        obs["console_errors_query"] = severe_logs(d)

        # 5. A URL with two queries restores the builder and draws both.
        d.get(base + "/?start=2h-ago&m=sum:5m-max-zero:" + metric + "{host=web01}&m=max:rate:" + metric)
        wait(d, lambda: chart_done(d), "the chart from the URL")
        blocks = d.find_elements(By.CSS_SELECTOR, "#queries .query")
        obs["restored"] = [{
            "metric": b.find_element(By.CLASS_NAME, "metric").get_attribute("value"),
            "aggregator": b.find_element(By.CLASS_NAME, "aggregator").get_attribute("value"),
            "ds_interval": b.find_element(By.CLASS_NAME, "ds-interval").get_attribute("value"),
            "ds_fn": b.find_element(By.CLASS_NAME, "ds-fn").get_attribute("value"),
            "ds_fill": b.find_element(By.CLASS_NAME, "ds-fill").get_attribute("value"),
            "rate": b.find_element(By.CLASS_NAME, "rate").is_selected(),
            "filters": [[f.find_element(By.CLASS_NAME, "tag-key").get_attribute("value"),
                         f.find_element(By.CLASS_NAME, "tag-value").get_attribute("value")]
                        for f in b.find_elements(By.CLASS_NAME, "filter")],
        } for b in blocks]
        obs["restored_start"] = d.find_element(By.ID, "start").get_attribute("value")
        obs["restored_series_count"] = int(d.find_element(By.ID, "chart").get_attribute("data-series-count"))
        obs["console_errors_restore"] = severe_logs(d)

        # 6. The status view.
        d.find_element(By.ID, "tab-status").click()
        wait(d, lambda: d.find_elements(By.ID, "st-version"), "the status table")
        wait(d, lambda: "measuring" not in (d.execute_script(STATUS_SNAPSHOT)["points_rate"] or "measuring"),
             "a rate")
        # The relay table (the test's server relays to a dead port).
        wait(d, lambda: d.find_elements(By.ID, "st-relay-0"), "the relay table")
        st = d.execute_script(STATUS_SNAPSHOT)
        obs["status_version"] = st["version"]
        obs["status_series"] = st["series"]
        obs["status_uptime"] = st["uptime"]
        obs["status_points_rate"] = st["points_rate"]
        obs["status_points_out_rate"] = st["points_out_rate"]
        obs["relay_section_shown"] = st["relay_shown"]
        obs["relay_rows"] = st["relay_rows"]
        d.save_screenshot(os.path.join(out_dir, "ui-status.png"))
        obs["console_errors_status"] = severe_logs(d)

        # 7. Errors: a metric the server does not know, then markup in the
        # URL. Both are shown in the page, as text.
        d.get(base + "/?start=1h-ago&m=sum:no.such.metric")
        wait(d, lambda: d.find_element(By.ID, "error").is_displayed(), "the error box")
        obs["error_unknown_metric"] = d.find_element(By.ID, "error").text
        d.get(base + "/?m=<b>bold</b>")
        wait(d, lambda: d.find_element(By.ID, "error").is_displayed(), "the error box")
        box = d.find_element(By.ID, "error")
        obs["error_markup_text"] = box.text
        obs["error_markup_elements"] = len(box.find_elements(By.CSS_SELECTOR, "*"))
        # One bad m= among good ones: reported, and the good one still runs.
        d.get(base + "/?start=2h-ago&m=nonsense&m=sum:" + metric)
        wait(d, lambda: chart_done(d), "the chart of the good query")
        obs["mixed_error"] = d.find_element(By.ID, "error").text
        obs["mixed_series_count"] = int(d.find_element(By.ID, "chart").get_attribute("data-series-count"))
        # The 400 itself is logged by the browser as a failed resource load;
        # anything else would be a script error.
        obs["console_errors_error_page"] = [m for m in severe_logs(d) if "status of 400" not in m]
    finally:
        d.quit()
    print(json.dumps(obs))


if __name__ == "__main__":
    main()
