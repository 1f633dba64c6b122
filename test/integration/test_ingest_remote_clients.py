"""Real clients against the real server, on loopback, bounded in time:
Debian's prometheus scraping Sundial's /metrics and remote-writing to its
/api/v1/write, and Debian's collectd (collectd-core) sending with its
write_graphite plugin to the Graphite port and with write_tsdb to the
telnet port. Each test skips with a message when its package is missing."""
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import free_port

PROMETHEUS = "/usr/bin/prometheus"
COLLECTD = "/usr/sbin/collectd"
WAIT = 60.0  # seconds a client gets to deliver its first data


def wait_for(predicate, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    return predicate()


def suggest(server, prefix):
    status, body = server.http().get_json(f"/api/suggest?type=metrics&max=1000&q={prefix}")
    return body if status == 200 else []


def point_count(server, metric, tags=None):
    status, _, data = server.http().post("/api/query", json.dumps({
        "start": int(time.time()) - 3600,
        "queries": [{"aggregator": "sum", "metric": metric, "tags": tags or {}}]}),
        {"Content-Type": "application/json"})
    if status != 200:
        return 0
    return sum(len(r["dps"]) for r in json.loads(data))


class Client:
    """A client process started by a test; stopped (by its PID) at the end."""

    def __init__(self, cmd, workdir):
        self.log_path = os.path.join(workdir, "client.log")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=workdir)

    def log(self):
        self._log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


@pytest.fixture
def workdir():
    d = tempfile.mkdtemp(prefix="sundial_clients_")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def clients():
    started = []
    yield started
    for c in started:
        c.stop()


def test_prometheus_remote_write_of_scraped_sundial_metrics(server, workdir, clients):
    if not os.access(PROMETHEUS, os.X_OK):
        pytest.skip(f"{PROMETHEUS} missing: apt-get install prometheus")
    target = f"{server.host}:{server.port}"
    config = os.path.join(workdir, "prometheus.yml")
    with open(config, "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sundial
    static_configs:
      - targets: ['{target}']
remote_write:
  - url: http://{target}/api/v1/write
    queue_config:
      batch_send_deadline: 1s
      max_samples_per_send: 500
""")
    web = f"127.0.0.1:{free_port()}"
    prom = Client([PROMETHEUS, f"--config.file={config}",
                   f"--storage.tsdb.path={os.path.join(workdir, 'tsdb')}",
                   f"--web.listen-address={web}", "--log.level=warn"], workdir)
    clients.append(prom)
    # Sundial's own counters, scraped and written back, with the labels
    # Prometheus adds (job, instance="127.0.0.1:<port>").
    metric = "sundial_datapoints_added_total"
    tags = {"job": "sundial", "instance": target, "type": "all"}
    first = wait_for(lambda: point_count(server, metric, tags))
    assert first, f"no remote_write data after {WAIT}s; prometheus said:\n{prom.log()}"
    assert "up" in suggest(server, "up")
    assert wait_for(lambda: point_count(server, metric, tags) >= first + 2, 30), \
        "the scraped series stopped growing"
    assert point_count(server, "up", {"job": "sundial"}) >= 1
    status, stats = server.http().get_json("/api/stats")
    accepted = [int(r["value"]) for r in stats if r["metric"] == "tsd.ingest.points.accepted"
                and r["tags"].get("protocol") == "remote_write"]
    assert accepted and accepted[0] > 0


def collectd_config(workdir, plugin_block):
    base = os.path.join(workdir, "collectd")
    os.makedirs(base, exist_ok=True)
    path = os.path.join(workdir, "collectd.conf")
    with open(path, "w") as f:
        f.write(f"""Hostname "sundialtest"
FQDNLookup false
BaseDir "{base}"
PIDFile "{base}/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval 1
LoadPlugin cpu
LoadPlugin load
LoadPlugin memory
{plugin_block}
""")
    return path


def start_collectd(workdir, clients, plugin_block):
    if not os.access(COLLECTD, os.X_OK):
        pytest.skip(f"{COLLECTD} missing: apt-get install collectd-core")
    conf = collectd_config(workdir, plugin_block)
    c = Client([COLLECTD, "-f", "-C", conf], workdir)
    clients.append(c)
    return c


def test_collectd_write_graphite(server_factory, workdir, clients):
    port = free_port()
    server = server_factory(args=["--graphite-port", str(port)])
    collectd = start_collectd(workdir, clients, f"""LoadPlugin write_graphite
<Plugin write_graphite>
  <Node "sundial">
    Host "127.0.0.1"
    Port "{port}"
    Protocol "tcp"
    Prefix "collectd."
    AlwaysAppendDS false
  </Node>
</Plugin>
""")
    names = wait_for(lambda: [m for m in suggest(server, "collectd.sundialtest.")
                              if ".load." in m or ".memory." in m])
    assert names, f"no collectd metrics after {WAIT}s; collectd said:\n{collectd.log()}"
    metric = names[0]
    first = point_count(server, metric)
    assert first >= 1
    assert wait_for(lambda: point_count(server, metric) > first, 30)


def test_collectd_write_tsdb_to_the_telnet_port(server, workdir, clients):
    collectd = start_collectd(workdir, clients, f"""LoadPlugin write_tsdb
<Plugin write_tsdb>
  <Node "sundial">
    Host "{server.host}"
    Port "{server.port}"
    HostTags "source=collectd"
  </Node>
</Plugin>
""")
    names = wait_for(lambda: [m for m in suggest(server, "") if "load" in m or "memory" in m])
    assert names, f"no collectd metrics after {WAIT}s; collectd said:\n{collectd.log()}"
    assert point_count(server, names[0], {"source": "collectd"}) >= 1
