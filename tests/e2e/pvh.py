"""The PVH rule (docs/e2e.md): the death rate of PVH guest runs against
p0, as Wald's sequential probability ratio test (binom_cdf, upper_bound,
design, tally, to_decide, rule), the rule's state on the runs so far
(pvh_runs, pvh_state) and which PVH cases a new boot runs (next_pvh)."""
import math

import cases as data
from signatures import topo_outcome


def binom_cdf(k, n, p):
    """P(X <= k), X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def upper_bound(k, n, conf):
    """The one-sided upper CONF confidence bound (Clopper-Pearson) of a
    rate of K in N: the p at which K or fewer happen with 1 - CONF."""
    if k >= n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if binom_cdf(k, n, mid) > 1 - conf else (lo, mid)
    return hi


def design(p0, cases, alpha=data.PVH_ALPHA, power=data.PVH_POWER):
    """The PVH rule (docs/e2e.md): Wald's sequential probability ratio test
    of the death rate p0 against p1, the death rate doubled but at least 0.4
    above p0, or the survival rate halved, whichever is lower.  Each guest
    run adds log(p1/p0) when it died, log((1-p1)/(1-p0)) when it printed;
    the tally fails once the sum reaches log(power/alpha), passes once it
    falls to log((1-power)/(1-alpha)), and after nmax runs fails if the sum
    is positive.  A case fails when its first M runs all died, M the fewest
    with cases * p0^M <= alpha."""
    d = dict(p0=p0, m=1, nmax=200)
    if p0 <= 0:
        # no death is stock: the first one fails
        return dict(d, p1=0.0, up=1.0, down=0.0, hi=1.0, lo=0.0, nmax=1)
    d['p1'] = p1 = min(max(2 * p0, p0 + 0.4), (1 + p0) / 2)
    while cases * p0 ** d['m'] > alpha:
        d['m'] += 1
    d.update(up=math.log(p1 / p0), down=math.log((1 - p1) / (1 - p0)),
             hi=math.log(power / alpha), lo=math.log((1 - power) / (1 - alpha)))
    return d


def tally(conf, llr, runs):
    """The PVH tally's state after RUNS runs summing to LLR."""
    t = conf['sprt']
    if llr >= t['hi'] or (runs >= t['nmax'] and llr > 0):
        return 'fail'
    if llr <= t['lo'] or runs >= t['nmax']:
        return 'pass'
    return 'open'


def to_decide(conf, run):
    """The fewest runs that can decide the open tally RUN."""
    t = conf['sprt']
    ups = math.ceil((t['hi'] - run['llr']) / t['up']) if t['up'] else t['nmax']
    downs = math.ceil((run['llr'] - t['lo']) / -t['down']) if t['down'] else t['nmax']
    return max(1, min(ups, downs, t['nmax'] - run['runs']))


def rule(conf):
    t = conf['sprt']
    if not t['down']:
        return 'any death fails (p0=0)'
    return ("SPRT of p0=%g against p1=%g: fail at LLR >= %.2f, pass at <= %.2f, "
            "at most %d runs; or a case's first %d runs died"
            % (t['p0'], t['p1'], t['hi'], t['lo'], t['nmax'], t['m']))


def pvh_runs(conf, sel, boots):
    """The PVH guest runs of the finished boots, in start order up to the
    first PVH boot still running: (case, boot, kind, text) each."""
    runs = []
    for b in boots:
        if b['group'] != 'pvh':
            continue
        if 'secs' not in b:
            break
        for c in sel:
            if c['group'] == 'pvh' and c['name'] in b['cases']:
                runs.append((c, b) + topo_outcome(conf, c, b))
    return runs


def pvh_state(conf, sel, boots):
    """The PVH rule on the runs so far: each case's state, runs, deaths and
    first good print, and the run's tally.  A case fails at once on anything
    but TCG's signatures, and when its first M runs all died; every run that
    ended in a print or a TCG death, in start order, goes into the tally
    (design()) until it is decided.  A case passes once it printed and the
    tally passed, and fails when the tally failed."""
    cases = {c['name']: dict(state='open', ok=0, deaths=0, runs=0, detail='',
                             why=[], reason='')
             for c in sel if c['group'] == 'pvh'}
    run = dict(state='open', ok=0, deaths=0, runs=0, llr=0.0)
    for c, b, kind, text in pvh_runs(conf, sel, boots):
        st = cases[c['name']]
        if st['state'] != 'open':
            continue
        st['runs'] += 1
        if kind == 'fail':
            st.update(state='fail', reason=text, last=(st['runs'], b['id']))
            continue
        if kind == 'ok':
            st['ok'] += 1
            st['detail'] = st['detail'] or text
        else:
            st['deaths'] += 1
            st['why'].append((st['runs'], b['id'], text))
            if not st['ok'] and st['deaths'] >= conf['sprt']['m']:
                st['state'] = 'fail'
        if run['state'] == 'open':
            run['runs'] += 1
            run['ok' if kind == 'ok' else 'deaths'] += 1
            run['llr'] += conf['sprt']['down' if kind == 'ok' else 'up']
            run['state'] = tally(conf, run['llr'], run['runs'])
    for st in cases.values():
        if st['state'] == 'open' and run['state'] == 'fail':
            st['state'] = 'fail'
        elif st['state'] == 'open' and run['state'] == 'pass' and st['ok']:
            st['state'] = 'pass'
    return cases, run


def next_pvh(conf, sel, boots):
    """The PVH cases a new boot should run: those that have not printed
    their topology yet and are not running; once all have, every open case
    again while the run's tally is undecided and the runs under way cannot
    decide it."""
    cases, run = pvh_state(conf, sel, boots)
    flying = [b for b in boots if b['group'] == 'pvh' and 'secs' not in b]
    names = [n for n, st in cases.items()
             if st['state'] == 'open' and not st['ok']
             and not any(n in b['cases'] for b in flying)]
    if names or run['state'] != 'open':
        return names[:conf['emu']['per_boot']]
    need = to_decide(conf, run)
    if sum(len(b['cases']) for b in flying) >= need:
        return []
    return [n for n, st in cases.items() if st['state'] == 'open'][:conf['emu']['per_boot']]
