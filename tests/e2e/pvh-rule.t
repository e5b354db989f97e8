#!/usr/bin/python3
"""The boot test's PVH rule, without booting: e2e.py's own scheduling
(next_pvh) and judging (pvh_state) on guest runs drawn at a given death
rate, with a fixed seed.  At the emulator's p0 the test must pass at least
as often as PVH_ALPHA promises, at p1 (design()) fail at least as often as
PVH_POWER does, always fail when every guest dies, and fail a case that
never prints or dies otherwise however the others do.  Then TCG's oops
signature (tcg_oops) on real guest oopses kept in tests/e2e/oops/ (from
Xen built from the base alone) and on each altered where it matters."""
import os
import glob
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as data  # noqa: E402
import e2e  # noqa: E402

TRIALS = 2000
N = [0]


def ok(cond, name):
    N[0] += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', N[0], name), flush=True)


conf = e2e.config()
sel = conf['sel'] = [c for c in data.CASES if c['group'] == 'pvh']
outcome = {}
e2e.topo_outcome = lambda conf, c, b: outcome[(c['name'], b['id'])]


def one(draw):
    """A boot test's PVH boots, DRAW(case name) giving each run's outcome:
    (every case passed, boots, the tally's runs)."""
    boots = []
    while len(boots) < 500:
        names = e2e.next_pvh(conf, sel, boots)
        if not names:
            break
        b = e2e.new_boot(boots, 'pvh', 'amd', names)
        for n in names:
            outcome[(n, b['id'])] = draw(n)
        b['secs'] = 1
    cases, run = e2e.pvh_state(conf, sel, boots)
    return all(st['state'] == 'pass' for st in cases.values()), len(boots), run


def rate(p, rnd):
    res = [one(lambda n: ('tcg', 'died') if rnd.random() < p else ('ok', 'printed'))
           for _ in range(TRIALS)]
    return sum(r[0] for r in res) / TRIALS, sum(r[1] for r in res) / TRIALS


rnd = random.Random(1)
t = conf['sprt']
print('# %s' % e2e.rule(conf))
# Monte Carlo slack: 2000 draws of a rate near 0.3% or 92% vary by about
# 0.1 and 0.6 points
passed, boots = rate(t['p0'], rnd)
ok(1 - passed <= 2.5 * data.PVH_ALPHA,
   'at p0=%g the test fails %.2f%% of %d times (alpha %g), %.1f boots on average'
   % (t['p0'], 100 * (1 - passed), TRIALS, data.PVH_ALPHA, boots))
passed, boots = rate(t['p1'], rnd)
ok(1 - passed >= data.PVH_POWER - 0.03,
   'at p1=%g the test fails %.1f%% of %d times (power %g)'
   % (t['p1'], 100 * (1 - passed), TRIALS, data.PVH_POWER))
passed, _ = rate(1.0, rnd)
ok(passed == 0, 'when every guest dies, every test fails')
never = sel[0]['name']
res = [one(lambda n: ('tcg', 'died') if n == never or rnd.random() < t['p0'] / 2
           else ('ok', 'printed')) for _ in range(200)]
ok(not any(r[0] for r in res), 'a case that never prints fails, the others dying at p0/2')
other = [one(lambda n: ('fail', 'BUG: something else') if n == never else ('ok', 'printed'))]
first = -(-len(sel) // data.PVH_PER_BOOT)  # the boots that run each case once
ok(not other[0][0] and other[0][1] == first,
   'a death without TCG\'s signatures fails at once (%d boots, each case run once)'
   % other[0][1])

# the signature: each kept oops is TCG's; the same oops is not once the
# innermost kernel frame had interrupts enabled, is another function, or
# was not interrupted by the callback vector
for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'oops/*.txt'))):
    text = open(f).read()
    name = os.path.basename(f)
    lines = text.splitlines()
    user = next(i for i, l in enumerate(lines) if 'RIP: 0033:' in l)
    inner = max(i for i in range(user) if 'RIP: 0010:' in lines[i])
    ok(e2e.tcg_oops(text), '%s: TCG\'s oops' % name)

    def edit(i, a, b):
        return '\n'.join(lines[:i] + [re.sub(a, b, lines[i], count=1)] + lines[i + 1:])
    flags = next(i for i in range(inner, user) if 'EFLAGS:' in lines[i])
    ok(not e2e.tcg_oops(edit(flags, r'EFLAGS: ([0-9a-f]+)',
                             lambda m: 'EFLAGS: %08x' % (int(m.group(1), 16) | 0x200))),
       '%s with interrupts enabled in the innermost frame: not TCG\'s' % name)
    ok(not e2e.tcg_oops(edit(inner, r'RIP: 0010:\S+', 'RIP: 0010:do_syscall_64+0x3c/0x90')),
       '%s with another innermost function: not TCG\'s' % name)
    by = max(i for i in range(inner) if re.match(r'\[ *[0-9.]+\]  \S+$', lines[i]))
    ok(not e2e.tcg_oops(edit(by, r'asm_sysvec_xen_hvm_callback\+\S+', 'asm_exc_page_fault+0x22/0x30')),
       '%s interrupted by another vector: not TCG\'s' % name)
print('1..%d' % N[0])
