#!/usr/bin/env python3
"""Attributes the bytes a process made dirty to the files it wrote.

Reads an `strace -f -ttt -y -o FILE` trace of write/pwrite64/writev/
pwritev/fsync/fdatasync/ftruncate/fallocate/openat/close/unlink/rename calls and
models what the kernel counts in /proc/PID/io write_bytes: 4 KiB each time
a clean page-cache page becomes dirty. A page is clean again after an
fsync/fdatasync of its file, or once it has been dirty for the kernel's
dirty_expire time (writeback; 30 s by default). It prints, per category
of file, the pages dirtied (x 4 KiB) and the bytes the calls wrote.

With REPLAY_DIR it also replays each category's calls on fresh files
there and reports what the kernel charged for them (this kernel's real
accounting, large folios included; see replay()).

Usage: sd_writes_attrib.py TRACE DATA_DIR [T_START T_END [REPLAY_DIR]]
  only calls between the epoch times T_START and T_END count (the rest
  still update file sizes and dirty pages).
"""
import re
import sys

PAGE = 4096
replay_dir = None
EXPIRE_S = 30.0

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
FD = re.compile(r"^(\d+)<([^>]*)>")


def category(path, data_dir):
    if not path.startswith(data_dir + "/"):
        return None
    rel = path[len(data_dir) + 1:]
    if rel.startswith("wal/"):
        return "wal segments" if rel.endswith(".wal") else "checkpoints"
    if rel.startswith("part/"):
        base = rel.rsplit("/", 1)[-1]
        if base == "pages":
            return "page files"
        if base == "index":
            return "page index"
        if base.startswith("cold"):
            return "cold files"
        return "partition: " + base
    if rel.startswith("rollup"):
        return "rollups"
    return "other: " + re.sub(r"\d+", "N", rel)


class File:
    def __init__(self):
        self.size = 0
        self.dirty = {}  # page number -> time it became dirty


def main():
    trace, data_dir = sys.argv[1], sys.argv[2].rstrip("/")
    global replay_dir
    t_start = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    t_end = float(sys.argv[4]) if len(sys.argv) > 4 else 1e30
    replay_dir = sys.argv[5] if len(sys.argv) > 5 else None
    files = {}  # path -> File
    pos = {}  # (pid, fd) -> offset for write() on a non-append fd
    append_fd = set()
    pages, wrote, calls, syncs = {}, {}, {}, {}
    ops = {}  # category -> [(op, path, offset, length)] in trace order, in the window

    def record(cat, t, *op):
        if cat is not None and t_start <= t <= t_end:
            ops.setdefault(cat, []).append(op)

    def f_of(path):
        return files.setdefault(path, File())

    def dirty(path, off, n, t):
        f = f_of(path)
        cat = category(path, data_dir)
        counted = t_start <= t <= t_end and cat is not None
        if n <= 0:
            return
        for pg in range(off // PAGE, (off + n - 1) // PAGE + 1):
            born = f.dirty.get(pg)
            if born is not None and t - born < EXPIRE_S:
                continue
            f.dirty[pg] = t
            if counted:
                pages[cat] = pages.get(cat, 0) + 1
        f.size = max(f.size, off + n)
        if counted:
            wrote[cat] = wrote.get(cat, 0) + n
            calls[cat] = calls.get(cat, 0) + 1

    with open(trace, errors="replace") as fh:
        for line in fh:
            m = LINE.match(line)
            if not m:
                continue
            pid, t, call, args, ret = m.group(1), float(m.group(2)), m.group(3), m.group(4), int(m.group(5))
            if ret < 0:
                continue
            if call == "openat":
                pm = re.search(r'"([^"]*)"', args)
                fm = re.search(r"= (\d+)<([^>]*)>", line)
                path = fm.group(2) if fm else (pm.group(1) if pm else "")
                fd = (pid, str(ret))
                if "O_TRUNC" in args:
                    f_of(path).size = 0
                    f_of(path).dirty.clear()
                if "O_APPEND" in args:
                    append_fd.add(fd)
                else:
                    append_fd.discard(fd)
                pos[fd] = 0
                continue
            fm = FD.match(args)
            if call in ("unlink", "unlinkat"):
                pm = re.findall(r'"([^"]*)"', args)
                for p in pm:
                    files.pop(p, None)
                continue
            if call in ("rename", "renameat", "renameat2"):
                pm = re.findall(r'"([^"]*)"', args)
                if len(pm) == 2 and pm[0] in files:
                    files[pm[1]] = files.pop(pm[0])
                continue
            if not fm:
                continue
            fdn, path = fm.group(1), fm.group(2)
            fd = (pid, fdn)
            if call in ("write", "writev"):
                if fd in append_fd:
                    off = f_of(path).size
                else:
                    off = pos.get(fd, f_of(path).size)
                dirty(path, off, ret, t)
                record(category(path, data_dir), t, "w", path, off, ret)
                pos[fd] = off + ret
            elif call in ("pwrite64", "pwritev", "pwritev2"):
                # the offset is the last argument (pwritev2: before the flags)
                om = re.search(r",\s*(\d+)(?:,\s*[A-Z_|0]+)?$", args) if call == "pwritev2" \
                    else re.search(r",\s*(\d+)$", args)
                off = int(om.group(1)) if om else 0
                dirty(path, off, ret, t)
                record(category(path, data_dir), t, "w", path, off, ret)
            elif call in ("fsync", "fdatasync"):
                f_of(path).dirty.clear()
                cat = category(path, data_dir)
                record(cat, t, "s", path, 0, 0)
                if cat and t_start <= t <= t_end:
                    syncs[cat] = syncs.get(cat, 0) + 1
            elif call == "ftruncate":
                lm = re.search(r",\s*(\d+)$", args)
                if lm:
                    n = int(lm.group(1))
                    record(category(path, data_dir), t, "t", path, n, 0)
                    f = f_of(path)
                    f.size = n
                    for pg in [p for p in f.dirty if p * PAGE >= n]:
                        del f.dirty[pg]
            elif call == "fallocate":
                am = re.search(r",\s*([A-Z_|0-9]+),\s*(\d+),\s*(\d+)$", args)
                if am:
                    keep = 1 if "KEEP_SIZE" in am.group(1) else 0
                    end = int(am.group(2)) + int(am.group(3))
                    record(category(path, data_dir), t, "a", path, end, keep)
                    if not keep:
                        f_of(path).size = max(f_of(path).size, end)
            elif call == "lseek":
                pos[fd] = ret
    measured = replay(ops) if replay_dir else {}
    total = sum(pages.values())
    print(f"{'what wrote':<28}{'model KiB':>10}{'replay KiB':>11}{'bytes written':>14}{'writes':>7}{'fsyncs':>7}")
    for cat in sorted(set(pages) | set(syncs), key=lambda c: -pages.get(c, 0)):
        kib = pages.get(cat, 0) * PAGE // 1024
        rep = f"{measured[cat] // 1024}" if cat in measured else "-"
        print(f"{cat:<28}{kib:>10}{rep:>11}{wrote.get(cat, 0):>14}{calls.get(cat, 0):>7}{syncs.get(cat, 0):>7}")
    rep = f"{sum(measured.values()) // 1024}" if measured else "-"
    print(f"{'total':<28}{total * PAGE // 1024:>10}{rep:>11}")
    if measured:
        print(f"REPLAY_WAL_BYTES={measured.get('wal segments', 0)}")
        print(f"REPLAY_TOTAL_BYTES={sum(measured.values())}")


def write_bytes():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def replay(ops):
    """Replays each category's writes, truncations and fsyncs (in trace
    order, without the pauses) on fresh files under replay_dir and returns
    {category: write_bytes this process was charged}: what the kernel
    counts for exactly those calls. Files that were never fsynced count at
    most once per page here (no 30 s writeback between calls): a lower
    bound for them."""
    import ctypes
    import os
    import shutil
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    out = {}
    for cat, calls in ops.items():
        root = os.path.join(replay_dir, "r")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        fds = {}
        before = write_bytes()
        for op, path, off, n in calls:
            fd = fds.get(path)
            if fd is None:
                fd = os.open(os.path.join(root, str(len(fds))), os.O_RDWR | os.O_CREAT, 0o644)
                fds[path] = fd
            if op == "w":
                os.pwrite(fd, b"\x5a" * n, off)
            elif op == "s":
                os.fdatasync(fd)
            elif op == "t":
                os.ftruncate(fd, off)
            elif op == "a":  # fallocate: n is 1 for FALLOC_FL_KEEP_SIZE
                libc.fallocate(fd, n, ctypes.c_int64(0), ctypes.c_int64(off))
        out[cat] = write_bytes() - before
        for fd in fds.values():
            os.close(fd)
        shutil.rmtree(root, ignore_errors=True)
    return out


if __name__ == "__main__":
    main()
