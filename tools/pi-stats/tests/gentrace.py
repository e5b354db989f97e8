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


def pi_sim(seed, ncpu=6, nevents=3000, hotplug=400, flush=None,
           start_len=3):
    """A trace of the series that writes PI_LIST_DEL, consistent: ncpu
    lists, every change of their lengths recorded (adds, unblocks, walks
    that wake some, vCPUs woken while the fixup empties an offline pCPU's
    list and the moves of the others).  Each list starts with start_len
    vCPUs on it (blocked before the trace starts).  One global clock.
    Records go to per-pCPU buffers, written as windows: flush=None
    flushes every buffer at the end of each slice of 97 events and
    around each hotplug batch, windows of a slice in shuffled order (out
    of TSC order, but no record of a later slice before an earlier one);
    flush=N flushes a buffer when it holds N records, whenever (windows
    anywhere in time).  A filler record first and last sets the trace's
    TSC span beyond the PI records."""
    import random
    r = random.Random(seed)
    tsc = 1000000
    lists = [[] for _ in range(ncpu)]      # vCPU ids on each list
    nv = 0
    for c in range(ncpu):
        for _ in range(start_len):
            lists[c].append(nv)
            nv += 1
    idle = list(range(nv, nv + 4 * ncpu))  # running vCPUs
    buf = [[] for _ in range(ncpu)]
    out = []

    def emit(cpu, data):
        buf[cpu].append(data)
        if flush and len(buf[cpu]) >= flush:
            out.append(window(cpu, buf[cpu]))
            buf[cpu] = []

    def flush_all():
        order = list(range(ncpu))
        r.shuffle(order)
        for c in order:
            if buf[c]:
                out.append(window(c, buf[c]))
                buf[c] = []

    emit(ncpu - 1, filler(tsc - 500))
    for i in range(nevents):
        tsc += r.randint(50, 3000)
        k = r.random()
        if hotplug and i and i % hotplug == 0:
            if not flush:
                flush_all()
            frm = r.randrange(ncpu)
            fixer = (frm + 1) % ncpu
            for v in list(lists[frm]):
                tsc += r.randint(5, 40)
                lists[frm].remove(v)
                if r.random() < 0.3:            # ON set: woken
                    idle.append(v)
                    emit(fixer, pi_del(tsc, 1, v, frm, len(lists[frm])))
                else:
                    to = r.choice([c for c in range(ncpu) if c != frm])
                    lists[to].append(v)
                    emit(fixer, pi_move(tsc, 1, v, frm, to, len(lists[to])))
            if not flush:
                flush_all()
        elif k < 0.40 and idle:                 # block
            v = idle.pop(r.randrange(len(idle)))
            home = r.randrange(ncpu)
            lst = home if r.random() < 0.8 else r.randrange(ncpu)
            lists[lst].append(v)
            emit(home, pi_add(tsc, 1, v, home, lst, len(lists[lst]), 0))
        elif k < 0.65:                          # walk
            c = r.randrange(ncpu)
            walked = len(lists[c])
            woken = r.randint(0, walked) if r.random() < 0.8 else 0
            for v in r.sample(lists[c], woken):
                lists[c].remove(v)
                idle.append(v)
            emit(c, pi_wakeup(tsc, walked, woken, 900))
        else:                                   # unblock
            c = r.randrange(ncpu)
            if lists[c]:
                v = r.choice(lists[c])
                lists[c].remove(v)
                idle.append(v)
                emit(r.randrange(ncpu), pi_del(tsc, 1, v, c, len(lists[c])))
        if not flush and i % 97 == 96:
            flush_all()
    emit(0, filler(tsc + 700))
    flush_all()
    return b''.join(out)


def replay_list_time(data, cpus=None, lo=0, hi=1 << 64):
    """Independent reference for pi-stats' time at each list length:
    every change of each list (pCPU) with lo <= TSC < hi sorted by TSC and
    replayed, the time between changes added to the length in force; the
    window is the lowest to the highest TSC of any record, cut to [lo,
    hi].  Returns (start, end, {cpu: {length: cycles}}); raises ValueError
    when a record's length does not follow from the replay."""
    ch, tscs = {}, []
    for off, cpu, ev, tsc, w in walk(data):
        if tsc is None:
            continue
        tscs.append(tsc)
        if not lo <= tsc < hi:
            continue
        if ev == PI_ADD:
            ch.setdefault(w[1] & 0xffff, []).append((tsc, w[2] - 1, w[2]))
        elif ev == PI_DEL:
            ch.setdefault(w[1], []).append((tsc, w[2] + 1, w[2]))
        elif ev == PI_WAKEUP:
            ch.setdefault(cpu, []).append((tsc, w[0], w[0] - w[1]))
        elif ev == PI_MOVE:
            ch.setdefault(w[1], []).append((tsc, None, -1))
            ch.setdefault(w[2], []).append((tsc, w[3] - 1, w[3]))
    start, end = max(min(tscs), lo), min(max(tscs), hi)
    res = {}
    for c, evs in ch.items():
        if cpus is not None and c not in cpus:
            continue
        evs.sort(key=lambda e: e[0])
        # the length before the first change: the first absolute change's
        # b plus the moves away before it
        first = next(i for i, e in enumerate(evs) if e[1] is not None)
        length = evs[first][1] + first
        t, at = start, {}
        for tsc, b, a in evs:
            at[length] = at.get(length, 0) + tsc - t
            t = tsc
            if b is None:
                length -= 1
            elif b != length:
                raise ValueError('list %d at tsc %d: %d before, replay %d'
                                 % (c, tsc, b, length))
            else:
                length = a
        at[length] = at.get(length, 0) + end - t
        res[c] = {k: v for k, v in at.items() if v}
    return start, end, res


def straddled_lists(data):
    """Lists with a PI_LIST_MOVE away from them that comes, in file order,
    after changes of the list both before and after it in time."""
    seen, out = {}, set()
    for off, cpu, ev, tsc, w in walk(data):
        if ev == PI_MOVE:
            ts = seen.get(w[1], [])
            if any(t < tsc for t in ts) and any(t >= tsc for t in ts):
                out.add(w[1])
            seen.setdefault(w[2], []).append(tsc)
        elif ev == PI_ADD:
            seen.setdefault(w[1] & 0xffff, []).append(tsc)
        elif ev == PI_DEL:
            seen.setdefault(w[1], []).append(tsc)
        elif ev == PI_WAKEUP:
            seen.setdefault(cpu, []).append(tsc)
    return out
