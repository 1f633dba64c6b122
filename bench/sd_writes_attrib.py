#!/usr/bin/env python3
"""Attributes the bytes a process made dirty to the files it wrote.

Reads an `strace -f -ttt -y -o FILE` trace of write/pwrite64/writev/
pwritev/fsync/fdatasync/ftruncate/openat/close/unlink/rename calls and
models what the kernel counts in /proc/PID/io write_bytes: 4 KiB each time
a clean page-cache page becomes dirty. A page is clean again after an
fsync/fdatasync of its file, or once it has been dirty for the kernel's
dirty_expire time (writeback; 30 s by default). It prints, per category
of file, the pages dirtied (x 4 KiB) and the bytes the calls wrote.

Usage: sd_writes_attrib.py TRACE DATA_DIR [T_START T_END]
  only calls between the epoch times T_START and T_END count (the rest
  still update file sizes and dirty pages).
"""
import re
import sys

PAGE = 4096
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
    t_start = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    t_end = float(sys.argv[4]) if len(sys.argv) > 4 else 1e30
    files = {}  # path -> File
    pos = {}  # (pid, fd) -> offset for write() on a non-append fd
    append_fd = set()
    pages, wrote, calls, syncs = {}, {}, {}, {}

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
                pos[fd] = off + ret
            elif call in ("pwrite64", "pwritev", "pwritev2"):
                om = re.search(r",\s*(\d+)(?:,\s*\w+)?$", args)
                off = int(om.group(1)) if om else 0
                dirty(path, off, ret, t)
            elif call in ("fsync", "fdatasync"):
                f_of(path).dirty.clear()
                cat = category(path, data_dir)
                if cat and t_start <= t <= t_end:
                    syncs[cat] = syncs.get(cat, 0) + 1
            elif call == "ftruncate":
                lm = re.search(r",\s*(\d+)$", args)
                if lm:
                    n = int(lm.group(1))
                    f = f_of(path)
                    f.size = n
                    for pg in [p for p in f.dirty if p * PAGE >= n]:
                        del f.dirty[pg]
            elif call == "lseek":
                pos[fd] = ret
    total = sum(pages.values())
    print(f"{'what wrote':<28}{'KiB dirtied':>12}{'share':>8}{'bytes written':>15}{'writes':>8}{'fsyncs':>8}")
    for cat in sorted(set(pages) | set(syncs), key=lambda c: -pages.get(c, 0)):
        kib = pages.get(cat, 0) * PAGE // 1024
        share = 100.0 * pages.get(cat, 0) / total if total else 0
        print(f"{cat:<28}{kib:>12}{share:>7.1f}%{wrote.get(cat, 0):>15}{calls.get(cat, 0):>8}{syncs.get(cat, 0):>8}")
    print(f"{'model total':<28}{total * PAGE // 1024:>12}")
    print(f"MODEL_BYTES={total * PAGE}")
    for cat in pages:
        print(f"MODEL_{re.sub('[^A-Za-z]', '_', cat).upper()}={pages[cat] * PAGE}")


if __name__ == "__main__":
    main()
