"""The boot test's boots: QEMU's command line and environment, dom0's part
of the kernel command line, the guest kernels' symbols kept from one boot
for the next (KSYMS_CACHE, ksyms_give, ksyms_learn), one boot (boot) and
the boot groups run E2E_JOBS at a time, with fresh PVH boots until the PVH
rule decides (run_boots, boots.json)."""
import concurrent.futures as cf
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import threading
import time

from common import TRACE_GUEST, log, read, run, write
import cases as data
from pvh import next_pvh, pvh_state
from signatures import KSYMS


DOM0_CMDLINE = 'console=hvc0 earlyprintk=xen rdinit=/init panic=5'


def qemu_argv(conf, cpu, serial):
    e = conf['emu']
    return ([e['qemu']] + (['-L', e['firmware']] if e['firmware'] else []) +
            ['-accel', conf['accel'], '-M', conf['machine'], '-cpu', conf['cpus'][cpu],
             '-smp', '4', '-m', '3G', '-display', 'none', '-serial', serial, '-no-reboot',
             '-kernel', os.path.join(conf['tree'], 'xen/xen'), '-append', conf['xen_cmdline']] +
            conf['qemu_extra'])


def qemu_env(conf):
    env = dict(os.environ)
    if conf['emu']['lib']:
        env['LD_LIBRARY_PATH'] = conf['emu']['lib']
    return env


def dom0_args(conf, names):
    """dom0's part of the command line for the cases NAMES."""
    cases = [n for n in names if n != 'trace'] + ([TRACE_GUEST] if 'trace' in names else [])
    s = 'e2e.cases=%s' % ':'.join(cases)
    if 'trace' in names:
        s += ' e2e.trace=' + TRACE_GUEST
    s += ' e2e.guest_timeout=%d e2e.guest_silence=%d' % (conf['guest_timeout'], conf['guest_silence'])
    if conf['destroy']:
        s += ' e2e.destroy=' + conf['destroy']
    return s


# dom0 names a hung guest's addresses with a few symbols of its kernel
# (dom0-init: ksyms), which for a kernel other than its own it learns by
# booting a guest of that kernel: a minute or more under TCG, longer when
# that guest dies too.  The symbols are a property of the kernel package
# (guests run unrelocated kernels), so what one boot learned is kept by
# the package's sha256, outside the clone as ccache's objects are, and
# handed to every later boot on its output disk.
KSYMS_CACHE = os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
                           'xen-bigvm', 'ksyms')


def ksyms_file(sha):
    """The cached symbols of the kernel package SHA, for this list of them."""
    return os.path.join(KSYMS_CACHE, '%s-%s' % (
        sha, hashlib.sha256(' '.join(KSYMS).encode()).hexdigest()[:8]))


def ksyms_give(conf, img):
    """Start the output disk IMG with a tar of the known symbol files
    (kallsyms-NAME, which dom0-init unpacks into /tmp)."""
    with tarfile.open(img, 'w', format=tarfile.USTAR_FORMAT) as t:
        for name, sha in sorted(conf.get('ksyms', {}).items()):
            p = ksyms_file(sha)
            if os.path.isfile(p):
                t.add(p, arcname='kallsyms-' + name)


def ksyms_learn(conf, d):
    """Keep the symbols dom0's helper guests printed in boot output D."""
    for name, sha in conf.get('ksyms', {}).items():
        console = read(os.path.join(d, 'ksyms-%s.console' % name), '').replace('\r', '')
        m = re.search(r'^E2E-KSYMS-BEGIN\n(.*?)^E2E-KSYMS-END$', console, re.M | re.S)
        lines = [l for l in (m.group(1).splitlines() if m else [])
                 if re.match(r'[0-9a-f]{16} \S \S+$', l)]
        dest = ksyms_file(sha)
        if set(KSYMS) <= {l.split()[2] for l in lines} and not os.path.exists(dest):
            os.makedirs(KSYMS_CACHE, exist_ok=True)
            write(dest + '.tmp', ''.join(l + '\n' for l in lines))
            os.replace(dest + '.tmp', dest)


def boot(conf, rec, vmlinuz):
    """Run QEMU for boot record REC (id, cpu, cases); results land in
    OUT/out-ID/, its serial console in OUT/serial-ID.log.  Returns secs,
    rc, error."""
    out, b = conf['out'], rec['id']
    img, d = os.path.join(out, 'out-%s.img' % b), os.path.join(out, 'out-' + b)
    shutil.rmtree(d, ignore_errors=True)
    ksyms_give(conf, img)
    with open(img, 'r+b') as f:
        f.truncate(512 << 20)
    limit = min(300 + len(rec['cases']) * (conf['guest_timeout'] + 60), conf['boot_timeout'])
    argv = qemu_argv(conf, rec['cpu'], 'file:%s/serial-%s.log' % (out, b)) + [
        '-monitor', 'none', '-initrd', '%s %s e2e.boot=%s %s,%s/dom0.img' % (
            vmlinuz, DOM0_CMDLINE, b, dom0_args(conf, rec['cases']), out),
        '-drive', 'file=%s,format=raw,if=virtio' % img]
    t0 = time.time()
    with open(os.path.join(out, 'qemu-%s.txt' % b), 'w') as q:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=q, stderr=q, env=qemu_env(conf))
        try:
            rc = p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = 'timeout'
    res = dict(secs=int(time.time() - t0), rc=rc, error='')
    os.makedirs(d)
    serial = os.path.join(out, 'serial-%s.log' % b)
    if rc == 'timeout':
        res['error'] = 'boot %s timed out after %ds (see serial-%s.log)' % (b, limit, b)
    elif rc != 0:
        last = (read(os.path.join(out, 'qemu-%s.txt' % b), '').strip().splitlines() or [''])[-1]
        res['error'] = 'QEMU exited %s: %s (see serial-%s.log)' % (rc, last, b)
    untar = run(['tar', '-xf', img, '-C', d])
    ksyms_learn(conf, d)
    if (untar.returncode or not os.path.exists(os.path.join(d, 'done'))) and not res['error']:
        m = re.search(r'.*(Kernel panic|\(XEN\) Panic|e2e-dom0: FATAL).*', read(serial, '').replace('\r', ''))
        res['error'] = 'dom0 did not finish (no results on the output disk; see serial-%s.log%s)' % (
            b, ': ' + m.group(0).strip()[:120] if m else '')
    os.remove(img)
    log('boot %s: %d s (QEMU rc %s)%s' % (b, res['secs'], rc, ': ' + res['error'] if res['error'] else ''))
    return res


def save_boots(conf, boots):
    tmp = os.path.join(conf['out'], 'boots.json.tmp')
    write(tmp, json.dumps(boots, indent=1))
    os.replace(tmp, os.path.join(conf['out'], 'boots.json'))


def new_boot(boots, group, cpu, names):
    k = sum(1 for b in boots if b['group'] == group) + 1
    rec = dict(id=group if k == 1 else '%s-boot%d' % (group, k), group=group, k=k,
               cpu=cpu, cases=names, seq=len(boots))
    boots.append(rec)
    return rec


def run_boots(conf, sel, kern):
    """The boot groups, E2E_JOBS at a time, in the order of data.GROUPS;
    then fresh PVH boots until every PVH case is decided."""
    boots = []
    fixed = []
    for g in data.GROUPS:
        names = [c['name'] for c in sel if c['group'] == g]
        # PVH cases in boots of at most the emulator's per_boot
        step = conf['emu']['per_boot'] if g == 'pvh' else max(len(names), 1)
        fixed += [(g, names[i:i + step]) for i in range(0, len(names), step)]
    vml = kern[data.DOM0_KERNEL]['vmlinuz']
    lock = threading.Lock()
    running = {}
    with cf.ThreadPoolExecutor(conf['jobs']) as ex:
        while True:
            while len(running) < conf['jobs']:
                with lock:
                    if fixed:
                        g, names = fixed.pop(0)
                    else:
                        g, names = 'pvh', next_pvh(conf, sel, boots)
                    if not names:
                        break
                    cpu = next(c['cpu'] for c in sel if c['name'] == names[0])
                    rec = new_boot(boots, g, cpu, names)
                    save_boots(conf, boots)
                running[ex.submit(boot, conf, rec, vml)] = rec
            if not running:
                break
            done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for f in done:
                running.pop(f).update(f.result())
            with lock:
                save_boots(conf, boots)
                _, run = pvh_state(conf, sel, boots)
                if run['state'] == 'open' and run['runs']:
                    log('PVH: %d runs, %d TCG deaths so far, LLR %.2f'
                        % (run['runs'], run['deaths'], run['llr']))
    return boots
