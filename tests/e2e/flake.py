"""e2e.py --flake: where PVH guests' deaths come from.  Fresh boots of the
PVH cases on variants (FLAKE: the base alone or the series, with knobs),
each guest run counted as printed, crashed or hung, TCG's signatures
named, and the variants compared (one-sided Fisher exact test); variant
g gives cases.EMULATORS its deaths and runs."""
import concurrent.futures as cf
import math
import os
import re
import sys
import time

from boot import boot
from common import TOP, Setup, read, write
import cases as data
from images import prepare
from settings import config
from signatures import guest_lines, topo_outcome


# Variants (E2E_FLAKE_VARIANTS, default "g"):
#   g  the PVH cases as the boot test runs them (all in one boot, E2E_JOBS
#      boots at once) on Xen built from the base alone (build/xen-stock),
#      without their vnuma and cpu_topology lines (the base cannot build a
#      PVH guest with vnuma): the p0 of cases.EMULATORS
#   a  pvh-default alone on the base alone
#   b  pvh-default alone on the series (build/xen)
#   c  pvh-vnuma-aligned alone on the series
# each with knobs after '+': xen:ARG, guest:ARG, cpu:MODEL, qemu:PATH,
# cfg:LINE (e.g. c+xen:hap=0, b+cfg:cpus="2-3").  A guest run counts as
# printed once the guest printed its end line, whatever its topology.
FLAKE = {'g': ('stock', None), 'a': ('stock', 'pvh-default'),
         'b': ('series', 'pvh-default'), 'c': ('series', 'pvh-vnuma-aligned')}


def flake_variant(v, root):
    """The environment of variant V's boots, or None if V is unknown."""
    base, _, knobs = v.partition('+')
    if base not in FLAKE:
        return None
    tree, case = FLAKE[base]
    pvh = ' '.join(c['name'] for c in data.CASES if c['group'] == 'pvh' and c['kind'] == 'topo')
    env = dict(os.environ, TREE=os.path.join(TOP, data.TREES[tree]), E2E_CASES=case or pvh,
               E2E_OUT=os.path.join(root, re.sub(r'[^A-Za-z0-9=.-]', '_', v)),
               E2E_PLAIN='' if case else '1')
    extra = {'xen': [], 'guest': [], 'cfg': []}
    for knob in filter(None, knobs.split('+')):
        key, _, val = knob.partition(':')
        if not val or key not in ('xen', 'guest', 'cfg', 'cpu', 'qemu'):
            return None
        if key in extra:
            extra[key].append(val)
        else:
            env['E2E_CPU_AMD' if key == 'cpu' else 'E2E_QEMU'] = val
    env.update(E2E_XEN_EXTRA=' '.join(extra['xen']), E2E_GUEST_EXTRA=' '.join(extra['guest']),
               E2E_GUEST_CFG=';'.join(extra['cfg']))
    return env


def fisher(x, n, y, m):
    """One-sided Fisher exact test: P(at least X of N failures) when both
    variants fail alike, Y of M the other."""
    k = x + y
    return sum(math.comb(n, i) * math.comb(m, k - i) for i in range(x, min(n, k) + 1)) / math.comb(n + m, k)


def flake_boot(conf, cases, kern, i):
    """Fresh boot I of the guests CASES: (case, outcome, signature) each."""
    rec = dict(id='run-%d' % i, group='pvh', k=i, cpu='amd', seq=0,
               cases=[c['name'] for c in cases])
    rec.update(boot(conf, rec, kern[data.DOM0_KERNEL]['vmlinuz']))
    d = os.path.join(conf['out'], 'out-' + rec['id'])
    res = []
    for case in cases:
        console = read(os.path.join(d, case['name'] + '.console'), '').replace('\r', '')
        if re.search(r'^E2E-GUEST-END$', console, re.M):
            res.append((case['name'], 'ok', ''))
            continue
        # judged as a death only: whatever lines it printed are right
        lines = guest_lines(console)
        kind, text = topo_outcome(conf, dict(case, expect='\n'.join(lines) + '\n'), rec)
        outcome = 'crash' if text.startswith('crashed') else 'hang' if text.startswith('hung') else 'other'
        res.append((case['name'], outcome, ('TCG ' if kind == 'tcg' else '') + text))
    return res


def flake(runs):
    root = os.path.abspath(os.environ.get('E2E_FLAKE_OUT') or os.path.join(TOP, 'build/e2e-flake'))
    vs = (os.environ.get('E2E_FLAKE_VARIANTS') or 'g').split()
    envs = {v: flake_variant(v, root) for v in vs}
    if None in envs.values():
        print('e2e-flake: unknown variant in %s (see flake.py, FLAKE)' % ' '.join(vs), file=sys.stderr)
        return 2
    confs, kern, cases = {}, {}, {}
    try:
        for v in vs:
            confs[v] = config(envs[v])
            kern[v] = prepare(confs[v])
            cases[v] = confs[v]['sel']
    except Setup as e:
        print('e2e-flake: %s (make xen-debug tools xen-stock)' % e, file=sys.stderr)
        return 1
    jobs = confs[vs[0]]['jobs']
    t0, res = time.time(), {v: [] for v in vs}
    print('e2e-flake: %d boots per variant (%s), in turns, %d at once; results in %s'
          % (runs, ' '.join(vs), jobs, root), flush=True)
    turns = [(i, v) for i in range(1, runs + 1) for v in vs]
    with cf.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(flake_boot, confs[v], cases[v], kern[v], i): (i, v) for i, v in turns}
        for f in cf.as_completed(futs):
            i, v = futs[f]
            for name, outcome, sig in f.result():
                res[v].append((i, name, outcome, sig))
                print('e2e-flake: %s boot %d %s: %s%s' % (v, i, name, outcome,
                                                          ': ' + sig if sig else ''), flush=True)
    lines = ['', 'e2e-flake: %d fresh boots per variant, %d at once, %d min, %s, %d cores, load %s' % (
        runs, jobs, (time.time() - t0) // 60, time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        os.cpu_count(), ' '.join(read('/proc/loadavg').split()[:3]))]
    fails, total = {}, {}
    for v in vs:
        cnt = lambda o: sum(1 for r in res[v] if r[2] == o)  # noqa: E731
        total[v] = len(res[v])
        fails[v] = total[v] - cnt('ok')
        tcg = sum(1 for r in res[v] if r[3].startswith('TCG '))
        lines.append('%s: %d/%d guest runs failed (crash %d, hang %d, other %d; %d with TCG\'s '
                     'signatures), cases %s' % (v, fails[v], total[v], cnt('crash'), cnt('hang'),
                                               cnt('other'), tcg, ' '.join(c['name'] for c in cases[v])))
        lines += ['    boot %d %s %s %s' % r for r in sorted(res[v]) if r[2] != 'ok']
    for v in vs[1:]:
        lines.append('%s vs %s: %d/%d vs %d/%d failed, one-sided Fisher p = %.3f' % (
            v, vs[0], fails[v], total[v], fails[vs[0]], total[vs[0]],
            fisher(fails[v], total[v], fails[vs[0]], total[vs[0]])))
    lines.append('deaths, runs (cases.EMULATORS) from variant %s: %d, %d (%.2f)'
                 % (vs[0], fails[vs[0]], total[vs[0]], fails[vs[0]] / total[vs[0]]))
    write(os.path.join(root, 'summary.txt'), '\n'.join(lines) + '\n')
    print('\n'.join(lines), flush=True)
    return 0
