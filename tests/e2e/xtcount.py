#!/usr/bin/env python3
"""Count the records of a xentrace dump, independently of pi-stats.

The format (Xen 4.17 tools/xentrace/xentrace.c): no file header; a run of
windows, each a 12-byte TRC_TRACE_CPU_CHANGE record (header 0x2001f003, u32
cpu, u32 window_size) followed by window_size bytes of whole records.  A
record is a u32 header (event bits 0-27, extra-word count bits 28-30, TSC
flag bit 31), an optional u64 TSC, then the extra words.

Counts are made with the same definitions as pi-stats' JSON: `records`
counts every record inside the windows (TRC_TRACE_WRAP_BUFFER padding and
TRC_LOST_RECORDS markers included, CPU_CHANGE headers not).  This walker is
strict: a window whose records do not tile it, or a cut-short file, is an
error (exit 1) naming its byte offset; there is no resynchronisation, so a
clean count here means the file is whole.

usage: xtcount.py FILE   -> one JSON object on stdout
"""
import json
import struct
import sys

CPU_CHANGE = 0x2001F003
LOST = 0x0001F001
WRAP = 0x0001F002


def walk(data):
    n = len(data)
    off = 0
    windows = records = no_tsc = wrap = lost_markers = lost = 0
    cpus = {}
    while off < n:
        if off + 12 > n:
            raise ValueError("truncated window header at byte offset %d" % off)
        hdr, cpu, size = struct.unpack_from("<III", data, off)
        if hdr != CPU_CHANGE:
            raise ValueError("no window header at byte offset %d (0x%08x)" % (off, hdr))
        if size % 4:
            raise ValueError("window at byte offset %d: size %d not a multiple of 4" % (off, size))
        start = off + 12
        end = start + size
        if end > n:
            raise ValueError("window at byte offset %d cut short (%d of %d bytes)"
                             % (off, n - start, size))
        windows += 1
        cpus[cpu] = cpus.get(cpu, 0)
        p = start
        while p < end:
            (h,) = struct.unpack_from("<I", data, p)
            event = h & 0x0FFFFFFF
            extra = (h >> 28) & 7
            tsc = h >> 31
            rsize = 4 + 8 * tsc + 4 * extra
            if p + rsize > end:
                raise ValueError("record at byte offset %d overruns its window" % p)
            if event == WRAP:
                wrap += 1
            elif event == CPU_CHANGE & 0x0FFFFFFF:
                raise ValueError("window header inside a window at byte offset %d" % p)
            elif (event >> 16) & 0xFFF == 0:
                raise ValueError("record with no class bits at byte offset %d" % p)
            if event == LOST:
                lost_markers += 1
                (cnt,) = struct.unpack_from("<I", data, p + 4 + 8 * tsc)
                lost += cnt
            if not tsc:
                no_tsc += 1
            records += 1
            cpus[cpu] += 1
            p += rsize
        off = end
    return {
        "bytes": n, "windows": windows, "records": records,
        "records_no_tsc": no_tsc, "wrap_records": wrap,
        "lost_markers": lost_markers, "lost_records": lost,
        "pcpus": len(cpus),
        "records_by_cpu": {str(c): cpus[c] for c in sorted(cpus)},
    }


def main():
    if len(sys.argv) != 2:
        print("usage: xtcount.py FILE", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        res = walk(data)
    except ValueError as e:
        print("xtcount: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    print(json.dumps(res, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
