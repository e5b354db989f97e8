#!/usr/bin/env bash
# End-to-end test: boot the patched Xen under QEMU (TCG) with a Debian Linux
# dom0, create real guests with the built xl, check what the guests print,
# record a real trace with xentrace and analyse it on the host.
#
# usage: tests/e2e/run.sh            run the cases (one verdict line each)
#        tests/e2e/run.sh --shell    boot the same images, dom0 shell on this terminal
#        tests/e2e/run.sh --verdicts judge the results of the last run again (no boot)
#
# environment:
#   TREE=DIR          built Xen tree (default build/xen): DIR/xen/xen and
#                     DIR/dist/install from `make xen tools`
#   E2E_CASES="..."   cases to run (default: all; see cases.sh)
#   E2E_OUT=DIR       results (default build/e2e)
#   E2E_BOOT_TIMEOUT  seconds per QEMU boot before it is killed (default 1500,
#                     less for a boot of few cases: 300 + 300 per case)
#   E2E_GUEST_TIMEOUT seconds a guest may take to print and power off (default 240)
#   E2E_GUEST_SILENCE seconds a guest's console may stay silent before it
#                     counts as hung (default 120)
#   E2E_PVH_BOOTS     fresh boots a pvh-* case may take when its guest dies
#                     or hangs before printing (default 10; see cases.sh)
#   E2E_QEMU          the QEMU to run (default qemu-system-x86_64 from PATH;
#                     one unpacked elsewhere finds its ROMs in ../share/qemu)
#   E2E_ACCEL         QEMU -accel (default tcg,thread=single: see docs/e2e.md)
#   E2E_JOBS          boot groups (pvh, amd, intel) run at once (default 2)
#   E2E_CPU_AMD / E2E_CPU_INTEL   QEMU -cpu of the AMD and Intel boots
#   E2E_XEN_EXTRA     more Xen command line (e.g. hap=0)
#   E2E_GUEST_EXTRA   more guest kernel command line (e.g. nopti)
#   E2E_GUEST_CFG     more lines of every guest's xl configuration, ';'-separated
#
# Exit status 0 when every selected case passed; 1 otherwise (the failing
# cases are named on stderr and in the FAIL lines).  Results: build/e2e/.
set -u
set -o pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$E2E_DIR/../.." && pwd)
TREE=${TREE:-$TOP/build/xen}
OUT=$(realpath -m "${E2E_OUT:-$TOP/build/e2e}")
CACHE=$TOP/build/cache
BOOT_TIMEOUT=${E2E_BOOT_TIMEOUT:-1500}
GUEST_TIMEOUT=${E2E_GUEST_TIMEOUT:-240}
GUEST_SILENCE=${E2E_GUEST_SILENCE:-120}
CPU_AMD=${E2E_CPU_AMD:-max}
CPU_INTEL=${E2E_CPU_INTEL:-max,vendor=GenuineIntel}
ACCEL=${E2E_ACCEL:-tcg,thread=single}
JOBS=${E2E_JOBS:-2}
QEMU=("${E2E_QEMU:-qemu-system-x86_64}")
[ -z "${E2E_QEMU:-}" ] || [ ! -d "$(dirname "$E2E_QEMU")/../share/qemu" ] ||
    QEMU+=(-L "$(dirname "$E2E_QEMU")/../share/qemu")
# smap=0: TCG, else dom0 dies at once.  xsave=0: under TCG, Xen's XRSTOR of
# a PVH vCPU's saved state faults from time to time ("Fixup #GP ... xrstor",
# "fault#1" in the Xen log, with or without cpu_topology); Xen then resets
# that vCPU's FPU/SSE/AVX registers and the guest dies of it a few seconds
# later.  With FXSAVE/FXRSTOR instead no fault was seen (docs/e2e.md).
XEN_CMDLINE="console=com1 com1=115200,8n1 dom0_mem=1G,max:1G dom0_max_vcpus=2 loglvl=all guest_loglvl=all smap=0 xsave=0${E2E_XEN_EXTRA:+ $E2E_XEN_EXTRA}"
DOM0_CMDLINE="console=hvc0 earlyprintk=xen rdinit=/init panic=5"

. "$E2E_DIR/cases.sh"

# The whole script is one brace group: bash parses it all before running
# it, so editing this file while a run is going does not break that run.
{

T_START=$(date +%s)
log() { echo "e2e: $*"; }
die() { echo "e2e: FAIL setup: $*"; echo "e2e: failed: setup" >&2; exit 1; }
elapsed() { echo $(( $(date +%s) - T_START )); }

mode=run
case ${1:-} in
--shell) mode=shell ;;
--verdicts) mode=verdicts ;;
"") ;;
-h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "usage: $0 [--shell | --verdicts]" >&2; exit 2 ;;
esac

# -- selection ---------------------------------------------------------------
CASES=${E2E_CASES:-$E2E_ALL_CASES}
CASES=$(echo $CASES)
for c in $CASES; do
    case " $(echo $E2E_ALL_CASES) " in
    *" $c "*) ;;
    *) echo "e2e: unknown case '$c' (known: $(echo $E2E_ALL_CASES))" >&2; exit 2 ;;
    esac
done

# -- prerequisites -----------------------------------------------------------
"$TOP/scripts/deps.sh" e2e || die "scripts/deps.sh e2e failed"
for t in "${QEMU[0]}" busybox cpio dpkg-deb python3 timeout; do
    command -v "$t" >/dev/null || die "$t not found"
done
INST=$TREE/dist/install
[ -f "$TREE/xen/xen" ] || die "no hypervisor at $TREE/xen/xen (run make xen)"
[ -x "$INST/usr/sbin/xl" ] || die "no tools at $INST (run make tools)"
for f in usr/sbin/xenstored usr/sbin/xenconsoled usr/sbin/xentrace usr/lib/xen/bin/xen-init-dom0; do
    [ -x "$INST/$f" ] || die "$INST/$f missing"
done
PI_STATS=$TOP/tools/pi-stats/pi-stats
[ -x "$PI_STATS" ] || die "no $PI_STATS (run make pi-stats)"
mkdir -p "$OUT" "$CACHE"

# -- kernels: Debian's linux-image-amd64 of bookworm (6.1: dom0 and guests)
# and of trixie (6.12: guests), downloaded once into build/cache, not
# installed.  Trixie's comes through a private apt configuration under
# build/cache/apt-trixie (the machine's sources name bookworm only).
apt_trixie() {
    local d=$CACHE/apt-trixie mirror
    mirror=$("$TOP/scripts/fetch-base.sh" --sources |
             awk '$NF == "main" && $(NF - 1) == "bookworm" { print $(NF - 2); exit }')
    [ -n "$mirror" ] || { echo "no bookworm mirror in the machine's apt sources" >&2; return 1; }
    mkdir -p "$d/lists/partial" "$d/archives/partial"
    echo "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$d/sources.list"
    APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
              -o "Dir::State::Lists=$d/lists" -o "Dir::Cache::Archives=$d/archives"
              -o "Dir::State::Status=/dev/null" -o "APT::Sandbox::User=root")
    apt-get "${APT_OPTS[@]}" -qq update >/dev/null 2>&1 ||
        { echo "apt-get update of trixie ($d/sources.list) failed" >&2; return 1; }
}

# kernel_deb 6.1|6.12: the cached package, else the one the suite's
# linux-image-amd64 depends on, downloaded.
kernel_deb() {
    local v=$1 deb pkg re
    re="linux-image-${v//./\\.}[-.][-.0-9]*(\+deb[0-9]+)?-amd64"
    deb=$(ls -1 "$CACHE"/linux-image-"$v".*amd64_*_amd64.deb 2>/dev/null | sort -V | tail -n1)
    [ -z "$deb" ] || { echo "$deb"; return 0; }
    APT_OPTS=()
    [ "$v" = 6.1 ] || apt_trixie || return 1
    pkg=$(apt-cache "${APT_OPTS[@]}" depends linux-image-amd64 2>/dev/null |
          sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | grep -E "^$re\$" | head -n1)
    [ -n "$pkg" ] || pkg=$(apt-cache "${APT_OPTS[@]}" search --names-only "^$re\$" 2>/dev/null |
                           cut -d' ' -f1 | sort -V | tail -n1)
    [ -n "$pkg" ] || { echo "no linux-image-$v.*-amd64 known to apt" >&2; return 1; }
    (cd "$CACHE" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >/dev/null 2>&1) ||
        { echo "apt-get download $pkg failed" >&2; return 1; }
    deb=$(ls -1 "$CACHE/${pkg}"_*_amd64.deb 2>/dev/null | tail -n1)
    [ -s "$deb" ] && echo "$deb"
}

# unpack_kernel 6.1|6.12: the package under $OUT/kernel/V; sets VMLINUZ to
# its vmlinuz and KVER to its version
unpack_kernel() {
    local v=$1 deb kdir
    deb=$(kernel_deb "$v") || die "cannot get the Debian $v kernel package"
    kdir=$OUT/kernel/$v
    if [ "$(cat "$kdir/.from" 2>/dev/null)" != "$deb" ]; then
        rm -rf "$kdir" && mkdir -p "$kdir"
        dpkg-deb -x "$deb" "$kdir/x" || die "dpkg-deb -x $deb failed"
        echo "$deb" > "$kdir/.from"
    fi
    VMLINUZ=$(ls "$kdir"/x/boot/vmlinuz-* 2>/dev/null | head -n1)
    [ -s "$VMLINUZ" ] || die "no vmlinuz in $deb"
    KVER=${VMLINUZ##*/vmlinuz-}
    log "kernel $v: $(basename "$deb")"
}
unpack_kernel 6.12
VMLINUZ_612=$VMLINUZ
unpack_kernel 6.1
MODDIR=$OUT/kernel/6.1/x/lib/modules/$KVER

# modules NAME...: NAME and what it depends on (from each .ko's .modinfo),
# dependencies first, once each.
declare -A MOD_SEEN
MOD_ORDER=()
mod_file() {
    local n=$1 f
    f=$(find "$MODDIR" -name "$n.ko" -o -name "${n//_/-}.ko" -o -name "${n//-/_}.ko" | head -n1)
    [ -n "$f" ] && echo "$f"
}
mod_add() {
    local n=$1 f deps d
    [ -n "${MOD_SEEN[$n]:-}" ] && return 0
    MOD_SEEN[$n]=1
    f=$(mod_file "$n") || { echo "kernel module $n not in $KVER" >&2; return 1; }
    deps=$(tr '\0' '\n' < "$f" | sed -n 's/^depends=//p' | head -n1)
    for d in ${deps//,/ }; do mod_add "$d" || return 1; done
    MOD_ORDER+=("$f")
}

# -- images ------------------------------------------------------------------
# busybox_root DIR: busybox-static; /init makes the applet links at boot
# (busybox --install -s), which is faster than hundreds of ln here.
busybox_root() {
    local d=$1
    mkdir -p "$d"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root}
    cp "$(command -v busybox)" "$d/bin/busybox"
    ln -s busybox "$d/bin/sh"
}
mkcpio() { (cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$2"; }

build_domU() {
    local r=$OUT/domU.root
    rm -rf "$r"
    busybox_root "$r"
    cat > "$r/init" <<'EOF'
#!/bin/sh
# domU: print the CPU topology Linux derived, then power off.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo E2E-GUEST-BEGIN
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
# what CPUID gives each vCPU (PV: through Xen's forced emulation prefix, as
# the kernel reads it)
echo E2E-CPUID-BEGIN
if [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PV ]; then
    /bin/cpuid-dump --xen
else
    /bin/cpuid-dump
fi
echo "E2E-CPUID-END rc=$?"
echo E2E-GUEST-END
echo "info online=$(cat /sys/devices/system/cpu/online) nodes=$(cat /sys/devices/system/node/online 2>/dev/null)"
grep -E '^(processor|apicid|initial apicid|vendor_id)' /proc/cpuinfo | tr '\t' ' ' | sed 's/^/info /'
poweroff -f
EOF
    chmod +x "$r/init"
    gcc -static -O2 -Wall -Werror -o "$r/bin/cpuid-dump" "$E2E_DIR/cpuid-dump.c" ||
        return 1
    mkcpio "$r" "$OUT/domU.img"
}

build_dom0() {
    local r=$OUT/dom0.root f lib c b
    rm -rf "$r"
    busybox_root "$r"
    # the built tools (static libraries, debug info and docs left out)
    (cd "$INST" && find . -path ./usr/lib/debug -prune -o -name '*.a' -o \
        -path './usr/share/man' -prune -o -path './usr/share/doc' -prune -o -print |
        cpio -pdm --quiet "$r") || return 1
    # their shared libraries, as ldd finds them, plus libgcc_s.so.1 (xl
    # aborts without it: pthread_cancel)
    for f in $(find "$INST" -path "$INST/usr/lib/debug" -prune -o -type f -perm -u+x -print) \
             "$PI_STATS"; do
        [ "$(head -c4 "$f" | tr -d '\177')" = ELF ] || continue
        LD_LIBRARY_PATH=$INST/usr/lib:$INST/usr/lib64 ldd "$f" 2>/dev/null
    done | grep -o '/[^ ]*' | grep -v "^$INST" | sort -u > "$OUT/dom0.libs"
    lib=$(/sbin/ldconfig -p 2>/dev/null | sed -n 's/^\tlibgcc_s.so.1 (libc6,x86-64) => //p' | head -n1)
    [ -n "$lib" ] || lib=$(ls /lib/x86_64-linux-gnu/libgcc_s.so.1 2>/dev/null)
    [ -n "$lib" ] || { echo "libgcc_s.so.1 not found" >&2; return 1; }
    echo "$lib" >> "$OUT/dom0.libs"
    while read -r lib; do
        mkdir -p "$r$(dirname "$lib")"
        cp -L "$lib" "$r$lib" || return 1
    done < "$OUT/dom0.libs"
    # kernel modules, in load order
    MOD_ORDER=(); MOD_SEEN=()
    for m in xen-evtchn xen-privcmd xen-gntdev xen-gntalloc xenfs virtio_pci virtio_blk; do
        mod_add "$m" || return 1
    done
    mkdir -p "$r/e2e/modules" "$r/e2e/cases"
    for f in "${MOD_ORDER[@]}"; do
        cp "$f" "$r/e2e/modules/"
        basename "$f" .ko >> "$r/e2e/modules.order"
    done
    # what the guests boot (cases.sh: guest_common)
    cp "$VMLINUZ" "$r/e2e/vmlinuz"
    cp "$VMLINUZ_612" "$r/e2e/vmlinuz-6.12"
    cp "$OUT/domU.img" "$r/e2e/domU.img"
    # every case's configuration and kind; what a boot runs is on its
    # command line (boot_cmdline)
    for c in $(echo $E2E_ALL_CASES) e2e-trace-guest; do
        [ "$(case_kind "$c")" = trace ] && continue
        if [ $c = e2e-trace-guest ]; then
            # the trace's own PV guest (pv-default's configuration), so
            # that the tracing load never touches the checked guests
            case_cfg pv-default | sed 's/^name = .*/name = "e2e-trace-guest"/'
        else
            case_cfg "$c"
        fi > "$r/e2e/cases/$c.cfg"
        echo "$c $(case_kind "$c")" >> "$r/e2e/kinds"
    done
    # the domctl case's client, built against the tree's libraries (not
    # for a tree without the domctl: the base alone, for make e2e-flake);
    # pi-stats for the live trace
    mkdir -p "$r/e2e/bin"
    cp "$PI_STATS" "$r/e2e/bin/" || return 1
    if grep -q xc_domain_set_vcpu_apic_ids "$TREE/tools/include/xenguest.h"; then
        gcc -O2 -Wall -Werror -D__XEN_TOOLS__ -I"$TREE/tools/include" \
            -o "$r/e2e/bin/apic-ids" "$E2E_DIR/apic-ids.c" \
            -L"$INST/usr/lib" -Wl,-rpath-link,"$INST/usr/lib" -lxenguest -lxenctrl ||
            return 1
    fi
    cp "$E2E_DIR/dom0-init" "$r/init"
    chmod +x "$r/init"
    mkcpio "$r" "$OUT/dom0.img"
}

# images_key: what the images are made of.  They are built again only when
# it changes (the flake runs boot the same images many times).
images_key() {
    {
        echo "$VMLINUZ $VMLINUZ_612 ${E2E_GUEST_EXTRA:-} ${E2E_GUEST_CFG:-}"
        cat "$E2E_DIR/dom0-init" "$E2E_DIR/cases.sh" "$E2E_DIR/run.sh" \
            "$E2E_DIR/apic-ids.c" "$E2E_DIR/cpuid-dump.c" "$PI_STATS"
        find "$INST" -printf '%P %s %T@\n' | LC_ALL=C sort
    } | sha256sum | cut -c1-16
}

t=$(date +%s)
[ $mode = verdicts ] || {
key=$(images_key)
if [ "$(cat "$OUT/images.key" 2>/dev/null)" = "$key" ] && [ -s "$OUT/dom0.img" ]; then
    log "images: unchanged since they were built (images.key $key)"
else
    rm -f "$OUT/images.key"
    build_domU || die "domU initramfs"
    build_dom0 || die "dom0 initramfs"
    echo "$key" > "$OUT/images.key"
    log "images: dom0.img $(( $(stat -c %s "$OUT/dom0.img") / 1048576 )) MB, domU.img $(( $(stat -c %s "$OUT/domU.img") / 1024 )) KB ($(( $(date +%s) - t )) s)"
fi
}

# -- boots -------------------------------------------------------------------
# Boot B (pvh, amd or intel) runs its selected cases.  A case whose guest
# died or hung before it finished printing its topology (with no wrong line
# so far), and that may take more boots (case_boots), runs again in a fresh
# boot, B-boot2, B-boot3, ...; the failed boot's console and logs are kept
# as CASE.bootK.*.

boot_cpu() { case $1 in intel*) echo "$CPU_INTEL" ;; *) echo "$CPU_AMD" ;; esac; }

# boot_cmdline CASE...: dom0's part of the command line for those cases
boot_cmdline() {
    local c list="" trace=""
    for c in "$@"; do
        if [ "$(case_kind "$c")" = trace ]; then
            trace=e2e-trace-guest
        else
            list="$list${list:+:}$c"
        fi
    done
    # the trace's guest boots after the other cases of its boot
    [ -z "$trace" ] || list="$list${list:+:}$trace"
    echo "e2e.cases=$list${trace:+ e2e.trace=$trace} e2e.guest_timeout=$GUEST_TIMEOUT e2e.guest_silence=$GUEST_SILENCE"
}

# boot ID CASE...: run QEMU; results land in $OUT/out-ID/, its serial
# console in $OUT/serial-ID.log
boot() {
    local b=$1 rc t0 cpu limit
    shift
    local img=$OUT/out-$b.img
    cpu=$(boot_cpu "$b")
    limit=$(( 300 + $# * (GUEST_TIMEOUT + 60) ))
    [ "$limit" -lt "$BOOT_TIMEOUT" ] || limit=$BOOT_TIMEOUT
    rm -f "$img"; rm -rf "$OUT/out-$b"
    truncate -s 512M "$img"
    t0=$(date +%s)
    timeout -k 10 "$limit" "${QEMU[@]}" -accel "$ACCEL" -M pc -cpu "$cpu" -smp 4 -m 3G \
        -display none -serial "file:$OUT/serial-$b.log" -monitor none -no-reboot \
        -kernel "$TREE/xen/xen" -append "$XEN_CMDLINE" \
        -initrd "$VMLINUZ $DOM0_CMDLINE e2e.boot=$b $(boot_cmdline "$@"),$OUT/dom0.img" \
        -drive "file=$img,format=raw,if=virtio" < /dev/null > "$OUT/qemu-$b.txt" 2>&1
    rc=$?
    BOOT_SECS[$b]=$(( $(date +%s) - t0 ))
    mkdir -p "$OUT/out-$b"
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        BOOT_ERR[$b]="boot $b timed out after ${limit}s (see $OUT/serial-$b.log)"
    elif [ $rc != 0 ]; then
        BOOT_ERR[$b]="QEMU exited $rc: $(tail -n1 "$OUT/qemu-$b.txt") (see $OUT/serial-$b.log)"
    fi
    if ! tar -xf "$img" -C "$OUT/out-$b" 2>/dev/null || [ ! -f "$OUT/out-$b/done" ]; then
        [ -n "${BOOT_ERR[$b]:-}" ] ||
            BOOT_ERR[$b]="dom0 did not finish (no results on the output disk; see $OUT/serial-$b.log: $(grep -a -m1 -E 'Panic|panic|e2e-dom0: FATAL' "$OUT/serial-$b.log" | tr -d '\r' | cut -c1-120))"
    fi
    [ -z "${BOOT_ERR[$b]:-}" ] || echo "${BOOT_ERR[$b]}" > "$OUT/out-$b/boot-error"
    rm -f "$img"
    echo "${BOOT_SECS[$b]}" > "$OUT/boot-secs-$b"
    log "boot $b: ${BOOT_SECS[$b]} s (QEMU rc $rc)"
}

# boot_id B K: the K-th boot of B
boot_id() { if [ "$2" = 1 ]; then echo "$1"; else echo "$1-boot$2"; fi; }

# case_dir CASE: the results of the case's last boot
case_dir() { echo "$OUT/out-$(boot_id "$(case_boot "$1")" "$(cat "$OUT/$1.boots" 2>/dev/null || echo 1)")"; }

# unfinished CASE DIR: the guest died or hung before it finished printing
# its topology, and every line it did print is the expected one.  (A
# refusal by xl create, or a wrong line, is judged at once.)
unfinished() {
    local rc got
    [ "$(case_kind "$1")" = topo ] || return 1
    rc=$(cat "$2/$1.create.rc" 2>/dev/null)
    [ -z "$rc" ] || [ "$rc" = 0 ] || return 1
    ! grep -aq '^E2E-GUEST-END' "$2/$1.console" 2>/dev/null || return 1
    got=$(tr -d '\r' < "$2/$1.console" 2>/dev/null | sed -n '/^E2E-GUEST-BEGIN$/,$p' | grep '^cpu[0-9]')
    [ -z "$got" ] || [ "$got" = "$(case_expect "$1" | head -n "$(echo "$got" | wc -l)")" ]
}

# keep_attempt CASE B K: the evidence of the case's failed K-th boot
keep_attempt() {
    local c=$1 id d
    id=$(boot_id "$2" "$3")
    d=$OUT/out-$id
    tr -d '\r' < "$d/$c.console" > "$OUT/$c.boot$3.console" 2>/dev/null
    tr -d '\r' < "$OUT/serial-$id.log" > "$OUT/$c.boot$3.serial.log" 2>/dev/null
    cp "$d/xl-dmesg.txt" "$OUT/$c.boot$3.xl-dmesg.txt" 2>/dev/null
    if [ -n "${BOOT_ERR[$id]:-}" ] && [ ! -f "$d/$c.create.rc" ]; then
        echo "${BOOT_ERR[$id]}"
    else
        no_topology "$d" "$c" "$OUT/$c.boot$3.console"
    fi > "$OUT/$c.boot$3.why"
}

# no_topology DIR CASE CONSOLE: why a guest printed no topology
no_topology() {
    local d=$1 c=$2 con=$3 sig why
    # the first BUG/panic line, without its time stamp and addresses
    sig=$(grep -a -m1 -E 'BUG:|Oops|Kernel panic|segfault|double fault' "$con" |
          sed -E 's/^\[ *[0-9.]+\] //; s/ at ([0-9a-f]{8,}|\(____ptrval____\)) .*//' | cut -c1-150)
    if [ -f "$d/$c.died" ]; then
        why="crashed: $(cat "$d/$c.died")${sig:+: $sig}"
    elif [ -f "$d/$c.timeout" ]; then
        why="hung: $(cat "$d/$c.timeout")${sig:+: $sig}; last line: $(grep -a -v '^[[:space:]]*$' "$con" 2>/dev/null | tail -n1 | cut -c1-120)"
    else
        why="guest did not print its topology${sig:+: $sig}"
    fi
    [ ! -f "$d/$c.xl-list-errors" ] || why="$why; xl list failed: $(tail -n1 "$d/$c.xl-list-errors" | cut -c1-100)"
    echo "$why"
}

declare -A BOOT_SECS BOOT_ERR
if [ $mode = shell ]; then
    echo "e2e: shell: Xen + dom0 on this terminal; dom0 shell when ready."
    echo "e2e: guest configs in /e2e/cases/*.cfg; 'exit' powers off; Ctrl-a x kills QEMU"
    truncate -s 512M "$OUT/out-shell.img"
    exec "${QEMU[@]}" -accel "$ACCEL" -M pc -cpu "$CPU_AMD" -smp 4 -m 3G -display none \
        -serial mon:stdio -no-reboot -kernel "$TREE/xen/xen" -append "$XEN_CMDLINE" \
        -initrd "$VMLINUZ $DOM0_CMDLINE e2e.boot=shell e2e.mode=shell,$OUT/dom0.img" \
        -drive "file=$OUT/out-shell.img,format=raw,if=virtio"
fi

# boot_cases B: the selected cases of boot B, in order
boot_cases() { local c; for c in $CASES; do [ "$(case_boot "$c")" = "$1" ] && echo "$c"; done; }

# boot_group B: boot B with its selected cases, then again, in fresh boots,
# with those that may take one more (case_boots)
boot_group() {
    local b=$1 todo k=1 id again c
    todo=$(boot_cases "$b")
    while [ -n "$todo" ]; do
        id=$(boot_id "$b" $k)
        boot "$id" $todo
        again=""
        for c in $todo; do
            echo $k > "$OUT/$c.boots"
            if [ $k -lt "$(case_boots "$c")" ] && unfinished "$c" "$OUT/out-$id"; then
                keep_attempt "$c" "$b" $k
                log "case $c: boot $k of $(case_boots "$c"): $(cat "$OUT/$c.boot$k.why")"
                again="$again $c"
            fi
        done
        todo=$(echo $again)
        k=$((k + 1))
    done
}

# The boot groups, E2E_JOBS of them at a time (each QEMU is one host
# thread), started in the order of E2E_BOOTS.
if [ $mode = run ]; then
    rm -rf "$OUT"/out-* "$OUT"/serial-*.log "$OUT"/qemu-*.txt "$OUT"/boot-secs-*
    for c in $(echo $E2E_ALL_CASES); do rm -f "$OUT/$c".boot*; done
    for b in $E2E_BOOTS; do
        [ -n "$(boot_cases "$b")" ] || continue
        while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do wait -n; done
        boot_group "$b" &
    done
    wait
fi
for b in "$OUT"/out-*; do
    [ -f "$b/boot-error" ] && BOOT_ERR[${b##*/out-}]=$(cat "$b/boot-error")
    [ -f "$OUT/boot-secs-${b##*/out-}" ] && BOOT_SECS[${b##*/out-}]=$(cat "$OUT/boot-secs-${b##*/out-}")
done

# -- verdicts ----------------------------------------------------------------
FAILED=()
pass() { echo "e2e: PASS $1${2:+ ($2)}"; }
fail() { echo "e2e: FAIL $1: $2"; FAILED+=("$1"); }

# first_error FILE: xl's first error line (the cause), else its last line
first_error() {
    { grep -m1 -iE 'error|invalid|refus|not supported' "$1" || grep -v '^\s*$' "$1" | tail -n1; } | cut -c1-200
}

# earlier_boots CASE: for a case that took more than one boot, "; boot K
# of N, before: 1: why; ..." (each failed boot's console and logs are kept
# as OUT/CASE.bootT.*); nothing otherwise.
earlier_boots() {
    local c=$1 t=1 why=""
    while [ -f "$OUT/$c.boot$t.why" ]; do
        why="$why${why:+; }$t: $(cat "$OUT/$c.boot$t.why")"
        t=$((t + 1))
    done
    [ $t = 1 ] || echo "; boot $t of $(case_boots "$c"), before: $why"
}

check_topo() {
    local c=$1 d=$2 rc want got line tries
    rm -f "$OUT/$c.log" "$OUT/$c.console" "$OUT/$c.cpuid" "$OUT/$c.cpuid-want"
    [ -f "$d/$c.console" ] && tr -d '\r' < "$d/$c.console" > "$OUT/$c.console"
    rc=$(cat "$d/$c.create.rc" 2>/dev/null)
    if [ -z "$rc" ]; then fail "$c" "not run (dom0 stopped before it)"; return; fi
    if [ "$rc" != 0 ]; then
        fail "$c" "xl create exited $rc: $(first_error "$d/$c.create.txt")"
        cp "$d/$c.create.txt" "$OUT/$c.log"
        return
    fi
    if [ ! -f "$OUT/$c.console" ]; then fail "$c" "no guest console log"; return; fi
    sed -n '/^E2E-GUEST-BEGIN$/,/^E2E-GUEST-END$/p' "$OUT/$c.console" | grep '^cpu[0-9]' > "$OUT/$c.log"
    tries=$(earlier_boots "$c")
    if ! grep -q '^E2E-GUEST-END$' "$OUT/$c.console"; then
        fail "$c" "$(no_topology "$d" "$c" "$OUT/$c.console")$tries"
        return
    fi
    want=$(case_expect "$c")
    got=$(cat "$OUT/$c.log")
    if [ "$got" = "$want" ]; then
        # then what CPUID gave each vCPU (cpuid-check.py; fields in $c.cpuid)
        if ! case_cpuid "$c" > "$OUT/$c.cpuid-want"; then
            fail "$c" "no CPUID values written for it in cases.sh (case_cpuid)"
        elif ! line=$(python3 "$E2E_DIR/cpuid-check.py" "$OUT/$c.console" \
                      "$OUT/$c.cpuid-want" "$OUT/$c.cpuid"); then
            fail "$c" "CPUID: $line$tries"
        else
            pass "$c" "$(wc -l < "$OUT/$c.log") CPUs, CPUID fields as written, $(cat "$d/$c.secs" 2>/dev/null) s$tries"
        fi
        return
    fi
    line=$(diff <(echo "$want") <(echo "$got") | grep -E '^[<>]' | head -n2 | tr '\n' ' ')
    if [ "$(echo "$want" | wc -l)" != "$(echo "$got" | wc -l)" ]; then
        fail "$c" "guest shows $(echo "$got" | grep -c .) CPUs, want $(echo "$want" | wc -l) (diff: $line)$tries"
    else
        fail "$c" "topology differs (< want, > got): $line$tries"
    fi
}

check_bad() {
    local c=$1 d=$2 rc re
    rc=$(cat "$d/$c.create.rc" 2>/dev/null)
    if [ -z "$rc" ]; then fail "$c" "not run (dom0 stopped before it)"; return; fi
    { echo "# xl create /e2e/cases/$c.cfg: exit $rc"; cat "$d/$c.create.txt"
      echo "# xl list afterwards"; cat "$d/$c.xl-list.txt"; } > "$OUT/$c.log"
    re=$(case_expect "$c")
    if [ "$rc" = 0 ]; then
        fail "$c" "xl create accepted the configuration (domain created)"
    elif grep -q "^$c " "$d/$c.xl-list.txt"; then
        fail "$c" "xl create failed but left domain $c behind"
    elif [ "$(grep -vc -e '^Name ' -e '^Domain-0 ' "$d/$c.xl-list.txt")" != 0 ]; then
        fail "$c" "a domain other than Domain-0 exists after the refusal: $(grep -v -e '^Name ' -e '^Domain-0 ' "$d/$c.xl-list.txt" | head -n1)"
    elif ! grep -qiE -- "$re" "$d/$c.create.txt"; then
        fail "$c" "refused (rc $rc) without the expected message /$re/: $(first_error "$d/$c.create.txt")"
    else
        pass "$c" "refused: $(grep -iE -m1 -- "$re" "$d/$c.create.txt" | sed 's/^.*\(cpu_topology\)/\1/' | cut -c1-110)"
    fi
}

# check_save CASE DIR: the guest was created, xl save refused it with the
# expected message, and the guest was still there afterwards, neither
# paused, suspended, crashed nor dying.
check_save() {
    local c=$1 d=$2 rc re st
    rc=$(cat "$d/$c.create.rc" 2>/dev/null)
    if [ -z "$rc" ]; then fail "$c" "not run (dom0 stopped before it)"; return; fi
    { echo "# xl create /e2e/cases/$c.cfg: exit $rc"; cat "$d/$c.create.txt"
      echo "# xl save: exit $(cat "$d/$c.save.rc" 2>/dev/null)"; cat "$d/$c.save.txt" 2>/dev/null
      echo "# xl list afterwards"; cat "$d/$c.xl-list.txt" 2>/dev/null; } > "$OUT/$c.log"
    [ "$rc" = 0 ] || { fail "$c" "xl create exited $rc: $(first_error "$d/$c.create.txt")"; return; }
    re=$(case_expect "$c")
    st=$(awk -v n="$c" '$1 == n { print $5 }' "$d/$c.xl-list.txt" 2>/dev/null)
    if [ "$(cat "$d/$c.save.rc" 2>/dev/null)" = 0 ]; then
        fail "$c" "xl save accepted a guest with vNUMA"
    elif ! grep -qiE -- "$re" "$d/$c.save.txt"; then
        fail "$c" "xl save failed without the expected message /$re/: $(first_error "$d/$c.save.txt")"
    elif [ -z "$st" ]; then
        fail "$c" "the guest is gone after the refused xl save"
    elif [[ $st == *[pscd]* ]]; then
        fail "$c" "the guest is not running after the refused xl save: state $st"
    else
        pass "$c" "xl save refused, guest left in state $st: $(grep -iE -m1 -- "$re" "$d/$c.save.txt" | cut -c1-100)"
    fi
}

# check_domctl CASE DIR: what Xen answered to XEN_DOMCTL_set_vcpu_apic_ids
# at each step (case_expect), for a guest created paused, then running.
check_domctl() {
    local c=$1 d=$2 rc want got
    rc=$(cat "$d/$c.create.rc" 2>/dev/null)
    if [ -z "$rc" ]; then fail "$c" "not run (dom0 stopped before it)"; return; fi
    { echo "# xl create -p /e2e/cases/$c.cfg: exit $rc"; cat "$d/$c.create.txt"
      echo "# apic-ids steps"; cat "$d/$c.steps.txt" 2>/dev/null; } > "$OUT/$c.log"
    [ "$rc" = 0 ] || { fail "$c" "xl create -p exited $rc: $(first_error "$d/$c.create.txt")"; return; }
    want=$(case_expect "$c")
    got=$(cat "$d/$c.steps.txt" 2>/dev/null)
    if [ "$got" = "$want" ]; then
        pass "$c" "$(echo "$got" | sed 's/^[^:]*: //' | paste -sd, - | sed 's/,/, /g')"
    else
        fail "$c" "Xen answered otherwise (< want, > got): $(diff <(echo "$want") <(echo "$got") | grep -E '^[<>]' | head -n2 | tr '\n' ' ')"
    fi
}

# live_vs_file DIR FILE-JSON: pi-stats read the trace live in dom0 (from
# xentrace through a pipe): it exited 0, printed interval reports while it
# read, and its final report equals FILE-JSON, the host's analysis of the
# copy tee made, but for the input's name.  Prints what it found.
live_vs_file() {
    local rc
    rc=$(cat "$1/trace.live.rc" 2>/dev/null)
    [ "$rc" = 0 ] || { echo "exited ${rc:-?}: $(tail -n1 "$1/trace.live.stderr" 2>/dev/null)"; return 1; }
    python3 - "$1/trace.live.json" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if not lines:
    print("no output"); sys.exit(1)
try:
    objs = [json.loads(l) for l in lines]
except ValueError as e:
    print("output is not one JSON object per line: %s" % e); sys.exit(1)
live, interval = objs[-1], objs[:-1]
whole = json.load(open(sys.argv[2]))
if not interval or any("interval" not in o for o in interval):
    print("%d interval reports before the final one" % len(interval)); sys.exit(1)
for o in (live, whole):
    for i in o.get("inputs", []):
        i.pop("name", None)
if live != whole:
    diff = [k for k in sorted(set(live) | set(whole)) if live.get(k) != whole.get(k)]
    print("final report differs from the file's in: %s" % " ".join(diff)); sys.exit(1)
print("live pi-stats = file (%d interval reports, %d records)" % (len(interval), live["records"]))
PY
}

# check_trace DIR: the trace came out whole; pi-stats, xenalyze and
# xentrace_format read it; record counts agree.
check_trace() {
    local d=$1 c=trace tr=$OUT/trace.xentrace ps=$PI_STATS
    local rc why="" n_ps n_xt n_fmt j
    rm -f "$tr" "$OUT/trace.log"
    rc=$(cat "$d/trace.rc" 2>/dev/null)
    [ -n "$rc" ] || { fail $c "xentrace did not run (dom0 stopped before it)"; return; }
    # (what xentrace said, but for its "change evtmask" notice)
    [ "$rc" = 0 ] || { fail $c "xentrace exited $rc: $(grep -v '^change evtmask' "$d/trace.stderr" | paste -sd ' ')"; return; }
    [ -s "$d/trace.xentrace" ] || { fail $c "xentrace wrote nothing"; return; }
    cp "$d/trace.xentrace" "$tr"
    [ "$(sha256sum < "$tr" | cut -d' ' -f1)" = "$(cut -d' ' -f1 "$d/trace.sha256")" ] ||
        { fail $c "trace sha256 differs from dom0's: damaged on the way out"; return; }
    exec 3>&1 1>"$OUT/trace.log"
    echo "== trace: $(stat -c %s "$tr") bytes, recorded in dom0 with: $(cat "$d/trace.cmd"), stopped after $(cat "$d/trace.stopped" 2>/dev/null)"
    echo "== independent decoder (tests/e2e/xtcount.py)"
    python3 "$E2E_DIR/xtcount.py" "$tr" > "$OUT/trace.xtcount.json" 2>&1 || why="xtcount: $(cat "$OUT/trace.xtcount.json")"
    cat "$OUT/trace.xtcount.json"
    echo "== pi-stats"
    if ! make -s -C "$TOP/tools/pi-stats" >"$OUT/trace.pi-stats-build.txt" 2>&1 || [ ! -x "$ps" ]; then
        why=${why:-"pi-stats does not build: $(tail -n1 "$OUT/trace.pi-stats-build.txt")"}
    else
        "$ps" "$tr" > "$OUT/trace.pi-stats.txt" 2>&1 || why=${why:-"pi-stats exited $?"}
        cat "$OUT/trace.pi-stats.txt"
        "$ps" --json "$tr" > "$OUT/trace.pi-stats.json" 2>/dev/null || why=${why:-"pi-stats --json exited $?"}
    fi
    echo "== xenalyze --summary"
    timeout 300 "$INST/usr/bin/xenalyze" --summary "$tr" > "$OUT/trace.xenalyze.txt" 2>&1 ||
        why=${why:-"xenalyze --summary exited $?: $(tail -n1 "$OUT/trace.xenalyze.txt")"}
    head -n 40 "$OUT/trace.xenalyze.txt"
    echo "== xentrace_format"
    timeout 300 python3 "$INST/usr/bin/xentrace_format" "$TREE/tools/xentrace/formats" \
        < "$tr" > "$OUT/trace.xentrace_format.txt" 2>"$OUT/trace.xentrace_format.err" ||
        why=${why:-"xentrace_format exited $?: $(tail -n1 "$OUT/trace.xentrace_format.err")"}
    exec 1>&3 3>&-
    [ -z "$why" ] || { fail $c "$why"; return; }
    j() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
    n_ps=$(j "$OUT/trace.pi-stats.json" records)
    n_xt=$(j "$OUT/trace.xtcount.json" records)
    # xentrace_format prints one line per record and one per window header
    n_fmt=$(grep -vc ' cpu_change ' "$OUT/trace.xentrace_format.txt")
    {
        echo "== record counts: pi-stats $n_ps, xtcount $n_xt, xentrace_format $n_fmt"
        echo "== windows: pi-stats $(j "$OUT/trace.pi-stats.json" windows), xtcount $(j "$OUT/trace.xtcount.json" windows)"
    } >> "$OUT/trace.log"
    # the summary goes in the test log
    sed 's/^/e2e:   /' "$OUT/trace.pi-stats.txt"
    if [ "$n_ps" != "$n_xt" ]; then
        fail $c "record counts differ: pi-stats $n_ps, independent decoder $n_xt"
    elif [ "$n_fmt" != "$n_xt" ]; then
        fail $c "record counts differ: xentrace_format $n_fmt, independent decoder $n_xt"
    elif [ "$(j "$OUT/trace.pi-stats.json" windows)" != "$(j "$OUT/trace.xtcount.json" windows)" ]; then
        fail $c "window counts differ: pi-stats $(j "$OUT/trace.pi-stats.json" windows), decoder $(j "$OUT/trace.xtcount.json" windows)"
    elif [ "$(j "$OUT/trace.pi-stats.json" corrupt_bytes)" != 0 ] ||
         [ "$(j "$OUT/trace.pi-stats.json" truncated_bytes)" != 0 ]; then
        fail $c "pi-stats: corrupt $(j "$OUT/trace.pi-stats.json" corrupt_bytes) / truncated $(j "$OUT/trace.pi-stats.json" truncated_bytes) bytes"
    elif [ "$n_xt" -lt 1000 ]; then
        fail $c "only $n_xt records in ${tr##*/}: xentrace recorded next to nothing"
    elif ! live=$(live_vs_file "$d" "$OUT/trace.pi-stats.json"); then
        fail $c "live pi-stats in dom0: $live"
    elif ! grep -q "^|-- Domain $(cat "$d/trace.domid" 2>/dev/null) --|" "$OUT/trace.xenalyze.txt"; then
        fail $c "xenalyze --summary shows no activity of the traced guest (domain $(cat "$d/trace.domid" 2>/dev/null || echo 'id unknown')): the trace missed its boot"
    else
        pass $c "$(stat -c %s "$tr") bytes, $n_xt records in $(j "$OUT/trace.xtcount.json" windows) windows on $(j "$OUT/trace.xtcount.json" pcpus) pCPUs, $(j "$OUT/trace.xtcount.json" lost_records) lost; pi-stats = xtcount = xentrace_format; $live"
    fi
}

for c in $CASES; do
    d=$(case_dir "$c")
    b=${d##*/out-}
    if [ ! -d "$d" ]; then
        fail "$c" "no results of boot $b in $d"
        continue
    fi
    if [ -n "${BOOT_ERR[$b]:-}" ] && [ ! -f "$d/$c.create.rc" ] && [ ! -f "$d/trace.rc" -o "$c" != trace ]; then
        fail "$c" "${BOOT_ERR[$b]}$(earlier_boots "$c")"
        continue
    fi
    case $(case_kind "$c") in
    topo) check_topo "$c" "$d" ;;
    bad) check_bad "$c" "$d" ;;
    save) check_save "$c" "$d" ;;
    domctl) check_domctl "$c" "$d" ;;
    trace) check_trace "$d" ;;
    esac
done
for b in $E2E_BOOTS; do
    [ -f "$OUT/out-$b/xl-info.txt" ] && cp "$OUT/out-$b/xl-info.txt" "$OUT/xl-info-$b.txt"
done

total=$(elapsed)
echo "$total" > "$OUT/wall-seconds"
log "wall time ${total} s (boots: $(for b in "${!BOOT_SECS[@]}"; do printf '%s %ss ' "$b" "${BOOT_SECS[$b]}"; done))"
log "results in $OUT (serial logs: serial-*.log)"
if [ ${#FAILED[@]} -gt 0 ]; then
    echo "e2e: failed: ${FAILED[*]}" >&2
    exit 1
fi
exit 0
}
