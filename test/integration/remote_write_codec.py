"""Builds Prometheus remote_write bodies for the tests: a tiny protobuf
encoder of prometheus.WriteRequest and a literal-only snappy block
compressor (valid snappy that any decoder accepts; no python-snappy needed).
"""
import struct

STALE_NAN = struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000002))[0]


def varint(v):
    if v < 0:
        v += 1 << 64  # int64 is sent as its two's complement
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def label(name, value):
    return field_bytes(1, name.encode()) + field_bytes(2, value.encode())


def sample(value, ts_ms):
    return bytes([0x09]) + struct.pack("<d", value) + bytes([0x10]) + varint(ts_ms)


def timeseries(labels, samples):
    """labels: dict or list of (name, value); samples: list of (value, ts_ms)."""
    items = labels.items() if isinstance(labels, dict) else labels
    body = b"".join(field_bytes(1, label(k, v)) for k, v in items)
    body += b"".join(field_bytes(2, sample(v, t)) for v, t in samples)
    return body


def write_request(series):
    """series: list of (labels, samples)."""
    return b"".join(field_bytes(1, timeseries(l, s)) for l, s in series)


def snappy_literal(data):
    """Snappy block format using literal elements only."""
    out = bytearray(varint(len(data)))
    pos = 0
    while pos < len(data):
        chunk = data[pos:pos + 65536]
        n = len(chunk) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + struct.pack("<H", n)
        out += chunk
        pos += len(chunk)
    return bytes(out)


def body(series):
    return snappy_literal(write_request(series))


HEADERS = {
    "Content-Encoding": "snappy",
    "Content-Type": "application/x-protobuf",
    "X-Prometheus-Remote-Write-Version": "0.1.0",
}
