"""gentrace.py - build xentrace files in the real on-disk format.

A file is a run of windows: a CPU_CHANGE record (0x2001f003, cpu,
window_size) followed by window_size bytes of records.  A record is a u32
header (event | nwords << 28 | tsc_flag << 31), an optional TSC and 0..7
u32 words.  Little endian by default (every host Xen runs on); endian='>'
writes what a big-endian host would: every u32 word in its order, the TSC
as two u32 words low then high (struct t_rec's cycles_lo, cycles_hi).
"""
import struct

CPU_CHANGE = 0x2001f003
LOST = 0x0001f001
WRAP = 0x0001f002
PI_ADD = 0x00802009
PI_WAKEUP = 0x0080200a
PI_MOVE = 0x0080200b
PI_DEL = 0x0080200c
OLD_BLOCK = 0x00082026
OLD_START = 0x00082027
OLD_END = 0x00082028
SCHED_EVT = 0x0002800e        # an ordinary scheduler event, as filler


def rec(event, tsc=None, words=(), endian='<'):
    words = list(words)
    assert 0 <= len(words) <= 7
    hdr = (event & 0x0fffffff) | (len(words) << 28)
    if tsc is not None:
        hdr |= 0x80000000
        return struct.pack(endian + 'III%dI' % len(words), hdr,
                           tsc & 0xffffffff, tsc >> 32, *words)
    return struct.pack(endian + 'I%dI' % len(words), hdr, *words)


def window(cpu, records, size=None, endian='<'):
    body = b''.join(records)
    if size is None:
        size = len(body)
    return struct.pack(endian + 'III', CPU_CHANGE, cpu, size) + body


def pi_add(tsc, dom, vcpu, home, lst, length, limit):
    return rec(PI_ADD, tsc, [(dom << 16) | vcpu, (home << 16) | lst,
                             length, limit])


def pi_wakeup(tsc, walked, woken, cycles):
    return rec(PI_WAKEUP, tsc, [walked, woken, cycles])


def pi_move(tsc, dom, vcpu, frm, to, length):
    return rec(PI_MOVE, tsc, [(dom << 16) | vcpu, frm, to, length])


def pi_del(tsc, dom, vcpu, lst, length):
    return rec(PI_DEL, tsc, [(dom << 16) | vcpu, lst, length])


def old_block(tsc, dom, vcpu, pcpu, entry):
    return rec(OLD_BLOCK, tsc, [dom, vcpu, pcpu, entry])


def old_start(tsc, length):
    return rec(OLD_START, tsc, [length])


def old_end(tsc):
    return rec(OLD_END, tsc, [])


def lost(tsc, count, dom=0, vcpu=0, first_tsc=0):
    return rec(LOST, tsc, [count, (vcpu << 16) | dom,
                           first_tsc & 0xffffffff, first_tsc >> 32])


def wrap(nwords):
    return rec(WRAP, None, [0xdeadbeef] * nwords)


def filler(tsc, n=2):
    return rec(SCHED_EVT, tsc, list(range(n)))


def swap_words(data):
    """The same trace as written by a host of the other byte order: every
    u32 word byte-swapped (a TSC stays low word first)."""
    assert len(data) % 4 == 0
    n = len(data) // 4
    return struct.pack('>%dI' % n, *struct.unpack('<%dI' % n, data))


def walk(data):
    """Independent decoder: yield (offset, cpu, event, tsc or None, words)
    for every record; raises ValueError on anything malformed."""
    off = 0
    while off < len(data):
        if len(data) - off < 12:
            raise ValueError('short window header at %d' % off)
        h, cpu, size = struct.unpack_from('<III', data, off)
        if h != CPU_CHANGE:
            raise ValueError('bad window header at %d' % off)
        p, end = off + 12, off + 12 + size
        if end > len(data):
            raise ValueError('short window at %d' % off)
        while p < end:
            hd, = struct.unpack_from('<I', data, p)
            n, t = (hd >> 28) & 7, hd >> 31
            size_r = 4 + 8 * t + 4 * n
            if p + size_r > end:
                raise ValueError('record overruns window at %d' % p)
            tsc = struct.unpack_from('<Q', data, p + 4)[0] if t else None
            w = struct.unpack_from('<%dI' % n, data, p + 4 + 8 * t)
            yield p, cpu, hd & 0x0fffffff, tsc, w
            p += size_r
        off = end


def window_offsets(data):
    """(offset, cpu, size) of each window."""
    off, out = 0, []
    while off + 12 <= len(data):
        h, cpu, size = struct.unpack_from('<III', data, off)
        out.append((off, cpu, size))
        off += 12 + size
    return out


def long_tail(cpu=0, body=64, tail=3000):
    """One window of PI_LIST_ADDs on cpu's list: lengths 0..body-1 once
    each and one of tail (a long-tailed distribution)."""
    lengths = list(range(body)) + [tail]
    return window(cpu, [pi_add(10 + i, 1, 0, cpu, cpu, n, 0)
                        for i, n in enumerate(lengths)])

