"""The hostile-test watchdog itself: it passes a quiet server and fails
when the ceiling is crossed or the server stops answering, so the attack
tests that rely on it can fail."""
import signal

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


def test_unresponsive_server_is_caught(server):
    server.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(AssertionError, match="not responsive"):
            with hostile.Watchdog(server, rss_limit_mb=256, probe_limit_s=0.3):
                pass
    finally:
        server.send_signal(signal.SIGCONT)
    hostile.assert_healthy(server)
