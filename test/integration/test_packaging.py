"""The .deb as an administrator gets it (run by the `packaging` ctest, not by
`integration`: it needs a native, non-sanitizer Release build directory).

It packs the build directory with cpack, checks the package with lintian,
installs it with dpkg, runs the PACKAGED binary with the PACKAGED config as
the PACKAGED user in the packaged state directory (only the port and bind
address are overridden, to a free loopback port), asks it /api/version,
stops it, purges the package and checks that its files are gone. It must
run as root on a Debian system with dpkg and is skipped otherwise; it never
touches a machine where a sundial package is already installed, and it
restores the machine (package, user, state directory) even when it fails.
"""
import glob
import grp
import http.client
import json
import os
import pwd
import shutil
import signal
import subprocess
import time

import pytest

from conftest import free_port

PACKAGE = "sundial"
STATE_DIR = "/var/lib/sundial"


def run(cmd, timeout=300, check=True, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"{cmd} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


def installed(package):
    r = run(["dpkg-query", "-W", "-f=${Status}", package], check=False)
    return r.returncode == 0 and "install ok installed" in r.stdout


@pytest.fixture(scope="module")
def deb(sundiald_path):
    """Runs cpack in the build directory that holds sundiald; returns the
    path of the native .deb."""
    if shutil.which("dpkg") is None or shutil.which("cpack") is None:
        pytest.skip("dpkg or cpack is not installed")
    build = os.path.dirname(sundiald_path)
    cache_path = os.path.join(build, "CMakeCache.txt")
    if not os.path.exists(cache_path):
        pytest.skip(f"{sundiald_path} is not in a CMake build directory")
    with open(cache_path) as f:
        cache = f.read()
    if ("CMAKE_BUILD_TYPE:STRING=Release\n" not in cache or "SUNDIAL_SANITIZE:BOOL=ON" in cache
            or "CMAKE_TOOLCHAIN_FILE" in cache):
        pytest.skip(f"{build} is not a native Release build; its package is not the one "
                    "that ships")
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    pattern = os.path.join(build, f"{PACKAGE}_*_{arch}.deb")
    for old in glob.glob(pattern):
        os.remove(old)
    run(["cpack", "-G", "DEB"], cwd=build, timeout=600)
    debs = glob.glob(pattern)
    assert len(debs) == 1, f"cpack made {debs}"
    return debs[0]


def test_lintian_clean(deb):
    if shutil.which("lintian") is None:
        pytest.skip("lintian is not installed (scripts/install-deps.sh installs it)")
    r = run(["lintian", "--fail-on", "error,warning", deb], check=False, timeout=300)
    problems = [l for l in r.stdout.splitlines() if l[:2] in ("E:", "W:")]
    assert r.returncode == 0 and not problems, r.stdout + r.stderr


def test_package_contents(deb, tmp_path):
    files = run(["dpkg-deb", "-c", deb]).stdout
    for path in ["./usr/bin/sundiald", "./etc/sundial/sundial.conf",
                 "./lib/systemd/system/sundial.service", "./usr/lib/sysusers.d/sundial.conf",
                 "./usr/share/man/man8/sundiald.8.gz", "./usr/share/doc/sundial/copyright",
                 "./usr/share/doc/sundial/changelog.Debian.gz"]:
        assert f" {path}\n" in files, f"{path} missing:\n{files}"
    control = run(["dpkg-deb", "-f", deb]).stdout
    assert "Maintainer: Sundial Maintainers <maintainers@sundial-tsdb.org>" in control
    assert "\n  existing collectors" in control or "\n existing collectors" in control
    run(["dpkg-deb", "-x", deb, str(tmp_path)])
    unit = (tmp_path / "lib/systemd/system/sundial.service").read_text()
    for line in ["Type=notify", "WatchdogSec=", "Documentation=man:sundiald(8)"]:
        assert "\n" + line in unit, line


def wait_http(port, path, timeout=15.0, proc=None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"sundiald exited with {proc.returncode}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            r = c.getresponse()
            body = r.read()
            c.close()
            return r.status, body
        except OSError as e:
            last = e
            time.sleep(0.1)
    raise TimeoutError(f"no answer on port {port}: {last}")


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def test_install_run_purge(deb, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("installing a .deb needs root (CI runs as root)")
    if os.path.isdir("/run/systemd/system"):
        pytest.skip("systemd runs this machine: the postinst would start sundial.service "
                    "on port 4242; run this test in a container or CI")
    if installed(PACKAGE):
        pytest.skip(f"a {PACKAGE} package is already installed here; not touching it")
    had_user, had_group = user_exists("sundial"), group_exists("sundial")
    had_state = os.path.exists(STATE_DIR)
    proc = None
    log = open(tmp_path / "sundiald.log", "wb")
    try:
        run(["dpkg", "-i", deb])
        assert installed(PACKAGE)
        assert user_exists("sundial")
        st = os.stat(STATE_DIR)
        assert pwd.getpwuid(st.st_uid).pw_name == "sundial"
        conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", PACKAGE]).stdout
        assert "/etc/sundial/sundial.conf" in conffiles
        files = [f for f in run(["dpkg", "-L", PACKAGE]).stdout.splitlines()
                 if os.path.isfile(f)]
        assert "/usr/bin/sundiald" in files and "/usr/share/man/man8/sundiald.8.gz" in files

        # As the unit runs it: the packaged user, config and working
        # directory (data_dir = data -> /var/lib/sundial/data).
        port = free_port()
        proc = subprocess.Popen(
            ["setpriv", "--reuid=sundial", "--regid=sundial", "--init-groups",
             "/usr/bin/sundiald", "--config", "/etc/sundial/sundial.conf",
             "--bind", "127.0.0.1", "--port", str(port)],
            cwd=STATE_DIR, stdout=log, stderr=log)
        status, body = wait_http(port, "/api/version", proc=proc)
        assert status == 200 and "version" in json.loads(body)
        health = run(["/usr/bin/sundiald", "--config", "/etc/sundial/sundial.conf",
                      "--port", str(port), "--health"], check=False)
        assert health.returncode == 0, health.stderr
        data = os.path.join(STATE_DIR, "data")
        assert os.path.isdir(data) and pwd.getpwuid(os.stat(data).st_uid).pw_name == "sundial"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        proc = None

        run(["dpkg", "--purge", PACKAGE])
        assert not installed(PACKAGE)
        left = [f for f in files if os.path.exists(f)]
        assert not left, f"left behind by purge: {left}"
        assert not os.path.exists("/etc/sundial")
        assert not os.path.exists("/var/log/sundial")
        # The data is kept on purge (a database's data outlives its package).
        assert os.path.isdir(data)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        if installed(PACKAGE) or run(["dpkg-query", "-W", PACKAGE], check=False).returncode == 0:
            run(["dpkg", "--purge", PACKAGE], check=False)
        if not had_state:
            shutil.rmtree(STATE_DIR, ignore_errors=True)
        if not had_user and user_exists("sundial"):
            run(["userdel", "sundial"], check=False)
        if not had_group and group_exists("sundial"):
            run(["groupdel", "sundial"], check=False)
