#!/usr/bin/python3
"""Boot test: the patched Xen under QEMU (TCG) with a Debian dom0, real
guests created with the built xl, their topology and CPUID judged against
tests/e2e/cases.py, and a live trace analysed (docs/e2e.md).

usage: e2e.py                run the cases (one verdict line each)
       e2e.py --tap          the same, as TAP (tests/e2e/e2e.t)
       e2e.py --shell        boot the same images, dom0 shell on this terminal
       e2e.py --verdicts     judge the last run's results again (no boot)
       e2e.py --boot         boot Xen and dom0 once, no guest: exit 0 when dom0
                             finished (serial log OUT/serial-boot.log)
       e2e.py --flake [RUNS] PVH deaths on stock Xen, run as the test runs them (p0)

environment:
  TREE=DIR          built Xen tree (default build/xen): DIR/xen/xen, DIR/dist/install
  E2E_CASES="..."   cases or boot groups to run (default all but the hvm group;
                    tests/e2e/cases.py)
  E2E_OUT=DIR       results (default build/e2e)
  E2E_BOOT_TIMEOUT  seconds a QEMU boot may take at most (default 1500;
                    less for few cases: 300 + (guest timeout + 60) per case)
  E2E_GUEST_TIMEOUT seconds a guest may take to print and power off (240)
  E2E_GUEST_SILENCE seconds a guest's console may stay silent (120)
  E2E_EMULATOR      entry of cases.EMULATORS (the QEMU and its PVH death rate p0)
  E2E_QEMU          another QEMU binary (its ROMs from ../share/qemu if there)
  E2E_P0            the PVH death rate to judge against, instead of the entry's
  E2E_ACCEL         QEMU -accel (default tcg,thread=single)
  E2E_JOBS          QEMUs at once (default 2)
  E2E_CPU_AMD / E2E_CPU_INTEL   QEMU -cpu of the AMD and Intel boots
  E2E_XEN_EXTRA     more Xen command line (e.g. hap=0)
  E2E_MACHINE       QEMU -M (default pc)
  E2E_QEMU_EXTRA    more QEMU arguments (e.g. -device amd-iommu,intremap=on)
  E2E_GUEST_EXTRA   more guest kernel command line (e.g. nopti)
  E2E_GUEST_CFG     more lines of every guest's xl configuration, ';'-separated
  E2E_DESTROY=CASE:S  test knob: dom0 destroys CASE's guest S s after xl create
  E2E_PLAIN=1       guests without their vnuma and cpu_topology lines
                    (256 MB), as the base can run them (--flake, variant g)
  E2E_FLAKE_VARIANTS, E2E_FLAKE_OUT: --flake (see flake_variant)

Exit status 0 when every selected case passed, 1 when one failed (named on
stderr), 2 on bad usage.
"""
import glob
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from boot import DOM0_CMDLINE, boot, qemu_argv, qemu_env, run_boots  # noqa: E402
import cases as data  # noqa: E402
from common import OUT_STATE, Setup, emit, log, read, write  # noqa: E402
from flake import flake  # noqa: E402
from images import prepare  # noqa: E402
from judge import verdicts  # noqa: E402
from pvh import rule  # noqa: E402
from settings import config  # noqa: E402


def shell(conf, kern):
    print('e2e: shell: Xen + dom0 on this terminal; dom0 shell when ready.')
    print("e2e: guest configs in /e2e/cases/*.cfg; 'exit' powers off; Ctrl-a x kills QEMU")
    img = os.path.join(conf['out'], 'out-shell.img')
    with open(img, 'wb') as f:
        f.truncate(512 << 20)
    argv = qemu_argv(conf, 'amd', 'mon:stdio') + [
        '-initrd', '%s %s e2e.boot=shell e2e.mode=shell,%s/dom0.img' % (
            kern[data.DOM0_KERNEL]['vmlinuz'], DOM0_CMDLINE, conf['out']),
        '-drive', 'file=%s,format=raw,if=virtio' % img]
    os.execvpe(argv[0], argv, qemu_env(conf))


def boot_only(conf, kern):
    """Boot Xen and dom0 on the AMD model, run no guest: 0 when dom0
    finished, 1 otherwise."""
    res = boot(conf, dict(id='boot', cpu='amd', cases=[]), kern[data.DOM0_KERNEL]['vmlinuz'])
    if res['error']:
        print('e2e: failed: %s' % res['error'], file=sys.stderr)
        return 1
    return 0


def main_run(conf, mode):
    t0 = time.time()
    sel = conf['sel']
    os.makedirs(conf['out'], exist_ok=True)
    if mode == 'tap':
        OUT_STATE['tap'] = True
        OUT_STATE['log'] = open(os.path.join(conf['out'], 'run.log'), 'w')
    try:
        log('PVH cases judged by their death rate: %s (emulator %s: %s)'
            % (rule(conf), conf['emu']['name'], conf['emu']['measured']))
        if mode == 'verdicts':
            boots = json.loads(read(os.path.join(conf['out'], 'boots.json'), '[]'))
        else:
            kern = prepare(conf)
            if mode == 'shell':
                shell(conf, kern)
            if mode == 'boot':
                return boot_only(conf, kern)
            for f in glob.glob(os.path.join(conf['out'], '*.boot[0-9]*')) + \
                    glob.glob(os.path.join(conf['out'], 'serial-*.log')) + \
                    glob.glob(os.path.join(conf['out'], 'qemu-*.txt')):
                os.remove(f)
            for d in glob.glob(os.path.join(conf['out'], 'out-*')):
                shutil.rmtree(d, ignore_errors=True)
            boots = run_boots(conf, sel, kern)
    except Setup as e:
        emit('e2e: FAIL setup: %s' % e)
        print('e2e: failed: setup', file=sys.stderr)
        return 1
    failed = verdicts(conf, sel, boots)
    wall = int(time.time() - t0)
    if mode != 'verdicts':
        write(os.path.join(conf['out'], 'wall-seconds'), '%d\n' % wall)
        log('wall time %d s' % wall)
    pvh = [b for b in boots if b['group'] == 'pvh']
    log('boots: %s' % ' '.join('%s %ss' % (b['id'], b.get('secs', '?')) for b in boots))
    if pvh:
        log('PVH: %d boots, %d guest runs, %d s of QEMU time' % (
            len(pvh), sum(len(b['cases']) for b in pvh), sum(b.get('secs', 0) for b in pvh)))
    log('results in %s (serial logs: serial-*.log)' % conf['out'])
    if OUT_STATE['tap']:
        print('1..%d' % OUT_STATE['n'], flush=True)
    if failed:
        print('e2e: failed: ' + ' '.join(failed), file=sys.stderr)
        return 1
    return 0


def main(argv):
    args = argv[1:]
    if args[:1] in (['-h'], ['--help']):
        print(__doc__)
        return 0
    if args[:1] == ['--flake']:
        if len(args) > 2 or (len(args) == 2 and not args[1].isdigit()) or args[1:] == ['0']:
            print('usage: e2e.py --flake [RUNS]', file=sys.stderr)
            return 2
        return flake(int(args[1]) if len(args) == 2 else 10)
    modes = {(): 'run', ('--tap',): 'tap', ('--shell',): 'shell', ('--verdicts',): 'verdicts',
             ('--boot',): 'boot'}
    if tuple(args) not in modes:
        print('usage: e2e.py [--tap | --shell | --verdicts | --boot | --flake [RUNS]]',
              file=sys.stderr)
        return 2
    try:
        conf = config()
    except (Setup, ValueError) as e:
        print('e2e: %s' % e, file=sys.stderr)
        return 2
    return main_run(conf, modes[tuple(args)])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
