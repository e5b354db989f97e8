"""The boot test's data: emulator, kernels, CPU models, Xen trees, cases.

Expected values are written here by hand, from
docs/misc/vnuma-cpu-topology.pandoc (the docs patch), how Linux derives its
topology, x86_topo_from_packages() (xen/lib/x86/policy.c), guest_cpuid() and
recalculate_misc() (xen/arch/x86/cpuid.c, cpu-policy.c),
xc_cpuid_apply_policy() (tools/libs/guest/xg_cpuid_x86.c) and QEMU's CPU
model; nothing is derived from a run.  tests/e2e/e2e.py reads this module.

Adding a kernel, a CPU model, an emulator or a Xen tree is one entry in
KERNELS, CPUS, EMULATORS or TREES; a case family lists the kernels and CPU
models it runs on and what each kernel (sysfs) and model (CPUID) shows.
"""

# -- the emulator ------------------------------------------------------------
# deaths, runs: PVH guests on stock Xen under this emulator, run as the
# boot test runs them (`make e2e-flake`, variant g; docs/e2e.md).  The PVH
# cases are judged against p0, the upper PVH_CONF confidence bound of that
# rate.  per_boot: the most PVH guests a boot runs, as many as the boots
# that measured p0 ran.  qemu: a command, or a path relative to the
# repository; lib: LD_LIBRARY_PATH for the binary; firmware: QEMU's -L
# directory.
# qemu-7.2-fixed is Debian 12's QEMU rebuilt with tests/e2e/qemu/*.patch
# (make qemu); qemu-7.2 the machine's own, which delivers an interrupt
# injected by VMRUN twice now and then (the patch's message).
# E2E_EMULATOR picks another entry.
EMULATORS = {
    'qemu-7.2-fixed': dict(
        qemu='build/qemu/bin/qemu-system-x86_64', lib=None, firmware=None,
        deaths=0, runs=44, per_boot=11,
        measured='make e2e-flake RUNS=4, 2026-12-05, variant g (stock '
                 '4.17.5, the eleven PVH topology cases a boot, 2 QEMUs at '
                 'once); the project\'s 2-core machine'),
    'qemu-7.2': dict(
        qemu='qemu-system-x86_64', lib=None, firmware=None, deaths=15, runs=36,
        per_boot=6,
        measured='make e2e-flake RUNS=6, 2026-12-03, variant g (stock '
                 '4.17.5, the six PVH cases a boot, 2 QEMUs at once); '
                 'Debian 12 qemu-system-x86 7.2, the project\'s 2-core '
                 'machine'),
}
EMULATOR = 'qemu-7.2-fixed'
PVH_CONF = 0.99
# A run whose PVH guests die at p0 fails about PVH_ALPHA of the time, one
# whose guests die at p1 (the rate doubled or the survival halved,
# whichever is lower) at least PVH_POWER of the time: the bounds of
# pvh.py's design(), and of the per-case bound M.
PVH_ALPHA = 0.002
PVH_POWER = 0.9

# -- guest kernels: Debian packages, pinned ------------------------------------
# package=version with its sha256; when the mirror no longer has it, the
# package the suite's linux-image-amd64 depends on (the newest of the
# series, matching `series`) is used instead, and images.py says so on stderr.
# dom0 runs DOM0_KERNEL.  suffix: what a case's name ends with on it.
KERNELS = {
    '6.1': dict(suite='bookworm', package='linux-image-6.1.0-57-amd64',
                version='6.1.192-3',
                sha256='14d219d01e1283261817d961dbb3895cb5b4288d0de10e0ba0632a0d993e15bf',
                series=r'linux-image-6\.1\.0-[0-9]+-amd64', suffix=''),
    '6.12': dict(suite='trixie', package='linux-image-6.12.117+deb13-amd64',
                 version='6.12.117-1',
                 sha256='ca712d36790184f6ac125ce2b20ea4e2202ae6bb7817b7de268f1f0115ccda73',
                 series=r'linux-image-6\.12\.[0-9]+\+deb13-amd64', suffix='-6.12'),
}
DOM0_KERNEL = '6.1'

# -- HVM: the device model (pinned as the kernels are) and its firmware ------
# Debian 12's QEMU for Xen links the 4.17 libraries the tree builds; dom0
# gets it, the libraries it needs and the host files in DM_FILES (SeaBIOS,
# handed to hvmloader by libxl; the option ROM QEMU boots a kernel with).
DEVICE_MODEL = dict(suite='bookworm', package='qemu-system-xen',
                    version='1:7.2+dfsg-7+deb12u18+b3',
                    sha256='550fe1c829699fa6cdc581f570118aadd7d79c63b7e01cc86edcaf9dd828a802',
                    binary='/usr/libexec/xen-qemu-system-i386')
DM_FILES = ['/usr/share/seabios/bios-256k.bin', '/usr/share/qemu/linuxboot.bin',
            '/usr/share/qemu/keymaps/en-us']
DOM0_MODULES = ['xen-evtchn', 'xen-privcmd', 'xen-gntdev', 'xen-gntalloc',
                'xenfs', 'virtio_pci', 'virtio_blk']

# -- CPU models: QEMU -cpu (env overrides it), suffix of the case names ------
CPUS = {
    'amd': dict(cpu='max', env='E2E_CPU_AMD', suffix=''),
    'intel': dict(cpu='max,vendor=GenuineIntel', env='E2E_CPU_INTEL', suffix='-intel'),
}

# -- Xen: a tree to boot (xen/xen and dist/install); TREE=DIR boots another --
TREES = {'series': 'build/xen', 'stock': 'build/xen-stock'}
DEFAULT_TREE = 'series'

# -- boot groups, started in this order: PVH guests on a fresh Xen of their
# own (after PV guests had run they died far more often, docs/e2e.md) --------
# HVM guests (hvmloader, SeaBIOS and a device model) in a boot of their own.
# Two at a time: pvh then amd on one QEMU slot, hvm then intel on the
# other take about as long (docs/results.md)
GROUPS = ['pvh', 'hvm', 'amd', 'intel']
# cases (or groups) run only when E2E_CASES names them (make e2e
# E2E_CASES=hvm): an HVM guest takes 75 to 120 s under TCG, one after
# another in their boot, so CI runs upstream's view, the two layouts with
# chosen APIC IDs (one on each kernel) and the save, restore and migration
BY_HAND = ['hvm-default-6.12', 'hvm-layout-2x2', 'hvm-layout-2x2-6.12',
           'hvm-vnuma-aligned', 'hvm-vnuma-aligned-6.12', 'hvm-layout-2x3',
           'hvm-vnuma-321-6.12', 'move-hvm-vnuma-321', 'move-hvm-layout-2x2',
           # a move-* case checks these at boot, before it moves the guest
           'pv-layout-2x3', 'pv-vnuma-2x2', 'pv-vnuma-221-6.12', 'pv-apicid-321',
           'pvh-layout-2x3', 'pvh-layout-2x3-6.12', 'pvh-vnuma-321',
           'pvh-layout-2x2-6.12']


# -- xl configurations -------------------------------------------------------
def vnuma(*specs):
    """'VCPUS:MB' per vnode -> an xl vnuma line, all on pnode 0, 10/20."""
    nodes = []
    for i, spec in enumerate(specs):
        vcpus, mb = spec.split(':')
        dist = ','.join('10' if i == j else '20' for j in range(len(specs)))
        nodes.append(' ["pnode=0", "size=%s", "vcpus=%s", "vdistances=%s"]'
                     % (mb, vcpus, dist))
    return 'vnuma = [' + ','.join(nodes) + ' ]'


def topo(value):
    return 'cpu_topology = "%s"' % value


PV4 = ['type = "pv"', 'vcpus = 4']
# tsc_mode: TCG's emulated SVM cannot run RDTSCP
PVH4 = ['type = "pvh"', 'vcpus = 4', 'tsc_mode = "native"']
# More vCPUs than the 4 emulated pCPUs need maxvcpus=.
PV_321 = ['type = "pv"', 'vcpus = 6', 'maxvcpus = 6',
          vnuma('0-2:128', '3-4:128', '5:128')]
PV_NONCONTIG = PV4 + [vnuma('0,2:128', '1,3:128')]
PV_2X2 = PV4 + [vnuma('0-1:128', '2-3:128'), topo('vnuma')]
# direct kernel boot through SeaBIOS; no display, console on hvc0.
# timer_mode: with the default (every missed tick delivered) runs often
# stalled in SeaBIOS's interrupt return while it loaded the kernel
# (docs/results.md)
HVM = ['type = "hvm"', 'device_model_version = "qemu-xen"',
       'device_model_override = "%s"' % DEVICE_MODEL['binary'],
       'bios = "seabios"', 'bios_path_override = "%s"' % DM_FILES[0],
       'vga = "none"', 'vnc = 0', 'nographic = 1', 'tsc_mode = "native"',
       'timer_mode = "one_missed_tick_pending"']
HVM4 = HVM + ['vcpus = 4', 'memory = 256']
HVM6 = HVM + ['vcpus = 6', 'maxvcpus = 6']
PV6 = ['type = "pv"', 'vcpus = 6', 'maxvcpus = 6']
PVH6 = ['type = "pvh"', 'vcpus = 6', 'maxvcpus = 6', 'tsc_mode = "native"']

LAYOUTS = {
    'pv-default': ['type = "pv"', 'memory = 256', 'vcpus = 4'],
    'pv-vnuma-2x2': PV_2X2,
    # runs of 2 vCPUs from a multiple of 2, the last one shorter
    'pv-vnuma-221': ['type = "pv"', 'vcpus = 5', 'maxvcpus = 5',
                     vnuma('0-1:128', '2-3:128', '4:128'), topo('vnuma')],
    # only kernels reading APIC IDs from CPUID (Linux 6.1) see these right:
    # the opt-in shows them, the default refuses them
    'pv-apicid-321': PV_321 + [topo('vnuma_apicid')],
    'pv-apicid-noncontig': PV_NONCONTIG + [topo('vnuma_apicid')],
    'pvh-default': ['type = "pvh"', 'memory = 256', 'vcpus = 4', 'tsc_mode = "native"'],
    'hvm-default': HVM4,
    'hvm-layout-2x2': HVM4 + [topo('sockets=2,cores=2')],
    'hvm-vnuma-aligned': HVM4 + [vnuma('0-1:128', '2-3:128'), topo('vnuma')],
    # 2 * vcpu_id can't show these: libxl chooses the APIC IDs, hvmloader
    # lists them in its tables
    'hvm-layout-2x3': HVM6 + ['memory = 256', topo('sockets=2')],
    'hvm-vnuma-321': HVM6 + [vnuma('0-2:128', '3-4:128', '5:128'), topo('vnuma')],
    'pvh-vnuma-aligned': PVH4 + [vnuma('0-1:128', '2-3:128'), topo('vnuma')],
    # 4 vnodes: libxl reads back a 4x4 distance table for the ACPI SLIT
    'pvh-vnuma-4': PVH4 + [vnuma('0:64', '1:64', '2:64', '3:64'), topo('vnuma')],
    # 2 * vcpu_id can't show these: libxl chooses the APIC IDs
    'pvh-vnuma-321': PVH6 + [vnuma('0-2:128', '3-4:128', '5:128'), topo('vnuma')],
    # sockets/cores/threads without vNUMA; sockets filled in where left out
    'pv-layout-2x1x2': PV4 + ['memory = 256', topo('cores=1,threads=2')],
    'pv-layout-2x3': PV6 + ['memory = 256', topo('sockets=2,cores=3,apicid')],
    'pv-layout-2x3-vcpus4': ['type = "pv"', 'vcpus = 4', 'maxvcpus = 6', 'memory = 256',
                             topo('sockets=2,cores=3,apicid')],
    'pvh-layout-2x2': PVH4 + ['memory = 256', topo('cores=2')],
    'pvh-layout-2x3': PVH6 + ['memory = 256', topo('sockets=2')],
    'bad-no-vnuma': ['type = "pv"', 'memory = 256', 'vcpus = 4', topo('vnuma')],
    # 5 vnodes of 33 vCPUs: 6 bits per package, so vnode 4 starts at APIC
    # ID 256 (vnuma_apicid: "vnuma" refuses the layout earlier)
    'bad-apic-ids': ['type = "pv"', 'vcpus = 165', 'maxvcpus = 165',
                     vnuma('0-32:64', '33-65:64', '66-98:64', '99-131:64',
                           '132-164:64'), topo('vnuma_apicid')],
    'bad-unknown-value': PV4 + [vnuma('0-1:128', '2-3:128'), topo('bogus')],
    'bad-pv-321': PV_321 + [topo('vnuma')],
    'bad-pv-noncontig': PV_NONCONTIG + [topo('vnuma')],
    'bad-layout-product': PV4 + [topo('sockets=3,cores=1')],
    'bad-layout-syntax': PV4 + [topo('sockets=2,cores=two')],
    'bad-layout-vnuma': PV_2X2[:-1] + [topo('sockets=2,cores=2')],
    # IDs 0,1,2 / 4,5,6 are not what Linux 6.9+ numbers them
    'bad-pv-layout-2x3': PV6 + [topo('sockets=2,cores=3')],
    'bad-amd-layout-threads': PV4 + [topo('threads=2')],
    # cpuid= overriding what cpu_topology sets, in both syntaxes
    'bad-cpuid-htt': PV4 + ['memory = 256', topo('cores=2'), 'cpuid = "host,htt=0"'],
    'bad-cpuid-nc': PV_2X2 + ['cpuid = [ "0x80000008:ecx=xxxxxxxxxxxxxxxxxxxxxxxx00000011" ]'],
    # without cpu_topology, cpuid= reaches leaf 0xb's first subleaf alone
    # (Xen keeps a leaf 0xb only with its core level), as upstream
    'bad-cpuid-leafb': PV4 + ['memory = 256',
                              'cpuid = [ "0xb,1:ecx=00000000000000000000001000000001" ]'],
    'domctl-apic-ids': PV_2X2,
}


# -- CPUID fields (tests/e2e/cpuid_check.py names them) ----------------------
# What the host CPU gives (QEMU 7.2, -smp 4: one socket of 4 cores, one
# thread each): leaf 1 lppp 4 and HTT; on the AMD model CMP_LEGACY,
# 0x80000008 ApicIdSize 2 and NC 4, no leaf 4 (Xen zeroes it on AMD), no
# TOPOEXT; on the Intel model leaf 4 lists L1d, L1i, L2 and L3, no
# CMP_LEGACY, 0x80000008 ECX zero.  Leaf 0xb: subleaves 0-1 only; PV
# without a topology reads zeroes, HVM/PVH level type 0 and x2APIC ID
# 2 * vcpu_id.  "all" lines hold for every vCPU named by a cpuN line.
AMD_NO_L4 = '0x4.0.type=0'
PV_NO_B = '0xb.0.type=0 0xb.0.x2apic=0'


def amd_pv_cpuid(n, cores=None):
    """PV on the AMD model, packages of N IDs holding CORES (default N):
    lppp N, NC CORES, ApicIdSize log2(N), CMP_LEGACY; no leaf 4, no leaf
    0xb, no TOPOEXT."""
    w = (n - 1).bit_length()
    return ('all 0x1.lppp=%d 0x1.htt=1 0x4.0.type=0 0xb.0.type=0 0xb.0.x2apic=0\n'
            'all 0x80000001.cmp_legacy=1 0x80000001.topoext=0\n'
            'all 0x80000008.apicidsize=%d 0x80000008.nc=%d\n' % (n, w, cores or n))


def intel_cpuid(n, shift, largest, threads=1):
    """PV on the Intel model, packages of N IDs (1 << SHIFT), the largest
    package LARGEST vCPUs, cores of THREADS (a power of two): leaf 4
    N / THREADS cores on every cache, L1 and L2 shared by a core's threads,
    the L3 by N; leaf 0xb SMT level (log2(THREADS), THREADS) and core level
    (SHIFT, LARGEST)."""
    return ('all 0x1.lppp={n} 0x1.htt=1\n'
            'all 0x4.0.type=1 0x4.0.level=1 0x4.0.share={t} 0x4.0.cores={c}\n'
            'all 0x4.1.type=2 0x4.1.level=1 0x4.1.share={t} 0x4.1.cores={c}\n'
            'all 0x4.2.type=3 0x4.2.level=2 0x4.2.share={t} 0x4.2.cores={c}\n'
            'all 0x4.3.type=3 0x4.3.level=3 0x4.3.share={n} 0x4.3.cores={c}\n'
            'all 0x4.4.type=0\n'
            'all 0xb.0.type=1 0xb.0.shift={ts} 0xb.0.count={t}\n'
            'all 0xb.1.type=2 0xb.1.shift={s} 0xb.1.count={l}\n'
            'all 0xb.2.type=0 0xb.2.x2apic=0\n'
            'all 0x80000001.cmp_legacy=0 0x80000001.topoext=0\n'
            'all 0x80000008.apicidsize=0 0x80000008.nc=1\n'
            .format(n=n, s=shift, l=largest, t=threads, c=n // threads,
                    ts=(threads - 1).bit_length()))


def ids(fields, *apic):
    """vCPU N's APIC ID, in each field, is the Nth ID."""
    return ''.join('cpu%d %s\n' % (n, ' '.join('%s=%d' % (f, a) for f in fields.split()))
                   for n, a in enumerate(apic))


def amd_ids(*apic):
    return ids('0x1.apic', *apic)


def intel_ids(*apic):
    return ids('0x1.apic 0xb.0.x2apic 0xb.1.x2apic', *apic)


# upstream's values, from the base code: PV keeps the host's lppp, HTT,
# CMP_LEGACY and 0x80000008 and reads APIC ID 0
PV_DEFAULT_AMD = ('all 0x1.apic=0 0x1.lppp=4 0x1.htt=1 %s %s\n'
                  'all 0x80000001.cmp_legacy=1 0x80000001.topoext=0\n'
                  'all 0x80000008.apicidsize=2 0x80000008.nc=4\n'
                  'cpu0\ncpu1\ncpu2\ncpu3\n' % (AMD_NO_L4, PV_NO_B))
# the host's leaf 4 (4 cores per package; the L3 shared by all 4)
PV_DEFAULT_INTEL = ('all 0x1.apic=0 0x1.lppp=4 0x1.htt=1 %s\n'
                    'all 0x4.0.type=1 0x4.0.level=1 0x4.0.share=1 0x4.0.cores=4\n'
                    'all 0x4.1.type=2 0x4.1.level=1 0x4.1.share=1 0x4.1.cores=4\n'
                    'all 0x4.2.type=3 0x4.2.level=2 0x4.2.share=1 0x4.2.cores=4\n'
                    'all 0x4.3.type=3 0x4.3.level=3 0x4.3.share=4 0x4.3.cores=4\n'
                    'all 0x4.4.type=0\n'
                    'all 0x80000001.cmp_legacy=0 0x80000001.topoext=0\n'
                    'all 0x80000008.apicidsize=0 0x80000008.nc=1\n'
                    'cpu0\ncpu1\ncpu2\ncpu3\n' % PV_NO_B)
# PVH: APIC ID 2 * vcpu_id, lppp and NC doubled, ApicIdSize + 1
PVH_IDS = ('cpu0 0x1.apic=0 0xb.0.x2apic=0\ncpu1 0x1.apic=2 0xb.0.x2apic=2\n'
           'cpu2 0x1.apic=4 0xb.0.x2apic=4\ncpu3 0x1.apic=6 0xb.0.x2apic=6\n')
PVH_DEFAULT = ('all 0x1.lppp=8 0x1.htt=1 %s 0xb.0.type=0\n'
               'all 0x80000001.cmp_legacy=0 0x80000001.topoext=0\n'
               'all 0x80000008.apicidsize=3 0x80000008.nc=8\n' % AMD_NO_L4 + PVH_IDS)


def pvh_chosen(lppp, size, nc, *apic):
    """APIC IDs chosen by libxl: packages of LPPP IDs holding NC cores."""
    return ('all 0x1.lppp=%d 0x80000008.apicidsize=%d 0x80000008.nc=%d\n'
            'all 0x1.htt=1 %s 0xb.0.type=0\n'
            'all 0x80000001.cmp_legacy=1 0x80000001.topoext=0\n'
            % (lppp, size, nc, AMD_NO_L4) + ids('0x1.apic 0xb.0.x2apic', *apic))


def pvh_vnuma(lppp, size, nc):
    """APIC IDs 2 * vcpu_id; packages of LPPP IDs (the unused thread bit
    included) holding NC cores."""
    return ('all 0x1.lppp=%d 0x80000008.apicidsize=%d 0x80000008.nc=%d\n'
            'all 0x1.htt=1 %s 0xb.0.type=0\n'
            'all 0x80000001.cmp_legacy=1 0x80000001.topoext=0\n'
            % (lppp, size, nc, AMD_NO_L4) + PVH_IDS)


# -- what the guests print ---------------------------------------------------
# cpuN package=<physical_package_id> core=<core_id>
#      core_siblings=<core_siblings_list> l3=<cache/index3/shared_cpu_list>
#      initial_apicid=<"initial apicid" of /proc/cpuinfo: CPUID's APIC ID>
def lines(*rows):
    """(package, core, siblings, l3, apic) per vCPU -> the expected lines."""
    return ''.join('cpu%d package=%s core=%s core_siblings=%s l3=%s initial_apicid=%s\n'
                   % ((n,) + r) for n, r in enumerate(rows))


# upstream's behaviour, bit for bit: APIC ID 0 everywhere, one package, one L3
PV_DEFAULT_61 = lines(*[(0, 0, '0-3', '0-3', 0)] * 4)
# the same CPUID, but Linux 6.12 numbers a PV guest's APIC IDs by vCPU,
# "initial apicid" too, and takes only the field widths from CPUID
PV_DEFAULT_612 = lines(*[(0, i, '0-3', '0-3', i) for i in range(4)])
# 1 bit per package: APIC IDs 0,1 / 2,3, the vCPU numbers too
TWO_BY_TWO = lines((0, 0, '0-1', '0-1', 0), (0, 1, '0-1', '0-1', 1),
                   (1, 0, '2-3', '2-3', 2), (1, 1, '2-3', '2-3', 3))
TWO_TWO_ONE = TWO_BY_TWO + 'cpu4 package=2 core=0 core_siblings=4 l3=4 initial_apicid=4\n'
# 2 bits per package: APIC IDs 0,1,2 / 4,5 / 8
THREE_TWO_ONE = lines((0, 0, '0-2', '0-2', 0), (0, 1, '0-2', '0-2', 1),
                      (0, 2, '0-2', '0-2', 2), (1, 0, '3-4', '3-4', 4),
                      (1, 1, '3-4', '3-4', 5), (2, 0, '5', '5', 8))
# vnode 0 = vCPUs 0,2 (APIC IDs 0,1), vnode 1 = vCPUs 1,3 (2,3)
NONCONTIG = lines((0, 0, '0,2', '0,2', 0), (1, 0, '1,3', '1,3', 2),
                  (0, 1, '0,2', '0,2', 1), (1, 1, '1,3', '1,3', 3))
# upstream's (Xen built from the base alone): APIC IDs 2 * vcpu_id
PVH_DEFAULT_LINES = lines(*[(0, 2 * i, '0-3', '0-3', 2 * i) for i in range(4)])
# APIC IDs 0,2,4,6, 2 bits per package: core id is the APIC ID's low bits
PVH_ALIGNED = lines((0, 0, '0-1', '0-1', 0), (0, 2, '0-1', '0-1', 2),
                    (1, 0, '2-3', '2-3', 4), (1, 2, '2-3', '2-3', 6))
# APIC IDs 0,2,4,6, 1 bit per package: each vCPU its own package and L3
PVH_FOUR = lines(*[(i, 0, str(i), str(i), 2 * i) for i in range(4)])
# 2 packages of 1 core of 2 threads: vCPUs 0,1 are core 0 of package 0
THREADS_2X1X2 = lines((0, 0, '0-1', '0-1', 0), (0, 0, '0-1', '0-1', 1),
                      (1, 0, '2-3', '2-3', 2), (1, 0, '2-3', '2-3', 3))
# 2 packages of 3 cores: APIC IDs 0,1,2 / 4,5,6
LAYOUT_2X3 = lines((0, 0, '0-2', '0-2', 0), (0, 1, '0-2', '0-2', 1),
                   (0, 2, '0-2', '0-2', 2), (1, 0, '3-5', '3-5', 4),
                   (1, 1, '3-5', '3-5', 5), (1, 2, '3-5', '3-5', 6))

BOTH = ('6.1', '6.12')

# -- the topology families: a case per kernel and CPU model listed ----------
# sysfs: per kernel ('*' for every kernel); cpuid: per CPU model.  The
# pv-apicid-* families (cpu_topology="vnuma_apicid") run on 6.1 only:
# Linux 6.9 and later number a PV guest's APIC IDs by vCPU.
TOPO = [
    dict(family='pv-default', kernels=BOTH, cpus=('amd', 'intel'),
         sysfs={'6.1': PV_DEFAULT_61, '6.12': PV_DEFAULT_612},
         cpuid={'amd': PV_DEFAULT_AMD, 'intel': PV_DEFAULT_INTEL}),
    dict(family='pv-vnuma-2x2', kernels=BOTH, cpus=('amd', 'intel'),
         sysfs={'*': TWO_BY_TWO},
         cpuid={'amd': amd_pv_cpuid(2) + amd_ids(0, 1, 2, 3),
                'intel': intel_cpuid(2, 1, 2) + intel_ids(0, 1, 2, 3)}),
    dict(family='pv-vnuma-221', kernels=BOTH, cpus=('amd', 'intel'),
         sysfs={'*': TWO_TWO_ONE},
         cpuid={'amd': amd_pv_cpuid(2) + amd_ids(0, 1, 2, 3, 4),
                'intel': intel_cpuid(2, 1, 2) + intel_ids(0, 1, 2, 3, 4)}),
    dict(family='pv-apicid-321', kernels=('6.1',), cpus=('amd', 'intel'),
         sysfs={'*': THREE_TWO_ONE},
         # packages of 4 IDs (shift 2), the largest vnode 3 vCPUs
         cpuid={'amd': amd_pv_cpuid(4, 3) + amd_ids(0, 1, 2, 4, 5, 8),
                'intel': intel_cpuid(4, 2, 3) + intel_ids(0, 1, 2, 4, 5, 8)}),
    dict(family='pv-apicid-noncontig', kernels=('6.1',), cpus=('amd', 'intel'),
         sysfs={'*': NONCONTIG},
         cpuid={'amd': amd_pv_cpuid(2) + amd_ids(0, 2, 1, 3),
                'intel': intel_cpuid(2, 1, 2) + intel_ids(0, 2, 1, 3)}),
    dict(family='pvh-default', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_DEFAULT_LINES}, cpuid={'amd': PVH_DEFAULT}),
    # HVM: APIC IDs 2 * vcpu_id (hvmloader), so PVH's values
    dict(family='hvm-default', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_DEFAULT_LINES}, cpuid={'amd': PVH_DEFAULT}),
    dict(family='hvm-layout-2x2', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_ALIGNED}, cpuid={'amd': pvh_vnuma(4, 2, 2)}),
    dict(family='hvm-vnuma-aligned', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_ALIGNED}, cpuid={'amd': pvh_vnuma(4, 2, 2)}),
    dict(family='pvh-vnuma-aligned', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_ALIGNED}, cpuid={'amd': pvh_vnuma(4, 2, 2)}),
    dict(family='pvh-vnuma-4', kernels=BOTH, cpus=('amd',),
         sysfs={'*': PVH_FOUR}, cpuid={'amd': pvh_vnuma(2, 1, 1)}),
    # threads: Intel only (AMD shows them in leaves guests don't get)
    dict(family='pv-layout-2x1x2', kernels=BOTH, cpus=('intel',),
         sysfs={'*': THREADS_2X1X2},
         cpuid={'intel': intel_cpuid(2, 1, 2, threads=2) + intel_ids(0, 1, 2, 3)}),
    dict(family='pv-layout-2x3', kernels=('6.1',), cpus=('amd',),
         sysfs={'*': LAYOUT_2X3},
         cpuid={'amd': amd_pv_cpuid(4, 3) + amd_ids(0, 1, 2, 4, 5, 6)}),
    # the layout only: pvh-vnuma-aligned shows the same topology on both
    dict(family='pvh-layout-2x2', kernels=('6.12',), cpus=('amd',),
         sysfs={'*': PVH_ALIGNED}, cpuid={'amd': pvh_vnuma(4, 2, 2)}),
    # PVH with APIC IDs chosen by libxl (MADT, SRAT, vLAPIC and CPUID alike)
    dict(family='pvh-layout-2x3', kernels=BOTH, cpus=('amd',),
         sysfs={'*': LAYOUT_2X3}, cpuid={'amd': pvh_chosen(4, 2, 3, 0, 1, 2, 4, 5, 6)}),
    dict(family='pvh-vnuma-321', kernels=BOTH, cpus=('amd',),
         sysfs={'*': THREE_TWO_ONE}, cpuid={'amd': pvh_chosen(4, 2, 3, 0, 1, 2, 4, 5, 8)}),
    # HVM likewise (hvmloader's MADT, SRAT and MP tables)
    dict(family='hvm-layout-2x3', kernels=BOTH, cpus=('amd',),
         sysfs={'*': LAYOUT_2X3}, cpuid={'amd': pvh_chosen(4, 2, 3, 0, 1, 2, 4, 5, 6)}),
    dict(family='hvm-vnuma-321', kernels=BOTH, cpus=('amd',),
         sysfs={'*': THREE_TWO_ONE}, cpuid={'amd': pvh_chosen(4, 2, 3, 0, 1, 2, 4, 5, 8)}),
]

# -- the other kinds, on the AMD model, Linux 6.1 ----------------------------
# bad: an extended regex (case-insensitive) xl create's output must match;
# save: the one xl save's must; domctl: what Xen answers at each step.
OTHER = [
    dict(name='trace', kind='trace', layout='pv-default'),
    dict(name='bad-no-vnuma', kind='bad', expect=r'cpu_topology.*vnuma.*(need|requir)'),
    dict(name='bad-apic-ids', kind='bad', expect=r'cpu_topology.*APIC ID.*25[56]'),
    dict(name='bad-unknown-value', kind='bad', expect=r'invalid value.*bogus.*cpu_topology'),
    dict(name='bad-pv-321', kind='bad',
         expect=r'cpu_topology="vnuma".*contiguous vcpu ranges 0-[0-9]+.*every guest kernel.*cpu_topology="vnuma_apicid"'),
    dict(name='bad-pv-noncontig', kind='bad',
         expect=r'cpu_topology="vnuma".*contiguous vcpu ranges 0-[0-9]+.*every guest kernel.*cpu_topology="vnuma_apicid"'),
    dict(name='bad-layout-product', kind='bad',
         expect=r'cpu_topology="sockets=3,cores=1,threads=1".*not the guest.s 4 vcpus'),
    dict(name='bad-layout-syntax', kind='bad',
         expect=r'invalid value.*cores=two.*cpu_topology.*sockets=S,cores=C,threads=T'),
    dict(name='bad-layout-vnuma', kind='bad',
         expect=r'cpu_topology="sockets=2,cores=2,threads=1" is a layout without vnuma.*cpu_topology="vnuma"'),
    dict(name='bad-pv-layout-2x3', kind='bad',
         expect=r'cpu_topology="sockets=2,cores=3,threads=1".*APIC IDs are the vcpu numbers.*",apicid"'),
    dict(name='bad-amd-layout-threads', kind='bad',
         expect=r'cpu_topology="sockets=1,cores=2,threads=2".*Intel only.*threads=1'),
    dict(name='bad-cpuid-htt', kind='bad',
         expect=r'cpu_topology="sockets=2,cores=2,threads=1" sets the CPUID topology fields that cpuid= overrides in leaf 0x1:'),
    dict(name='bad-cpuid-leafb', kind='bad', expect=r'Missing leaf 0xb, subleaf 0x1'),
    dict(name='bad-cpuid-nc', kind='bad',
         expect=r'cpu_topology="vnuma" sets the CPUID topology fields that cpuid= overrides in leaf 0x80000008:'),
    # move: xl save + restore, xl migrate to localhost, vCPU 1 offline and
    # online; at each step the topology and CPUID of the topo case LIKE
    dict(name='move-pv-vnuma-2x2', kind='move', like='pv-vnuma-2x2'),
    dict(name='move-pv-layout-2x3', kind='move', like='pv-layout-2x3'),
    dict(name='move-pv-apicid-321', kind='move', like='pv-apicid-321'),
    # vcpus < maxvcpus: 4 of the 6 vCPUs up at boot, the other two brought
    # up by xl vcpu-set, then saved and restored
    dict(name='move-pv-layout-2x3-vcpuset', kind='move', like='pv-layout-2x3',
         layout='pv-layout-2x3-vcpus4', steps=('vcpuset', 'restore')),
    dict(name='move-pv-vnuma-221-6.12', kind='move', like='pv-vnuma-221', kernel='6.12'),
    dict(name='move-pvh-layout-2x2-6.12', kind='move', like='pvh-layout-2x2', kernel='6.12'),
    dict(name='move-pvh-vnuma-321', kind='move', like='pvh-vnuma-321'),
    dict(name='move-pvh-layout-2x3', kind='move', like='pvh-layout-2x3'),
    dict(name='move-pvh-layout-2x3-6.12', kind='move', like='pvh-layout-2x3', kernel='6.12'),
    dict(name='move-hvm-layout-2x3', kind='move', like='hvm-layout-2x3', group='hvm'),
    dict(name='move-hvm-vnuma-321', kind='move', like='hvm-vnuma-321', group='hvm'),
    dict(name='move-hvm-layout-2x2', kind='move', like='hvm-layout-2x2', group='hvm'),
    # Xen checks the IDs against the policy (packages of 2 IDs) before the
    # domain runs, and takes none once it has run; a policy set after them
    # must fit them too
    dict(name='domctl-apic-ids', kind='domctl', expect=(
        'duplicate ID: rc -1 errno EEXIST\n'
        'too few IDs: rc -1 errno EINVAL\n'
        "the layout's IDs, before it runs: rc 0\n"
        'a policy of packages of 4 IDs: rc -1 errno EINVAL\n'
        "the layout's policy again: rc 0\n"
        "the layout's IDs, after it ran: rc -1 errno EEXIST\n")),
]


def expand():
    """Every case, as a dict: name, kind, group, cpu, kernel, cfg lines,
    type, and expect / cpuid where they apply."""
    out = []
    for f in TOPO:
        for cpu in f['cpus']:
            for k in f['kernels']:
                name = f['family'] + CPUS[cpu]['suffix'] + KERNELS[k]['suffix']
                cfg = LAYOUTS[f['family']]
                gtype = cfg[0].split('"')[1]
                out.append(dict(name=name, kind='topo', cpu=cpu, kernel=k,
                                cfg=cfg, type=gtype,
                                group=gtype if gtype in GROUPS else cpu,
                                expect=f['sysfs'].get(k, f['sysfs'].get('*')),
                                cpuid=f['cpuid'][cpu]))
    for o in OTHER:
        cfg = LAYOUTS[o.get('layout', o.get('like', o['name']))]
        extra = {}
        if 'like' in o:
            f = next(f for f in TOPO if f['family'] == o['like'])
            extra = dict(expect=f['sysfs'].get(o.get('kernel', DOM0_KERNEL), f['sysfs'].get('*')),
                         cpuid=f['cpuid']['amd'])
        out.append(dict(o, cpu='amd', kernel=o.get('kernel', DOM0_KERNEL), cfg=cfg,
                        type=cfg[0].split('"')[1], group=o.get('group', 'amd'), **extra))
    return out


CASES = expand()
