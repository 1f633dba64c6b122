"""The hostile-test watchdog itself: it passes a quiet server and fails
when the ceiling is crossed or the server stops answering, so the attack
tests that rely on it can fail."""
import os
import signal
import time

import pytest

import hostile


def test_quiet_server_passes(server):
    with hostile.Watchdog(server, rss_limit_mb=256) as wd:
        pass
    assert wd.probes >= 1
    assert 0 < wd.max_rss_mb < 256
    hostile.assert_healthy(server)


def test_memory_ceiling_is_enforced(server):
    with pytest.raises(AssertionError, match="over the"):
        with hostile.Watchdog(server, rss_limit_mb=0.01):
            pass


def wait_stopped(pid, timeout=5.0):
    """Waits until every thread of pid is in the stopped state: kill()
    returns before a busy process has stopped, and a probe sent in between
    would still be answered."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except FileNotFoundError:
                continue
        if states and all(s in ("T", "t") for s in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop within {timeout}s")


def test_unresponsive_server_is_caught(server):
    server.send_signal(signal.SIGSTOP)
    try:
        wait_stopped(server.proc.pid)
        with pytest.raises(AssertionError, match="not responsive"):
            with hostile.Watchdog(server, rss_limit_mb=256, probe_limit_s=0.3):
                pass
    finally:
        server.send_signal(signal.SIGCONT)
    hostile.assert_healthy(server)
