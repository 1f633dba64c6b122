"""Hostile clients, connection side: slowloris, per-address cap, eviction of
the longest-idle connection, telnet command pipelining without reading, big
query results nobody reads, idle and write timeouts. Each test keeps the
server answering other clients (hostile.Watchdog probes from 127.0.0.2) and
its memory under a ceiling. Loopback only; every wait is bounded."""
import socket
import threading
import time

import hostile

T0 = 1700000000 - 1700000000 % 3600

HALF_REQUEST = b"GET /api/version HTTP/1.1\r\nHost: x\r\nX-Slow: "


def connect(server, source="127.0.0.1", timeout=5.0):
    return socket.create_connection((server.host, server.port), timeout=timeout,
                                    source_address=(source, 0))


def closed_by_server(sock, timeout=5.0):
    """Reads until EOF or reset; True if that came within timeout. Returns
    what was read too."""
    sock.settimeout(timeout)
    got = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                return True, got
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        return True, got
    except socket.timeout:
        return False, got
    return False, got


def http_get(sock, path="/api/version"):
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    buf = b""
    sock.settimeout(5)
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a reply: {buf!r}"
        buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    length = int([l.split(b":")[1] for l in head.split(b"\r\n")
                  if l.lower().startswith(b"content-length")][0])
    while len(body) < length:
        body += sock.recv(65536)
    return head.split(b" ")[1], body


def test_slowloris_does_not_lock_out_other_clients(server_factory):
    s = server_factory(args=["--max-connections", "400", "--max-connections-per-address", "100",
                             "--http-request-timeout", "2s"])
    socks = []
    try:
        with hostile.Watchdog(s, rss_limit_mb=200) as wd:
            for _ in range(300):  # more than the per-address cap
                try:
                    c = connect(s)
                    c.sendall(HALF_REQUEST)
                    socks.append(c)
                except OSError:
                    pass
            time.sleep(0.5)
            # The probes from 127.0.0.2 were served all along (Watchdog).
            # The half-sent requests are answered 408 and closed at the deadline.
            start = time.monotonic()
            closed, got = closed_by_server(socks[0], timeout=5)
            assert closed and b" 408 " in got.split(b"\r\n")[0], got[:200]
            assert time.monotonic() - start < 4.0
        assert wd.probes >= 3
        # Once they are gone (after a linger of at most 2 s), 127.0.0.1 is
        # served again.
        deadline = time.monotonic() + 5
        while True:
            c = connect(s)
            try:
                assert http_get(c)[0] == b"200"
                break
            except (AssertionError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
            finally:
                c.close()
    finally:
        for c in socks:
            c.close()
    hostile.assert_healthy(s)


def test_per_address_cap(server_factory):
    s = server_factory(args=["--max-connections-per-address", "5"])
    keep = [connect(s) for _ in range(5)]
    for c in keep:
        assert http_get(c)[0] == b"200"
    extra = connect(s)
    closed, _ = closed_by_server(extra, timeout=3)
    assert closed, "a sixth connection from one address must be closed"
    other = connect(s, source="127.0.0.2")
    assert http_get(other)[0] == b"200"
    keep.pop().close()
    time.sleep(0.3)
    again = connect(s)
    assert http_get(again)[0] == b"200"
    for c in keep + [other, again]:
        c.close()


def test_full_server_evicts_the_longest_idle_connection(server_factory):
    s = server_factory(args=["--max-connections", "4", "--max-connections-per-address", "0"])
    idle = []
    for _ in range(4):
        c = connect(s)
        assert http_get(c)[0] == b"200"
        idle.append(c)
        # Idle from when the server has seen its reply written, which can
        # be just after the client read it (slow under qemu).
        time.sleep(0.2)
    newcomer = connect(s)
    assert http_get(newcomer)[0] == b"200"
    closed, _ = closed_by_server(idle[0], timeout=3)
    assert closed, "the oldest idle connection makes room"
    for c in idle[1:]:  # the others still work
        assert http_get(c)[0] == b"200"
    # Nobody idle: half-sent requests on every slot; a newcomer is refused.
    for c in idle[1:] + [newcomer]:
        c.sendall(HALF_REQUEST)
    time.sleep(0.2)
    refused = connect(s)
    closed, got = closed_by_server(refused, timeout=3)
    assert closed and got == b""
    for c in idle + [newcomer, refused]:
        c.close()


def telnet_commands_handled(server):
    t = server.telnet()
    t.send("stats\n")
    for line in t.read_until("tsd.uptime").splitlines():
        if line.startswith("tsd.rpc.received ") and "type=telnet" in line:
            t.close()
            return int(line.split()[2])
    raise AssertionError("no tsd.rpc.received type=telnet line")


def open_connections(server):
    t = server.telnet()
    t.send("stats\n")
    for line in t.read_until("tsd.uptime").splitlines():
        if line.startswith("tsd.connectionmgr.connections ") and "type=open" in line:
            t.close()
            return int(line.split()[2])
    raise AssertionError("no tsd.connectionmgr.connections type=open line")


def test_telnet_stats_pipelining_without_reading(server_factory):
    s = server_factory(args=["--telnet-reply-buffer", "64KiB"])
    hog = connect(s)
    hog.setblocking(False)
    # 20000 stats (120 KB) ask for about 54 MB of replies; the hog reads nothing.
    payload = b"stats\n" * 20000
    sent = 0
    with hostile.Watchdog(s, rss_limit_mb=150):
        deadline = time.monotonic() + 2
        while sent < len(payload) and time.monotonic() < deadline:
            try:
                sent += hog.send(payload[sent:sent + 65536])
            except BlockingIOError:
                time.sleep(0.01)
        time.sleep(0.3)
        # Another telnet client on the same server is served meanwhile...
        t = s.telnet()
        t.send("version\n")
        assert "net.opentsdb" in t.read_until("\n", timeout=2)
        # ...while the hog's commands wait: only as many ran as the socket
        # buffers and the reply cap hold.
        handled = telnet_commands_handled(s)
    n = sent // 6
    print(f"sent {n} stats, {handled} handled before the client read")
    assert handled < n
    # Reading paused instead of dropping: the hog gets every reply once it reads.
    # Counted chunk by chunk (the replies are about 54 MB: counting the whole
    # buffer after each read made this loop quadratic), with the marker's
    # length minus one carried over so a marker split across reads counts.
    marker = b"tsd.uptime "
    hog.setblocking(True)
    hog.settimeout(10)
    replies, carry = 0, b""
    deadline = time.monotonic() + 60
    while replies < n and time.monotonic() < deadline:
        chunk = hog.recv(1 << 20)
        if not chunk:
            break
        window = carry + chunk
        replies += window.count(marker)
        carry = window[-(len(marker) - 1):]  # too short to hold a whole marker
    assert replies == n
    hog.close()
    hostile.assert_healthy(s)


def load_points(server, series=20, points=20000):
    c = server.http()
    batch = []
    for h in range(series):
        for i in range(points):
            batch.append({"metric": "big.metric", "timestamp": T0 + i, "value": i,
                          "tags": {"host": f"h{h:03d}"}})
            if len(batch) == 10000:
                status, _, body = c.post("/api/put", batch, {"Content-Type": "application/json"})
                assert status == 204, body
                batch = []
    if batch:
        status, _, body = c.post("/api/put?sync", batch, {"Content-Type": "application/json"})
        assert status == 204, body


BIG_QUERY = (f"GET /api/query?start={T0}&end={T0 + 20000}&m=none:big.metric%7Bhost=*%7D"
             " HTTP/1.1\r\nHost: x\r\n\r\n").encode()


def sanitized(server):
    """True when the server runs under AddressSanitizer, whose quarantine
    and shadow memory inflate RssAnon."""
    with open(f"/proc/{server.proc.pid}/maps") as f:
        if "libasan" in f.read():
            return True
    with open(server.proc.args[0], "rb") as f:
        return b"__asan_init" in f.read()


def test_big_results_to_clients_that_never_read(server_factory):
    # A streamed query holds a query thread while its client does not read
    # (until the write timeout closes the connection), so the pool is made
    # larger than the number of hogs: this test is about the connection's
    # memory and the I/O threads.
    s = server_factory(args=["--http-output-buffer", "256KiB", "--write-timeout", "2s",
                             "--query-threads", "24"])
    load_points(s)
    # One result is ~7 MB of JSON; ten clients ask for two each and read
    # nothing: 140 MB if the server held the results. It may hold about
    # 10 x (256 KiB + a piece per query) beyond what it uses at rest.
    base = hostile.rss_anon_mb(s.proc.pid)
    conns_before = open_connections(s)  # this test's own, at rest
    ceiling = base + (400 if sanitized(s) else 40)
    hogs = []
    with hostile.Watchdog(s, rss_limit_mb=ceiling) as wd:
        for _ in range(10):
            c = connect(s)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.sendall(BIG_QUERY * 2)
            hogs.append(c)
        time.sleep(1.0)
        # Other clients still get their queries answered.
        c = s.http()
        status, _, body = c.get(f"/api/query?start={T0}&end={T0 + 60}&m=sum:big.metric")
        assert status == 200 and b"big.metric" in body
    print(f"RssAnon at rest {base:.1f} MiB, max {wd.max_rss_mb:.1f} MiB")
    # Clients that take nothing are closed after the write timeout (2 s,
    # checked every 1 s): the server's open connections drop back to this
    # test's own (plus the query client, plus a stats connection closing).
    assert open_connections(s) >= conns_before + 10
    deadline = time.monotonic() + 10  # generous for sanitizer builds
    while open_connections(s) > conns_before + 2 and time.monotonic() < deadline:
        time.sleep(0.3)
    left = open_connections(s)
    assert left <= conns_before + 2, (left, conns_before)
    for c in hogs:
        c.close()
    hostile.assert_healthy(s)


def test_clients_that_never_read_do_not_hold_up_other_queries(server_factory):
    # One query thread, every query on the pool (none inline), and four
    # clients whose streamed answers stall: the pool adds spare threads for
    # the stalled answers, so another client's query is answered at once
    # rather than after the write timeout (30 s by default).
    s = server_factory(args=["--http-output-buffer", "256KiB", "--query-threads", "1",
                             "--query-inline-max-points", "0"])
    load_points(s)
    base = hostile.rss_anon_mb(s.proc.pid)
    hogs = []
    with hostile.Watchdog(s, rss_limit_mb=base + (400 if sanitized(s) else 60)):
        for _ in range(4):
            c = connect(s)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.sendall(BIG_QUERY)
            hogs.append(c)
        time.sleep(1.0)
        c = s.http()
        for _ in range(3):
            start = time.monotonic()
            status, _, body = c.get(f"/api/query?start={T0}&end={T0 + 600}&m=sum:big.metric")
            took = time.monotonic() - start
            assert status == 200 and b"big.metric" in body, (status, body[:200])
            assert took < (5.0 if sanitized(s) else 2.0), f"query took {took:.2f}s"
    for c in hogs:
        c.close()
    hostile.assert_healthy(s)


def test_idle_timeout(server_factory):
    s = server_factory(args=["--idle-timeout", "1s"])
    quiet_telnet = connect(s)
    quiet_telnet.sendall(b"version\n")
    quiet_http = connect(s)
    assert http_get(quiet_http)[0] == b"200"
    nothing_sent = connect(s)
    busy = s.telnet()
    stop = threading.Event()

    def keep_busy():
        while not stop.wait(0.3):
            busy.send(f"put m.busy {T0} 1 h=a\n")

    th = threading.Thread(target=keep_busy)
    th.start()
    try:
        start = time.monotonic()
        for c in (quiet_telnet, quiet_http, nothing_sent):
            closed, _ = closed_by_server(c, timeout=5)
            assert closed
        assert time.monotonic() - start < 4.0
        time.sleep(1.5)
    finally:
        stop.set()
        th.join()
    busy.send("version\n")  # a connection in use was kept open
    assert "net.opentsdb" in busy.read_until("\n", timeout=3)
    for c in (quiet_telnet, quiet_http, nothing_sent):
        c.close()


def test_slow_body_gets_408(server_factory):
    s = server_factory(args=["--http-request-timeout", "1s", "--http-body-min-rate", "1KiB"])
    c = connect(s)
    c.sendall(b"POST /api/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100000\r\n\r\n[")
    start = time.monotonic()
    # A trickle below the minimum rate does not extend the deadline forever.
    got = b""
    c.settimeout(0.2)
    while time.monotonic() - start < 6:
        try:
            c.sendall(b" ")
            chunk = c.recv(4096)
            if not chunk:
                break
            got += chunk
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            break
    assert b" 408 " in got.split(b"\r\n")[0], got[:200]
    assert time.monotonic() - start < 4.0
    c.close()
    hostile.assert_healthy(s)
