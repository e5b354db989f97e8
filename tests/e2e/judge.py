"""The boot test's verdicts: each case kind's judge (JUDGES: topo and the
PVH rule's, bad, move, domctl, trace) on the results of its boots, a
failed boot's evidence kept as OUT/CASE.bootK.*, and one verdict line per
selected case (verdicts)."""
import json
import os
import re
import shutil
import subprocess

from common import MOVES, TOP, emit, log, read, run, sha256, write
import cpuid_check
from pvh import pvh_state, rule
from signatures import first_diff, first_error, no_topology, topo_outcome
import xtcount


def case_boots(case, boots):
    """The finished boots that ran CASE, in start order, up to the first
    one still running."""
    out = []
    for b in boots:
        if case['name'] not in b['cases']:
            continue
        if 'secs' not in b:
            break
        out.append(b)
    return out


def keep_attempt(conf, c, k, bid, why):
    """A failed boot's evidence as OUT/CASE.bootK.*."""
    out, d = conf['out'], os.path.join(conf['out'], 'out-' + bid)
    p = os.path.join(out, '%s.boot%d' % (c, k))
    for src, suffix in ((os.path.join(d, c + '.console'), '.console'),
                        (os.path.join(out, 'serial-%s.log' % bid), '.serial.log'),
                        (os.path.join(d, 'xl-dmesg.txt'), '.xl-dmesg.txt'),
                        (os.path.join(d, c + '.hang.txt'), '.hang.txt')):
        text = read(src)
        if text is not None:
            write(p + suffix, text.replace('\r', ''))
    write(p + '.why', why + '\n')


def judge_pvh(conf, case, boots):
    cases, run = pvh_state(conf, conf['sel'], boots)
    st, c = cases[case['name']], case['name']
    for k, bid, why in st['why']:
        keep_attempt(conf, c, k, bid, why)
    tally = '%d runs, %d TCG deaths; all PVH: %d of %d runs died, LLR %.2f, %s' % (
        st['runs'], st['deaths'], run['deaths'], run['runs'], run['llr'], rule(conf))
    if st['state'] == 'pass':
        return True, '%s; %s' % (st['detail'], tally)
    if st['reason']:
        k, bid = st['last']
        keep_attempt(conf, c, k, bid, st['reason'])
        return False, '%s (run %d, %s: not a TCG death)' % (st['reason'], k, tally)
    if st['state'] == 'fail' and not st['ok'] and st['deaths'] >= conf['sprt']['m']:
        return False, 'no run printed its topology: %s; last: %s' % (tally, st['why'][-1][2])
    if st['state'] == 'fail':
        return False, 'PVH guests died too often: %s' % tally
    return False, 'undecided after %s' % tally


def judge_topo(conf, case, boots):
    if case['group'] == 'pvh':
        return judge_pvh(conf, case, boots)
    b = case_boots(case, boots)[-1]
    kind, text = topo_outcome(conf, case, b)
    if kind != 'ok':
        keep_attempt(conf, case['name'], 1, b['id'], text)
    return kind == 'ok', text


def boot_of(case, boots):
    return case_boots(case, boots)[-1]


def created(conf, case, boots):
    """The case's last boot: (results dir, xl create's exit status, stripped,
    or None when dom0 stopped before it, its output) and the boot."""
    b = boot_of(case, boots)
    d = os.path.join(conf['out'], 'out-' + b['id'])
    rc = read(os.path.join(d, case['name'] + '.create.rc'))
    txt = read(os.path.join(d, case['name'] + '.create.txt'), '')
    return d, None if rc is None else rc.strip(), txt, b


def not_run(b):
    """The verdict on a case whose boot ended before it."""
    return False, b['error'] or 'not run (dom0 stopped before it)'


def judge_bad(conf, case, boots):
    c = case['name']
    d, rc, txt, b = created(conf, case, boots)
    if rc is None:
        return not_run(b)
    lst = read(os.path.join(d, c + '.xl-list.txt'), '')
    write(os.path.join(conf['out'], c + '.log'), '# xl create /e2e/cases/%s.cfg: exit %s\n%s# xl list afterwards\n%s'
          % (c, rc, txt, lst))
    others = [l for l in lst.splitlines() if not re.match(r'(Name|Domain-0) ', l)]
    hit = re.search('.*(' + case['expect'] + ').*', txt, re.I)
    if rc == '0':
        return False, 'xl create accepted the configuration (domain created)'
    if any(l.startswith(c + ' ') for l in lst.splitlines()):
        return False, 'xl create failed but left domain %s behind' % c
    if others:
        return False, 'a domain other than Domain-0 exists after the refusal: ' + others[0]
    if not hit:
        return False, 'refused (rc %s) without the expected message /%s/: %s' % (rc, case['expect'], first_error(txt))
    return True, 'refused: ' + re.sub(r'^.*(cpu_topology)', r'\1', hit.group(0))[:110]


def rounds(console):
    """The topology the guest reported at boot (round 0) and at each round
    dom0 typed: {round: text}."""
    out = {}
    m = re.search(r'^E2E-GUEST-BEGIN$(.*?)^E2E-GUEST-END$', console, re.M | re.S)
    if m:
        out[0] = m.group(1)
    for m in re.finditer(r'^E2E-ROUND-BEGIN (\d+) \w+$(.*?)^E2E-ROUND-END \1$', console, re.M | re.S):
        out[int(m.group(1))] = m.group(2)
    return out


def judge_move(conf, case, boots):
    """Every round shows the topology and CPUID of the layout, as at boot,
    and Xen holds the vNUMA layout it held at boot."""
    c, out = case['name'], conf['out']
    d, rc, txt, b = created(conf, case, boots)
    if rc is None:
        return not_run(b)
    if rc != '0':
        return False, 'xl create exited %s: %s' % (rc, first_error(txt))
    console = (read(os.path.join(d, c + '.console')) or '').replace('\r', '')
    write(os.path.join(out, c + '.console'), console)
    got = rounds(console)
    steps = case.get('steps', MOVES)
    full = case['expect'].splitlines()
    # a guest started with fewer vCPUs than maxvcpus shows the first ones
    # alone until xl vcpu-set brings the others up
    up = next((int(l.split('=')[1]) for l in case['cfg'] if l.startswith('vcpus')), len(full))
    wf = os.path.join(out, c + '.cpuid-want')
    hotplugged = False
    for n, step in enumerate(('boot',) + steps):
        if n == 0 or step == 'vcpuset':
            k = len(full) if step == 'vcpuset' else up
            want = online_only(full, k)
            write(wf, ''.join(l + '\n' for l in of_vcpus(case['cpuid'].splitlines(), k)))
        if step != 'boot':
            src = (read(os.path.join(d, '%s.%s.rc' % (c, step))) or '').strip()
            if src != '0':
                return False, '%s: %s' % (step, 'not run (%s)' % no_topology(d, c, console) if not src else
                                          'exit %s: %s' % (src, first_error(read(os.path.join(d, '%s.%s.txt' % (c, step)), ''))))
        if n not in got:
            return False, 'no topology after %s: %s' % (step, no_topology(d, c, console))
        vn = read(os.path.join(d, '%s.vnuma.%d' % (c, n)))
        if vn is None:
            return False, "after %s, Xen's vNUMA layout was not recorded" % step
        if n == 0:
            vnuma0 = vn
            if any(l.startswith('vnuma') for l in case['cfg']) and 'vnodes' not in vn:
                return False, 'Xen holds no vNUMA layout for the guest at boot'
        elif vn != vnuma0:
            return False, "after %s, Xen's vNUMA layout differs (< boot, > now): %s" % (
                step, first_diff(vnuma0.splitlines(), vn.splitlines()))
        # (a vCPU that is not up has no topology)
        lines = [l for l in got[n].splitlines() if re.match(r'cpu\d+ package=\d', l)]
        if step in ('cycle', 'vcpuset') and case['type'] == 'pv':
            hotplugged = True
        if hotplugged:
            # Linux 6.1 PV guests put a vCPU brought online after boot into
            # every package's last level cache map (its CPUID unchanged)
            lines, want = [re.sub(r' l3=\S+', '', l) for l in lines], [re.sub(r' l3=\S+', '', l) for l in want]
        if lines != want:
            return False, 'after %s, topology differs (< want, > got): %s' % (step, first_diff(want, lines))
        rf = os.path.join(out, '%s.round%d' % (c, n))
        write(rf, got[n])
        rc, line = cpuid_check.check(rf, wf, rf + '.cpuid')
        if rc:
            return False, 'after %s, CPUID: %s' % (step, line)
    secs = (read(os.path.join(d, c + '.secs')) or '?').strip()
    return True, '%d CPUs, the same topology and CPUID at boot and after %s, %s s' % (
        len(full), ', '.join(steps), secs)


def cpulist(s):
    """A Linux CPU list ('0-2,4') as a set."""
    out = set()
    for part in filter(None, s.split(',')):
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out


def cpulist_str(cpus):
    """A set of CPUs as Linux writes its lists."""
    out, cpus = [], sorted(cpus)
    while cpus:
        a = b = cpus.pop(0)
        while cpus and cpus[0] == b + 1:
            b = cpus.pop(0)
        out.append('%d' % a if a == b else '%d-%d' % (a, b))
    return ','.join(out)


def of_vcpus(lines, up):
    """The lines about vCPUs 0 to UP-1 ('cpuN ...'), and those about none."""
    return [l for l in lines
            if not re.match(r'cpu(\d+)', l) or int(re.match(r'cpu(\d+)', l).group(1)) < up]


def online_only(lines, up):
    """The sysfs lines of vCPUs 0 to UP-1, their sibling and cache lists cut
    to those vCPUs, as a guest with only them up shows them."""
    out = []
    for l in of_vcpus(lines, up):
        out.append(re.sub(r'(core_siblings|l3)=([\d,-]+)',
                          lambda m: '%s=%s' % (m.group(1), cpulist_str(cpulist(m.group(2)) & set(range(up)))), l))
    return out


def judge_domctl(conf, case, boots):
    c = case['name']
    d, rc, txt, b = created(conf, case, boots)
    if rc is None:
        return not_run(b)
    got = read(os.path.join(d, c + '.steps.txt'), '')
    write(os.path.join(conf['out'], c + '.log'), '# xl create -p: exit %s\n%s# apic-ids steps\n%s' % (rc, txt, got))
    if rc != '0':
        return False, 'xl create -p exited %s: %s' % (rc, first_error(txt))
    if got.strip() == case['expect'].strip():
        return True, ', '.join(l.split(': ', 1)[1] for l in got.strip().splitlines())
    return False, 'Xen answered otherwise (< want, > got): ' + first_diff(
        case['expect'].strip().splitlines(), got.strip().splitlines())


def live_vs_file(d, whole):
    """The live pi-stats in dom0 exited 0, printed interval reports, and its
    final report equals the file's but for the input's name."""
    rc = (read(os.path.join(d, 'trace.live.rc')) or '?').strip()
    if rc != '0':
        err = (read(os.path.join(d, 'trace.live.stderr')) or '').strip().splitlines()
        return False, 'exited %s: %s' % (rc, err[-1] if err else '')
    lines = (read(os.path.join(d, 'trace.live.json')) or '').splitlines()
    if not lines:
        return False, 'no output'
    try:
        objs = [json.loads(l) for l in lines]
    except ValueError as e:
        return False, 'output is not one JSON object per line: %s' % e
    live, interval = objs[-1], objs[:-1]
    if not interval or any('interval' not in o for o in interval):
        return False, '%d interval reports before the final one' % len(interval)
    for o in (live, whole):
        for i in o.get('inputs', []):
            i.pop('name', None)
    if live != whole:
        diff = [k for k in sorted(set(live) | set(whole)) if live.get(k) != whole.get(k)]
        return False, "final report differs from the file's in: " + ' '.join(diff)
    return True, 'live pi-stats = file (%d interval reports, %d records)' % (len(interval), live['records'])


def trace_tools(conf, tr):
    """pi-stats, xenalyze --summary and xentrace_format on the copy: their
    outputs in OUT/trace.*, and the first failure, if any."""
    out, ps = conf['out'], conf['pi_stats']
    mk = run(['make', '-s', '-C', os.path.join(TOP, 'tools/pi-stats')])
    if mk.returncode or not os.access(ps, os.X_OK):
        return 'pi-stats does not build: ' + (mk.stderr.strip().splitlines() or [''])[-1]
    r = run([ps, tr])
    write(os.path.join(out, 'trace.pi-stats.txt'), r.stdout + r.stderr)
    if r.returncode:
        return 'pi-stats exited %d' % r.returncode
    r = run([ps, '--json', tr])
    write(os.path.join(out, 'trace.pi-stats.json'), r.stdout)
    if r.returncode:
        return 'pi-stats --json exited %d' % r.returncode
    r = run([os.path.join(conf['inst'], 'usr/bin/xenalyze'), '--summary', tr], timeout=300)
    write(os.path.join(out, 'trace.xenalyze.txt'), r.stdout + r.stderr)
    if r.returncode:
        return 'xenalyze --summary exited %d' % r.returncode
    fmt_txt = os.path.join(out, 'trace.xentrace_format.txt')
    if os.path.exists(fmt_txt):
        os.remove(fmt_txt)
    if not os.path.exists(os.path.join(conf['inst'], 'usr/bin/xentrace_format')):
        return ''       # Xen 4.19 removed it
    with open(tr, 'rb') as f:
        r = subprocess.run(['/usr/bin/python3', os.path.join(conf['inst'], 'usr/bin/xentrace_format'),
                            os.path.join(conf['tree'], 'tools/xentrace/formats')],
                           stdin=f, capture_output=True, timeout=300)
    write(fmt_txt, r.stdout.decode(errors='replace'))
    if r.returncode:
        return 'xentrace_format exited %d: %s' % (r.returncode, r.stderr.decode(errors='replace').strip()[-100:])
    return ''


def judge_trace(conf, case, boots):
    """The trace came out whole; pi-stats, xenalyze, xentrace_format and the
    independent decoder read it and agree; the live report equals the file's."""
    b = boot_of(case, boots)
    out, d = conf['out'], os.path.join(conf['out'], 'out-' + b['id'])
    tr = os.path.join(out, 'trace.xentrace')
    rc = read(os.path.join(d, 'trace.rc'))
    if rc is None:
        return False, b['error'] or 'xentrace did not run (dom0 stopped before it)'
    if rc.strip() != '0':
        err = [l for l in (read(os.path.join(d, 'trace.stderr')) or '').splitlines()
               if not l.startswith('change evtmask')]
        return False, 'xentrace exited %s: %s' % (rc.strip(), ' '.join(err))
    src = os.path.join(d, 'trace.xentrace')
    if not os.path.exists(src) or not os.path.getsize(src):
        return False, 'xentrace wrote nothing'
    shutil.copy(src, tr)
    if sha256(tr) != (read(os.path.join(d, 'trace.sha256')) or '').split(' ')[0]:
        return False, "trace sha256 differs from dom0's: damaged on the way out"
    try:
        with open(tr, 'rb') as f:
            xt = xtcount.walk(f.read())
    except ValueError as e:
        return False, 'independent decoder: %s' % e
    write(os.path.join(out, 'trace.xtcount.json'), json.dumps(xt, sort_keys=True) + '\n')
    why = trace_tools(conf, tr)
    if why:
        return False, why
    ps = json.loads(read(os.path.join(out, 'trace.pi-stats.json')))
    fmt_out = read(os.path.join(out, 'trace.xentrace_format.txt'))
    fmt = None if fmt_out is None else sum(1 for l in fmt_out.splitlines() if ' cpu_change ' not in l)
    write(os.path.join(out, 'trace.log'), '== trace: %d bytes, recorded in dom0 with: %s, stopped after %s\n'
          '== record counts: pi-stats %d, xtcount %d, xentrace_format %s\n== windows: pi-stats %d, xtcount %d\n'
          % (os.path.getsize(tr), (read(os.path.join(d, 'trace.cmd')) or '').strip(),
             (read(os.path.join(d, 'trace.stopped')) or '?').strip(), ps['records'], xt['records'],
             'not in this Xen' if fmt is None else fmt, ps['windows'], xt['windows']))
    for line in read(os.path.join(out, 'trace.pi-stats.txt')).splitlines():
        log('  ' + line)
    domid = (read(os.path.join(d, 'trace.domid')) or '').strip()
    if ps['records'] != xt['records']:
        return False, 'record counts differ: pi-stats %d, independent decoder %d' % (ps['records'], xt['records'])
    if fmt is not None and fmt != xt['records']:
        return False, 'record counts differ: xentrace_format %d, independent decoder %d' % (fmt, xt['records'])
    if ps['windows'] != xt['windows']:
        return False, 'window counts differ: pi-stats %d, decoder %d' % (ps['windows'], xt['windows'])
    if ps['corrupt_bytes'] or ps['truncated_bytes']:
        return False, 'pi-stats: corrupt %d / truncated %d bytes' % (ps['corrupt_bytes'], ps['truncated_bytes'])
    if xt['records'] < 1000:
        return False, 'only %d records: xentrace recorded next to nothing' % xt['records']
    ok, live = live_vs_file(d, ps)
    if not ok:
        return False, 'live pi-stats in dom0: ' + live
    if not re.search(r'^\|-- Domain %s --\|' % re.escape(domid or '?'), read(os.path.join(out, 'trace.xenalyze.txt')), re.M):
        return False, ('xenalyze --summary shows no activity of the traced guest (domain %s): the trace '
                       'missed its boot' % (domid or 'id unknown'))
    return True, ('%d bytes, %d records in %d windows on %d pCPUs, %d lost; pi-stats = xtcount%s; %s'
                  % (os.path.getsize(tr), xt['records'], xt['windows'], xt['pcpus'], xt['lost_records'],
                     ' (no xentrace_format in this Xen)' if fmt is None else ' = xentrace_format', live))


JUDGES = {'topo': judge_topo, 'bad': judge_bad, 'move': judge_move,
          'domctl': judge_domctl, 'trace': judge_trace}


def verdicts(conf, sel, boots):
    """One verdict line per selected case; the names of the failed ones."""
    failed = []
    for case in sel:
        if not case_boots(case, boots):
            ok, text = False, 'no results of its boot in %s' % conf['out']
        else:
            b = case_boots(case, boots)[-1]
            d = os.path.join(conf['out'], 'out-' + b['id'])
            marker = 'trace.rc' if case['kind'] == 'trace' else case['name'] + '.create.rc'
            if b['error'] and not os.path.exists(os.path.join(d, marker)) and case['group'] != 'pvh':
                ok, text = False, b['error']
            else:
                try:
                    ok, text = JUDGES[case['kind']](conf, case, boots)
                except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
                    ok, text = False, 'judging failed: %s: %s' % (type(e).__name__, e)
        emit('e2e: %s %s%s' % ('PASS' if ok else 'FAIL', case['name'],
                               (' (%s)' % text if ok else ': ' + text)))
        if not ok:
            failed.append(case['name'])
    return failed
