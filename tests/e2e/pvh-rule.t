#!/usr/bin/python3
"""The boot test's PVH rule, without booting: its own scheduling (pvh.py:
next_pvh) and judging (pvh_state) on guest runs drawn at a given death
rate, with a fixed seed.  At the emulator's p0 the test must pass at least
as often as PVH_ALPHA promises, at p1 (design()) fail at least as often as
PVH_POWER does, always fail when every guest dies, and fail a case that
never prints or dies otherwise however the others do; no boot runs more PVH
cases than the emulator's per_boot.  Then TCG's oops signature (tcg_oops)
on real guest oopses kept in tests/e2e/oops/ (from Xen built from the base
alone) and on each altered where it matters; its hang signatures (tcg_hang)
on real dumps of hung guests in tests/e2e/hangs/, whole and altered; and
the guest kernel symbols dom0 learns in one boot, kept and handed to the
next (ksyms_learn, ksyms_give, in boot.py)."""
import os
import glob
import random
import re
import shutil
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as data  # noqa: E402
import boot  # noqa: E402
import common  # noqa: E402
import pvh  # noqa: E402
import settings  # noqa: E402
import signatures  # noqa: E402

TRIALS = 2000
N = [0]
WIDEST = [0]  # the most cases a simulated PVH boot ran


def ok(cond, name):
    N[0] += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', N[0], name), flush=True)


conf = settings.config()
sel = conf['sel'] = [c for c in data.CASES if c['group'] == 'pvh']
outcome = {}
pvh.topo_outcome = lambda conf, c, b: outcome[(c['name'], b['id'])]


def one(draw):
    """A boot test's PVH boots, DRAW(case name) giving each run's outcome:
    (every case passed, boots, the tally's runs)."""
    boots = []
    while len(boots) < 500:
        names = pvh.next_pvh(conf, sel, boots)
        if not names:
            break
        b = boot.new_boot(boots, 'pvh', 'amd', names)
        WIDEST[0] = max(WIDEST[0], len(names))
        for n in names:
            outcome[(n, b['id'])] = draw(n)
        b['secs'] = 1
    cases, run = pvh.pvh_state(conf, sel, boots)
    return all(st['state'] == 'pass' for st in cases.values()), len(boots), run


def rate(p, rnd):
    res = [one(lambda n: ('tcg', 'died') if rnd.random() < p else ('ok', 'printed'))
           for _ in range(TRIALS)]
    return sum(r[0] for r in res) / TRIALS, sum(r[1] for r in res) / TRIALS


rnd = random.Random(1)
t = conf['sprt']
print('# %s' % pvh.rule(conf))
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
per_boot = conf['emu']['per_boot']
first = -(-len(sel) // per_boot)  # the boots that run each case once
ok(not other[0][0] and other[0][1] == first,
   'a death without TCG\'s signatures fails at once (%d boots, each case run once)'
   % other[0][1])
ok(WIDEST[0] == min(per_boot, len(sel)),
   'the widest PVH boot ran %d cases (%s: per_boot %d, %d PVH cases)'
   % (WIDEST[0], conf['emu']['name'], per_boot, len(sel)))

# the signature: each kept oops is TCG's; the same oops is not once the
# innermost kernel frame had interrupts enabled, is another function, or
# was not interrupted by the callback vector
for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'oops/*.txt'))):
    text = open(f).read()
    name = os.path.basename(f)
    lines = text.splitlines()
    user = next(i for i, l in enumerate(lines) if 'RIP: 0033:' in l)
    inner = max(i for i in range(user) if 'RIP: 0010:' in lines[i])
    ok(signatures.tcg_oops(text), '%s: TCG\'s oops' % name)

    def edit(i, a, b):
        return '\n'.join(lines[:i] + [re.sub(a, b, lines[i], count=1)] + lines[i + 1:])
    flags = next(i for i in range(inner, user) if 'EFLAGS:' in lines[i])
    ok(not signatures.tcg_oops(edit(flags, r'EFLAGS: ([0-9a-f]+)',
                                    lambda m: 'EFLAGS: %08x' % (int(m.group(1), 16) | 0x200))),
       '%s with interrupts enabled in the innermost frame: not TCG\'s' % name)
    ok(not signatures.tcg_oops(edit(inner, r'RIP: 0010:\S+', 'RIP: 0010:do_syscall_64+0x3c/0x90')),
       '%s with another innermost function: not TCG\'s' % name)
    by = max(i for i in range(inner) if re.match(r'\[ *[0-9.]+\]  \S+$', lines[i]))
    ok(not signatures.tcg_oops(edit(by, r'asm_sysvec_xen_hvm_callback\+\S+', 'asm_exc_page_fault+0x22/0x30')),
       '%s interrupted by another vector: not TCG\'s' % name)

# the hangs: real dumps of hung 6.12 guests (dom0's xenctx, as the boot
# test keeps them) named again, as xenctx names them, with the symbols of
# that kernel dom0 now has (KSYMS, kept in hangs/ as the helper guest
# prints them from its /proc/kallsyms)
HANGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hangs')
ksyms = sorted((int(a, 16), n) for a, _, n in
               (l.split()[:3] for l in open(os.path.join(HANGS, 'kallsyms-6.12.117'))))
ok({n for _, n in ksyms} >= set(signatures.KSYMS), 'hangs/kallsyms-6.12.117 has every symbol of KSYMS')


def named(dump):
    """DUMP with each address xenctx named (RIP, stack words in [<...>])
    named again by the nearest of those symbols at or below it."""
    def name(m):
        a = int(m.group(2), 16)
        if a < ksyms[0][0]:
            return m.group(0)
        base, sym = max((b, n) for b, n in ksyms if b <= a)
        return '%s%s%s %s+0x%x' % (m.group(1), m.group(2), m.group(3) or '', sym, a - base)
    return re.sub(r'(rip: |\[<)([0-9a-f]{16})(>\])? \S+', name, dump)


seq = named(open(os.path.join(HANGS, 'seqcount-6.12.txt')).read())
ok(signatures.tcg_hang(seq), 'seqcount-6.12: TCG\'s hang (every vCPU in the seqcount readers)')
ok(not signatures.tcg_hang(seq.replace('rip: ffffffff811a6c1c ktime_get+0x1c', 'rip: ffffffff811a6c1c other+0x1c', 1)),
   'seqcount-6.12 with one vCPU elsewhere: not TCG\'s')
jif = named(open(os.path.join(HANGS, 'jiffies-lock-6.12.txt')).read())
ok(signatures.tcg_hang(jif), 'jiffies-lock-6.12: TCG\'s hang (jiffies_lock held, the callback handler entered again)')
ok(not signatures.tcg_hang(re.sub(r'(\[<[0-9a-f]+>\] )sysvec_xen_hvm_callback\+0x38', r'\1other+0x38', jif)),
   'jiffies-lock-6.12 without the handler entered again: not TCG\'s')
vcpu0 = jif.index('vcpu0:'), jif.index('vcpu1:')
ok(not signatures.tcg_hang(jif[:vcpu0[0]] + jif[vcpu0[0]:vcpu0[1]].replace('tick_do_update_jiffies64', 'other')
                           + jif[vcpu0[1]:]),
   'jiffies-lock-6.12 with one vCPU not on jiffies_lock: not TCG\'s')

# the symbols dom0 learned in one boot reach the next: kept from a helper
# guest's console only when it has all of KSYMS (the kept console is a real
# helper's from before the jiffies_lock hang was known, without its two
# symbols), handed over on the output disk as kallsyms-NAME
with tempfile.TemporaryDirectory() as tmp:
    boot.KSYMS_CACHE = os.path.join(tmp, 'cache')
    conf_k = dict(ksyms={'vmlinuz-6.12': 'sha-of-package'})
    out = os.path.join(tmp, 'out')
    os.makedirs(out)
    shutil.copy(os.path.join(HANGS, 'ksyms-helper-8-symbols.console'),
                os.path.join(out, 'ksyms-vmlinuz-6.12.console'))
    boot.ksyms_learn(conf_k, out)
    ok(not os.path.exists(boot.ksyms_file('sha-of-package')),
       'a helper console without all of KSYMS is not kept')
    subset = open(os.path.join(HANGS, 'kallsyms-6.12.117')).read()
    common.write(os.path.join(out, 'ksyms-vmlinuz-6.12.console'),
                 'noise\r\nE2E-KSYMS-BEGIN\r\n' + subset.replace('\n', '\r\n') + 'E2E-KSYMS-END\r\n')
    boot.ksyms_learn(conf_k, out)
    ok(common.read(boot.ksyms_file('sha-of-package')) == subset, 'one with all of them is kept, as printed')
    img = os.path.join(tmp, 'out.img')
    boot.ksyms_give(conf_k, img)
    with tarfile.open(img) as t:
        ok(t.getnames() == ['kallsyms-vmlinuz-6.12']
           and t.extractfile('kallsyms-vmlinuz-6.12').read().decode() == subset,
           'and handed to the next boot as kallsyms-vmlinuz-6.12')
print('1..%d' % N[0])
