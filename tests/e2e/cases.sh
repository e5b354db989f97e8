# The end-to-end guest cases: their xl configuration and what the guest must
# print (topology cases) or what `xl create` must say (bad-* cases).
# Sourced by run.sh.  Expected values are written here, by hand, from
# docs/misc/vnuma-cpu-topology.pandoc (the docs patch) and how Linux derives its
# topology; nothing is derived from a run.
# shellcheck shell=bash

# More vCPUs than the 4 emulated pCPUs need maxvcpus= (xl refuses vnuma
# with more vcpus than pcpus otherwise).
# All cases, in run order.  Three boots, in the order of E2E_BOOTS: "pvh"
# (AMD model: TCG emulates SVM, not VMX) runs the PVH guests on a freshly
# booted Xen, because after PV guests had run PVH guests died or hung far
# more often (docs/e2e.md); "amd" runs the PV and bad-* cases; "intel", on
# an Intel CPU model, the *-intel cases.  "trace" is the xentrace recording
# made in dom0 while a PV guest of its own (pv-default's configuration,
# named e2e-trace-guest) boots, after the other cases of the amd boot.
# A case ending in -6.12 boots Debian 13's Linux 6.12 as its guest kernel,
# the others Debian 12's Linux 6.1 (dom0 runs 6.1 always).  Every layout
# cpu_topology="vnuma" accepts runs on both kernels; the pv-apicid-* cases
# (cpu_topology="vnuma_apicid") run on 6.1 only: that value is for kernels
# which take APIC IDs from CPUID, and Linux 6.9 and later number a PV
# guest's APIC IDs by vCPU (docs/misc/vnuma-cpu-topology.pandoc).
# PVH guests die or hang now and then under TCG, from the callback vector
# taken with interrupts disabled (docs/e2e.md, "PVH guests under TCG"),
# whatever their layout: see case_boots.
E2E_ALL_CASES="pv-default pv-default-6.12 trace pv-vnuma-2x2 pv-vnuma-2x2-6.12
    pv-vnuma-221 pv-vnuma-221-6.12 pv-apicid-321 pv-apicid-noncontig
    pvh-default pvh-default-6.12 pvh-vnuma-aligned pvh-vnuma-aligned-6.12
    pvh-vnuma-4 pvh-vnuma-4-6.12
    bad-no-vnuma bad-apic-ids bad-unknown-value bad-pvh-unaligned bad-pv-321
    bad-pv-noncontig save-vnuma domctl-apic-ids
    pv-default-intel pv-default-intel-6.12 pv-vnuma-2x2-intel
    pv-vnuma-2x2-intel-6.12 pv-vnuma-221-intel pv-vnuma-221-intel-6.12
    pv-apicid-321-intel pv-apicid-noncontig-intel"

E2E_BOOTS="pvh amd intel"

# case_kernel CASE -> the guest's Linux: 6.1 | 6.12
case_kernel() {
    case $1 in
    *-6.12) echo 6.12 ;;
    *) echo 6.1 ;;
    esac
}

# case_model CASE -> the case without its kernel suffix: what Xen shows the
# guest (CPUID) depends on that alone
case_model() { echo "${1%-6.12}"; }

# case_layout CASE -> the case without its kernel and CPU model suffixes:
# its xl configuration depends on that alone
case_layout() { local m; m=$(case_model "$1"); echo "${m%-intel}"; }

# case_boot CASE -> pvh | amd | intel
case_boot() {
    case $(case_model "$1") in
    pvh-*) echo pvh ;;
    *-intel) echo intel ;;
    *) echo amd ;;
    esac
}

# case_kind CASE -> topo | bad | trace | save | domctl
case_kind() {
    case $1 in
    trace) echo trace ;;
    bad-*) echo bad ;;
    save-*) echo save ;;
    domctl-*) echo domctl ;;
    *) echo topo ;;
    esac
}

# case_boots CASE -> how many fresh boots (a new QEMU each) a case may take
# when its guest dies or hangs before it has printed its whole topology
# (never when it printed a wrong line: that fails at once).  PVH guests
# under TCG die or hang now and then, on stock Xen as on ours (docs/e2e.md,
# "PVH guests under TCG"); E2E_PVH_BOOTS overrides their bound.
case_boots() {
    case $1 in
    pvh-*) echo "${E2E_PVH_BOOTS:-10}" ;;
    *) echo 1 ;;
    esac
}

# vnuma_cfg VCPUS:MB... -> an xl `vnuma = [...]` line, all vnodes on pnode 0
# (the emulated host has one node), distance 10 local / 20 remote.
vnuma_cfg() {
    local n=$# i j d out="vnuma = [" sep=""
    i=0
    for spec in "$@"; do
        d=""
        for ((j = 0; j < n; j++)); do
            d="$d${d:+,}$([ $i = $j ] && echo 10 || echo 20)"
        done
        out="$out$sep [\"pnode=0\", \"size=${spec#*:}\", \"vcpus=${spec%%:*}\", \"vdistances=$d\"]"
        sep=","
        i=$((i + 1))
    done
    echo "$out ]"
}

# The part every guest shares: its Debian kernel and the small domU
# initramfs, as dom0 sees them.
guest_common() {
    local k=/e2e/vmlinuz
    [ "$(case_kernel "$1")" = 6.1 ] || k=$k-$(case_kernel "$1")
    cat <<EOF
name = "$1"
kernel = "$k"
ramdisk = "/e2e/domU.img"
extra = "console=hvc0 rdinit=/init panic=1${E2E_GUEST_EXTRA:+ $E2E_GUEST_EXTRA}"
on_crash = "preserve"
on_reboot = "preserve"
EOF
    # E2E_GUEST_CFG: more configuration lines (';'-separated), for the
    # knobs of tests/e2e/flake.sh
    [ -z "${E2E_GUEST_CFG:-}" ] || echo "$E2E_GUEST_CFG" | tr ';' '\n'
}

# topo_value CASE -> the cpu_topology value of a pair of cases sharing a
# layout: the opt-in (pv-apicid-*) or the default refusing it (bad-*)
topo_value() {
    case $1 in
    bad-*) echo vnuma ;;
    *) echo vnuma_apicid ;;
    esac
}

# case_cfg CASE -> the xl configuration file
case_cfg() {
    local c
    c=$(case_layout "$1")
    guest_common "$1"
    case $c in
    pv-default)
        echo 'type = "pv"'; echo 'memory = 256'; echo 'vcpus = 4' ;;
    pv-vnuma-2x2)
        echo 'type = "pv"'; echo 'vcpus = 4'
        vnuma_cfg 0-1:128 2-3:128
        echo 'cpu_topology = "vnuma"' ;;
    pv-vnuma-221)
        # Runs of 2 vCPUs from a multiple of 2, the last one shorter: the
        # default accepts it, as every kernel reads it the same way.
        echo 'type = "pv"'; echo 'vcpus = 5'; echo 'maxvcpus = 5'
        vnuma_cfg 0-1:128 2-3:128 4:128
        echo 'cpu_topology = "vnuma"' ;;
    pv-apicid-321 | bad-pv-321)
        # Layouts only kernels reading APIC IDs from CPUID (Linux 6.1) see
        # right: the opt-in shows them, the default refuses them.
        echo 'type = "pv"'; echo 'vcpus = 6'; echo 'maxvcpus = 6'
        vnuma_cfg 0-2:128 3-4:128 5:128
        echo "cpu_topology = \"$(topo_value "$c")\"" ;;
    pv-apicid-noncontig | bad-pv-noncontig)
        echo 'type = "pv"'; echo 'vcpus = 4'
        vnuma_cfg 0,2:128 1,3:128
        echo "cpu_topology = \"$(topo_value "$c")\"" ;;
    save-vnuma | domctl-apic-ids)
        echo 'type = "pv"'; echo 'vcpus = 4'
        vnuma_cfg 0-1:128 2-3:128
        echo 'cpu_topology = "vnuma"' ;;
    pvh-default)
        echo 'type = "pvh"'; echo 'memory = 256'; echo 'vcpus = 4'
        echo 'tsc_mode = "native"' ;;
    pvh-vnuma-aligned)
        # tsc_mode: TCG's emulated SVM cannot run RDTSCP (qemu-boot.md).
        echo 'type = "pvh"'; echo 'vcpus = 4'; echo 'tsc_mode = "native"'
        vnuma_cfg 0-1:128 2-3:128
        echo 'cpu_topology = "vnuma"' ;;
    pvh-vnuma-4)
        # 4 vnodes: libxl reads back a 4x4 distance table for the ACPI SLIT.
        echo 'type = "pvh"'; echo 'vcpus = 4'; echo 'tsc_mode = "native"'
        vnuma_cfg 0:64 1:64 2:64 3:64
        echo 'cpu_topology = "vnuma"' ;;
    bad-no-vnuma)
        echo 'type = "pv"'; echo 'memory = 256'; echo 'vcpus = 4'
        echo 'cpu_topology = "vnuma"' ;;
    bad-apic-ids)
        # 5 vnodes of 33 vCPUs: 6 bits per package, so vnode 4 starts at
        # APIC ID 256, past the 8-bit field.  No vnode is too big for one
        # package on either vendor.
        # (vnuma_apicid: "vnuma" refuses the layout earlier, as vnodes of
        # 33 aren't runs of 64 vCPUs.)
        echo 'type = "pv"'; echo 'vcpus = 165'; echo 'maxvcpus = 165'
        vnuma_cfg 0-32:64 33-65:64 66-98:64 99-131:64 132-164:64
        echo 'cpu_topology = "vnuma_apicid"' ;;
    bad-unknown-value)
        echo 'type = "pv"'; echo 'vcpus = 4'
        vnuma_cfg 0-1:128 2-3:128
        echo 'cpu_topology = "bogus"' ;;
    bad-pvh-unaligned)
        # PVH APIC IDs are 2 * vcpu_id: a vnode starting at vCPU 3 cannot
        # be its own package.
        echo 'type = "pvh"'; echo 'vcpus = 6'; echo 'maxvcpus = 6'; echo 'tsc_mode = "native"'
        vnuma_cfg 0-2:128 3-4:128 5:128
        echo 'cpu_topology = "vnuma"' ;;
    *) return 1 ;;
    esac
}

# amd_pv_cpuid N: the CPUID fields every vCPU of a PV guest reads on the
# AMD model for packages of N IDs: lppp and NC N, ApicIdSize log2(N),
# CMP_LEGACY; no leaf 4 (Xen zeroes it on AMD), no leaf 0xb for PV, no
# TOPOEXT.
amd_pv_cpuid() {
    local w=0
    while [ $((1 << w)) -lt "$1" ]; do w=$((w + 1)); done
    cat <<EOF
all 0x1.lppp=$1 0x1.htt=1 0x4.0.type=0 0xb.0.type=0 0xb.0.x2apic=0
all 0x80000001.cmp_legacy=1 0x80000001.topoext=0
all 0x80000008.apicidsize=$w 0x80000008.nc=$1
EOF
}

# intel_cpuid N SHIFT LARGEST: the CPUID fields every vCPU of a PV guest
# reads on the Intel model for packages of N IDs (1 << SHIFT), the largest
# vnode of LARGEST vCPUs: leaf 4 N cores per package on every cache, the
# L3 (the last level) shared by N; leaf 0xb SMT level (shift 0, 1 thread)
# and core level (SHIFT, LARGEST); subleaf 2 is beyond what Xen returns.
intel_cpuid() {
    cat <<EOF
all 0x1.lppp=$1 0x1.htt=1
all 0x4.0.type=1 0x4.0.level=1 0x4.0.share=1 0x4.0.cores=$1
all 0x4.1.type=2 0x4.1.level=1 0x4.1.share=1 0x4.1.cores=$1
all 0x4.2.type=3 0x4.2.level=2 0x4.2.share=1 0x4.2.cores=$1
all 0x4.3.type=3 0x4.3.level=3 0x4.3.share=$1 0x4.3.cores=$1
all 0x4.4.type=0
all 0xb.0.type=1 0xb.0.shift=0 0xb.0.count=1
all 0xb.1.type=2 0xb.1.shift=$2 0xb.1.count=$3
all 0xb.2.type=0 0xb.2.x2apic=0
all 0x80000001.cmp_legacy=0 0x80000001.topoext=0
all 0x80000008.apicidsize=0 0x80000008.nc=1
EOF
}

# vcpu_ids "FIELD..." ID...: vCPU N's APIC ID, in each FIELD, is the Nth
# ID (AMD: leaf 1; Intel: leaf 1 and both leaf 0xb subleaves)
vcpu_ids() {
    local fields=$1 n=0 id f line
    shift
    for id in "$@"; do
        line=cpu$n
        for f in $fields; do line="$line $f=$id"; done
        echo "$line"
        n=$((n + 1))
    done
}
amd_ids() { vcpu_ids 0x1.apic "$@"; }
intel_ids() { vcpu_ids "0x1.apic 0xb.0.x2apic 0xb.1.x2apic" "$@"; }

# case_cpuid CASE -> topology cases: the CPUID topology fields each vCPU
#   must read (tests/e2e/cpuid-check.py names the fields and derives them
#   from the guest's dump; "all" lines hold for every vCPU named by a cpuN
#   line).  Written by hand from docs/misc/vnuma-cpu-topology.pandoc,
#   x86_topo_from_vnuma() (xen/lib/x86/policy.c), guest_cpuid() and
#   recalculate_misc() (xen/arch/x86/cpuid.c, cpu-policy.c) and
#   xc_cpuid_apply_policy() (tools/libs/guest/xg_cpuid_x86.c); PV guests
#   read CPUID through Xen's forced emulation prefix, as their kernel does.
# What the host CPU gives (QEMU 7.2, -smp 4: one socket of 4 cores, one
# thread each): leaf 1 lppp 4 and HTT; on the AMD model (-cpu max is
# AuthenticAMD under TCG) CMP_LEGACY, 0x80000008 ApicIdSize 2 and NC 4, no
# leaf 4 (Xen zeroes it on AMD) and no TOPOEXT (Xen never exposes it); on
# the Intel model leaf 4 lists L1d, L1i, L2 and L3 (QEMU's l3-cache), no
# CMP_LEGACY, and Xen zeroes 0x80000008 ECX.  Leaf 0xb: Xen returns its
# subleaves 0-1 only; a guest without x2APIC (PV) and no topology from the
# toolstack reads zeroes, an HVM/PVH guest level type 0 and x2APIC ID
# 2 * vcpu_id.
# The default cases are upstream's values, from the base code: PV keeps the
# host's lppp, HTT, CMP_LEGACY and 0x80000008 and reads APIC ID 0 (Xen
# clears leaf 1 EBX[31:24] for PV); PVH gets APIC ID 2 * vcpu_id, lppp and
# NC doubled, ApicIdSize + 1, CMP_LEGACY clear (xc_cpuid_apply_policy()).
case_cpuid() {
    local amd_no_l4="0x4.0.type=0" pv_no_b="0xb.0.type=0 0xb.0.x2apic=0"
    case $(case_model "$1") in
    pv-default)
        cat <<EOF
all 0x1.apic=0 0x1.lppp=4 0x1.htt=1 $amd_no_l4 $pv_no_b
all 0x80000001.cmp_legacy=1 0x80000001.topoext=0
all 0x80000008.apicidsize=2 0x80000008.nc=4
cpu0
cpu1
cpu2
cpu3
EOF
        ;;
    pv-vnuma-2x2)
        # bits 1: packages of 2, APIC IDs 0,1 / 2,3
        amd_pv_cpuid 2; amd_ids 0 1 2 3 ;;
    pv-vnuma-2x2-intel)
        intel_cpuid 2 1 2; intel_ids 0 1 2 3 ;;
    pv-vnuma-221-intel)
        intel_cpuid 2 1 2; intel_ids 0 1 2 3 4 ;;
    pv-apicid-321-intel)
        # packages of 4 IDs (shift 2), the largest vnode 3 vCPUs
        intel_cpuid 4 2 3; intel_ids 0 1 2 4 5 8 ;;
    pv-default-intel)
        # the host's leaf 4 (4 cores per package; the L3 shared by all 4),
        # no leaf 0xb for PV
        cat <<EOF
all 0x1.apic=0 0x1.lppp=4 0x1.htt=1 $pv_no_b
all 0x4.0.type=1 0x4.0.level=1 0x4.0.share=1 0x4.0.cores=4
all 0x4.1.type=2 0x4.1.level=1 0x4.1.share=1 0x4.1.cores=4
all 0x4.2.type=3 0x4.2.level=2 0x4.2.share=1 0x4.2.cores=4
all 0x4.3.type=3 0x4.3.level=3 0x4.3.share=4 0x4.3.cores=4
all 0x4.4.type=0
all 0x80000001.cmp_legacy=0 0x80000001.topoext=0
all 0x80000008.apicidsize=0 0x80000008.nc=1
cpu0
cpu1
cpu2
cpu3
EOF
        ;;
    pv-vnuma-221)
        # bits 1: packages of 2, APIC IDs 0,1 / 2,3 / 4
        amd_pv_cpuid 2; amd_ids 0 1 2 3 4 ;;
    pv-apicid-noncontig-intel)
        # as pv-vnuma-2x2-intel, but vCPUs 1 and 2 swap their IDs
        intel_cpuid 2 1 2; intel_ids 0 2 1 3 ;;
    pv-apicid-321)
        # bits 2: packages of 4, APIC IDs 0,1,2 / 4,5 / 8
        amd_pv_cpuid 4; amd_ids 0 1 2 4 5 8 ;;
    pv-apicid-noncontig)
        # bits 1: vnode 0 = vCPUs 0,2 (IDs 0,1), vnode 1 = vCPUs 1,3 (2,3)
        amd_pv_cpuid 2; amd_ids 0 2 1 3 ;;
    pvh-default)
        cat <<EOF
all 0x1.lppp=8 0x1.htt=1 $amd_no_l4 0xb.0.type=0
all 0x80000001.cmp_legacy=0 0x80000001.topoext=0
all 0x80000008.apicidsize=3 0x80000008.nc=8
cpu0 0x1.apic=0 0xb.0.x2apic=0
cpu1 0x1.apic=2 0xb.0.x2apic=2
cpu2 0x1.apic=4 0xb.0.x2apic=4
cpu3 0x1.apic=6 0xb.0.x2apic=6
EOF
        ;;
    pvh-vnuma-aligned | pvh-vnuma-4)
        # APIC IDs 2 * vcpu_id; bits 1 (aligned) or 0 (4 vnodes), plus the
        # unused thread bit: packages of 4 or 2 IDs
        if [ "$(case_model "$1")" = pvh-vnuma-aligned ]; then
            echo "all 0x1.lppp=4 0x80000008.apicidsize=2 0x80000008.nc=4"
        else
            echo "all 0x1.lppp=2 0x80000008.apicidsize=1 0x80000008.nc=2"
        fi
        cat <<EOF
all 0x1.htt=1 $amd_no_l4 0xb.0.type=0
all 0x80000001.cmp_legacy=1 0x80000001.topoext=0
cpu0 0x1.apic=0 0xb.0.x2apic=0
cpu1 0x1.apic=2 0xb.0.x2apic=2
cpu2 0x1.apic=4 0xb.0.x2apic=4
cpu3 0x1.apic=6 0xb.0.x2apic=6
EOF
        ;;
    *) return 1 ;;
    esac
}

# case_expect CASE -> topology cases: the exact lines the guest must print,
#   cpuN package=<physical_package_id> core=<core_id>
#        core_siblings=<core_siblings_list> l3=<cache/index3/shared_cpu_list>
#        initial_apicid=<"initial apicid" of /proc/cpuinfo: CPUID's APIC ID>
# bad cases: an extended regex (case-insensitive) that xl create's output
# must match; xl create must also fail and leave no domain behind.
case_expect() {
    case $1 in
    pv-default | pv-default-intel)
        # Today's behaviour, bit for bit (measured on unpatched Xen,
        # qemu-boot.md): APIC ID 0 everywhere, one package, one L3.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
cpu1 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
cpu2 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
cpu3 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
EOF
        ;;
    pv-default-6.12 | pv-default-intel-6.12)
        # The same CPUID as on 6.1 (APIC ID 0 in leaf 1: the CPUID
        # fields check that), but Linux 6.12 numbers a PV guest's APIC IDs
        # by vCPU, /proc/cpuinfo's "initial apicid" too, and takes only the
        # field widths from CPUID (a package of 4 cores on either model):
        # one package, one L3, core ids 0-3.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
cpu1 package=0 core=1 core_siblings=0-3 l3=0-3 initial_apicid=1
cpu2 package=0 core=2 core_siblings=0-3 l3=0-3 initial_apicid=2
cpu3 package=0 core=3 core_siblings=0-3 l3=0-3 initial_apicid=3
EOF
        ;;
    pv-vnuma-2x2 | pv-vnuma-2x2-intel | pv-vnuma-2x2-6.12 | pv-vnuma-2x2-intel-6.12)
        # 1 bit per package: APIC IDs 0,1 / 2,3, the vCPU numbers too.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-1 l3=0-1 initial_apicid=0
cpu1 package=0 core=1 core_siblings=0-1 l3=0-1 initial_apicid=1
cpu2 package=1 core=0 core_siblings=2-3 l3=2-3 initial_apicid=2
cpu3 package=1 core=1 core_siblings=2-3 l3=2-3 initial_apicid=3
EOF
        ;;
    pv-vnuma-221 | pv-vnuma-221-6.12 | pv-vnuma-221-intel | pv-vnuma-221-intel-6.12)
        # 1 bit per package: APIC IDs 0,1 / 2,3 / 4, the vCPU numbers too.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-1 l3=0-1 initial_apicid=0
cpu1 package=0 core=1 core_siblings=0-1 l3=0-1 initial_apicid=1
cpu2 package=1 core=0 core_siblings=2-3 l3=2-3 initial_apicid=2
cpu3 package=1 core=1 core_siblings=2-3 l3=2-3 initial_apicid=3
cpu4 package=2 core=0 core_siblings=4 l3=4 initial_apicid=4
EOF
        ;;
    pv-apicid-321 | pv-apicid-321-intel)
        # 2 bits per package: APIC IDs 0,1,2 / 4,5 / 8.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-2 l3=0-2 initial_apicid=0
cpu1 package=0 core=1 core_siblings=0-2 l3=0-2 initial_apicid=1
cpu2 package=0 core=2 core_siblings=0-2 l3=0-2 initial_apicid=2
cpu3 package=1 core=0 core_siblings=3-4 l3=3-4 initial_apicid=4
cpu4 package=1 core=1 core_siblings=3-4 l3=3-4 initial_apicid=5
cpu5 package=2 core=0 core_siblings=5 l3=5 initial_apicid=8
EOF
        ;;
    pv-apicid-noncontig | pv-apicid-noncontig-intel)
        # vnode 0 = vCPUs 0,2 (APIC IDs 0,1), vnode 1 = vCPUs 1,3 (2,3).
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0,2 l3=0,2 initial_apicid=0
cpu1 package=1 core=0 core_siblings=1,3 l3=1,3 initial_apicid=2
cpu2 package=0 core=1 core_siblings=0,2 l3=0,2 initial_apicid=1
cpu3 package=1 core=1 core_siblings=1,3 l3=1,3 initial_apicid=3
EOF
        ;;
    pvh-default | pvh-default-6.12)
        # Today's behaviour, bit for bit (measured on Xen built from the base
        # alone: make e2e-flake, variant a): APIC IDs 2 * vcpu_id, one
        # package, one L3.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-3 l3=0-3 initial_apicid=0
cpu1 package=0 core=2 core_siblings=0-3 l3=0-3 initial_apicid=2
cpu2 package=0 core=4 core_siblings=0-3 l3=0-3 initial_apicid=4
cpu3 package=0 core=6 core_siblings=0-3 l3=0-3 initial_apicid=6
EOF
        ;;
    pvh-vnuma-aligned | pvh-vnuma-aligned-6.12)
        # APIC IDs stay 2 * vcpu_id (0,2,4,6): 2 bits per package, so
        # Linux's core id is the APIC ID's low bits.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0-1 l3=0-1 initial_apicid=0
cpu1 package=0 core=2 core_siblings=0-1 l3=0-1 initial_apicid=2
cpu2 package=1 core=0 core_siblings=2-3 l3=2-3 initial_apicid=4
cpu3 package=1 core=2 core_siblings=2-3 l3=2-3 initial_apicid=6
EOF
        ;;
    pvh-vnuma-4 | pvh-vnuma-4-6.12)
        # APIC IDs 0,2,4,6, 1 bit per package (the unused thread bit): each
        # vCPU its own package and L3.
        cat <<'EOF'
cpu0 package=0 core=0 core_siblings=0 l3=0 initial_apicid=0
cpu1 package=1 core=0 core_siblings=1 l3=1 initial_apicid=2
cpu2 package=2 core=0 core_siblings=2 l3=2 initial_apicid=4
cpu3 package=3 core=0 core_siblings=3 l3=3 initial_apicid=6
EOF
        ;;
    bad-pv-321 | bad-pv-noncontig)
        echo 'cpu_topology="vnuma".*contiguous vcpu ranges 0-[0-9]+.*every guest kernel.*cpu_topology="vnuma_apicid"' ;;
    save-vnuma) echo 'Cannot save a guest with vNUMA configured' ;;
    domctl-apic-ids)
        # Xen checks the IDs against the domain's policy (packages of 2 IDs)
        # before the domain runs, and takes none once it has run.
        cat <<'EOF'
duplicate ID: rc -1 errno EEXIST
too few IDs: rc -1 errno EINVAL
the layout's IDs, before it runs: rc 0
the layout's IDs, after it ran: rc -1 errno EEXIST
EOF
        ;;
    bad-no-vnuma) echo 'cpu_topology.*vnuma.*(need|requir)' ;;
    bad-apic-ids) echo 'cpu_topology.*APIC ID.*25[56]' ;;
    bad-unknown-value) echo 'invalid value.*bogus.*cpu_topology' ;;
    bad-pvh-unaligned) echo 'cpu_topology.*(contiguous|aligned|multiple of)' ;;
    *) return 1 ;;
    esac
}
