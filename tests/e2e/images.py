"""The boot test's images: the pinned Debian kernels and HVM device model
(apt downloads checked against their sha256), the busybox roots of domU
(DOMU_INIT, cpuid-dump) and dom0 (the tree's tools, their libraries, the
kernel modules, the cases' xl configurations, dom0-init) as cpio archives,
rebuilt when what they are made of changes (images_key), and the
prerequisites of a run (prepare)."""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from common import E2E, MOVES, TOP, TRACE_GUEST, Setup, log, read, run, sha256, write
import cases as data
from signatures import KSYMS

# the boot test's own code (what e2e.py was): a change to it builds the
# images again
SOURCES = ('e2e.py', 'common.py', 'settings.py', 'pvh.py', 'images.py', 'boot.py',
           'signatures.py', 'judge.py', 'flake.py')


def apt_opts(conf, suite):
    """apt options for SUITE: the machine's own for bookworm, else a private
    configuration under build/cache/apt-SUITE (the machine's mirror)."""
    if suite == 'bookworm':
        return []
    d = os.path.join(conf['cache'], 'apt-' + suite)
    src = run([os.path.join(TOP, 'scripts/fetch-base.sh'), '--sources']).stdout
    mirror = next((l.split()[-3] for l in src.splitlines()
                   if l.split()[-2:] == ['bookworm', 'main']), None)
    if not mirror:
        raise Setup('no bookworm mirror in the machine\'s apt sources')
    for sub in ('lists/partial', 'archives/partial'):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    write(os.path.join(d, 'sources.list'),
          'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] '
          '%s %s main\n' % (mirror, suite))
    opts = ['-o', 'Dir::Etc::SourceList=%s/sources.list' % d,
            '-o', 'Dir::Etc::SourceParts=/nonexistent', '-o', 'Dir::State::Lists=%s/lists' % d,
            '-o', 'Dir::Cache::Archives=%s/archives' % d, '-o', 'Dir::State::Status=/dev/null',
            '-o', 'APT::Sandbox::User=root']
    if run(['apt-get'] + opts + ['-qq', 'update']).returncode:
        raise Setup('apt-get update of %s (%s/sources.list) failed' % (suite, d))
    return opts


def deb_name(pkg, version):
    """The file apt-get download writes (an epoch's colon as %3a)."""
    return '%s_%s_amd64.deb' % (pkg, version.replace(':', '%3a'))


def download(conf, opts, pkg, version):
    """apt-get download PKG=VERSION into the cache: its path, or None."""
    r = run(['apt-get'] + opts + ['-q', 'download', '%s=%s' % (pkg, version)], cwd=conf['cache'])
    path = os.path.join(conf['cache'], deb_name(pkg, version))
    return path if r.returncode == 0 and os.path.isfile(path) else None


def pinned_deb(conf, what, p, newest):
    """The package P pins (a KERNELS or DEVICE_MODEL entry): from the cache,
    else downloaded, checked against its sha256.  When the mirror no longer
    has it, the version apt offers of the package NEWEST(apt options) names,
    said on stderr.  {package, version, path, pinned, sha256}."""
    path = os.path.join(conf['cache'], deb_name(p['package'], p['version']))
    if not os.path.isfile(path):
        opts = apt_opts(conf, p['suite'])
        path = download(conf, opts, p['package'], p['version'])
        if not path:
            pkg = newest(opts)
            m = re.search(r'^Version: (\S+)', run(['apt-cache'] + opts + ['show', pkg]).stdout, re.M)
            if not m:
                raise Setup('%s: apt knows no %s' % (what, pkg))
            version = m.group(1)
            path = os.path.join(conf['cache'], deb_name(pkg, version))
            if not os.path.isfile(path):
                path = download(conf, opts, pkg, version)
            if not path:
                raise Setup('%s: apt-get download %s=%s failed' % (what, pkg, version))
            print('e2e: %s: pinned %s %s not on the mirror; using %s %s'
                  % (what, p['package'], p['version'], pkg, version), file=sys.stderr)
            return dict(package=pkg, version=version, path=path, pinned=False,
                        sha256=sha256(path))
    digest = sha256(path)
    if digest != p['sha256']:
        raise Setup('%s: %s has sha256 %s, pinned %s' % (what, path, digest, p['sha256']))
    return dict(package=p['package'], version=p['version'], path=path, pinned=True,
                sha256=digest)


def kernel_deb(conf, ver):
    """Kernel VER's pinned package, else the newest of its series: what the
    suite's linux-image-amd64 depends on."""
    k = data.KERNELS[ver]

    def newest(opts):
        dep = run(['apt-cache'] + opts + ['depends', 'linux-image-amd64']).stdout
        pkg = next((m.group(1) for m in re.finditer(r'Depends: (\S+)', dep)
                    if re.fullmatch(k['series'], m.group(1))), None)
        if not pkg:
            raise Setup('kernel %s: no package of the series %s known to apt' % (ver, k['series']))
        return pkg
    return pinned_deb(conf, 'kernel ' + ver, k, newest)


def kernels(conf):
    """{ver: {package, version, sha256, pinned, vmlinuz, kver, root}},
    unpacked under OUT/kernel/VER; recorded in OUT/kernels.txt.  The guest
    kernels other than dom0's go in conf['ksyms'], by the name dom0 keeps
    them under, with their package's sha256."""
    got = {}
    conf['ksyms'] = {}
    for ver in data.KERNELS:
        k = kernel_deb(conf, ver)
        kdir = os.path.join(conf['out'], 'kernel', ver)
        if read(os.path.join(kdir, '.from')) != k['path']:
            shutil.rmtree(kdir, ignore_errors=True)
            os.makedirs(kdir)
            if run(['dpkg-deb', '-x', k['path'], os.path.join(kdir, 'x')]).returncode:
                raise Setup('dpkg-deb -x %s failed' % k['path'])
            write(os.path.join(kdir, '.from'), k['path'])
        vml = sorted(glob.glob(os.path.join(kdir, 'x/boot/vmlinuz-*')))
        if not vml:
            raise Setup('no vmlinuz in %s' % k['path'])
        k.update(vmlinuz=vml[0], kver=vml[0].split('vmlinuz-', 1)[1], root=os.path.join(kdir, 'x'))
        got[ver] = k
        if ver != data.DOM0_KERNEL:
            conf['ksyms'][os.path.basename(kernel_path(ver))] = k['sha256']
        log('kernel %s: %s %s (%s)' % (ver, k['package'], k['version'],
                                        'pinned' if k['pinned'] else 'NOT the pin'))
    write(os.path.join(conf['out'], 'kernels.txt'), ''.join(
        '%s %s %s %s %s\n' % (v, k['package'], k['version'], k['sha256'],
                              'pinned' if k['pinned'] else 'fallback')
        for v, k in got.items()))
    return got


def device_model(conf):
    """HVM's device model: the pinned package (cached, else downloaded,
    checked against its sha256), else the suite's version of it, unpacked
    under OUT/dm; its path in conf['dm']."""
    for f in data.DM_FILES:
        if not os.path.isfile(f):
            raise Setup('%s missing (HVM guests need it; scripts/deps.sh e2e installs it)' % f)
    path = pinned_deb(conf, 'device model', data.DEVICE_MODEL,
                      lambda opts: data.DEVICE_MODEL['package'])['path']
    root = os.path.join(conf['out'], 'dm')
    if read(os.path.join(root, '.from')) != path:
        shutil.rmtree(root, ignore_errors=True)
        if run(['dpkg-deb', '-x', path, root]).returncode:
            raise Setup('dpkg-deb -x %s failed' % path)
        write(os.path.join(root, '.from'), path)
    conf['dm'] = root
    log('device model: %s' % os.path.basename(path))


def modules(k, names):
    """The .ko files of NAMES and their dependencies, in load order, as
    depmod and modprobe --show-depends resolve them."""
    if run(['depmod', '-b', k['root'], k['kver']]).returncode:
        raise Setup('depmod -b %s %s failed' % (k['root'], k['kver']))
    order = []
    for name in names:
        r = run(['modprobe', '-d', k['root'], '-S', k['kver'], '--show-depends', name])
        if r.returncode:
            raise Setup('kernel module %s not in %s: %s' % (name, k['kver'], r.stderr.strip()))
        for line in r.stdout.splitlines():
            w = line.split()
            if w and w[0] == 'insmod' and w[1] not in order:
                order.append(w[1])
    return order


DOMU_INIT = r'''#!/bin/sh
# domU: print the CPU topology Linux derived, then power off (e2e.rounds:
# once dom0 is done moving it).
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
if grep -q e2e.ksyms /proc/cmdline; then
    # for dom0's hang dump (dom0-init: ksyms): the symbols TCG's hangs are
    # named by (signatures.py: KSYMS), each with the next one (its end), and
    # _stext and _etext, without which xenctx names no kernel address
    echo E2E-KSYMS-BEGIN
    awk 'n { print; n = 0 } @KSYMS@ { print; n = 1 }' /proc/kallsyms
    echo E2E-KSYMS-END
    poweroff -f
fi
# report: the topology Linux derived, then what CPUID gives each vCPU
report() {
for d in $(ls -d /sys/devices/system/cpu/cpu[0-9]* | sort -t u -k 3 -n); do
    n=${d##*/cpu}
    t=$d/topology
    l3=none
    if [ "$(cat $d/cache/index3/level 2>/dev/null)" = 3 ]; then
        l3=$(cat $d/cache/index3/shared_cpu_list)
    fi
    # the APIC ID CPUID gave this vCPU, from which Linux derived the rest
    ia=$(awk -v n=$n '$1 == "processor" { p = $3 }
                      $1 == "initial" && $2 == "apicid" && p == n { print $4 }' /proc/cpuinfo)
    echo "cpu$n package=$(cat $t/physical_package_id) core=$(cat $t/core_id) core_siblings=$(cat $t/core_siblings_list) l3=$l3 initial_apicid=$ia"
done
# (PV: through Xen's forced emulation prefix, as the kernel reads it)
echo E2E-CPUID-BEGIN
if [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PV ]; then
    /bin/cpuid-dump --xen
else
    /bin/cpuid-dump
fi
echo "E2E-CPUID-END rc=$?"
}
# a guest that stays up: only alerts and emergencies (an oops, a panic)
# on the console, which would otherwise break the lines of later reports
grep -q e2e.rounds /proc/cmdline && dmesg -n 2
echo E2E-GUEST-BEGIN
report
echo E2E-GUEST-END
# e2e.compare (stock_compare.py): every CPUID leaf, and each ACPI table's hash
if grep -q e2e.compare /proc/cmdline; then
    echo E2E-COMPARE-BEGIN
    if [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PV ]; then
        /bin/cpuid-dump --xen --all
    else
        /bin/cpuid-dump --all
    fi
    for t in /sys/firmware/acpi/tables/*; do
        [ -f "$t" ] && echo "acpi ${t##*/} $(md5sum < "$t" | cut -d' ' -f1)"
    done
    echo E2E-COMPARE-END
fi
echo "info online=$(cat /sys/devices/system/cpu/online) nodes=$(cat /sys/devices/system/node/online 2>/dev/null)"
grep -E '^(processor|apicid|initial apicid|vendor_id)' /proc/cpuinfo | tr '\t' ' ' | sed 's/^/info /'
# e2e.rounds: stay up for dom0 (dom0-init: move) to save, restore and
# migrate the guest, reporting again at each "round N WHAT" it types on
# the console; "cycle" takes vCPU 1 offline and online first (INIT must
# keep its APIC ID), "vcpuset" brings up the vCPUs xl vcpu-set added,
# "quit" powers off
if grep -q e2e.rounds /proc/cmdline; then
    echo E2E-WAITING
    while read -r w rn what; do
        case "$w $what" in
        "quit "*) break ;;
        "round cycle")
            echo 0 > /sys/devices/system/cpu/cpu1/online
            echo 1 > /sys/devices/system/cpu/cpu1/online ;;
        "round vcpuset")
            # dom0 ran xl vcpu-set: bring up every vCPU it added
            i=0
            until [ "$(cat /sys/devices/system/cpu/online)" = "$(cat /sys/devices/system/cpu/possible)" ] || [ $i -ge 30 ]; do
                for o in /sys/devices/system/cpu/cpu[0-9]*/online; do
                    [ "$(cat $o)" = 0 ] && echo 1 > $o
                done
                sleep 1; i=$((i + 1))
            done ;;
        esac
        [ "$w" = round ] || continue
        echo "E2E-ROUND-BEGIN $rn $what"
        report
        echo "E2E-ROUND-END $rn"
    done
fi
poweroff -f
'''


def busybox_root(d):
    """busybox-static; /init makes the applet links at boot."""
    shutil.rmtree(d, ignore_errors=True)
    for sub in ('bin', 'sbin', 'usr/bin', 'usr/sbin', 'proc', 'sys', 'dev', 'tmp', 'etc', 'root'):
        os.makedirs(os.path.join(d, sub))
    shutil.copy(shutil.which('busybox'), os.path.join(d, 'bin/busybox'))
    os.symlink('busybox', os.path.join(d, 'bin/sh'))


def mkcpio(root, img):
    """An uncompressed newc cpio of ROOT."""
    files = run(['find', '.'], cwd=root).stdout.splitlines()
    listing = ''.join(f + '\n' for f in sorted(files, key=lambda s: s.encode()))
    with open(img, 'wb') as out:
        r = subprocess.run(['cpio', '-o', '-H', 'newc', '--quiet'], cwd=root,
                           input=listing.encode(), stdout=out)
    if r.returncode:
        raise Setup('cpio of %s failed' % root)


def kernel_path(ver):
    """Where dom0 keeps guest kernel VER."""
    return '/e2e/vmlinuz' if ver == data.DOM0_KERNEL else '/e2e/vmlinuz-' + ver


def case_cfg(conf, case, name=None):
    """The xl configuration of CASE (under NAME)."""
    extra = 'console=hvc0 rdinit=/init panic=1' + (' ' + conf['guest_extra'] if conf['guest_extra'] else '')
    if case['kind'] == 'move':
        extra += ' e2e.rounds'
    if case['type'] == 'hvm':
        # hang dumps are named with the kernel's unrelocated symbols
        # (ksyms_give); only an HVM kernel would relocate itself
        extra += ' nokaslr'
    lines = ['name = "%s"' % (name or case['name']), 'kernel = "%s"' % kernel_path(case['kernel']),
             'ramdisk = "/e2e/domU.img"', 'extra = "%s"' % extra,
             'on_crash = "preserve"', 'on_reboot = "preserve"']
    cfg = case['cfg']
    if conf['plain']:
        cfg = [l for l in cfg if not l.startswith(('vnuma', 'cpu_topology'))]
        cfg += [] if any(l.startswith('memory') for l in cfg) else ['memory = 256']
    return '\n'.join(lines + conf['guest_cfg'] + cfg) + '\n'


def build_domu(conf):
    r = os.path.join(conf['out'], 'domU.root')
    busybox_root(r)
    write(os.path.join(r, 'init'), DOMU_INIT.replace(
        '@KSYMS@', ' || '.join('$3 == "%s"' % n for n in KSYMS)))
    os.chmod(os.path.join(r, 'init'), 0o755)
    cc = run(['gcc', '-static', '-O2', '-Wall', '-Werror', '-o', os.path.join(r, 'bin/cpuid-dump'),
              os.path.join(E2E, 'cpuid-dump.c')])
    if cc.returncode:
        raise Setup('cpuid-dump does not build: ' + cc.stderr.strip()[-200:])
    mkcpio(r, os.path.join(conf['out'], 'domU.img'))


def is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


def tool_files(inst):
    """The tree's installed files for dom0: no static libraries, debug info, docs."""
    skip = ('usr/lib/debug', 'usr/share/man', 'usr/share/doc')
    for d, dirs, files in os.walk(inst):
        rel = os.path.relpath(d, inst)
        dirs[:] = [x for x in dirs if os.path.normpath(os.path.join(rel, x)) not in skip]
        for f in files:
            if not f.endswith('.a'):
                yield os.path.join(d, f)


def shared_libs(conf, programs):
    """The host's libraries ldd lists for PROGRAMS, plus libgcc_s.so.1 (xl
    aborts without it: pthread_cancel)."""
    env = dict(os.environ, LD_LIBRARY_PATH='%s/usr/lib:%s/usr/lib64' % (conf['inst'], conf['inst']))
    libs = set()
    for p in programs:
        for path in re.findall(r'(/\S+)', run(['ldd', p], env=env).stdout):
            if not path.startswith(conf['inst']):
                libs.add(path)
    gcc_s = re.search(r'libgcc_s\.so\.1 \(libc6,x86-64\) => (\S+)', run(['/sbin/ldconfig', '-p']).stdout)
    if not gcc_s:
        raise Setup('libgcc_s.so.1 not found')
    libs.add(gcc_s.group(1))
    return sorted(libs)


def copy_into(root, path, dest=None):
    dst = root + (dest or path)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(path, dst)


def build_dom0(conf, kern, sel_all):
    r = os.path.join(conf['out'], 'dom0.root')
    busybox_root(r)
    inst = conf['inst']
    files = list(tool_files(inst))
    for dd, _, _ in os.walk(inst):
        os.makedirs(os.path.join(r, os.path.relpath(dd, inst)), exist_ok=True)
    for f in files:
        dst = os.path.join(r, os.path.relpath(f, inst))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(f):
            os.symlink(os.readlink(f), dst)
        else:
            shutil.copy2(f, dst)
    progs = [f for f in files if os.path.isfile(f) and not os.path.islink(f)
             and os.access(f, os.X_OK) and is_elf(f)] + [conf['pi_stats']]
    if conf.get('dm'):
        dm = data.DEVICE_MODEL['binary']
        copy_into(r, conf['dm'] + dm, dm)
        progs.append(conf['dm'] + dm)
        for f in data.DM_FILES:
            copy_into(r, f)
    libs = shared_libs(conf, progs)
    write(os.path.join(conf['out'], 'dom0.libs'), '\n'.join(libs) + '\n')
    for lib in libs:
        copy_into(r, os.path.realpath(lib), lib)
    dom0 = kern[data.DOM0_KERNEL]
    mods = modules(dom0, data.DOM0_MODULES)
    os.makedirs(os.path.join(r, 'e2e/modules'))
    os.makedirs(os.path.join(r, 'e2e/cases'))
    for m in mods:
        shutil.copy(m, os.path.join(r, 'e2e/modules'))
    write(os.path.join(r, 'e2e/modules.order'),
          ''.join(os.path.basename(m)[:-3] + '\n' for m in mods))
    for ver, k in kern.items():
        shutil.copy(k['vmlinuz'], r + kernel_path(ver))
    shutil.copy(os.path.join(conf['out'], 'domU.img'), os.path.join(r, 'e2e/domU.img'))
    kinds = []
    for c in sel_all:
        if c['kind'] == 'trace':
            # the trace's own PV guest, so that the tracing load never
            # touches the checked guests
            write(os.path.join(r, 'e2e/cases', TRACE_GUEST + '.cfg'), case_cfg(conf, c, TRACE_GUEST))
            kinds.append('%s topo %s' % (TRACE_GUEST, kernel_path(c['kernel'])))
        else:
            write(os.path.join(r, 'e2e/cases', c['name'] + '.cfg'), case_cfg(conf, c))
            if c['kind'] == 'move':
                write(os.path.join(r, 'e2e/cases', c['name'] + '.steps'), ' '.join(c.get('steps', MOVES)) + '\n')
            kinds.append('%s %s %s' % (c['name'], c['kind'], kernel_path(c['kernel'])))
    write(os.path.join(r, 'e2e/kinds'), '\n'.join(kinds) + '\n')
    os.makedirs(os.path.join(r, 'e2e/bin'))
    shutil.copy(conf['pi_stats'], os.path.join(r, 'e2e/bin/'))
    # the domctl case's client (not for a tree without the domctl: the base)
    hdr = read(os.path.join(conf['tree'], 'tools/include/xenctrl.h'), '')
    if 'xc_domain_set_vcpu_apic_ids' in hdr:
        cc = run(['gcc', '-O2', '-Wall', '-Werror', '-D__XEN_TOOLS__',
                  '-I' + os.path.join(conf['tree'], 'tools/include'),
                  '-o', os.path.join(r, 'e2e/bin/apic-ids'), os.path.join(E2E, 'apic-ids.c'),
                  '-L' + os.path.join(inst, 'usr/lib'), '-Wl,-rpath-link,' + os.path.join(inst, 'usr/lib'),
                  '-lxenguest', '-lxenctrl'])
        if cc.returncode:
            raise Setup('apic-ids does not build: ' + cc.stderr.strip()[-200:])
    # the move cases' view of Xen's vNUMA layout
    cc = run(['gcc', '-O2', '-Wall', '-Werror', '-D__XEN_TOOLS__',
              '-I' + os.path.join(conf['tree'], 'tools/include'),
              '-o', os.path.join(r, 'e2e/bin/vnuma-info'), os.path.join(E2E, 'vnuma-info.c'),
              '-L' + os.path.join(inst, 'usr/lib'), '-Wl,-rpath-link,' + os.path.join(inst, 'usr/lib'),
              '-lxenctrl'])
    if cc.returncode:
        raise Setup('vnuma-info does not build: ' + cc.stderr.strip()[-200:])
    shutil.copy(os.path.join(E2E, 'dom0-init'), os.path.join(r, 'init'))
    os.chmod(os.path.join(r, 'init'), 0o755)
    mkcpio(r, os.path.join(conf['out'], 'dom0.img'))


def images_key(conf, kern):
    """What the images are made of: they are built again when it changes."""
    h = hashlib.sha256()
    dm = conf.get('dm') and read(os.path.join(conf['dm'], '.from'))
    h.update(repr((sorted((v, k['path']) for v, k in kern.items()), dm,
                   conf['guest_extra'], conf['guest_cfg'], conf['plain'])).encode())
    for f in ('dom0-init', 'cases.py') + SOURCES + ('apic-ids.c', 'cpuid-dump.c', 'vnuma-info.c'):
        h.update(read(os.path.join(E2E, f), '').encode())
    with open(conf['pi_stats'], 'rb') as f:
        h.update(f.read())
    for d, _, files in sorted(os.walk(conf['inst'])):
        for f in sorted(files):
            p = os.path.join(d, f)
            st = os.lstat(p)
            h.update(('%s %d %d\n' % (os.path.relpath(p, conf['inst']), st.st_size, st.st_mtime_ns)).encode())
    return h.hexdigest()[:16]


def images(conf, kern):
    t = time.time()
    key = images_key(conf, kern)
    kf = os.path.join(conf['out'], 'images.key')
    if read(kf) == key and os.path.getsize(os.path.join(conf['out'], 'dom0.img')) > 0:
        log('images: unchanged since they were built (images.key %s)' % key)
        return
    if os.path.exists(kf):
        os.remove(kf)
    build_domu(conf)
    build_dom0(conf, kern, data.CASES)
    write(kf, key)
    log('images: dom0.img %d MB, domU.img %d KB (%d s)' % (
        os.path.getsize(os.path.join(conf['out'], 'dom0.img')) >> 20,
        os.path.getsize(os.path.join(conf['out'], 'domU.img')) >> 10, time.time() - t))


def prerequisites(conf):
    if run([os.path.join(TOP, 'scripts/deps.sh'), 'e2e']).returncode:
        raise Setup('scripts/deps.sh e2e failed')
    for t in (conf['emu']['qemu'], 'busybox', 'cpio', 'dpkg-deb', 'depmod', 'modprobe', 'tar'):
        if not shutil.which(t):
            raise Setup('%s not found%s' % (t, ' (run make qemu)' if t.startswith(TOP) else ''))
    if not os.path.isfile(os.path.join(conf['tree'], 'xen/xen')):
        raise Setup('no hypervisor at %s/xen/xen (run make xen)' % conf['tree'])
    for f in ('usr/sbin/xl', 'usr/sbin/xenstored', 'usr/sbin/xenconsoled', 'usr/sbin/xentrace',
              'usr/lib/xen/bin/xen-init-dom0'):
        if not os.access(os.path.join(conf['inst'], f), os.X_OK):
            raise Setup('%s/%s missing (run make tools)' % (conf['inst'], f))
    if not os.access(conf['pi_stats'], os.X_OK):
        raise Setup('no %s (run make pi-stats)' % conf['pi_stats'])
    os.makedirs(conf['out'], exist_ok=True)
    os.makedirs(conf['cache'], exist_ok=True)


def prepare(conf):
    """Prerequisites, kernels, images: the kernels."""
    prerequisites(conf)
    kern = kernels(conf)
    if any(c['group'] == 'hvm' for c in conf['sel']):
        device_model(conf)
    images(conf, kern)
    return kern
