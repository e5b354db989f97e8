#!/usr/bin/env python3
"""pi-stats test suite; prints TAP.  Run by `make check`, `make check-asan`
or `prove tools/pi-stats/tests/pi-stats.t` (it builds what it needs).

Environment: PI_STATS (binary), PI_STATS_UNIT (unit test dir), XENALYZE,
TRACES (dir of the real dumps), BUILD (scratch dir, git-ignored).
"""
import csv, io, json, math, os, re, shutil, stat, struct, subprocess, sys, tempfile, time
import traceback
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.dirname(HERE)
TOP = os.path.dirname(os.path.dirname(TOOL))
sys.path.insert(0, HERE)
import gentrace as g  # noqa: E402

BUILD = os.environ.get('BUILD') or os.path.join(TOP, 'build', 'pi-stats')
TRACES = os.environ.get('TRACES') or os.path.join(TOP, 'tests', 'data',
                                                  'traces')
XENALYZE = os.environ.get('XENALYZE') or next(
    (p for p in (os.path.join(TOP, 'build/xen/dist/install/usr/sbin/xenalyze'),
                 os.path.join(TOP, 'build/xen/tools/xentrace/xenalyze'))
     if os.access(p, os.X_OK)),
    os.path.join(TOP, 'build/xen/dist/install/usr/sbin/xenalyze'))
PI = os.environ.get('PI_STATS')
UNIT = os.environ.get('PI_STATS_UNIT')

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_IO, EXIT_NOT_TRACE, EXIT_DATA = \
    range(6)

os.makedirs(BUILD, exist_ok=True)
WORK = tempfile.mkdtemp(prefix='t-', dir=BUILD)


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def eq(got, want, what):
    if got != want:
        raise Fail('%s: got %r, want %r' % (what, got, want))


def no_sanitizer_report(err, what='pi-stats'):
    """Fail on an ASan/LSan/UBSan report: in the sanitizer build it is how
    a memory or UB error shows, whatever the exit status the caller
    expects (exit 1 is also pi-stats' own "cannot write")."""
    if isinstance(err, bytes):
        err = err.decode(errors='replace')
    check('Sanitizer' not in err and 'runtime error:' not in err,
          'sanitizer report from %s:\n%s' % (what, err[-3000:]))


def run(args, stdin=None, input_bytes=None):
    p = subprocess.run([PI] + list(args), stdin=stdin, input=input_bytes,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors='replace')
    no_sanitizer_report(err, 'pi-stats %s' % ' '.join(map(str, args)))
    return p.returncode, p.stdout.decode(errors='replace'), err


def run_json(args, want_rc=EXIT_OK, input_bytes=None):
    rc, out, err = run(['--json'] + list(args), input_bytes=input_bytes)
    if rc != want_rc:
        raise Fail('rc %d want %d; stderr: %s' % (rc, want_rc, err.strip()))
    return json.loads(out), err




def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def real(name):
    if name.endswith('.xz'):
        out = os.path.join(BUILD, name[:-3])
        if not os.path.exists(out):
            tmp = out + '.tmp'
            with open(tmp, 'wb') as f:
                subprocess.run(['xz', '-dc', os.path.join(TRACES, name)],
                               stdout=f, check=True)
            os.rename(tmp, out)
        return out
    return os.path.join(TRACES, name)


def build():
    global PI, UNIT
    if not PI:
        subprocess.run(['make', '-s', '-C', TOOL, 'pi-stats', 'unit'],
                       check=True, stdout=sys.stderr)
        PI = os.path.join(TOOL, 'pi-stats')
        UNIT = os.path.join(BUILD, 'unit')
    if not UNIT:
        subprocess.run(['make', '-s', '-C', TOOL, 'unit'], check=True,
                       stdout=sys.stderr)
        UNIT = os.path.join(BUILD, 'unit')


# ---------------------------------------------------------------- facts
# Measured independently (traces/README.md) for the real dumps.
FACTS = {
    'rtds-8cpu.xentrace': dict(bytes=117544, windows=24, records=5706,
                               records_no_tsc=0, wrap_records=0, pcpus=8,
                               lost_records=0, lost_markers=0),
    'credit2-hvm-8cpu.xentrace': dict(bytes=3896732, windows=187,
                                      records=180493, records_no_tsc=7548,
                                      wrap_records=27, pcpus=8,
                                      lost_records=0, lost_markers=0),
    'tcg-boot-all.xentrace.xz': dict(bytes=25442668, windows=1045,
                                     records=1157521, records_no_tsc=161,
                                     wrap_records=161, pcpus=8,
                                     lost_records=11026, lost_markers=6),
}


def py_counts(path):
    """Independent count per (cpu, class mask) with gentrace.walk."""
    with open(path, 'rb') as f:
        data = f.read()
    out = {}
    for off, cpu, ev, tsc, w in g.walk(data):
        cls = ev & 0x0fff0000
        key = (cpu, '0x%08x' % (cls & -cls))      # lowest class bit
        out[key] = out.get(key, 0) + 1
    return out


def json_counts(js):
    out = {}
    for cpu, c in js['records_by_cpu'].items():
        for cls, n in c['by_class'].items():
            out[(int(cpu), cls)] = n
    return out


RAW_RE = re.compile(r'^R p\s*(\d+) o([0-9a-f]+)\s+([0-9a-f]+) ')


def xenalyze_counts(path):
    """Count per (cpu, class) from xenalyze --dump-raw-reads: one line per
    record read.  Window headers (CPU_CHANGE) are read several times while
    xenalyze scans for pCPUs and are not records: drop them; count each
    record offset once."""
    if not os.access(XENALYZE, os.X_OK):
        raise Fail('xenalyze not found at %s: run the top-level "make '
                   'tools" or set XENALYZE=/path/to/xenalyze' % XENALYZE)
    p = subprocess.run([XENALYZE, '--dump-raw-reads', '--dump-no-processing',
                        path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    eq(p.returncode, 0, 'xenalyze exit status')
    seen, out = set(), {}
    for line in p.stdout.decode(errors='replace').splitlines():
        m = RAW_RE.match(line)
        if not m:
            continue
        cpu, off, ev = int(m.group(1)), int(m.group(2), 16), \
            int(m.group(3), 16)
        if ev == 0x1f003 or (cpu, off) in seen:
            continue
        seen.add((cpu, off))
        cls = ev & 0x0fff0000
        key = (cpu, '0x%08x' % (cls & -cls))
        out[key] = out.get(key, 0) + 1
    return out


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# ------------------------------------------------------------ unit tests
@test
def unit_hist_percentiles_buckets():
    p = subprocess.run([os.path.join(UNIT, 'test_hist')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode()
    check(p.returncode == 0, 'test_hist failed:\n' + out)


@test
def unit_reader_every_truncation_and_chunking_of_real_prefixes():
    # every offset is O(n^2) bytes parsed: sanitizer builds use shorter
    # prefixes (still several whole windows of each trace)
    sanitized = 'ASAN_OPTIONS' in os.environ
    for name, limit in (('rtds-8cpu.xentrace',
                         '6000' if sanitized else '24000'),
                        ('credit2-hvm-8cpu.xentrace',
                         '5000' if sanitized else '12000')):
        # a timeout: a reader gone quadratic would take hours
        p = subprocess.run([os.path.join(UNIT, 'test_reader'), real(name),
                            limit], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        out = p.stdout.decode()
        check(p.returncode == 0, 'test_reader %s failed:\n%s' % (
            name, out[-3000:]))


def mixed_pi_trace(seed=7, ncpu=6, windows=40):
    """PI records of every kind in random order, windows of more records
    than a group holds, spilled adds, malformed records, records without
    a TSC, and the longest
    length first reached by a move and then by an add of the same window
    (the move is the first in the file)."""
    import random
    rnd = random.Random(seed)
    tsc, out = 1000, []
    for w in range(windows):
        cpu, recs = w % ncpu, []
        for _ in range(rnd.randrange(100, 1400)):
            tsc += rnd.randrange(1, 500)
            k = rnd.randrange(100)
            if k < 40:
                lst = cpu if rnd.randrange(8) else rnd.randrange(ncpu)
                recs.append(g.pi_add(tsc, rnd.randrange(4), rnd.randrange(64),
                                     cpu, lst, rnd.randrange(1, 30),
                                     rnd.choice((0, 16))))
            elif k < 80:
                walked = rnd.randrange(30)
                recs.append(g.pi_wakeup(tsc, walked, walked // 2,
                                        rnd.randrange(500, 90000)))
            elif k < 85:
                recs.append(g.pi_move(tsc, 1, 2, cpu, (cpu + 1) % ncpu,
                                      rnd.randrange(1, 30)))
            elif k < 86:
                recs.append(g.rec(g.PI_ADD, tsc, [1, 2]))        # too short
            elif k < 87:
                recs.append(g.pi_move(tsc, 1, 2, cpu, 5000, 3))  # pCPU 5000
            elif k < 88:
                recs.append(g.rec(g.PI_WAKEUP, tsc, [4, 1]))     # too short
            elif k < 89:
                recs.append(g.pi_add(tsc, 1, 2, cpu, 4500, 3, 0))  # pCPU 4500
            elif k < 90:
                recs.append(g.rec(g.PI_ADD, None, [1 << 16 | 3, cpu << 16 | cpu,
                                                   rnd.randrange(1, 30), 0]))
            else:
                recs.append(g.filler(tsc))
        if w == windows // 2:
            recs.append(g.pi_move(tsc + 1, 3, 9, cpu, cpu, 30))
            recs.append(g.pi_add(tsc + 2, 2, 8, cpu, cpu, 30, 0))
            tsc += 2
        out.append(g.window(cpu, recs))
    return b''.join(out)


@test
def unit_grouped_records_give_what_file_order_gives():
    # pi-stats passes the records of each PI event on in groups, not in
    # file order: the same results, on mixed records and on the real dumps
    mixed = write('mixed-pi.xentrace', mixed_pi_trace())
    js, _ = run_json([mixed])
    ll = js['list_length']
    check((ll['max'], ll['max_domain'], ll['max_vcpu']) == (30, 3, 9),
          'the longest list is the first of length 30, a move by d3v9: %s'
          % ((ll['max'], ll['max_domain'], ll['max_vcpu']),))
    p = subprocess.run([os.path.join(UNIT, 'test_order'), mixed,
                        real('credit2-hvm-8cpu.xentrace'),
                        real('rtds-8cpu.xentrace')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode()
    check(p.returncode == 0, 'test_order failed:\n' + out[-3000:])


# ------------------------------------------------------------ real dumps
def real_facts(name):
    js, err = run_json([real(name)])
    for k, v in FACTS[name].items():
        eq(js[k], v, '%s %s' % (name, k))
    for k in ('corrupt_bytes', 'truncated_bytes', 'tsc_backwards',
              'truncated_windows', 'corrupt_resyncs'):
        eq(js[k], 0, '%s %s' % (name, k))
    eq(js['clock_hz'], None, 'clock_hz without a clock')
    # no PI events in these dumps: say so, don't fail
    check(js['list_length']['count'] == 0 and
          js['wakeup_cycles']['count'] == 0, 'unexpected PI samples')
    rc, out, _ = run([real(name)])
    eq(rc, EXIT_OK, '%s text rc' % name)
    check('no posted-interrupt events' in out, 'text does not say no PI')
    return js


@test
def real_rtds_matches_known_counts():
    real_facts('rtds-8cpu.xentrace')


@test
def real_credit2_matches_known_counts():
    js = real_facts('credit2-hvm-8cpu.xentrace')
    eq(js['tsc_max'] - js['tsc_min'], 8386847145, 'TSC span')


@test
def real_tcg_matches_known_counts_with_lost_records():
    real_facts('tcg-boot-all.xentrace.xz')


def per_class(name, other):
    path = real(name)
    js, _ = run_json([path])
    mine = json_counts(js)
    theirs = other(path)
    if mine != theirs:
        diff = {k: (mine.get(k), theirs.get(k))
                for k in set(mine) | set(theirs)
                if mine.get(k) != theirs.get(k)}
        raise Fail('per-(cpu,class) counts differ: %r' % diff)
    eq(sum(mine.values()), js['records'], 'sum of per-class counts')


@test
def real_per_cpu_class_counts_match_python_walker():
    for name in FACTS:
        per_class(name, py_counts)


@test
def real_per_cpu_class_counts_match_xenalyze_raw_reads():
    for name in FACTS:
        per_class(name, xenalyze_counts)


@test
def real_stdin_pipe_equals_mmap():
    path = real('credit2-hvm-8cpu.xentrace')
    a, _ = run_json([path])
    with open(path, 'rb') as f:
        p = subprocess.run([PI, '--json', '-'], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    eq(p.returncode, 0, 'rc via stdin')
    no_sanitizer_report(p.stderr, 'pi-stats - (file on stdin)')
    b = json.loads(p.stdout)
    a['inputs'][0].pop('name')
    b['inputs'][0].pop('name')
    eq(b, a, 'stdin result')
    # a real pipe (not a file on stdin)
    cat = subprocess.Popen(['cat', path], stdout=subprocess.PIPE)
    p = subprocess.run([PI, '--json', '-'], stdin=cat.stdout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cat.wait()
    eq(p.returncode, 0, 'rc via a pipe')
    no_sanitizer_report(p.stderr, 'pi-stats - (pipe)')
    b = json.loads(p.stdout)
    b['inputs'][0].pop('name')
    eq(b, a, 'pipe result')


@test
def compressed_inputs_equal_plain():
    """gzip, xz and zstd copies of the real dumps (compressed here), as
    files and through a pipe, give the plain file's results; concatenated
    streams are read one after the other; a cut or corrupt stream is an
    input error naming the compressed byte."""
    tools = {'gz': ['gzip', '-c'], 'xz': ['xz', '-c', '-T1'],
             'zst': ['zstd', '-q', '-c']}
    for name in ('credit2-hvm-8cpu.xentrace', 'rtds-8cpu.xentrace'):
        path = real(name)
        want, _ = run_json([path])
        want['inputs'][0].pop('name')
        with open(path, 'rb') as f:
            plain = f.read()
        for ext, cmd in tools.items():
            packed = subprocess.run(cmd, input=plain, stdout=subprocess.PIPE,
                                    check=True).stdout
            z = write('%s.%s' % (name, ext), packed)
            got, _ = run_json([z])
            got['inputs'][0].pop('name')
            eq(got, want, '%s.%s as a file' % (name, ext))
            got, _ = run_json(['-'], input_bytes=packed)
            got['inputs'][0].pop('name')
            eq(got, want, '%s.%s through a pipe' % (name, ext))
            twice, _ = run_json([write('twice.' + ext, packed + packed)])
            eq(twice['records'], 2 * want['records'],
               'two concatenated %s streams' % ext)
            rc, out, err = run([write('cut.' + ext, packed[:len(packed) // 2])])
            eq(rc, EXIT_IO, 'cut %s stream rc' % ext)
            eq(out, '', 'cut %s stream prints no report' % ext)
            check('ends inside a compressed stream' in err and
                  'compressed input' in err, 'cut %s: %s' % (ext, err))
            bad = bytearray(packed)
            for k in range(len(bad) // 3, len(bad) // 3 + 64):
                bad[k] ^= 0x5a
            rc, out, err = run([write('bad.' + ext, bytes(bad))])
            eq(rc, EXIT_IO, 'corrupt %s stream rc: %s' % (ext, err))
            eq(out, '', 'corrupt %s stream prints no report' % ext)
            # what was decoded before the damage was seen may have drawn
            # warnings; the error is the last line
            last = err.strip().splitlines()[-1]
            check('corrupt' in last and 'compressed input' in last,
                  'corrupt %s: %s' % (ext, err))
    # the tcg dump as shipped (xz)
    got, _ = run_json([os.path.join(TRACES, 'tcg-boot-all.xentrace.xz')])
    want, _ = run_json([real('tcg-boot-all.xentrace.xz')])
    got['inputs'][0].pop('name')
    want['inputs'][0].pop('name')
    eq(got, want, 'tcg .xz as shipped')


@test
def input_cut_mid_record_resyncs_at_first_window():
    """A dump whose first bytes are cut off: the reader starts at the first
    sound window header, reports the bytes before it, and finds every
    record of the windows after it (window offsets from a header walk
    here)."""
    path = real('credit2-hvm-8cpu.xentrace')
    with open(path, 'rb') as f:
        data = f.read()
    starts, ends, off = [], [], 0
    while off < len(data):
        size = struct.unpack_from('<I', data, off + 8)[0]
        starts.append(off)
        off += 12 + size
        ends.append(off)
    full, _ = run_json([path])
    per_window = []                     # records of each window
    for st, en in zip(starts, ends):
        n, q = 0, st + 12
        while q < en:
            h = struct.unpack_from('<I', data, q)[0]
            q += 4 + 8 * (h >> 31) + 4 * ((h >> 28) & 7)
            n += 1
        per_window.append(n)
    eq(sum(per_window), full['records'], 'header walk of the full dump')
    for cut in (1, 4, 100, 8495, 8496 + 3):
        nxt = next(i for i, st in enumerate(starts) if st >= cut)
        js, err = run_json([write('cut%d' % cut, data[cut:])])
        eq(js['skipped_at_start'], starts[nxt] - cut, 'cut %d skipped' % cut)
        eq(js['corrupt_bytes'], starts[nxt] - cut, 'cut %d corrupt' % cut)
        eq(js['windows'], len(starts) - nxt, 'cut %d windows' % cut)
        eq(js['records'], sum(per_window[nxt:]), 'cut %d records' % cut)
        check('input starts inside a record' in err, err)
        rc, out, _ = run([write('cut%d' % cut, data[cut:])])
        check('cut start  %d bytes skipped' % (starts[nxt] - cut) in out,
              'text header: ' + out[:600])
        # through a pipe: the same
        js2, _ = run_json(['-'], input_bytes=data[cut:])
        js2['inputs'][0].pop('name')
        js['inputs'][0].pop('name')
        eq(js2, js, 'cut %d through a pipe' % cut)
    # nothing plausible: still not a trace
    rc, out, err = run([write('cutnone', data[1:200])])
    eq(rc, EXIT_NOT_TRACE, 'no window header after the cut')
    check('not a xentrace file' in err, err)
    rc, _, _ = run(['--strict', write('cut1', data[1:])])
    eq(rc, EXIT_DATA, '--strict on a cut start')


@test
def json_file_names_not_utf8():
    """File names are bytes: JSON stays valid UTF-8, a byte that is not
    part of well-formed UTF-8 becomes U+FFFD, "name_hex" keeps the bytes;
    control characters and quotes are escaped; valid UTF-8 passes."""
    src = real('rtds-8cpu.xentrace')
    raw = b'caf\xe9-\xc0\xaf-\xed\xa0\x80-\x01"\\-\xe2\x82\xac.bin'
    path = os.path.join(os.fsencode(WORK), raw)
    shutil.copyfile(src, path)
    p = subprocess.run([os.fsencode(PI), b'--json', path, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    eq(p.returncode, 0, 'rc: %r' % p.stderr)
    no_sanitizer_report(p.stderr, 'pi-stats on a non-UTF-8 name')
    text = p.stdout.decode('utf-8')         # strict: raises if not UTF-8
    js = json.loads(text)
    name = js['inputs'][0]['name']
    want = os.fsdecode(os.fsencode(WORK)) + '/caf\ufffd-\ufffd\ufffd-' \
        '\ufffd\ufffd\ufffd-\x01"\\-\u20ac.bin'
    eq(name, want, 'name with replacement characters')
    eq(bytes.fromhex(js['inputs'][0]['name_hex']), path, 'name_hex')
    eq(js['wakeup_cycles']['max_input'], None, 'no samples, no max_input')
    plain, _ = run_json([src])
    check('name_hex' not in plain['inputs'][0], 'UTF-8 names have no hex')


# ------------------------------------------------------- hand-built PI
def pi_trace():
    """Two pCPUs plus sparse 4000; windows of one pCPU out of cross-CPU
    order; every new-style event."""
    w = []
    # cpu 1 first window (later in time than cpu 0's first window)
    w.append(g.window(1, [
        g.pi_add(5000, 1, 0, 1, 1, 1, 0),
        g.pi_add(5100, 1, 1, 1, 1, 2, 0),
        g.pi_wakeup(5200, 2, 1, 1500),
        g.filler(5300),
    ]))
    w.append(g.window(0, [
        g.pi_add(1000, 2, 0, 0, 0, 1, 4),
        g.pi_add(1100, 2, 1, 0, 0, 2, 4),
        g.pi_add(1200, 2, 2, 0, 0, 3, 4),
        g.pi_add(1300, 2, 3, 0, 1, 3, 4),     # spilled onto cpu 1's list
        g.pi_wakeup(1400, 3, 3, 4000),
        g.pi_wakeup(1500, 0, 0, 300),
    ]))
    w.append(g.window(4000, [
        g.pi_move(900, 3, 0, 4000, 0, 5),     # length of cpu 0's list
        g.pi_wakeup(950, 7, 2, 70000),
        g.pi_add(960, 3, 1, 4000, 4000, 9, 8),  # over its limit
    ]))
    w.append(g.window(0, [
        g.pi_wakeup(2000, 1, 1, 1024),
        g.wrap(3),
    ]))
    return b''.join(w)


@test
def pi_events_exact_histograms():
    js, err = run_json([write('pi.bin', pi_trace())])
    eq(js['records'], 15, 'records')
    eq(js['windows'], 4, 'windows')
    eq(js['pcpus'], 3, 'pcpus')
    eq(js['wrap_records'], 1, 'wrap')
    eq(js['records_no_tsc'], 1, 'no tsc (the wrap record)')
    eq(js['tsc_backwards'], 0, 'windows out of cross-CPU order are fine')
    ev = js['pi_events']
    eq((ev['list_add'], ev['wakeup'], ev['list_move'], ev['woken']),
       (7, 5, 1, 7), 'event counts')
    eq(js['spilled_adds'], 1, 'spilled')
    eq(js['limit'], {'unbounded_adds': 2, 'over_limit_adds': 1,
                     'by_limit': [[0, 2], [4, 4], [8, 1]]}, 'limit')
    ll = js['list_length']
    # values: cpu1 {1,2,3(spill)}, cpu0 {1,2,3,5(move)}, cpu4000 {9}
    eq([ll[k] for k in ('count', 'min', 'p50', 'p90', 'p99', 'p999',
                        'max')], [8, 1, 2, 9, 9, 9, 9], 'list_length')
    eq(ll['buckets'], [[1, 2, 2], [2, 3, 2], [3, 4, 2], [5, 6, 1],
                       [9, 10, 1]], 'list_length buckets')
    # the over-limit add: before the last window (12+24+16) and its own 28
    eq(ll['max_offset'], len(pi_trace()) - 52 - 28, 'max at')
    eq(ll['max_tsc'], 960, 'max tsc')
    eq(sorted(ll['per_cpu']), ['0', '1', '4000'], 'list cpus')
    eq(ll['per_cpu']['1']['count'], 3, 'spilled add counts on cpu 1')
    eq(ll['per_cpu']['0']['max'], 5, 'move counts on the target')
    wc = js['wakeup_cycles']
    # values 300, 1024, 1500, 4000, 70000
    eq([wc[k] for k in ('count', 'min', 'p50', 'p90', 'p99', 'max')],
       [5, 300, 1500, 70000, 70000, 70000], 'wakeup_cycles')
    eq(wc['buckets'], [[256, 512, 1], [1024, 2048, 2], [2048, 4096, 1],
                       [65536, 131072, 1]], 'log2 buckets')
    eq(wc['per_cpu']['0']['count'], 3, 'cpu 0 wakeups')
    eq(wc['per_cpu']['4000']['max_tsc'], 950, 'sparse cpu max tsc')
    ww = js['wakeup_walked']
    eq((ww['count'], ww['min'], ww['max'], ww['p50']), (5, 0, 7, 2), 'walked')


@test
def pi_text_output_bpftrace_style():
    rc, out, err = run([write('pi.bin', pi_trace())])
    eq(rc, 0, 'rc')
    check('\n[1]                     2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@'
          '@@@@@@@@@@@@@@@@@@@|' in out, 'linear row:\n' + out)
    check('\n[4]                     0 |                                 '
          '                   |' in out, 'empty linear row')
    check('\n[1K, 2K)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@'
          '@@@@@@@@@@@@@@@@@@@|' in out, 'log2 row')
    check('\n[64K, 128K)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@         '
          '                 |' in out, 'log2 half row')
    check(re.search(r'\n\s+all\s+5\s+300\s+1500\s+70000\s+70000\s+70000\s+'
                    r'70000  tsc 950 byte \d+', out), 'total row:\n' + out)
    check('spilled to another pCPU\'s list 1 (14.29%)' in out, 'spill line')
    check('limit in force: unbounded x2 4 x4 8 x1' in out, 'limit line')
    check('clock      unknown' in out, 'says no clock')
    # HdrHistogram rows at p = 1 - 2^-k: nearest ranks 1, 3, 4 of 5, then max
    check(re.search(r'\n\s+300\s+0\.000000\s+1\s+1\.00\n'
                    r'\s+1500\s+0\.500000\s+3\s+2\.00\n'
                    r'\s+4000\s+0\.750000\s+4\s+4\.00\n'
                    r'\s+70000\s+1\.000000\s+5\s+inf\n', out),
          'HdrHistogram table:\n' + out)


@test
def text_coarsens_long_linear_histograms():
    # lengths 0..199: 200 rows at step 1 -> the terminal gets step 8 (25
    # rows); JSON keeps width-1 buckets
    data = g.window(0, [g.pi_add(10 + i, 1, 0, 0, 0, i, 0)
                        for i in range(200)])
    path = write('long.bin', data)
    rc, out, _ = run([path])
    check('linear buckets of 8' in out, 'coarsened:\n' + out)
    check('\n[0, 8)                  8 |' in out, 'first row')
    check('\n[192, 200)              8 |' in out, 'last row')
    js, _ = run_json([path])
    eq(len(js['list_length']['buckets']), 200, 'json keeps step 1')
    js, _ = run_json(['--len-step', '50', path])
    eq(js['list_length']['buckets'], [[0, 50, 50], [50, 100, 50],
                                      [100, 150, 50], [150, 200, 50]],
       '--len-step 50')
    eq(js['list_length']['p50'], 99, 'percentiles stay exact')


@test
def long_tail_list_lengths_log2_in_text_and_svg():
    """Lengths 0..63 once each and one 3000: linear rows widened to fit
    the terminal would put 64 of 65 samples in [0, 64), so text and SVG
    switch to log2 buckets; JSON keeps width-1 buckets."""
    path = write('longtail.bin', g.long_tail())
    rc, out, _ = run([path])
    eq(rc, 0, 'rc')
    check('log2 buckets (long tail' in out, out)
    sect = out.split('@list_length')[1].split('\n\n')[0]
    rows = re.findall(r'^(\[[^\]]*?[\])])\s+(\d+) \|(@*) *\|$', sect, re.M)
    # counts by hand: [2^k, 2^(k+1)) holds 2^k of 0..63; 3000 in [2K, 4K)
    want = [('[0, 1)', 1), ('[1, 2)', 1), ('[2, 4)', 2), ('[4, 8)', 4),
            ('[8, 16)', 8), ('[16, 32)', 16), ('[32, 64)', 32),
            ('[64, 128)', 0), ('[128, 256)', 0), ('[256, 512)', 0),
            ('[512, 1K)', 0), ('[1K, 2K)', 0), ('[2K, 4K)', 1)]
    eq([(r[0], int(r[1])) for r in rows], want, 'log2 rows')
    eq([len(r[2]) for r in rows],
       [(n * 52 + 31) // 32 for _, n in want], 'bar lengths')
    js, _ = run_json([path])
    eq(len(js['list_length']['buckets']), 65, 'json keeps step 1')
    eq(js['list_length']['max'], 3000, 'max')
    svg = os.path.join(WORK, 'longtail.svg')
    rc, _, err = run(['-q', '--svg', svg, path])
    eq(rc, 0, 'svg rc: ' + err)
    root = ET.parse(svg).getroot()
    ns = '{http://www.w3.org/2000/svg}'
    panel = root.findall(ns + 'g')[0]
    title = ''.join(panel.find(ns + 'text').itertext())
    check('(log2 buckets)' in title, 'svg title: ' + title)
    bars = [r.find(ns + 'title').text for r in panel.iter(ns + 'rect')
            if r.find(ns + 'title') is not None]
    eq(bars, ['[%s): %d' % (lo_hi, n) for lo_hi, n in zip(
        ['0, 1', '1, 2', '2, 4', '4, 8', '8, 16', '16, 32', '32, 64',
         '64, 128', '128, 256', '256, 512', '512, 1K', '1K, 2K',
         '2K, 4K'], [n for _, n in want])], 'svg bars')


@test
def pi_clock_options():
    path = write('pi.bin', pi_trace())
    js, _ = run_json(['--cpu-mhz', '2000', path])
    eq(js['clock_hz'], 2000000000, 'clock_hz')
    eq(js['clock_source'], '--cpu-mhz', 'source')
    js, _ = run_json(['--tsc-hz', '1000000000', path])
    eq(js['clock_hz'], 1000000000, 'tsc-hz')
    rc, out, _ = run(['--cpu-mhz', '1000', path])
    # 70000 cycles at 1 GHz = 70 us; 300 -> 0.300 us
    check(re.search(r'\n\s+all\s+5\s+0\.300\s+1\.500\s+70\.000\s+70\.000\s+'
                    r'70\.000\s+70\.000', out), 'us row:\n' + out)
    check('times in us' in out, 'unit named')
    for bad in (['--cpu-mhz', 'fast'], ['--cpu-mhz', '0'],
                ['--cpu-mhz', '-5'], ['--tsc-hz', '1e30'],
                ['--cpu-mhz', '1000', '--tsc-hz', '1000000000']):
        rc, out, err = run(bad + [path])
        eq(rc, EXIT_USAGE, 'rc for %r' % bad)
        eq(out, '', 'no output on usage error')
    rc, out, err = run(['--cpu-mhz', 'host', path])
    eq(rc, EXIT_USAGE, 'host without libxenctrl')
    check('libxenctrl' in err, 'says why: ' + err)


@test
def pi_cpu_filter():
    path = write('pi.bin', pi_trace())
    js, _ = run_json(['--cpu', '0,4000', path])
    eq(sorted(js['list_length']['per_cpu']), ['0', '4000'], 'list cpus')
    eq(js['list_length']['count'], 5, 'list samples kept')
    eq(js['wakeup_cycles']['count'], 4, 'wakeups kept')
    eq(js['pi_events']['filtered_out'], 4, 'dropped samples (3 adds, 1 wakeup)')
    eq(js['cpu_filter'], '0,4000', 'filter echoed')
    eq(js['records'], 15, 'record counts are not filtered')
    rc, _, err = run(['--cpu', '4096', path])
    eq(rc, EXIT_USAGE, 'cpu out of range')
    rc, _, err = run(['--cpu', '2-1', path])
    eq(rc, EXIT_USAGE, 'bad range')


def legacy_trace():
    return b''.join([
        g.window(2, [
            g.old_block(100, 1, 0, 2, 1),
            g.old_block(110, 1, 1, 2, 2),
            g.old_start(200, 2), g.filler(250), g.old_end(1200),   # 1000
            g.old_start(2000, 2), g.old_end(2100),                 # 100
            g.old_start(3000, 4),
        ]),
        g.window(3, [
            g.old_start(500, 1), g.old_end(5500),                  # 5000
            g.old_end(6000),                         # END without START
        ]),
        g.window(2, [
            g.lost(3100, 17, first_tsc=3050),        # voids the open START
            g.old_end(3200),
            g.old_start(4000, 3), g.old_start(4100, 3),  # START, START
            g.old_end(4400),                                       # 300
            g.rec(g.OLD_START, None, [5]),           # START without TSC
            g.old_end(4500),
            g.old_start(4600, 9),                    # open at end of input
        ]),
    ])


@test
def legacy_pairs_and_lost_records():
    js, _ = run_json([write('legacy.bin', legacy_trace())])
    ev = js['pi_events']
    eq(js['lost_records'], 17, 'lost count is the sum carried')
    eq(js['lost_markers'], 1, 'markers')
    eq(ev['legacy_block_list'], 2, 'block')
    eq(ev['legacy_pairs'], 4, 'pairs')
    eq(ev['legacy_voided_by_lost'], 1, 'voided by lost')
    eq(ev['legacy_unmatched_end'], 3, 'END without START (cpu3 6000, '
       'cpu2 3200 after lost, cpu2 4500 after untimed START)')
    eq(ev['legacy_unmatched_start'], 2, 'START replaced + open at end')
    eq(ev['legacy_untimed'], 1, 'START without TSC')
    wc = js['wakeup_cycles']
    eq([wc[k] for k in ('count', 'min', 'p50', 'p90', 'max')],
       [4, 100, 300, 5000, 5000], 'latencies 100,300,1000,5000')
    eq(wc['per_cpu']['3']['max_tsc'], 5500, 'max at the END record')
    eq(wc['per_cpu']['2']['count'], 3, 'cpu 2 pairs')
    ll = js['list_length']
    eq((ll['count'], ll['max'], sorted(ll['per_cpu'])), (2, 2, ['2']),
       'block list')
    ww = js['wakeup_walked']
    eq(ww['count'], 8, 'every START gives a walked sample')


@test
def tsc_less_and_malformed_pi_records():
    data = g.window(0, [
        g.rec(g.PI_WAKEUP, None, [1, 1, 777]),        # no TSC: still counts
        g.rec(g.PI_ADD, 10, [1, 2]),                  # too few words
        g.pi_add(20, 1, 0, 0, 5000, 3, 0),            # list pcpu > 4095
        g.pi_add(30, 1, 0, 0, 0, 4, 0),
    ])
    path = write('notsc.bin', data)
    js, err = run_json([path])
    eq(js['pi_events']['no_tsc'], 1, 'no_tsc')
    eq(js['pi_events']['malformed'], 2, 'malformed')
    eq(js['wakeup_cycles']['count'], 1, 'untimed wakeup kept')
    eq(js['wakeup_cycles']['max_tsc'], None, 'no tsc -> null')
    eq(js['wakeup_cycles']['max_offset'], 12, 'offset still known')
    eq(js['list_length']['count'], 1, 'one good add')
    # each is a warning with its offset and what is wrong with it
    check('pi-stats: %s: byte 28: warning: malformed PI_LIST_ADD record: '
          '2 extra words, needs 4\n' % path in err, err)
    check('pi-stats: %s: byte 48: warning: malformed PI_LIST_ADD record: '
          'list pCPU 5000, ids go up to 4095\n' % path in err, err)
    rc, _, err = run(['--strict', path])
    eq(rc, EXIT_DATA, 'strict on malformed PI records')
    eq(err.count('warning: malformed'), 2, 'the warnings --strict points at')
    # the same through the per-record decoder (--by), and too few words of
    # the other PI records
    data = g.window(1, [g.rec(g.PI_WAKEUP, 10, [1, 2]),
                        g.rec(g.PI_MOVE, 20, [1, 2, 3]),
                        g.rec(g.PI_MOVE, 30, [1, 2, 70000, 3])])
    rc, _, err = run(['--by', 'vcpu', write('malformed2.bin', data)])
    eq(rc, 0, 'rc: ' + err)
    for off, what in ((12, 'PI_WAKEUP record: 2 extra words, needs 3'),
                      (32, 'PI_LIST_MOVE record: 3 extra words, needs 4'),
                      (56, 'PI_LIST_MOVE record: list pCPU 70000, ids go '
                       'up to 4095')):
        check('byte %d: warning: malformed %s\n' % (off, what) in err, err)


@test
def sparse_cpu_ids_and_tsc_backwards():
    data = b''.join([
        g.window(4095, [g.filler(100), g.filler(200)]),
        g.window(7, [g.filler(50)]),
        g.window(4095, [g.filler(300)]),
        g.window(2048, [g.filler(10)]),
    ])
    js, err = run_json(['--strict', write('sparse.bin', data)])
    eq(js['pcpus'], 3, 'pcpus')
    eq(sorted(js['records_by_cpu'], key=int), ['7', '2048', '4095'], 'ids')
    eq(js['records_by_cpu']['4095']['windows'], 2, 'windows of 4095')
    eq(js['tsc_backwards'], 0, 'no backwards')
    back = g.window(5, [g.filler(100), g.filler(90)]) + \
        g.window(5, [g.filler(80)])
    path = write('back.bin', back)
    js, err = run_json([path])
    eq(js['tsc_backwards'], 2, 'backwards within and across windows')
    eq((js['tsc_min'], js['tsc_max']), (80, 100), 'TSC range, going back')
    js, _ = run_json([write('peak.bin', g.window(6, [
        g.filler(100), g.filler(300), g.filler(200), g.filler(250)]))])
    eq((js['tsc_backwards'], js['tsc_min'], js['tsc_max']), (1, 100, 300),
       'TSC range with its peak before a step back')
    check('byte 32: warning: TSC goes backwards on cpu 5' in err,
          'offset of the first: ' + err)
    rc, _, _ = run(['--strict', path])
    eq(rc, EXIT_DATA, 'strict')


def genpi(name, mb, ncpu, opts=()):
    """A trace of bench/genpi (built here) in the scratch directory."""
    exe = os.path.join(BUILD, 'genpi')
    subprocess.run(['make', '-s', '-C', TOOL, 'BUILD=' + BUILD, exe],
                   check=True, stdout=sys.stderr)
    path = os.path.join(WORK, name)
    subprocess.run([exe] + list(opts) + [path, str(mb), str(ncpu)],
                   check=True, stdout=subprocess.DEVNULL)
    return path


SUMMARY_RE = re.compile(
    r'^summary: longest list (\d+) on pCPU (\d+) \(d(\d+)v(\d+)\) at '
    r'(tsc \d+|[0-9.]+ s), worst p99 (\d+) on pCPU (\d+); slowest wakeup '
    r'(\S+) (us|cycles \(no clock\)) on pCPU (\d+) at (tsc \d+|[0-9.]+ s), '
    r'worst p99 (\S+) (us|cycles) on pCPU (\d+)$')


def worst_from_json(m, hz, tsc_min):
    """What the summary line says of metric m, worked out from the JSON:
    the pCPU of the total's maximum, its time, the pCPU of the worst p99
    (then max, then id)."""
    cpus = m['per_cpu']
    by_max = [c for c, v in cpus.items() if v['max'] == m['max'] and
              v['max_offset'] == m['max_offset']]
    eq(len(by_max), 1, 'one pCPU holds the maximum')
    by_p99 = min(cpus, key=lambda c: (-cpus[c]['p99'], -cpus[c]['max'],
                                      int(c)))
    at = ('%.9f s' % ((m['max_tsc'] - tsc_min) / hz) if hz else
          'tsc %d' % m['max_tsc'])
    return by_max[0], at, by_p99, cpus[by_p99]['p99']


@test
def summary_line_first_and_equal_to_json():
    """The text report of the 64-pCPU bench trace starts with the answer,
    and each of its figures is the JSON's; tables worst first, the 8 worst
    of more than 16 rows unless --all."""
    path = genpi('g64.bin', 2, 64)
    with open(path, 'rb') as f:
        recs = {off: (cpu, ev, tsc, w)
                for off, cpu, ev, tsc, w in g.walk(f.read())}
    # the longest list and the slowest wakeup from the records themselves
    # (gentrace.walk): list length and list pCPU of each add and move,
    # cycles of each wakeup (counted on the pCPU of its window)
    lists = {off: (w[2], w[1] & 0xffff) if ev == g.PI_ADD else (w[3], w[2])
             for off, (cpu, ev, tsc, w) in recs.items()
             if ev in (g.PI_ADD, g.PI_MOVE)}
    wakes = {off: (w[2], cpu) for off, (cpu, ev, tsc, w) in recs.items()
             if ev == g.PI_WAKEUP}
    longest = max(n for n, _ in lists.values())
    slowest = max(n for n, _ in wakes.values())
    for hz in (None, 2.5e9):
        clock = ['--tsc-hz', '%.0f' % hz] if hz else []
        js, _ = run_json(clock + [path])
        rc, out, err = run(clock + [path])
        eq(rc, 0, 'rc: ' + err)
        m = SUMMARY_RE.match(out.splitlines()[0])
        check(m, 'first line: ' + out.splitlines()[0])
        # times are from the lowest TSC of the input
        eq(js['tsc_min'], min(t for _, _, t, _ in recs.values()
                              if t is not None), 'lowest TSC')
        ll, wc = js['list_length'], js['wakeup_cycles']
        cpu, at, p99cpu, p99 = worst_from_json(ll, hz, js['tsc_min'])
        eq(m.group(1, 2, 5, 6, 7), (str(ll['max']), cpu, at, str(p99),
                                    p99cpu), 'list length figures')
        # the figures are the trace's: the longest list, at the first
        # record (file order) that has it, on that record's list pCPU and
        # at its TSC
        off = min(o for o, (n, _) in lists.items() if n == longest)
        eq((ll['max'], ll['max_offset'], ll['max_tsc'], cpu),
           (longest, off, recs[off][2], str(lists[off][1])),
           'longest list as in the records')
        # the domain and vCPU: the JSON's, and the record's own words
        w = recs[ll['max_offset']][3]
        eq((int(m.group(3)), int(m.group(4))),
           (ll['max_domain'], ll['max_vcpu']), 'owner as in the JSON')
        eq((ll['max_domain'], ll['max_vcpu']), (w[0] >> 16, w[0] & 0xffff),
           'owner as in the record')
        cpu, at, p99cpu, p99 = worst_from_json(wc, hz, js['tsc_min'])
        off = min(o for o, (n, _) in wakes.items() if n == slowest)
        eq((wc['max'], wc['max_offset'], wc['max_tsc'], cpu),
           (slowest, off, recs[off][2], str(wakes[off][1])),
           'slowest wakeup as in the records')
        fmt = (lambda v: '%.3f' % (v * 1e6 / hz)) if hz else str
        eq(m.group(8, 9, 10, 11, 12, 13, 14),
           (fmt(wc['max']), 'us' if hz else 'cycles (no clock)', cpu, at,
            fmt(p99), 'us' if hz else 'cycles', p99cpu), 'wakeup figures')
    # every table (list lengths, wakeup cycles, entries walked): worst
    # first, 8 rows of 64, the worst 8 of all 64 (--all), then the total
    tables = {}
    for args, rows in ((['--all'], 64), ([], 8)):
        rc, out, err = run(args + [path])
        lines = out.splitlines()
        heads = [i for i, l in enumerate(lines) if 'max at' in l]
        eq(len(heads), 3, 'three tables with %r' % args)
        for k, head in enumerate(heads):
            table = []
            for line in lines[head + 1:]:
                f = line.split()
                if not f or not f[0].isdigit():
                    break
                table.append((-float(f[7]), -float(f[5]), int(f[0])))
            eq(len(table), rows, 'rows with %r' % args)
            eq(table, sorted(table), 'worst first (max, p99, id)')
            tables[rows, k] = table
            eq(table, tables[64, k][:rows], 'the worst rows of all')
            check(rows == 64 or lines[head + 1 + rows].startswith(
                '  (56 more rows not shown: the 8 worst by max, then p99; '
                '--all shows every one)'), lines[head + 1 + rows])


# ------------------------------------------------------- bad input
@test
def not_a_trace_inputs():
    cases = [
        ('empty', b'', 'empty input'),
        ('short', b'\x03\xf0', 'only 2 bytes'),
        ('text', b'hello world, this is not a trace\n' * 3,
         'not a xentrace file'),
        ('zeros', bytes(4096), 'not a xentrace file'),
        ('swapped-garbage', b'\x20\x01\xf0\x04' + bytes(60),
         'not a xentrace file'),
    ]
    for name, data, msg in cases:
        rc, out, err = run([write(name, data)])
        eq(rc, EXIT_NOT_TRACE, name + ' rc')
        eq(out, '', name + ' prints no report')
        check(msg in err and 'byte 0' in err and name in err,
              '%s message: %s' % (name, err))
        eq(len(err.strip().splitlines()), 1, name + ' one-line error')
    # first word is a header but no window is valid anywhere
    rc, out, err = run([write('allbad', struct.pack('<III', g.CPU_CHANGE,
                                                    9999, 8) + bytes(64))])
    eq(rc, EXIT_NOT_TRACE, 'no valid window')
    check('no valid window' in err, err)
    # a big-endian first word, then garbage: no valid window either
    rc, out, err = run([write('begarbage', struct.pack('>III', g.CPU_CHANGE,
                                                       9999, 8) +
                              bytes(64))])
    eq(rc, EXIT_NOT_TRACE, 'big-endian header then garbage')
    check('no valid window' in err, err)


def without(js, keys=('byte_order', 'inputs')):
    return {k: v for k, v in js.items() if k not in keys}


@test
def big_endian_input_same_results():
    # the two models of a big-endian host agree: built word by word, or
    # every word of the little-endian file swapped (TSC low word first)
    one = [g.rec(g.PI_WAKEUP, 0x123456789, [3, 2, 7777])]
    eq(g.window(5, [g.rec(g.PI_WAKEUP, 0x123456789, [3, 2, 7777],
                          endian='>')], endian='>'),
       g.swap_words(g.window(5, one)), 'gentrace endian= and swap_words')
    le = pi_trace() + legacy_trace() + g.window(5, one)
    be = g.swap_words(le)
    eq(be[:4], b'\x20\x01\xf0\x03', 'big-endian first word')
    jl, _ = run_json(['--strict', write('le.bin', le)])
    jb, err = run_json(['--strict', write('be.bin', be)])
    eq(jl['byte_order'], 'little', 'little')
    eq(jb['byte_order'], 'big', 'big')
    eq(jb['inputs'][0]['byte_order'], 'big', 'per input')
    eq(err, '', 'no warnings')
    eq(without(jb), without(jl), 'identical results')
    eq(without(jb['inputs'][0], ('byte_order', 'name')),
       without(jl['inputs'][0], ('byte_order', 'name')), 'identical input')
    wc = jb['wakeup_cycles']
    # 6 PI_WAKEUP + 4 legacy pairs; the cpu 5 one has a 33-bit TSC
    eq((wc['count'], wc['p50'], wc['max'], wc['per_cpu']['5']['max_tsc']),
       (10, 1024, 70000, 0x123456789), 'wakeups, a TSC above 32 bits')
    eq([jb['list_length'][k] for k in ('count', 'p50', 'p90', 'max')],
       [10, 2, 5, 9], 'list_length with legacy BLOCK_LIST')
    eq(jb['pi_events']['legacy_pairs'], 4, 'legacy pairs')
    # text: the same report but for the name and byte order lines
    _, tl, _ = run([write('le.bin', le)])
    _, tb, _ = run([write('be.bin', be)])
    check('  byte order big-endian\n' in tb, tb[:300])
    strip = lambda t: [x for x in t.splitlines()
                       if not x.startswith(('===', '  byte order'))]
    eq(strip(tb), strip(tl), 'text report')
    # through a pipe (read() path, chunked) as well
    js, _ = run_json(['-'], input_bytes=be)
    eq(without(js), without(jl), 'pipe')
    # merged little- and big-endian inputs: one result, order "mixed"
    js, _ = run_json([write('le.bin', le), write('be.bin', be)])
    eq(js['byte_order'], 'mixed', 'merged orders')
    eq(js['wakeup_cycles']['count'], 20, 'merged count')
    rc, out, _ = run([write('le.bin', le), write('be.bin', be)])
    check('byte order mixed' in out, out[-2000:])


def no_offsets(x):
    if isinstance(x, dict):
        return {k: no_offsets(v) for k, v in x.items() if k != 'max_offset'}
    return x


@test
def mixed_byte_order_in_one_file_is_corruption():
    a, b = pi_trace(), legacy_trace()
    other = g.window(1, [g.pi_wakeup(9000, 1, 1, 123456)])
    for name, data, bad in (
            ('be-with-le', g.swap_words(a) + other + g.swap_words(b),
             other),
            ('le-with-be', a + g.swap_words(other) + b,
             g.swap_words(other))):
        js, err = run_json([write(name + '.bin', data)])
        clean, _ = run_json([write(name + '-clean.bin',
                                   data.replace(bad, b''))])
        eq(js['corrupt_bytes'], len(bad), name + ' bytes skipped')
        eq(js['corrupt_resyncs'], 1, name + ' one resync')
        # the same but where the maxima are (offsets after the window)
        eq(no_offsets(js['wakeup_cycles']), no_offsets(clean['wakeup_cycles']),
           name + ' the window is not counted')
        eq(no_offsets(js['list_length']), no_offsets(clean['list_length']),
           name + ' list_length')
        eq(js['records'], clean['records'], name + ' records')
        check('resynchronised' in err, name + ': ' + err)
        rc, _, _ = run(['--strict', write(name + '.bin', data)])
        eq(rc, EXIT_DATA, name + ' strict')


@test
def unreadable_inputs():
    rc, out, err = run([os.path.join(WORK, 'does-not-exist')])
    eq(rc, EXIT_IO, 'missing file')
    check('does-not-exist: cannot open' in err, err)
    rc, out, err = run([WORK])
    eq(rc, EXIT_IO, 'directory')
    # one bad input among good ones: the good one is still reported
    rc, out, err = run([write('pi.bin', pi_trace()),
                        os.path.join(WORK, 'nope')])
    eq(rc, EXIT_IO, 'mixed')
    check('pi.bin' in out, 'good input still reported')


@test
def usage_errors_help_version():
    for args in ([], ['--bogus'], ['-o'], ['--len-step', '0', 'x'],
                 ['--json', '--csv', 'x']):
        rc, out, err = run(args)
        eq(rc, EXIT_USAGE, 'rc for %r' % args)
        check(err.strip(), 'message for %r' % args)
    rc, out, err = run(['--help'])
    eq(rc, 0, 'help rc')
    check('Exit status: 0 ok' in out and '--cpu-mhz' in out, 'help text')
    check('gzip/xz/zstd' in out, 'help names compressed inputs')
    rc, out, err = run(['--version'])
    eq(rc, 0, 'version rc')
    check(re.match(r'pi-stats \d+\.\d+\.\d+\n$', out), out)


def mutate(data, off, new):
    return data[:off] + new + data[off + len(new):]


@test
def truncation_at_every_offset_of_a_real_window_cli():
    with open(real('rtds-8cpu.xentrace'), 'rb') as f:
        full = f.read()
    wins = g.window_offsets(full)
    end2 = wins[2][0]                       # two whole windows
    data = full[:end2]
    # every offset of the first window, and into the second one's records
    # (the in-process unit test covers every offset of 24 KB)
    rec_ends = [o + (4 + 8 * (struct.unpack_from('<I', data, o)[0] >> 31) +
                     4 * ((struct.unpack_from('<I', data, o)[0] >> 28) & 7))
                for o, *_ in g.walk(data)]
    bounds = {0, wins[1][0], end2}
    # Each run is a process: every offset of the first 160 bytes, of the
    # bytes around the first window boundary, then a stride of 7 (prime to
    # the record sizes); PI_STATS_FULL=1 runs every offset.  The unit test
    # test_reader covers every offset of 24 KB in-process.
    w1 = wins[1][0]
    if os.environ.get('PI_STATS_FULL'):
        cuts = range(4, end2 + 1)
    elif 'ASAN_OPTIONS' in os.environ:     # sanitizer processes are slow
        cuts = sorted(set(range(4, 40)) | set(range(w1 - 12, w1 + 30)) |
                      set(range(40, end2, 29)) | {end2 - 1, end2})
    else:
        cuts = sorted(set(range(4, 160)) | set(range(w1 - 40, w1 + 80)) |
                      set(range(160, end2, 7)) | {end2 - 1, end2})
    for cut in cuts:
        path = write('cut.bin', data[:cut])
        rc, out, err = run(['--json', '--strict', path])
        whole = cut in bounds
        eq(rc, EXIT_OK if whole else EXIT_DATA, 'cut %d rc' % cut)
        js = json.loads(out)
        eq(js['records'], sum(1 for e in rec_ends if e <= cut and
                              not (wins[1][0] <= e - 1 < wins[1][0] + 12)),
           'cut %d records' % cut)
        if not whole:
            m = re.search(r'byte (\d+): warning: input ends inside', err)
            check(m, 'cut %d message: %s' % (cut, err))
            check(int(m.group(1)) <= cut, 'cut %d offset' % cut)


def corrupt_cases(full):
    wins = g.window_offsets(full)
    w3, w4, w5 = wins[3][0], wins[4][0], wins[5][0]
    return [
        # (name, data, offset in the message, bytes skipped)
        ('header zeroed', mutate(full, w4, bytes(4)), w4, w5 - w4),
        ('cpu 5000', mutate(full, w4 + 4, struct.pack('<I', 5000)), w4,
         w5 - w4),
        ('size not /4', mutate(full, w4 + 8, struct.pack('<I', 1001)), w4,
         w5 - w4),
        ('size huge', mutate(full, w4 + 8, struct.pack('<I', 0x7ffffff0)), w4,
         w5 - w4),
        # window claims 4 more bytes: a CPU_CHANGE appears inside it
        ('size +4', mutate(full, w4 + 8, struct.pack(
            '<I', wins[4][2] + 4)), w5, 0),
        # 64 zero bytes in the middle of window 3's records
        ('zeroed records', mutate(full, w3 + 100, bytes(64)), None, None),
        # 5 bytes of garbage inserted between two windows
        ('inserted garbage', full[:w4] + b'\x01\x02\x03\x04\x05' + full[w4:],
         w4, 5),
    ]


@test
def corrupt_windows_resync_real_trace():
    with open(real('rtds-8cpu.xentrace'), 'rb') as f:
        full = f.read()
    base, _ = run_json([real('rtds-8cpu.xentrace')])
    for name, data, off, skipped in corrupt_cases(full):
        path = write('corrupt.bin', data)
        js, err = run_json([path])
        check(js['corrupt_resyncs'] >= 1, name + ': not detected')
        m = re.search(r'byte (\d+): warning: .*skipped (\d+) bytes, '
                      r'resynchronised at byte (\d+)', err)
        check(m, '%s: message: %s' % (name, err))
        if off is not None:
            eq(int(m.group(1)), off, name + ': offset reported')
            eq(js['corrupt_bytes'], skipped, name + ': bytes skipped')
        if skipped:
            # every record outside the skipped bytes is counted: the
            # intact trace's records less those of the window whose
            # header is damaged; inserted garbage costs none
            lost = 0 if name == 'inserted garbage' else sum(
                1 for o, *_ in g.walk(full) if off <= o < off + skipped)
            check(lost or name == 'inserted garbage', name + ': no records '
                  'in the skipped window: ' + repr((off, skipped)))
            eq(js['records'], base['records'] - lost,
               name + ': records after the resync')
        else:
            check(js['records'] < base['records'] or name == 'size +4',
                  name + ': records')
            check(js['records'] >= base['records'] - 2000, name + ': resync')
        rc, _, _ = run(['--strict', '-q', path])
        eq(rc, EXIT_DATA, name + ': strict')
    # corruption at the very end: garbage that never resyncs
    js, err = run_json([write('tailjunk.bin', full + b'\x00' * 40)])
    eq(js['corrupt_bytes'], 40, 'tail junk')
    eq(js['records'], base['records'], 'records before junk')
    check('to the end of input' in err, err)


@test
def stream_large_window_grows_buffer():
    recs = [g.filler(i, 7) for i in range(60000)]       # 2.2 MB window
    data = g.window(3, recs) + g.window(3, [g.pi_wakeup(10 ** 6, 1, 1, 9)])
    js, _ = run_json(['-'], input_bytes=data)
    eq(js['records'], 60001, 'records via stdin')
    eq(js['wakeup_cycles']['max'], 9, 'PI after the big window')


# --------------------------------------------------- formats and files
@test
def json_schema_fields():
    js, _ = run_json([write('pi.bin', pi_trace())])
    for k in ('records', 'windows', 'pcpus', 'lost_records', 'corrupt_bytes',
              'truncated_bytes', 'clock_hz', 'spilled_adds', 'limit',
              'list_length', 'wakeup_cycles', 'inputs', 'version'):
        check(k in js, 'missing ' + k)
    for m in ('list_length', 'wakeup_cycles'):
        for k in ('count', 'min', 'p50', 'p90', 'p99', 'p999', 'max',
                  'max_tsc', 'max_offset', 'buckets', 'per_cpu'):
            check(k in js[m], 'missing %s.%s' % (m, k))
        eq(sorted(js[m]['per_cpu'], key=int), ['0', '1', '4000'],
           m + ' per_cpu rows')
        for c in js[m]['per_cpu'].values():
            check('buckets' not in c and 'p999' in c, 'per_cpu fields')
        eq(sum(b[2] for b in js[m]['buckets']), js[m]['count'],
           m + ' buckets sum')


@test
def multiple_inputs_merge():
    a = write('a.bin', pi_trace())
    b = write('b.bin', legacy_trace())
    js, _ = run_json([a, b])
    ja, _ = run_json([a])
    jb, _ = run_json([b])
    eq(js['ninputs'], 2, 'ninputs')
    eq([i['name'] for i in js['inputs']], [a, b], 'names')
    for k in ('records', 'windows', 'lost_records', 'bytes'):
        eq(js[k], ja[k] + jb[k], 'merged ' + k)
    wc = js['wakeup_cycles']
    eq(wc['count'], ja['wakeup_cycles']['count'] +
       jb['wakeup_cycles']['count'], 'merged count')
    eq(wc['max'], 70000, 'merged max')
    eq(wc['max_input'], a, 'where the max was')
    # merged buckets = sum of the inputs' buckets
    s = {}
    for j in (ja, jb):
        for lo, hi, n in j['wakeup_cycles']['buckets']:
            s[(lo, hi)] = s.get((lo, hi), 0) + n
    eq({(lo, hi): n for lo, hi, n in wc['buckets']}, s, 'bucket merge')
    rc, out, _ = run([a, b])
    check('=== all 2 inputs merged ===' in out, 'merged section')


def expected_rows(js, hz=0, names=False):
    """The text table rows of js's metrics, formatted here from the JSON
    summaries: labels right-aligned to the widest (at least 5), numbers
    in 10 columns (wider ones whole), wakeup cycles as times with 3
    decimals and "max at" in seconds when there is a clock (hz)."""
    rows = []
    for m in ('list_length', 'wakeup_cycles', 'wakeup_walked'):
        per = js[m]['per_cpu']
        width = max([5] + [len(c) for c in per])
        for label, s in list(per.items()) + [('all', js[m])]:
            line = '  %*s %10d' % (width, label, s['count'])
            for k in ('min', 'p50', 'p90', 'p99', 'p999', 'max'):
                if hz and m == 'wakeup_cycles':
                    line += ' %10.3f' % (s[k] * 1e6 / hz)
                else:
                    line += ' %10d' % s[k]
            if s['max_tsc'] is None:
                at = 'tsc -'
            elif hz:            # seconds from the input's lowest TSC
                at = '%.9f s' % ((s['max_tsc'] - js['tsc_min']) / hz)
            else:
                at = 'tsc %d' % s['max_tsc']
            line += '  %s byte %d' % (at, s['max_offset'])
            if names:
                line += ' in ' + s['max_input']
            rows.append(line)
    return rows


@test
def text_rows_equal_json_summaries():
    """Each per-pCPU and total row of the text tables, byte for byte, from
    the JSON summary of the same run: 0, 10- and 20-digit values, a
    maximum without a TSC, 4-digit pCPU ids, clocks, merged inputs."""
    top = (1 << 64) - 1
    data = b''.join([
        g.window(4095, [g.pi_wakeup(top, 0, 0, 0xffffffff),
                        g.pi_wakeup(top - 1, 12, 1, 999999999),
                        g.pi_add(top - 2, 1, 2, 4095, 4095, 0, 0)]),
        g.window(7, [g.rec(g.PI_WAKEUP, None, [5, 1, 1234567890]),
                     g.pi_wakeup(10, 3, 1, 1024)] +
                 [g.pi_add(20 + i, 1, 1, 7, 7, i % 9, 4) for i in range(40)]),
        g.window(1000, [g.pi_move(30, 2, 0, 7, 1000, 4000000000)]),
    ])
    a = write('rows.bin', data)
    b = write('rows2.bin', pi_trace())
    for args, hz in (([], 0), (['--cpu-mhz', '3'], 3e6),
                     (['--tsc-hz', '1000'], 1e3)):
        js, _ = run_json(args + [a])
        rc, out, _ = run(args + [a])
        eq(rc, 0, 'rc')
        wc = js['wakeup_cycles']['per_cpu']
        eq((wc['4095']['max'], wc['4095']['max_tsc'], wc['4095']['min'],
            wc['7']['max'], wc['7']['max_tsc'], js['list_length']['max'],
            js['wakeup_walked']['per_cpu']['4095']['min']),
           (0xffffffff, top, 999999999, 1234567890, None, 4000000000, 0),
           'JSON values')
        want = expected_rows(js, hz)
        eq(len(want), 10, 'rows: 3 pCPUs + all, 2 + all, 2 + all')
        for r in want:
            check(r in out.splitlines(),
                  'row %r (args %s) not in:\n%s' % (r, args, out))
    js, _ = run_json([a, b])
    rc, out, _ = run([a, b])
    merged = out.split('=== all 2 inputs merged ===')[1].splitlines()
    for r in expected_rows(js, names=True):
        check(r in merged, 'merged row %r not in:\n%s' % (r, out))


@test
def csv_output():
    path = write('pi.bin', pi_trace())
    rc, out, err = run(['--csv', path])
    eq(rc, 0, 'rc')
    lines = out.splitlines()
    eq(lines[0], 'input,metric,cpu,kind,low,high,value,unit', 'header')
    rows = [l.split(',') for l in lines[1:]]
    check(all(len(r) == 8 for r in rows), 'eight columns')
    got = {(r[1], r[2], r[3]): r[6] for r in rows if r[3] != 'bucket'}
    eq(got[('trace', 'all', 'records')], '15', 'records row')
    eq(got[('wakeup_cycles', 'all', 'p90')], '70000', 'p90 row')
    eq(got[('list_length', '4000', 'max')], '9', 'per-cpu row')
    eq(sum(int(r[6]) for r in rows if r[1] == 'list_length' and
           r[2] == 'all' and r[3] == 'bucket'), 8, 'bucket rows sum')


@test
def one_unit_in_every_format():
    """With a clock, wakeup times are us in the text (histogram, tables,
    percentile table), the summary, the CSV (unit column) and "max at" is
    seconds from the input's lowest TSC; JSON keeps cycles and says so.
    Without one, "cycles (no clock)"."""
    path = write('pi.bin', pi_trace())
    hz = 1e9                    # 1 cycle = 0.001 us
    us = lambda v: '%.3f' % (v * 1e6 / hz)     # noqa: E731
    js, _ = run_json(['--tsc-hz', '1000000000', path])
    wc = js['wakeup_cycles']
    eq((js['time_unit'], js['clock_hz'], wc['unit'], wc['max']),
       ('us', 1e9, 'cycles', 70000), 'JSON: raw cycles, unit and clock')
    rc, out, err = run(['--tsc-hz', '1000000000', path])
    eq(rc, 0, 'rc: ' + err)
    sec = out[out.index('@wakeup_cycles'):out.index('@wakeup_walked')]
    check(sec.startswith('@wakeup_cycles: time per wakeup interrupt '
                         '(handler, or legacy END-START), in us\n'), sec)
    check('\n[65.536, 131.072)           1 |' in sec, 'histogram in us: ' +
          sec)
    at = '%.9f s' % ((wc['max_tsc'] - js['tsc_min']) / hz)
    row = [l.split() for l in sec.splitlines() if l.startswith('    all')][0]
    eq(row, ['all', str(wc['count']), us(wc['min']), us(wc['p50']),
             us(wc['p90']), us(wc['p99']), us(wc['p999']), us(wc['max'])] +
       at.split() + ['byte', str(wc['max_offset'])], 'total row in us')
    check('percentile distribution, all pCPUs (us):' in sec, sec)
    check('\n        70.000     1.000000            5                inf\n'
          in sec, 'percentile table in us: ' + sec)
    check('slowest wakeup 70.000 us on pCPU 4000 at %s' % at in
          out.splitlines()[0], out.splitlines()[0])
    rc, out, err = run(['--csv', '--tsc-hz', '1000000000', path])
    rows = {(r[1], r[2], r[3], r[4]): (r[6], r[7]) for r in
            (l.split(',') for l in out.splitlines()[1:])}
    eq(rows[('wakeup_cycles', 'all', 'max', '')], ('70.000', 'us'), 'CSV max')
    eq(rows[('wakeup_cycles', 'all', 'bucket', '65.536')], ('1', 'us'),
       'CSV bucket in us')
    eq(rows[('list_length', 'all', 'max', '')], ('9', 'entries'), 'CSV len')
    # no clock
    rc, out, err = run([path])
    check('@wakeup_cycles: time per wakeup interrupt (handler, or legacy '
          'END-START), in cycles (no clock)\n' in out, out)
    check('slowest wakeup 70000 cycles (no clock) on pCPU 4000 at tsc 950'
          in out.splitlines()[0], out.splitlines()[0])
    check('percentile distribution, all pCPUs (cycles (no clock)):' in out,
          out)
    rc, out, err = run(['--csv', path])
    check('%s,wakeup_cycles,all,max,,,70000,cycles\n' % path in out, out)


@test
def svg_log_counts_marks_labels_unit():
    """SVG: counts on a log scale (log10(1 + n) of the next power of 10, so
    a single sample shows), p50/p99/max as lines in their buckets and in a
    legend, axis labels, times in the unit of the clock."""
    path = write('pi.bin', pi_trace())   # wakeups 300 1024 1500 4000 70000
    ns = '{http://www.w3.org/2000/svg}'
    for clock, unit, xlabel, bars in (
            (['--tsc-hz', '1000000000'], ' us', 'time per wakeup (us)',
             ['[0.256, 0.512): 1', '[0.512, 1.024): 0', '[1.024, 2.048): 2',
              '[2.048, 4.096): 1']),
            ([], ' cycles', 'time per wakeup (cycles, no clock)',
             ['[256, 512): 1', '[512, 1K): 0', '[1K, 2K): 2', '[2K, 4K): 1'])):
        svg = os.path.join(WORK, 'marks.svg')
        rc, _, err = run(clock + ['-q', '--svg', svg, path])
        eq(rc, 0, 'rc: ' + err)
        panel = ET.parse(svg).getroot().findall(ns + 'g')[1]
        texts = {t.get('class'): ' '.join(t.itertext())
                 for t in panel.iter(ns + 'text') if t.get('class')}
        eq(texts['xlabel'], xlabel, 'x axis label')
        eq(texts['ylabel'], 'samples (log scale)', 'y axis label')
        eq(texts['legend'], 'p50 1%s%s p99 70%s%s max 70%s%s' % (
            ('.500', unit, '.000', unit, '.000', unit) if unit == ' us' else
            ('500', unit, '000', unit, '000', unit)), 'legend')
        eq([t.text for t in panel.iter(ns + 'text')
            if t.get('class') == 'ytick'], ['1', '10'], 'log ticks to 10')
        frame = [r for r in panel.iter(ns + 'rect') if r.get('fill') == 'none'][0]
        ph, top = float(frame.get('height')), float(frame.get('y'))
        rects = [r for r in panel.iter(ns + 'rect')
                 if r.find(ns + 'title') is not None]
        eq([r.find(ns + 'title').text for r in rects][:4], bars, 'buckets')
        for r in rects:
            n = int(r.find(ns + 'title').text.rsplit(' ', 1)[1])
            want = ph * math.log10(1 + n) / math.log10(11)
            check(abs(float(r.get('height')) - want) < 0.01 and
                  abs(float(r.get('y')) + want - top - ph) < 0.01,
                  'bar of %d: height %s, want %.2f' % (n, r.get('height'),
                                                        want))
        lines = {ln.find(ns + 'title').text: float(ln.get('x1'))
                 for ln in panel.iter(ns + 'line')
                 if ln.get('class') == 'mark'}
        for name, bucket in (('p50', 2), ('p99', -1), ('max', -1)):
            r = rects[bucket]
            x, w = float(r.get('x')), float(r.get('width'))
            check(x <= lines[name] <= x + w, '%s line at %s not in bucket '
                  '%s' % (name, lines[name], r.find(ns + 'title').text))


@test
def svg_output_and_atomic_files():
    path = write('pi.bin', pi_trace())
    svg = os.path.join(WORK, 'plot.svg')
    out = os.path.join(WORK, 'report.json')
    rc, o, err = run(['--json', '-o', out, '--svg', svg, path])
    eq(rc, 0, 'rc: ' + err)
    eq(o, '', 'nothing on stdout with -o')
    root = ET.parse(svg).getroot()
    check(root.tag.endswith('svg'), 'svg root')
    rects = [r for r in root.iter() if r.tag.endswith('rect')]
    check(len(rects) > 10, 'bars drawn')
    titles = [t.text for t in root.iter() if t.tag.endswith('title')]
    check('[64K, 128K): 1' in titles, 'bar tooltip: %r' % titles)
    with open(out) as f:
        eq(json.load(f)['records'], 15, 'report file')
    # unwritable destination: error, exit 1, nothing left behind
    bad = os.path.join(WORK, 'no-such-dir', 'r.json')
    rc, o, err = run(['--json', '-o', bad, path])
    eq(rc, EXIT_INTERNAL, 'rc for unwritable output')
    check('cannot create' in err, err)
    # a write that fails once the temporary exists (a file size limit of
    # 64 bytes, SIGXFSZ ignored: write() says EFBIG): exit 1, the old
    # report untouched and no temporary left beside it
    d = scratch('efbig')
    for opt in ('-o', '--svg'):
        dest = os.path.join(d, 'report')
        with open(dest, 'w') as f:
            f.write('old')
        p = subprocess.run([PI, '--json', '-q', opt, dest, path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           preexec_fn=small_files, restore_signals=False)
        err = p.stderr.decode(errors='replace')
        no_sanitizer_report(err, 'pi-stats with a file size limit')
        eq(p.returncode, EXIT_INTERNAL, '%s rc when the write fails: %s' %
           (opt, err))
        check('cannot write' in err and dest in err, err)
        eq((os.listdir(d), read_bytes(dest)), (['report'], b'old'),
           '%s: a failed write leaves the old report and no temporary' % opt)
    # input error: no output file is created at all
    out2 = os.path.join(WORK, 'never.json')
    rc, o, err = run(['--json', '-o', out2, write('e', b'')])
    eq(rc, EXIT_NOT_TRACE, 'rc')
    check(not os.path.exists(out2), 'no output for a failed run')


def small_files():
    """In the child: files of at most 64 bytes, SIGXFSZ ignored."""
    import resource
    import signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def scratch(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def no_temporaries(d):
    eq([f for f in os.listdir(d) if '.tmp.' in f], [], 'temporaries in ' + d)


def read_bytes(path):
    with open(path, 'rb') as f:
        return f.read()


def is_output(data, opt):
    if opt == '-o':
        return json.loads(data.decode())['records'] == 15
    return ET.fromstring(data).tag.endswith('svg')


def refused(args, name, what):
    """Exit 1 and one line of error that names the target."""
    rc, out, err = run(args)
    eq(rc, EXIT_INTERNAL, 'rc for %s' % what)
    eq(len(err.strip().splitlines()), 1, 'one line for %s: %s' % (what, err))
    check(name in err, 'error names %s: %s' % (name, err))


@test
def output_targets_keep_what_they_are():
    """-o and --svg: a regular file (or one a symlink names) or a new path
    is replaced through a temporary with its mode and owner kept; a FIFO, a
    character device and "-" are written straight into; a directory, a
    dangling symlink or a directory that cannot be written is refused with
    exit 1 and nothing changed."""
    path = write('pi.bin', pi_trace())
    for opt in ('-o', '--svg'):
        d = scratch('targets' + opt.strip('-'))

        def go(target, *extra):
            return run(['--json', '-q', opt, target] + list(extra) + [path])

        # regular file, 0640, another owner: replaced, mode and owner kept
        reg = os.path.join(d, 'reg')
        with open(reg, 'w') as f:
            f.write('old')
        os.chmod(reg, 0o640)
        os.chown(reg, 1234, 5678)
        rc, _, err = go(reg)
        eq(rc, 0, 'rc regular: ' + err)
        st = os.stat(reg)
        eq((st.st_mode & 0o7777, st.st_uid, st.st_gid), (0o640, 1234, 5678),
           'mode and owner of a regular file')
        check(is_output(read_bytes(reg), opt), 'regular file written')
        # a 0600 file stays 0600
        priv = os.path.join(d, 'private')
        with open(priv, 'w') as f:
            f.write('old')
        os.chmod(priv, 0o600)
        rc, _, err = go(priv)
        eq((rc, os.stat(priv).st_mode & 0o7777), (0, 0o600), '0600: ' + err)
        # new path: 0666 less the umask
        um = os.umask(0o022)
        os.umask(um)
        new = os.path.join(d, 'new')
        rc, _, err = go(new)
        eq(rc, 0, 'rc new: ' + err)
        eq(os.stat(new).st_mode & 0o7777, 0o666 & ~um, 'mode of a new file')
        check(is_output(read_bytes(new), opt), 'new file written')
        # symlink to a file: the file is replaced, the link stays a link
        tgt = os.path.join(d, 'target')
        with open(tgt, 'w') as f:
            f.write('old')
        os.chmod(tgt, 0o604)
        link = os.path.join(d, 'link')
        os.symlink('target', link)
        rc, _, err = go(link)
        eq(rc, 0, 'rc symlink: ' + err)
        check(os.path.islink(link) and os.readlink(link) == 'target',
              'the symlink is still a symlink to target')
        eq(os.stat(tgt).st_mode & 0o7777, 0o604, 'mode of the link target')
        check(is_output(read_bytes(tgt), opt), 'link target written')
        # dangling symlink: refused, nothing created
        dang = os.path.join(d, 'dangling')
        os.symlink('nowhere', dang)
        refused(['-q', opt, dang, path], dang, 'a dangling symlink')
        check(os.path.islink(dang) and
              not os.path.exists(os.path.join(d, 'nowhere')),
              'dangling symlink followed')
        # directory: refused, and the other target is not touched either
        sub = os.path.join(d, 'dir')
        os.mkdir(sub)
        keep = os.path.join(d, 'keep')
        with open(keep, 'w') as f:
            f.write('old')
        other = '--svg' if opt == '-o' else '-o'
        refused(['-q', opt, sub, other, keep, path], sub, 'a directory')
        eq((os.listdir(sub), read_bytes(keep)), ([], b'old'),
           'nothing changed after a refused directory')
        # FIFO with a reader: written into, still a FIFO
        fifo = os.path.join(d, 'fifo')
        os.mkfifo(fifo)
        reader = subprocess.Popen(['cat', fifo], stdout=subprocess.PIPE)
        rc, _, err = go(fifo)
        got = reader.communicate(timeout=20)[0]
        eq(rc, 0, 'rc FIFO: ' + err)
        check(is_output(got, opt), 'report read from the FIFO')
        check(stat_is(fifo, 'S_ISFIFO'), 'FIFO replaced')
        # character device (made here): written into, still the device
        dev = os.path.join(d, 'null')
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        rc, _, err = go(dev)
        eq(rc, 0, 'rc device: ' + err)
        check(stat_is(dev, 'S_ISCHR') and
              os.stat(dev).st_rdev == os.makedev(1, 3), 'device replaced')
        # "-": standard output (the report of --svg - goes to a file)
        extra = ['-o', os.path.join(d, 'report')] if opt == '--svg' else []
        rc, out, err = go('-', *extra)
        eq(rc, 0, 'rc -: ' + err)
        check(is_output(out.encode(), opt), 'output on stdout')
        check(not os.path.exists(os.path.join(d, '-')), 'a file named -')
        # a directory that cannot be written (without CAP_DAC_OVERRIDE,
        # which root has): refused before any input is read (a missing
        # input would be exit 3), its file untouched
        ro = os.path.join(d, 'ro')
        os.mkdir(ro)
        old = os.path.join(ro, 'old')
        with open(old, 'w') as f:
            f.write('old')
        os.chmod(ro, 0o555)
        nocap = ['setpriv', '--bounding-set=-dac_override,-dac_read_search',
                 '--inh-caps=-dac_override,-dac_read_search', '--', PI]
        for t in (old, os.path.join(ro, 'new')):
            p = subprocess.run(nocap + ['-q', opt, t, d + '/none'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            err = p.stderr.decode()
            no_sanitizer_report(err, 'pi-stats into a read-only dir')
            eq(p.returncode, EXIT_INTERNAL, 'rc read-only dir: ' + err)
            eq(len(err.strip().splitlines()), 1, 'one line: ' + err)
            check(t in err and 'Permission denied' in err, err)
        eq((sorted(os.listdir(ro)), read_bytes(old)), (['old'], b'old'),
           'read-only directory changed')
        os.chmod(ro, 0o755)
        no_temporaries(d)


def stat_is(path, test):
    return getattr(stat, test)(os.lstat(path).st_mode)


@test
def install_and_man_page():
    dest = os.path.join(WORK, 'destdir')
    p = subprocess.run(['make', '-s', '-C', TOOL, 'install', 'PREFIX=/usr',
                        'DESTDIR=' + dest], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    eq(p.returncode, 0, 'make install: ' + p.stdout.decode())
    # the installed program runs and reads a trace (not just "a file is
    # there"): the 15 records of pi_trace()
    p = subprocess.run([os.path.join(dest, 'usr/bin/pi-stats'), '--json',
                        write('pi.bin', pi_trace())], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    eq(p.returncode, 0, 'installed pi-stats rc: %r' % p.stderr)
    eq(json.loads(p.stdout)['records'], 15, 'installed pi-stats records')
    man = os.path.join(dest, 'usr/share/man/man1/pi-stats.1')
    with open(man) as f:
        text = f.read().replace('\\-', '-')
    for word in ('EXIT STATUS', 'JSON', 'max_offset', 'lost_records',
                 '--cpu-mhz', '--strict'):
        check(word in text, 'man page lacks ' + word)
    # every option of --help is in the man page and the README
    rc, helptext, _ = run(['--help'])
    with open(os.path.join(TOOL, 'README.md')) as f:
        readme = f.read()
    opts = sorted(set(re.findall(r'--[a-z][a-z-]+', helptext)))
    for word in ('--interval', '--by', '--top', '--compare', '--since',
                 '--until'):
        check(word in opts, '--help lacks ' + word)
    for word in opts:
        check(word in text, 'man page lacks ' + word)
    for word in ('--interval', '--by', '--top', '--compare', '--since',
                 '--until', '/dev/stdout'):
        check(word in readme, 'README lacks ' + word)
    # xentrace writes a file named "-": no example pipes it into pi-stats
    for doc, name in ((text, 'man page'), (readme, 'README')):
        check(not re.search(r'xentrace [^|\n]* - *\|', doc),
              '%s pipes "xentrace ... -"' % name)


# ------------------------------------------------------- live pipes
class Live:
    """pi-stats reading a pipe that the test feeds and keeps open."""

    def __init__(self, args):
        import select
        self.select = select
        self.p = subprocess.Popen([PI] + list(args) + ['-'],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b''

    def feed(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def line(self):
        """The next line of standard output (a guard of 20 s against a
        hang, not a timing assertion)."""
        fd = self.p.stdout.fileno()
        while b'\n' not in self.buf:
            r, _, _ = self.select.select([fd], [], [], 20)
            check(r, 'no output line within 20 s')
            chunk = os.read(fd, 65536)
            check(chunk, 'standard output closed early')
            self.buf += chunk
        ln, self.buf = self.buf.split(b'\n', 1)
        return ln.decode()

    def until(self, pred):
        """Interval lines until one satisfies pred; returns them all."""
        seen = []
        while True:
            seen.append(self.line())
            if pred(seen[-1]):
                return seen

    def finish(self, sig=None):
        if sig is not None:
            self.p.send_signal(sig)
        else:
            self.p.stdin.close()
            self.p.stdin = None
        out, err = self.p.communicate(timeout=30)
        no_sanitizer_report(err, 'pi-stats on a live pipe')
        return self.p.returncode, (self.buf + out).decode(), err.decode()


# Window A on pCPU 0: adds of lengths 3 and 5 (unbounded), a wakeup of 500
# cycles; window B on pCPU 1: one add of length 7 spilled from pCPU 0.
LIVE_A = g.window(0, [g.pi_add(1000, 1, 0, 0, 0, 3, 0),
                      g.pi_add(1100, 1, 1, 0, 0, 5, 0),
                      g.pi_wakeup(1200, 2, 1, 500)])
LIVE_B = g.window(1, [g.pi_add(2000, 1, 2, 0, 1, 7, 0)])


def wait_caught(pid, sig):
    """Until process pid catches sig (its handler is installed), from
    /proc/PID/status SigCgt; a 20 s guard against a hang."""
    for _ in range(2000):
        with open('/proc/%d/status' % pid) as f:
            cgt = [ln for ln in f if ln.startswith('SigCgt:')]
        if cgt and int(cgt[0].split()[1], 16) >> (sig - 1) & 1:
            return
        time.sleep(0.01)
    raise Fail('pid %d never caught signal %d' % (pid, sig))


@test
def signal_prints_report_of_what_was_read():
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM):
        lv = Live(['--json', '--interval', '0.05'])
        lv.feed(LIVE_A)
        # the interval lines say when window A has been read
        lv.until(lambda ln: json.loads(ln)['records'] == 3)
        # half a window: header says 28 bytes of records, 12 arrive
        lv.feed(LIVE_B[:24])
        lv.until(lambda ln: True)           # one more tick: it was read
        rc, out, err = lv.finish(sig)
        eq(rc, EXIT_OK, '%s rc (stderr %s)' % (sig.name, err))
        last = json.loads(out.strip().splitlines()[-1])
        check('interval' not in last, 'the report comes last')
        # window A only: 2 adds {3, 5} (nearest-rank p50 = rank 1 = 3),
        # 1 wakeup of 500 cycles; B is a window cut short (its header
        # counts as a window, its record does not)
        eq((last['records'], last['windows']), (3, 2), sig.name + ' counts')
        ll = last['list_length']
        eq((ll['count'], ll['p50'], ll['max']), (2, 3, 5), 'list_length')
        eq(last['wakeup_cycles']['max'], 500, 'wakeup max')
        eq(last['truncated_windows'], 1, 'the half window is reported')
    # before any byte arrived (the first bytes are read to look for a
    # compression magic): the input ends empty, no hang
    p = subprocess.Popen([PI, '-'], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_caught(p.pid, signal.SIGINT)
    time.sleep(0.2)     # most likely in read() by now; either way it ends
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise Fail('SIGINT before any data: still reading after 20 s')
    err = p.stderr.read().decode()
    no_sanitizer_report(err, 'pi-stats interrupted before any data')
    eq(p.returncode, EXIT_NOT_TRACE, 'nothing read: an empty input')
    check('empty input' in err, 'says so')
    p.stdin.close()
    p.stdout.close()
    p.stderr.close()
    # in text, the report follows the interval lines
    lv = Live(['--interval', '0.05'])
    lv.feed(LIVE_A + LIVE_B)
    lv.until(lambda ln: ' 4 records' in ln)
    rc, out, err = lv.finish(signal.SIGINT)
    eq(rc, EXIT_OK, 'text rc')
    # A (92 bytes) and B (12 + 28)
    check('\n=== - ===\n  input      132 bytes' in '\n' + out,
          'text report after the lines: ' + out[:300])


@test
def interval_reports_on_a_slow_pipe():
    lv = Live(['--json', '--interval', '0.05'])
    lv.feed(LIVE_A)
    first = lv.until(lambda ln: json.loads(ln)['records'] == 3)
    lv.feed(LIVE_B)
    second = lv.until(lambda ln: json.loads(ln)['records'] == 4)
    rc, out, err = lv.finish()
    eq(rc, EXIT_OK, 'rc: ' + err)
    lines = first + second + out.strip().splitlines()
    objs = [json.loads(ln) for ln in lines]     # one object per line
    ticks = [o for o in objs if 'interval' in o]
    eq([o['interval'] for o in ticks], list(range(1, len(ticks) + 1)),
       'intervals numbered')
    check('interval' not in objs[-1], 'the final report comes last')
    # after A: adds {3, 5}: p50 3, p99 = rank ceil(.99*2) = 2 -> 5
    a = first[-1] and json.loads(first[-1])
    eq((a['list_add'], a['wakeup'], a['spilled_adds']), (2, 1, 0), 'A')
    eq(a['list_length'], {'count': 2, 'p50': 3, 'p99': 5, 'max': 5}, 'A ll')
    eq(a['wakeup_cycles'], {'count': 1, 'p50': 500, 'p99': 500, 'max': 500},
       'A wakeup')
    # this interval's own figures beside the totals (perf stat -I)
    eq(a['this_interval'], {
        'list_add': 2, 'wakeup': 1,
        'list_length': {'count': 2, 'p99': 5, 'max': 5, 'max_cpu': 0},
        'wakeup_cycles': {'count': 1, 'p99': 500, 'max': 500, 'max_cpu': 0}},
       'A interval')
    # after B: {3, 5, 7}: p50 = rank 2 = 5, p99 = rank 3 = 7; 1 spilled
    b = json.loads(second[-1])
    eq((b['list_add'], b['spilled_adds']), (3, 1), 'B')
    eq(b['list_length'], {'count': 3, 'p50': 5, 'p99': 7, 'max': 7}, 'B ll')
    eq(b['this_interval'], {
        'list_add': 1, 'wakeup': 0,
        'list_length': {'count': 1, 'p99': 7, 'max': 7, 'max_cpu': 1},
        'wakeup_cycles': {'count': 0, 'p99': None, 'max': None,
                          'max_cpu': None}}, 'B interval: its add only')
    eq([o['this_interval']['list_add'] for o in ticks],
       [o['list_add'] - p['list_add'] for o, p in
        zip(ticks, [{'list_add': 0}] + ticks)], 'interval adds add up')
    eq(objs[-1]['list_length']['count'], 3, 'final report')
    # text: one summary line per tick, then the report
    lv = Live(['--interval', '0.05'])
    lv.feed(LIVE_A)
    ln = lv.until(lambda ln: ' 3 records' in ln)[-1]
    # bytes: window header 12 + two adds 2 * (4 + 8 + 16) + wakeup 4+8+12
    check(re.match(r'\[\d+\.\d s\] -: interval 2 adds, 1 wakeups; '
                   r'list_length n 2 p99 5 max 5 \(pCPU 0\); wakeup cycles '
                   r'\(no clock\) n 1 p99 500 max 500 \(pCPU 0\) \| total '
                   r'92 bytes, 3 records, 2 adds \(0 spilled\), 1 wakeups; '
                   r'list_length n 2 p50 3 p99 5 max 5; wakeup cycles \(no '
                   r'clock\) n 1 p50 500 p99 500 max 500$', ln),
          'text line: ' + ln)
    rc, out, err = lv.finish()
    eq(rc, EXIT_OK, 'text rc')
    check('=== - ===' in out, 'report after the lines')
    for bad in ('0', '-1', 'x', '1e7', 'nan'):
        rc, out, err = run(['--interval', bad, '-'])
        eq(rc, EXIT_USAGE, '--interval %s rc' % bad)
        eq(len(err.strip().splitlines()), 1, 'one-line error: ' + err)
        check('--interval' in err, err)


# ------------------------------------------------------- --by, --top
def by_trace():
    """Adds and a move by three vCPUs of two domains, on pCPUs 0 and 1."""
    return (g.window(0, [g.pi_add(1000, 1, 0, 0, 0, 3, 0),   # d1v0 len 3
                         g.pi_add(1100, 2, 1, 0, 0, 5, 0),   # d2v1 len 5
                         g.pi_add(1200, 1, 1, 0, 1, 9, 0),   # d1v1 9 spill
                         g.old_block(1250, 3, 2, 0, 6)]) +   # d3v2 len 6
            g.window(1, [g.pi_move(1300, 2, 1, 0, 1, 4)]))   # d2v1 len 4


@test
def by_domain_and_vcpu():
    path = write('by.bin', by_trace())
    js, _ = run_json(['--by', 'domain', path])
    eq(js['by'], 'domain', 'by')
    dom = js['list_length']['per_domain']
    # d1: {3, 9}: p50 = rank 1 = 3, p90 = rank ceil(1.8) = 2 = 9, 1 spill
    # d2: {5, 4}: sorted {4, 5}: p50 4, max 5 (tsc 1100, the add)
    # d3: {6} from the legacy BLOCK_LIST (domid, vcpu in words 0 and 1)
    eq({k: (v['count'], v['p50'], v['p90'], v['max'], v['spilled'])
        for k, v in dom.items()},
       {'d1': (2, 3, 9, 9, 1), 'd2': (2, 4, 5, 5, 0), 'd3': (1, 6, 6, 6, 0)},
       'per_domain')
    eq(dom['d2']['max_tsc'], 1100, 'd2 max at the add')
    eq(sorted(js['list_length']['per_cpu']), ['0', '1'], 'per_cpu kept')
    js, _ = run_json(['--by', 'vcpu', path])
    eq({k: (v['count'], v['max'], v['spilled'])
        for k, v in js['list_length']['per_vcpu'].items()},
       {'d1v0': (1, 3, 0), 'd1v1': (1, 9, 1), 'd2v1': (2, 5, 0),
        'd3v2': (1, 6, 0)}, 'per_vcpu')
    js, _ = run_json([path])
    eq(js['by'], 'pcpu', 'default')
    check('per_domain' not in js['list_length'] and
          'per_vcpu' not in js['list_length'], 'no owner rows by default')
    # text: one row per domain with the spills, then all
    rc, out, err = run(['--by', 'domain', path])
    eq(rc, 0, 'text rc')
    lines = [ln.split()[:9] for ln in out.splitlines()
             if re.match(r' +(d\d|all) ', ln)]
    # columns: label n min p50 p90 p99 p99.9 max spilled (list_length);
    # the wakeup table has no rows (no wakeups)
    eq(lines[:4], [['d1', '2', '3', '3', '9', '9', '9', '9', '1'],
                   ['d3', '1', '6', '6', '6', '6', '6', '6', '0'],
                   ['d2', '2', '4', '4', '5', '5', '5', '5', '0'],
                   ['all', '5', '3', '5', '9', '9', '9', '9', '1']],
       'text rows (all: {3,4,5,6,9}, p50 rank 3 = 5)')
    check(re.search(r'^ +domain +n +min', out, re.M), 'domain header')
    # CSV: owner rows with a spilled row each
    for by, who in (('pcpu', "the list's pCPU"),
                    ('domain', 'the domain added or moved'),
                    ('vcpu', 'the vCPU added or moved')):
        rc, out, err = run(['--by', by, path])
        check('\n@list_length: blocking-list length after each add/move, by '
              '%s\n' % who in out, 'heading of --by %s: %s' % (by, out))
    rc, out, err = run(['--csv', '--by', 'vcpu', path])
    eq(rc, 0, 'csv rc')
    check('%s,list_length,d1v1,spilled,,,1,\n' % path in out, 'csv spilled')
    check('%s,list_length,d2v1,max,,,5,entries\n' % path in out, 'csv max')
    check('%s,list_length,d2v1,bucket,4,5,1,entries\n' % path in out,
          'csv bucket')
    for bad in ('cpu', '', 'Domain'):
        rc, out, err = run(['--by', bad, path])
        eq(rc, EXIT_USAGE, '--by %r' % bad)
        eq(len(err.strip().splitlines()), 1, 'one line: ' + err)


@test
def top_keeps_the_worst_rows():
    # pCPU: max list length 5 on cpu 0, 9 on cpu 1 (d1v1 spilled there),
    # 4 from the move too: cpu 1 {9, 4} is worst, then cpu 0 {3, 5, 6}
    path = write('by.bin', by_trace())
    rc, out, err = run(['--top', '1', path])
    eq(rc, 0, 'rc')
    sec = out[out.index('@list_length'):out.index('adds ')]
    labels = [ln.split()[0] for ln in sec.splitlines()
              if re.match(r' +(\d+|all) +\d', ln)]
    eq(labels, ['1', 'all'], '--top 1: worst pCPU then all')
    check('(1 more rows not shown: the 1 worst by max, then p99; --all '
          'shows every one)' in sec, 'says what was left out: ' + sec)
    # ties on max go to p99: d1v1 max 9; d2v1 {4,5} and d1v0 {3} and d3v2
    # {6}: by max 9, 6, 5, 3 -> the top 2 are d1v1, d3v2
    rc, out, err = run(['--by', 'vcpu', '--top', '2', path])
    labels = [ln.split()[0] for ln in out.splitlines()
              if re.match(r' +(d\d+v\d+|all) +\d', ln)]
    eq(labels, ['d1v1', 'd3v2', 'all'], 'vcpu top 2')
    check('(2 more rows not shown' in out, 'two left out')
    # a tie on max decided by p99: two pCPUs with max 8
    t = (g.window(0, [g.pi_add(10, 1, 0, 0, 0, 8, 0)] +
                  [g.pi_add(11 + i, 1, 0, 0, 0, 1, 0) for i in range(200)]) +
         g.window(1, [g.pi_add(10, 1, 0, 1, 1, 8, 0),
                      g.pi_add(11, 1, 0, 1, 1, 7, 0)]))
    # cpu 0: 201 samples, p99 = rank ceil(198.99) = 199 -> 1; cpu 1: {7, 8}
    # p99 = 8: cpu 1 is worse
    rc, out, err = run(['--top', '1', write('tie.bin', t)])
    labels = [ln.split()[0] for ln in out.splitlines()
              if re.match(r' +(\d+) +\d', ln)]
    eq(labels[0], '1', 'tie on max broken by p99')
    # JSON and CSV keep every row
    js, _ = run_json(['--top', '1', path])
    eq(sorted(js['list_length']['per_cpu']), ['0', '1'], 'json keeps all')
    rc, out, err = run(['--csv', '--top', '1', path])
    check(',list_length,0,count,' in out and ',list_length,1,count,' in out,
          'csv keeps all')
    # --top 2 of 2 pCPUs: both rows, worst first, and no "not shown" line
    rc, out, err = run(['--top', '2', path])
    eq(rc, 0, '--top 2 rc: ' + err)
    sec = out[out.index('@list_length'):out.index('adds ')]
    labels = [ln.split()[0] for ln in sec.splitlines()
              if re.match(r' +(\d+|all) +\d', ln)]
    eq(labels, ['1', '0', 'all'], '--top 2: every pCPU then all')
    check('not shown' not in sec, 'nothing left out when N >= rows: ' + sec)
    for bad in ('0', '-1', 'x', '1.5'):
        rc, out, err = run(['--top', bad, path])
        eq(rc, EXIT_USAGE, '--top %r' % bad)
        eq(len(err.strip().splitlines()), 1, 'one line: ' + err)


# ------------------------------------------------------- --compare
def compare_traces():
    """BEFORE: unbounded adds of lengths 1..4 and two wakeups; AFTER: a
    limit of 2, one spilled add, one over the limit, one wakeup."""
    before = g.window(0, [g.pi_add(100 + i, 1, i, 0, 0, i + 1, 0)
                          for i in range(4)] +
                      [g.pi_wakeup(200, 4, 1, 1000),
                       g.pi_wakeup(300, 2, 1, 3000)])
    after = g.window(0, [g.pi_add(100, 1, 0, 0, 0, 1, 2),
                         g.pi_add(101, 1, 1, 0, 0, 2, 2),
                         g.pi_add(102, 1, 2, 0, 1, 1, 2),   # spilled
                         g.pi_add(103, 1, 3, 0, 0, 3, 2),   # over limit
                         g.pi_wakeup(200, 1, 1, 500)])
    return write('before.bin', before), write('after.bin', after)


@test
def compare_before_after():
    b, a = compare_traces()
    js, _ = run_json(['--compare', b, a])
    eq(js['compare'], {'before': b, 'after': a}, 'names')
    ll = js['list_length']
    # before {1,2,3,4}: p50 = rank 2 = 2, p90 = rank ceil(3.6) = 4
    # after {1,1,2,3}: p50 = rank 2 = 1, p90 = rank 4 = 3
    eq(ll['before'], {'count': 4, 'p50': 2, 'p90': 4, 'p99': 4, 'p999': 4,
                      'max': 4}, 'before list_length')
    eq(ll['after'], {'count': 4, 'p50': 1, 'p90': 3, 'p99': 3, 'p999': 3,
                     'max': 3}, 'after list_length')
    eq(ll['ratio'], {'count': 1, 'p50': 0.5, 'p90': 0.75, 'p99': 0.75,
                     'p999': 0.75, 'max': 0.75}, 'list_length ratio')
    wc = js['wakeup_cycles']
    # before {1000, 3000}: p50 = rank 1 = 1000; after {500}
    eq((wc['before']['p50'], wc['before']['p90'], wc['after']['max']),
       (1000, 3000, 500), 'wakeup_cycles')
    eq((wc['ratio']['count'], wc['ratio']['p50'], wc['ratio']['max']),
       (0.5, 0.5, 0.166667), 'wakeup ratio (500/3000 to 6 digits)')
    eq(js['spilled_adds'], {'before': 0, 'after': 1, 'ratio': None},
       'spilled')
    eq(js['over_limit_adds'], {'before': 0, 'after': 1, 'ratio': None},
       'over limit')
    eq(js['list_add'], {'before': 4, 'after': 4, 'ratio': 1}, 'adds')
    # text: the same numbers
    rc, out, err = run(['--compare', b, a])
    eq(rc, 0, 'text rc')
    rows = [ln.split() for ln in out.splitlines()]
    check(['list_length', 'before', '4', '2', '4', '4', '4', '4'] in rows,
          out)
    check(['after', '4', '1', '3', '3', '3', '3'] in rows, out)
    check(['ratio', '1.000', '0.500', '0.750', '0.750', '0.750', '0.750']
          in rows, out)
    check(['spilled_adds', '0', '1', '-'] in rows, out)
    check(['over_limit_adds', '0', '1', '-'] in rows, out)
    # a side without samples: its statistics and the ratios are empty
    none = write('none.bin', g.window(0, [g.filler(5)]))
    js, _ = run_json(['--compare', none, a])
    eq(js['wakeup_cycles']['before'], {'count': 0, 'p50': None, 'p90': None,
                                       'p99': None, 'p999': None,
                                       'max': None}, 'empty side')
    eq(js['wakeup_cycles']['ratio']['p50'], None, 'no ratio')
    # usage
    for args in (['--compare', b], ['--compare', b, a, a],
                 ['--compare', '--csv', b, a]):
        rc, out, err = run(args)
        eq(rc, EXIT_USAGE, 'rc %r' % args)
        eq(len(err.strip().splitlines()), 1, 'one line: ' + err)
    rc, out, err = run(['--compare', b, os.path.join(WORK, 'missing')])
    eq(rc, EXIT_IO, 'missing AFTER')
    eq(out, '', 'no half report')


@test
def compare_list_time():
    """The time-weighted lengths of both sides' exact lists (each side's
    own list_time total) and their ratios; none where not available."""
    b = write('lt-before.bin', g.pi_sim(1, hotplug=150))
    a = write('lt-after.bin', g.pi_sim(2, hotplug=150))
    side = []
    for path in (b, a):
        t = run_json([path])[0]['list_time']['total']
        side.append({'lists': t['lists'], 'mean': t['mean'], 'p50': t['p50'],
                     'p99': t['p99'], 'max': t['max']})
    check(side[0] != side[1], 'the sides differ: %r' % side)
    js, _ = run_json(['--compare', b, a])
    lt = js['list_time']
    eq((lt['before'], lt['after']), tuple(side), 'both sides')
    for k, v in lt['ratio'].items():
        # the means are printed to 6 decimals, their ratio from the sums
        want = side[1][k] / side[0][k]
        check(abs(v - want) <= 1e-5 * want, 'ratio of %s: %r, want %r' % (
            k, v, want))
    rc, out, err = run(['--compare', b, a])
    eq(rc, 0, 'text rc: ' + err)
    rows = [ln.split() for ln in out.splitlines()]
    check(['before'] + ['%.3f' % side[0][k] if k == 'mean' else
                        str(side[0][k]) for k in
                        ('lists', 'mean', 'p50', 'p99', 'max')] in rows, out)
    check(['ratio'] + ['%.3f' % (side[1][k] / side[0][k]) for k in
                       ('lists', 'mean', 'p50', 'p99', 'max')] in rows, out)
    # a side without PI_LIST_DEL records: that side and the ratios empty
    js, _ = run_json(['--compare', b, real('rtds-8cpu.xentrace')])
    eq(js['list_time'], {'before': side[0], 'after': None,
                         'ratio': dict.fromkeys(('lists', 'mean', 'p50',
                                                 'p99', 'max'))},
       'after not available')
    rc, out, _ = run(['--compare', b, real('rtds-8cpu.xentrace')])
    check(['(exact', 'lists)', 'after', '-', '-', '-', '-', '-'] in
          [ln.split() for ln in out.splitlines()], out)


# ------------------------------------------------------- --since/--until
def range_trace():
    """pCPU 1's window first in the file (its first add, TSC 5000, is the
    base), then pCPU 0's, earlier in time, and a PI_LIST_ADD without TSC."""
    return (g.window(1, [g.pi_add(5000, 1, 0, 1, 1, 1, 0),
                         g.pi_add(7000, 1, 1, 1, 1, 2, 0),
                         g.pi_wakeup(9000, 1, 1, 100)]) +
            g.window(0, [g.pi_add(4000, 1, 2, 0, 0, 3, 0),
                         g.pi_add(6000, 1, 3, 0, 0, 4, 0),
                         g.pi_wakeup(8000, 1, 1, 200),
                         g.rec(g.PI_ADD, None, [1, 0, 9, 0])]))


@test
def since_until_time_ranges():
    path = write('range.bin', range_trace())
    # 1000 Hz: --since 1 --until 3.5 keeps base+1000 <= tsc < base+3500,
    # i.e. TSC 6000..8499: the adds at 7000 (len 2) and 6000 (len 4) and
    # the wakeup at 8000 (200 cycles); 5000, 9000, 4000 and the add
    # without TSC are outside (4)
    js, _ = run_json(['--tsc-hz', '1000', '--since', '1', '--until', '3.5',
                      path])
    eq(js['range'], {'since': '1', 'until': '3.5', 'unit': 's'}, 'range')
    eq(js['range_base_tsc'], 5000, 'base: first PI record with a TSC')
    eq(js['pi_events']['out_of_range'], 4, 'outside')
    eq((js['pi_events']['list_add'], js['pi_events']['wakeup']), (2, 1),
       'kept')
    eq((js['list_length']['min'], js['list_length']['max']), (2, 4), 'll')
    eq(js['wakeup_cycles']['max'], 200, 'wakeup')
    # only --until 1: rel < 1000 -> TSC < 6000, records before the base
    # count too (negative times): 5000 and 4000
    js, _ = run_json(['--tsc-hz', '1000', '--until', '1', path])
    eq(sorted(int(v) for v in js['list_length']['per_cpu']), [0, 1], 'cpus')
    eq((js['list_length']['count'], js['list_length']['max']), (2, 3),
       'until only: lengths {1, 3}')
    # without a clock, TSC values: [6000, 9000) keeps 7000, 6000, 8000
    js, _ = run_json(['--since', '6000', '--until', '9000', path])
    eq(js['range']['unit'], 'tsc', 'unit')
    eq(js['range_base_tsc'], None, 'no base for absolute values')
    eq((js['pi_events']['list_add'], js['pi_events']['wakeup'],
        js['pi_events']['out_of_range']), (2, 1, 4), 'tsc range')
    # --since 9000: only the wakeup at 9000 (100 cycles)
    js, _ = run_json(['--since', '9000', path])
    eq((js['list_length']['count'], js['wakeup_cycles']['max']), (0, 100),
       'since is inclusive')
    rc, out, err = run(['--tsc-hz', '1000', '--since', '1', path])
    check('  range      [1, end) s from the first PI record with a TSC '
          '(tsc 5000), 3 PI records outside\n' in out, out[:600])
    for args in (['--since', '-5'], ['--since', 'x'], ['--until', '1.5'],
                 ['--tsc-hz', '1000', '--since', '-1'],
                 ['--tsc-hz', '1000', '--until', 'soon'],
                 ['--since', '9000', '--until', '9000'],
                 ['--tsc-hz', '1000', '--since', '2', '--until', '1']):
        rc, out, err = run(args + [path])
        eq(rc, EXIT_USAGE, 'rc %r' % args)
        eq(len(err.strip().splitlines()), 1, 'one line: ' + err)
        check('--since' in err or '--until' in err, err)


@test
def filters_that_match_nothing_say_so():
    """One warning line each: --cpu ids not in the input, a range that
    keeps no PI record, a --since TSC (no clock) below every PI record;
    none for filters that match, none with -q."""
    pi = write('pi.bin', pi_trace())            # pCPUs 0, 1, 4000
    rng = write('range.bin', range_trace())     # PI TSCs 4000..9000
    for args, want in (
            (['--cpu', '0-2', pi], 'warning: --cpu 0-2: pCPUs 2 are not in '
             'this input'),
            (['--cpu', '5-9', pi], 'warning: --cpu 5-9: none of these pCPUs '
             'is in this input (it has 0-1,4000)'),
            (['--since', '9001', rng], 'warning: --since 9001 --until end '
             'keeps none of its PI records (TSC 4000 to 9000)'),
            (['--tsc-hz', '1000', '--since', '5', rng], 'warning: --since 5 '
             '--until end keeps none of its PI records (-1.000000 to '
             '4.000000 s from the first PI record with a TSC)'),
            (['--since', '5', rng], 'warning: --since 5 is a TSC value (no '
             'clock given), below every PI record\'s (TSC 4000 to '
             '9000): it cuts nothing; give --cpu-mhz or --tsc-hz for '
             'seconds')):
        rc, out, err = run(args)
        eq(rc, 0, 'rc %r' % args)
        eq(err, 'pi-stats: %s: %s\n' % (args[-1], want), 'stderr %r' % args)
        # -q: the same report, exit 0, and nothing on stderr (an empty
        # stderr alone would also be a run that printed nothing at all)
        report = out
        rc, out, err = run(['-q'] + args)
        eq((rc, err), (0, ''), '-q %r: rc and stderr' % args)
        eq(out, report, '-q %r: the report' % args)
    for args in (['--cpu', '0-1', pi], ['--since', '4001', rng],
                 ['--tsc-hz', '1000', '--since', '1', rng]):
        rc, out, err = run(args)
        eq((rc, err), (0, ''), 'a filter that matches: %r' % args)


# ------------------------------------------------ PI_LIST_DEL, list_time
@test
def pi_list_del_counted_and_checked():
    data = g.window(2, [
        g.pi_add(10, 1, 0, 2, 2, 1, 0),
        g.pi_del(20, 1, 0, 2, 0),
        g.pi_del(30, 1, 1, 3, 4),                 # list 3: --cpu leaves it
        g.rec(g.PI_DEL, 40, [1, 2]),              # too few words
        g.pi_del(50, 1, 0, 4096, 0),              # list pCPU > 4095
    ])
    path = write('del.bin', data)
    js, err = run_json([path])
    eq((js['pi_events']['list_del'], js['pi_events']['malformed']), (2, 2),
       'PI_LIST_DEL counted, malformed ones')
    check('byte 88: warning: malformed PI_LIST_DEL record: 2 extra words, '
          'needs 3\n' in err, err)
    check('byte 108: warning: malformed PI_LIST_DEL record: list pCPU 4096, '
          'ids go up to 4095\n' in err, err)
    js, _ = run_json(['--cpu', '2', path])
    eq((js['pi_events']['list_del'], js['pi_events']['filtered_out']),
       (1, 1), '--cpu applies to the list of a PI_LIST_DEL')
    rc, out, _ = run([path])
    check('1 PI_LIST_ADD, 0 PI_WAKEUP (0 vCPUs woken), 0 PI_LIST_MOVE, '
          '2 PI_LIST_DEL;' in out, out[:900])
    rc, out, _ = run(['--csv', path])
    check(',trace,all,list_del,,,2,\n' in out, out)


def lt_figures(at):
    """Mean, p50, p99, max of {length: cycles}, as pi-stats defines them
    (nearest rank over the cycles)."""
    dur = sum(at.values())
    cum, p50, p99 = 0, None, None
    for k in sorted(at):
        cum += at[k]
        if p50 is None and cum * 100 >= 50 * dur:
            p50 = k
        if p99 is None and cum * 100 >= 99 * dur:
            p99 = k
    return sum(k * v for k, v in at.items()) / dur, p50, p99, max(at)


def lt_check(js, data, what, cpus=None, lo=0, hi=1 << 64, exact_all=False):
    """Every list pi-stats reports exact equals the replay; the others are
    exactly the lists the replay says a move away straddles.  Returns the
    number of exact lists with moves away."""
    lt = js['list_time']
    start, end, ref = g.replay_list_time(data, cpus, lo, hi)
    check(lt['available'], '%s: not available: %s' % (what, lt['reason']))
    eq((lt['start_tsc'], lt['end_tsc']), (start, end), what + ': window')
    eq(sorted(int(c) for c in lt['lists']), sorted(ref), what + ': lists')
    straddled = set() if exact_all else g.straddled_lists(data)
    moved, total = 0, {}
    for c, want in sorted(ref.items()):
        got = lt['lists'][str(c)]
        if c in straddled:
            eq((got['exact'], got['reasons']), (False, [
                'a move away from the list read after its changes on both '
                'sides']), '%s: list %d' % (what, c))
            continue
        check(got['exact'], '%s: list %d not exact: %s' % (what, c,
                                                             got['reasons']))
        at = {int(k): v for k, v in got['time_at_length'].items()}
        eq(sum(at.values()), end - start, '%s: list %d adds up to the '
           'duration' % (what, c))
        eq(got['duration_cycles'], end - start, what + ': duration')
        eq(at, want, '%s: list %d time at each length' % (what, c))
        mean, p50, p99, mx = lt_figures(at)
        check(abs(got['mean'] - mean) < 1e-6 * max(1, mean),
              '%s: mean %r, want %r' % (what, got['mean'], mean))
        eq((got['p50'], got['p99'], got['max']), (p50, p99, mx),
           what + ': p50, p99, max')
        moved += got['moves_away'] > 0
        for k, v in at.items():
            total[k] = total.get(k, 0) + v
    if total:
        eq({int(k): v for k, v in lt['total']['time_at_length'].items()},
           total, what + ': the total of the exact lists')
    return moved


@test
def list_time_equals_independent_replay():
    moved = 0
    for seed in (1, 2, 3):
        # windows of a slice shuffled: out of TSC order, no straddle
        data = g.pi_sim(seed, hotplug=150)
        path = write('lt-%d.bin' % seed, data)
        js, _ = run_json([path])
        moved += lt_check(js, data, 'seed %d' % seed, exact_all=True)
        # the same written by a big-endian host
        jb, _ = run_json([write('lt-%d-be.bin' % seed, g.swap_words(data))])
        eq(jb['list_time'], js['list_time'], 'big-endian input')
        # windows flushed anywhere: some moves away straddled
        for fl in (5, 40):
            data = g.pi_sim(seed, hotplug=150, flush=fl)
            js, _ = run_json([write('lt-%d-%d.bin' % (seed, fl), data)])
            moved += lt_check(js, data, 'seed %d flush %d' % (seed, fl))
    check(moved >= 5, 'exact lists with moves away: %d' % moved)


@test
def list_time_of_genpi_del_traces():
    # bench/genpi --del: consistent lengths, one clock, windows in order
    for ncpu in (1, 8):
        path = genpi('genpi-del-%d.bin' % ncpu, 2, ncpu, ['--del'])
        with open(path, 'rb') as f:
            data = f.read()
        js, _ = run_json([path])
        check(js['pi_events']['list_del'] > 1000, 'PI_LIST_DEL records')
        moved = lt_check(js, data, 'genpi --del %d pCPUs' % ncpu,
                         exact_all=True)
        check(ncpu == 1 or moved > 0, 'moves away: %d lists' % moved)


@test
def list_time_cpu_filter_range_and_merge():
    data = g.pi_sim(4, hotplug=150)
    path = write('lt-f.bin', data)
    js, _ = run_json(['--cpu', '1,3-4', path])
    lt_check(js, data, '--cpu', cpus={1, 3, 4}, exact_all=True)
    # --since/--until (TSC): the changes inside, over the window cut to it
    tscs = sorted(t for _, _, _, t, _ in g.walk(data) if t is not None)
    lo, hi = tscs[len(tscs) // 3], tscs[2 * len(tscs) // 3] + 1
    js, _ = run_json(['--since', str(lo), '--until', str(hi), path])
    lt_check(js, data, 'range', lo=lo, hi=hi, exact_all=True)
    # with a clock: seconds from the first PI record (a filler is first)
    base = next(t for _, _, ev, t, _ in g.walk(data)
                if ev in (g.PI_ADD, g.PI_WAKEUP, g.PI_MOVE, g.PI_DEL))
    js, _ = run_json(['--tsc-hz', '1000000', '--since', '0.5', '--until',
                      '1.25', path])
    lt_check(js, data, 'relative range', lo=base + 500000, hi=base + 1250000,
             exact_all=True)
    # two inputs: per list, the sums and durations add up
    other = g.pi_sim(5, hotplug=150)
    js, _ = run_json([path, write('lt-g.bin', other)])
    (s1, e1, r1), (s2, e2, r2) = (g.replay_list_time(data),
                                  g.replay_list_time(other))
    lt = js['list_time']
    eq((lt['available'], lt['start_tsc']), (True, None), 'merged')
    for c in set(r1) | set(r2):
        want = dict(r1.get(c, {}))
        for k, v in r2.get(c, {}).items():
            want[k] = want.get(k, 0) + v
        got = lt['lists'][str(c)]
        eq({int(k): v for k, v in got['time_at_length'].items()}, want,
           'merged list %d' % c)
        eq(got['duration_cycles'], (e1 - s1) * (c in r1) +
           (e2 - s2) * (c in r2), 'merged duration %d' % c)
    rc, out, _ = run([path, write('lt-g.bin', other)])
    check('each list over the inputs where its length changed' in out, out)


def lt_csv(out, path):
    """The list_time rows of a CSV report of path: {cpu: {kind: value}},
    time_at rows as {length: value} under 'time_at', and the units."""
    lists, units = {}, set()
    for r in csv.reader(io.StringIO(out)):
        if r[:2] != [path, 'list_time']:
            continue
        row = lists.setdefault(r[2], {})
        if r[3] == 'time_at':
            eq(int(r[5]), int(r[4]) + 1, 'time_at: high is the next length')
            row.setdefault('time_at', {})[int(r[4])] = r[6]
        else:
            row[r[3]] = r[6]
        units.add((r[3], r[7]))
    return lists, units


@test
def list_time_csv_equals_json():
    # lists exact and not (moves away straddled), with and without a clock
    data = g.pi_sim(2, hotplug=150, flush=5)
    path = write('lt-csv.bin', data)
    js, _ = run_json([path])
    lt = js['list_time']
    check(not all(l['exact'] for l in lt['lists'].values()), 'a list '
          'not exact')
    for hz in (None, 1e9):
        clock = ['--tsc-hz', '%.0f' % hz] if hz else []
        tm = (lambda c: '%.3f' % (c / hz * 1e6)) if hz else str
        rc, out, err = run(['--csv'] + clock + [path])
        eq(rc, 0, 'csv: ' + err)
        got, units = lt_csv(out, path)
        eq(got.pop('all').get('available'), '1', 'available')
        want_all = lt['total']
        for c, l in lt['lists'].items():
            row = got.pop(c)
            eq((row['exact'], row['changes'], row['moves_away'],
                row['duration']),
               ('1' if l['exact'] else '0', str(l['changes']),
                str(l['moves_away']), tm(l['duration_cycles'])),
               'list %s' % c)
            if not l['exact']:
                eq(sorted(row), ['changes', 'duration', 'exact',
                                 'moves_away'], 'list %s: no figures' % c)
                continue
            at = {int(k): v for k, v in l['time_at_length'].items()}
            eq(row['time_at'], {k: tm(v) for k, v in at.items()},
               'list %s: time at each length' % c)
            eq((float(row['mean']), row['p50'], row['p99'], row['max'],
                row['at_max']),
               (round(l['mean'], 6), str(l['p50']), str(l['p99']),
                str(l['max']), tm(at[l['max']])), 'list %s figures' % c)
        eq(got, {}, 'no other lists')
        rc, out, _ = run(['--csv'] + clock + [path])
        total = lt_csv(out, path)[0]['all']
        eq((total['lists'], total['duration'], total['max']),
           (str(want_all['lists']), tm(want_all['duration_cycles']),
            str(want_all['max'])), 'total')
        eq(total['time_at'], {int(k): tm(v) for k, v in
                              want_all['time_at_length'].items()},
           'total: time at each length')
        unit = 'us' if hz else 'cycles'
        eq({u for k, u in units if k in ('duration', 'at_max', 'time_at')},
           {unit}, 'time unit')
        eq({u for k, u in units if k in ('mean', 'p50', 'p99', 'max')},
           {'entries'}, 'length unit')
    rc, out, _ = run(['--csv', real('rtds-8cpu.xentrace')])
    eq(lt_csv(out, real('rtds-8cpu.xentrace'))[0],
       {'all': {'available': '0'}}, 'not available: one row')


@test
def list_time_text_report():
    data = g.pi_sim(1, hotplug=150)
    path = write('lt-t.bin', data)
    js, _ = run_json([path])
    rc, out, err = run([path])
    eq((rc, err), (0, ''), 'rc')
    lt = js['list_time']
    check('@list_time: time at each blocking-list length (time-weighted, '
          'exact), by the list\'s pCPU\n  window     tsc %d..%d (%d cycles)'
          % (lt['start_tsc'], lt['end_tsc'], lt['end_tsc'] - lt['start_tsc'])
          in out, out)
    for c, l in lt['lists'].items():
        at = {int(k): v for k, v in l['time_at_length'].items()}
        line = '  %5s %10.3f %8d %8d %8d %8.3f%% %18d\n' % (
            c, l['mean'], l['p50'], l['p99'], l['max'],
            100.0 * at[l['max']] / l['duration_cycles'],
            l['duration_cycles'])
        check(line in out, 'row %r not in\n%s' % (line, out))
    lg = re.search(r'  longest    (\d+) on pCPU (\d+) \(d1v(\d+) added or '
                   r'moved onto it\) at tsc (\d+), byte (\d+)\n', out)
    check(lg, out)
    ll = js['list_length']
    eq((int(lg.group(1)), int(lg.group(4)), int(lg.group(5))),
       (ll['max'], ll['max_tsc'], ll['max_offset']), 'longest')
    tot = lt['total']
    check('  all %d exact lists, %d cycles (no clock) of list time:\n'
          % (tot['lists'], tot['duration_cycles']) in out, out)
    for k, v in tot['time_at_length'].items():
        check(re.search(r'\n  \[%s\] +%8.3f%% \|@+ *\|\n' % (
            k, 100.0 * v / tot['duration_cycles']), out), 'total row %s' % k)


@test
def list_time_many_lists_worst_rows():
    data = g.pi_sim(6, ncpu=20, nevents=2000, hotplug=0)
    path = write('lt-many.bin', data)
    js, _ = run_json([path])
    lists = js['list_time']['lists']
    eq(len(lists), 20, 'lists')
    worst = sorted(lists, key=lambda c: (-lists[c]['mean'],
                                         -lists[c]['max'], int(c)))
    for args, n in (([], 8), (['--top', '3'], 3), (['--all'], 20)):
        rc, out, _ = run(args + [path])
        sec = out[out.index('@list_time'):out.index('  longest ')]
        rows = re.findall(r'^ +(\d+) +\d+\.\d{3} ', sec, re.M)
        eq(rows, sorted(worst[:n], key=int), '%r: the worst by mean, in '
           'pCPU order' % args)
        more = '  (%d more lists not shown: the %d worst by mean length; ' \
            '--all shows every one)\n' % (20 - n, n)
        eq(more in sec, n < 20, '%r: the note' % args)


@test
def list_time_moves_away_capped():
    # 4097 moves away from list 0: more than are kept
    n = 4097
    recs = [g.pi_add(10 + i, 1, i, 0, 0, i + 1, 0) for i in range(n)]
    recs += [g.pi_move(100000 + i, 1, i, 0, 1, i + 1) for i in range(n)]
    recs.append(g.pi_del(200000, 1, 0, 1, n - 1))
    js, _ = run_json([write('lt-cap.bin', g.window(0, recs))])
    lt = js['list_time']['lists']
    eq((lt['0']['exact'], lt['0']['reasons']), (False, [
        'more than 4096 moves away from the list']), 'list 0')
    eq(lt['1']['exact'], True, 'list 1')


@test
def list_time_not_available_without_del_or_with_lost():
    want = 'the trace has no PI_LIST_DEL records'
    for path in (real('rtds-8cpu.xentrace'), real('credit2-hvm-8cpu.xentrace'),
                 write('pi.bin', pi_trace())):
        rc, out, _ = run([path])
        eq(rc, 0, path)
        check('\n  time at each list length: not available (%s)\n' % want
              in out, out[-1500:])
        check('@list_time' not in out, path)
        js, _ = run_json([path])
        eq(js['list_time'], {'available': False, 'reason': want,
                             'lists': None, 'total': None}, path)
    data = g.pi_sim(1, nevents=400, hotplug=0)
    js, _ = run_json(['--since', '1', '--until', '2', write('ltr.bin', data)])
    eq(js['list_time']['reason'], want + ' in --since/--until', 'range')
    lost = data + g.window(0, [g.lost(10 ** 12, 17)])
    js, _ = run_json([write('lt-lost.bin', lost)])
    eq((js['list_time']['available'], js['list_time']['reason']),
       (False, 'records were lost: 17 in 1 TRC_LOST_RECORDS markers'),
       'lost records')
    rc, out, _ = run([write('lt-lost.bin', lost)])
    check('time at each list length: not available (records were lost: 17 '
          'in 1 TRC_LOST_RECORDS markers)' in out, out)


@test
def list_time_inconsistent_lists_not_printed():
    # list 0: 0 -> 1 at 100, 2 -> 3 at 150 (a change missing), 1 -> 0 at
    # 200: time at 3 comes out negative; list 1 is fine
    data = g.window(0, [g.pi_add(100, 1, 0, 0, 0, 1, 0),
                        g.pi_add(150, 1, 1, 0, 0, 3, 0),
                        g.pi_del(200, 1, 0, 0, 0),
                        g.pi_add(210, 1, 2, 1, 1, 1, 0)])
    path = write('lt-bad.bin', data)
    js, _ = run_json([path])
    l0, l1 = js['list_time']['lists']['0'], js['list_time']['lists']['1']
    eq((l0['exact'], l0['reasons'], l0['time_at_length']),
       (False, ['records out of order or missing'], None), 'list 0')
    eq((l1['exact'], l1['time_at_length']), (True, {'0': 110}), 'list 1')
    eq(js['list_time']['total']['lists'], 1, 'the total leaves list 0 out')
    rc, out, _ = run([path])
    check('      0  not exact: records out of order or missing\n' in out, out)
    # more woken than walked; a length of 2^20
    data = g.window(0, [g.pi_wakeup(100, 1, 2, 10),
                        g.pi_add(200, 1, 0, 1, 1, 1 << 20, 0),
                        g.pi_del(300, 1, 0, 2, 0)])
    js, _ = run_json([write('lt-bad2.bin', data)])
    for c in '01':
        eq(js['list_time']['lists'][c]['reasons'], [
            'a length out of range (malformed record, or more woken than '
            'walked)'], 'list ' + c)
    eq(js['list_time']['lists']['2']['exact'], True, 'list 2')


@test
def list_time_moves_away_only_or_unresolved():
    # list 5 only ever loses vCPUs by moves: nothing to anchor them
    data = g.window(0, [g.pi_move(100, 1, 0, 5, 6, 1),
                        g.pi_move(110, 1, 1, 5, 6, 2),
                        g.pi_del(120, 1, 0, 6, 1)])
    js, _ = run_json([write('lt-mv.bin', data)])
    lt = js['list_time']['lists']
    eq(lt['5']['reasons'], ['a move away from the list with no change of it '
                            'before or after'], 'list 5')
    eq(lt['6']['time_at_length'], {'1': 10, '2': 10}, 'list 6')
    # the change after the moves says 1 before, so 3 before the first; the
    # change before says 4 after it: they disagree
    data = g.window(0, [g.pi_add(50, 1, 9, 5, 5, 4, 0),
                        g.pi_move(100, 1, 0, 5, 6, 1),
                        g.pi_move(110, 1, 1, 5, 6, 2),
                        g.pi_del(120, 1, 2, 5, 0)])
    js, _ = run_json([write('lt-mv2.bin', data)])
    eq(js['list_time']['lists']['5']['reasons'], [
        'the changes before and after a move away disagree'], 'disagree')


def main():
    try:
        build()
    except Exception as e:                 # noqa: BLE001
        print('1..1\nnot ok 1 - build\n# %s' % e)
        return 1
    print('1..%d' % len(TESTS))
    failed = 0
    for i, t in enumerate(TESTS, 1):
        name = t.__name__
        t0 = time.time()
        try:
            t()
            print('ok %d - %s # %.1fs' % (i, name, time.time() - t0))
        except Fail as e:
            failed += 1
            print('not ok %d - %s' % (i, name))
            for line in str(e).splitlines()[:40]:
                print('# ' + line)
        except Exception:                  # noqa: BLE001
            failed += 1
            print('not ok %d - %s' % (i, name))
            for line in traceback.format_exc().splitlines()[-20:]:
                print('# ' + line)
        sys.stdout.flush()
    if not failed:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
