"""The boot test's configuration: everything a run depends on, from the
environment (e2e.py --help lists the variables), the emulator entry of
cases.EMULATORS with its overrides, and the selected cases."""
import os
import shlex
import sys

from common import TOP, Setup
import cases as data
from pvh import design, upper_bound


XEN_CMDLINE = ('console=com1 com1=115200,8n1 dom0_mem=1G,max:1G dom0_max_vcpus=2 '
               'loglvl=all guest_loglvl=all smap=0 xsave=0')


def emulator(env):
    """The emulator entry, with the environment's overrides applied."""
    name = env.get('E2E_EMULATOR') or data.EMULATOR
    if name not in data.EMULATORS:
        raise Setup('unknown E2E_EMULATOR %s (known: %s)' % (name, ' '.join(data.EMULATORS)))
    e = dict(data.EMULATORS[name], name=name)
    if '/' in e['qemu']:
        e['qemu'] = os.path.join(TOP, e['qemu'])
    if env.get('E2E_QEMU'):
        e['qemu'] = env['E2E_QEMU']
        share = os.path.join(os.path.dirname(e['qemu']), '..', 'share', 'qemu')
        if not e['firmware'] and os.path.isdir(share):
            e['firmware'] = share
    if env.get('E2E_P0'):
        e['p0'], e['measured'] = float(env['E2E_P0']), 'E2E_P0'
    else:
        e['p0'] = round(upper_bound(e['deaths'], e['runs'], data.PVH_CONF), 2)
        e['measured'] = '%d of %d died, %s; p0 its %g upper bound' % (
            e['deaths'], e['runs'], e['measured'], data.PVH_CONF)
    return e


def config(env=None):
    """Everything a run depends on, from the environment."""
    env = dict(os.environ if env is None else env)
    num = lambda k, d: int(env.get(k) or d)  # noqa: E731
    tree = env.get('TREE') or os.path.join(TOP, data.TREES[data.DEFAULT_TREE])
    c = dict(env=env, tree=os.path.abspath(tree),
             out=os.path.abspath(env.get('E2E_OUT') or os.path.join(TOP, 'build/e2e')),
             cache=os.path.join(TOP, 'build/cache'),
             boot_timeout=num('E2E_BOOT_TIMEOUT', 1500),
             guest_timeout=num('E2E_GUEST_TIMEOUT', 240),
             guest_silence=num('E2E_GUEST_SILENCE', 120),
             accel=env.get('E2E_ACCEL') or 'tcg,thread=single',
             machine=env.get('E2E_MACHINE') or 'pc',
             qemu_extra=shlex.split(env.get('E2E_QEMU_EXTRA', '')),
             jobs=max(1, num('E2E_JOBS', 2)),
             emu=emulator(env),
             cpus={m: env.get(v['env']) or v['cpu'] for m, v in data.CPUS.items()},
             xen_cmdline=XEN_CMDLINE + (' ' + env['E2E_XEN_EXTRA'] if env.get('E2E_XEN_EXTRA') else ''),
             guest_extra=env.get('E2E_GUEST_EXTRA', ''),
             guest_cfg=[l for l in env.get('E2E_GUEST_CFG', '').split(';') if l],
             destroy=env.get('E2E_DESTROY', ''),
             plain=bool(env.get('E2E_PLAIN')))
    c['inst'] = os.path.join(c['tree'], 'dist/install')
    c['pi_stats'] = os.path.join(TOP, 'tools/pi-stats/pi-stats')
    c['sprt'] = design(c['emu']['p0'],
                                    sum(1 for x in data.CASES if x['group'] == 'pvh'))
    c['sel'] = selection(c)
    return c


def selection(conf):
    """The selected cases, in table order: those E2E_CASES names (a boot
    group's name stands for its cases), else all but those BY_HAND names;
    exit 2 on an unknown name."""
    names = (conf['env'].get('E2E_CASES') or '').split()
    known = [c['name'] for c in data.CASES]
    bad = [n for n in names if n not in known and n not in data.GROUPS]
    if bad:
        print('e2e: unknown case %s (known: %s; groups: %s)'
              % (' '.join(bad), ' '.join(known), ' '.join(data.GROUPS)), file=sys.stderr)
        sys.exit(2)
    if not names:
        return [c for c in data.CASES
                if c['group'] not in data.BY_HAND and c['name'] not in data.BY_HAND]
    return [c for c in data.CASES if c['name'] in names or c['group'] in names]
