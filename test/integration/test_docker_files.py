"""The container files, checked without a Docker engine: docker/compose.yaml
and the Grafana provisioning parse and hang together, every metric the
provisioned dashboard graphs is one the server reports in /api/stats, and
the Dockerfiles' HEALTHCHECK runs a probe the binary has."""
import json
import os
import re
import subprocess

import pytest

DOCKER = os.path.join(os.path.dirname(__file__), "..", "..", "docker")

yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed")


def load_yaml(*parts):
    with open(os.path.join(DOCKER, *parts)) as f:
        return yaml.safe_load(f)


def dashboard():
    with open(os.path.join(DOCKER, "grafana", "dashboards", "sundial.json")) as f:
        return json.load(f)


def test_compose_wires_sundial_grafana_and_provisioning():
    compose = load_yaml("compose.yaml")
    services = compose["services"]
    assert set(services) == {"sundial", "self-metrics", "grafana"}
    assert services["sundial"]["build"]["dockerfile"] == "docker/Dockerfile"
    assert "sundial-data:/var/lib/sundial" in services["sundial"]["volumes"]
    for name in ("self-metrics", "grafana"):
        assert services[name]["depends_on"]["sundial"]["condition"] == "service_healthy"
    for spec in services["grafana"]["volumes"]:
        source = spec.split(":")[0]
        if source.startswith("./"):
            assert os.path.isdir(os.path.join(DOCKER, source)), spec
    assert set(compose["volumes"]) == {"sundial-data", "grafana-data"}
    for service in services.values():
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), port


def test_grafana_data_source_is_opentsdb_2_3_at_sundial():
    ds = load_yaml("grafana", "provisioning", "datasources", "sundial.yaml")["datasources"]
    assert len(ds) == 1 and ds[0]["type"] == "opentsdb"
    assert ds[0]["url"] == "http://sundial:4242"
    assert ds[0]["jsonData"]["tsdbVersion"] >= 3
    providers = load_yaml("grafana", "provisioning", "dashboards", "sundial.yaml")["providers"]
    assert providers[0]["options"]["path"] == "/var/lib/grafana/dashboards"
    for panel in dashboard()["panels"]:
        assert panel["datasource"]["uid"] == ds[0]["uid"]


def test_dashboard_metrics_are_reported_by_the_server(server):
    status, stats = server.http().get_json("/api/stats")
    assert status == 200
    reported = {(r["metric"], r["tags"].get("type")) for r in stats}
    names = {m for m, _ in reported}
    targets = [t for p in dashboard()["panels"] for t in p["targets"]]
    assert len(targets) >= 8
    for t in targets:
        assert t["metric"] in names, t["metric"]
        tag = t["tags"].get("type")
        if tag and tag != "*":
            assert (t["metric"], tag) in reported, (t["metric"], tag)


@pytest.mark.parametrize("name", ["Dockerfile", "Dockerfile.static"])
def test_dockerfile_healthcheck_uses_the_binarys_probe(name, sundiald_path):
    with open(os.path.join(DOCKER, name)) as f:
        text = f.read()
    m = re.search(r'HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])', text)
    assert m, "no HEALTHCHECK ... CMD [...]"
    cmd = json.loads(m.group(1))
    assert cmd[0] == "/usr/bin/sundiald" and cmd[-1] == "--health"
    assert re.search(r'^ENTRYPOINT \["/usr/bin/sundiald"', text, re.M)
    # The probe flag exists in this binary (its --help documents it).
    helptext = subprocess.run([sundiald_path, "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    assert "--health[=URL]" in helptext
