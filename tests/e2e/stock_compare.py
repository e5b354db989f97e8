#!/usr/bin/env python3
"""Guests that do not ask for a topology, on the patched Xen and on Xen built
from the base alone (make xen-stock), compared field by field.

usage: stock_compare.py [--judge] [CASE...]

Boots each tree (build/xen, the series; build/xen-stock, the base) with the
boot test (e2e.py, its results in OUT/series and OUT/stock; OUT is
E2E_COMPARE_OUT, by default build/e2e-compare; --judge compares the
results there again, without booting) and the default cases (or the
CASEs named), each guest printing with e2e.compare on its command line:
the topology Linux derived, every CPUID leaf of every vCPU (cpuid-dump
--all) and a hash of each ACPI table.  Then compares the two, line by
line, case by case.

Leaf 0x40000003 is left out: its TSC frequency is Xen's calibration at
boot, which differs from one boot to the next.

Prints one line per case ("same, N lines" or its first differences) and
ends with "N passed, N failed".  Exit status 0 when every case is the same
on both; 1 when one differs or did not run; 2 on bad usage or when a tree
is missing.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import TREES  # noqa: E402  (the boot test's trees)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
E2E = os.path.join(TOP, 'tests', 'e2e', 'e2e.py')
DEFAULTS = ['pv-default', 'pv-default-6.12', 'pv-default-intel',
            'pvh-default', 'pvh-default-6.12', 'hvm-default']
# Xen's TSC calibration: another value each boot
VARYING = re.compile(r"^cpuid cpu=\d+ leaf=0x40000[01]03 ")


def compared(console):
    """The lines of CONSOLE to compare: the topology report and the
    e2e.compare block, or None when the guest printed neither."""
    text = console.replace('\r', '')
    rep = re.search(r'^E2E-GUEST-BEGIN$(.*?)^E2E-CPUID-BEGIN$', text, re.M | re.S)
    cmp = re.search(r'^E2E-COMPARE-BEGIN$(.*?)^E2E-COMPARE-END$', text, re.M | re.S)
    if not rep or not cmp:
        return None
    lines = rep.group(1).strip().splitlines() + cmp.group(1).strip().splitlines()
    return [l for l in lines if not VARYING.match(l)]


def main(argv):
    judge = argv[1:2] == ['--judge']
    cases = argv[1 + judge:] or DEFAULTS
    if any(c.startswith('-') for c in cases):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = os.path.abspath(os.environ.get('E2E_COMPARE_OUT') or os.path.join(TOP, 'build', 'e2e-compare'))
    out = {name: os.path.join(root, name) for name in TREES}
    missing = [n for n, t in TREES.items()
               if not os.path.exists(os.path.join(TOP, t, 'dist', 'install', 'usr', 'sbin', 'xl'))]
    if missing and not judge:
        n = missing[0]
        print('stock_compare: %s: no tools in %s (make %s)' % (n, TREES[n],
              'tools' if n == 'series' else 'xen-stock'), file=sys.stderr)
        return 2
    for name, tree in ({} if judge else TREES).items():
        env = dict(os.environ, TREE=os.path.join(TOP, tree), E2E_OUT=out[name],
                   E2E_CASES=' '.join(cases), E2E_GUEST_EXTRA='e2e.compare')
        print('stock_compare: booting %s (%s)' % (name, tree), flush=True)
        subprocess.run([sys.executable, E2E], env=env, stdout=subprocess.DEVNULL)
    passed = failed = 0
    for c in cases:
        got = {}
        for name in TREES:
            try:
                with open(os.path.join(out[name], c + '.console'), errors='replace') as f:
                    got[name] = compared(f.read())
            except OSError:
                got[name] = None
        missing = [n for n in TREES if got[n] is None]
        if missing:
            line = 'no report on %s' % ' and '.join(missing)
        elif got['series'] == got['stock']:
            passed += 1
            print('stock_compare: %s: same, %d lines' % (c, len(got['series'])))
            continue
        else:
            a, b = got['stock'], got['series']
            diff = [l for l in b if l not in a][:3]
            line = '%d lines differ; on the series: %s' % (
                len(set(a) ^ set(b)), ' | '.join(diff) or 'the same lines in another order')
        failed += 1
        print('stock_compare: %s: DIFFERS: %s' % (c, line))
    print('%d passed, %d failed' % (passed, failed))
    return 0 if not failed else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
