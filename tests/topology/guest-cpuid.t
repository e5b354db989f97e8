#!/usr/bin/env bash
# guest_cpuid() of the tree (xen/arch/x86/cpuid.c) run in userspace by
# tests/topology/guest-cpuid, for CPUID leaf 0xb: with a topology that
# x86_topo_from_packages() described (2 vCPUs per package), HVM and PVH vCPUs
# report their x2APIC ID (2 * vcpu_id) with x2APIC on and off, and PV, PVH
# and HVM vCPUs their toolstack-chosen APIC ID in leaves 1 and 0xb (IDs
# 128-255 in leaf 1), a PV vCPU without one upstream's 0 and 2 * vcpu_id;
# with none described, leaf 0xb and every other leaf is what the unpatched
# guest_cpuid() (tag "base") answers, PV with x2APIC included.
# Plain and with ASan/UBSan; then the base's own cpuid.c must fail exactly
# the cases the series changes.  TREE (default build/xen) needs no build.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(cd "$(dirname "$0")/guest-cpuid" && pwd)

[ -f "$TREE/xen/arch/x86/cpuid.c" ] || bail "$TREE: not a Xen tree"
git -C "$TREE" rev-parse -q --verify base >/dev/null ||
    bail "$TREE: no tag 'base' (make pq-import)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # OUT [MAKE VARIABLES...]
    local out=$1; shift
    nice -n 10 make -s -C "$dir" TREE="$TREE" OUT="$out" "$@" \
        >"$out.log" 2>&1 || { sed 's/^/# /' "$out.log" | tail -n 20; false; }
}

# run BINARY: its output in $out, its exit status in $rc
run() {
    out=$("$1" 2>"$tmp/stderr"); rc=$?
    [ -s "$tmp/stderr" ] && sed 's/^/# /' "$tmp/stderr" | head -n 20
}

ok "guest-cpuid builds, plain and with ASan/UBSan" build "$tmp/tree"

run "$tmp/tree/guest-cpuid"
is "$rc" 0 "guest-cpuid exits 0"
# One TAP line per case the program ran.
case_lines "" "$out"
plain=$out

run "$tmp/tree/guest-cpuid-asan"
is "$rc" 0 "ASan/UBSan build exits 0, nothing reported"
is "$out" "$plain" "ASan/UBSan build: the same cases, the same results"

# The base's cpuid.c, built against the patched tree: HVM and PVH with
# x2APIC off read x2APIC ID 0 on every vCPU, PV vCPUs report APIC ID 0 in
# leaves 1 and 0xb, and HVM/PVH vCPUs 2 * vcpu_id whatever was chosen, so
# only the cases whose answer is 0, or 2 * vcpu_id by chance, hold.
git -C "$TREE" show base:xen/arch/x86/cpuid.c >"$tmp/cpuid-base.c"
ok "guest-cpuid builds with the base's cpuid.c" \
    build "$tmp/base" CPUID_C="$tmp/cpuid-base.c"
run "$tmp/base/guest-cpuid"
is "$rc" 1 "with the base's cpuid.c: guest-cpuid exits 1"
# chosen KIND VCPU=ID...: the cases of those vCPUs' chosen IDs
chosen() {
    local k=$1 v; shift
    for v in "$@"; do
        for s in 0 1; do
            echo "described: $k chosen IDs vCPU ${v%=*} leaf 0xb:$s: ECX[7:0] = $s, EDX = ${v#*=}"
        done
        echo "described: $k chosen IDs vCPU ${v%=*} leaf 1 EBX[31:24] = ${v#*=}"
    done
}
high() {
    for id in 128 129 254 255; do
        echo "$1 chosen APIC ID $id: leaf 1 EBX[31:24] = $id"
    done
}
want=$(for k in HVM PVH; do for v in 1 2 3; do for s in 0 1; do
        echo "described: $k x2apic=off vCPU $v leaf 0xb:$s: ECX[7:0] = $s, EDX = $((2 * v))"
    done; done; done
    # vCPU 1's chosen ID is 2 * 1
    for k in HVM PVH; do chosen $k 2=1 3=3; high $k; done
    # a PV vCPU without a chosen ID, in a topology described all the same
    for v in 1 2 3; do for s in 0 1; do
        echo "described: PV no IDs vCPU $v leaf 0xb:$s: ECX[7:0] = $s, EDX = $((2 * v))"
    done; done
    chosen PV 1=2 2=1 3=3; high PV)
failed=$(grep '^not ok: ' <<<"$out")
is "$(sed -n 's/^not ok: \(.*\): \(got .*\|another ID\)$/\1/p' <<<"$failed")" "$want" \
    "with the base's cpuid.c: exactly the 51 cases of IDs other than upstream's fail"
is "$(grep -c ' 0000000[046], want \| another ID$' <<<"$failed")" 51 \
    "with the base's cpuid.c: those read ID 0 or 2 * vcpu_id in leaf 0xb, another in leaf 1"

done_testing
