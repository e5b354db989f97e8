#!/usr/bin/env bash
# guest_cpuid() of the tree (xen/arch/x86/cpuid.c) run in userspace by
# tests/topology/guest-cpuid, for CPUID leaf 0xb: with a topology that
# x86_topo_from_vnuma() described (2 vCPUs per package), HVM and PVH vCPUs
# report their x2APIC ID (2 * vcpu_id) with x2APIC on and off, PV vCPUs
# their toolstack-chosen APIC ID; with none described, leaf 0xb and every
# other leaf is what the unpatched guest_cpuid() (tag "base") answers.
# Plain and with ASan/UBSan; then the cpuid.c from before patch "x86/cpuid:
# fill in leaf 0xb's x2APIC ID without x2APIC" must fail exactly the cases
# that patch fixes.  TREE (default build/xen) needs no build.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(cd "$(dirname "$0")/guest-cpuid" && pwd)
FIX="x86/cpuid: fill in leaf 0xb's x2APIC ID without x2APIC"

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
cases=$(sed -n 's/^cases \([0-9]*\)$/\1/p' <<<"$out")
# One TAP line per case the program ran.
while IFS= read -r line; do
    case $line in
    "ok: "*) ok "${line#ok: }" true ;;
    "not ok: "*) ok "${line#not ok: }" false ;;
    esac
done <<<"$out"
is "$(grep -c '^ok: ' <<<"$out")" "${cases:-none}" \
    "every case announced ($cases) held"
plain=$out

run "$tmp/tree/guest-cpuid-asan"
is "$rc" 0 "ASan/UBSan build exits 0, nothing reported"
is "$out" "$plain" "ASan/UBSan build: the same cases, the same results"

# The code before the fix: the tree's cpuid.c at the parent of the fix.
fix=$(git -C "$TREE" log -1 --format=%H --fixed-strings --grep="$FIX" base..HEAD)
if [ -n "$fix" ]; then
    git -C "$TREE" show "$fix^:xen/arch/x86/cpuid.c" >"$tmp/cpuid-pre.c"
    ok "guest-cpuid builds with cpuid.c from before the fix" \
        build "$tmp/pre" CPUID_C="$tmp/cpuid-pre.c"
    run "$tmp/pre/guest-cpuid"
    is "$rc" 1 "before the fix: guest-cpuid exits 1"
    # HVM and PVH with x2APIC off read x2APIC ID 0 on every vCPU: only
    # vCPU 0's (ID 0) cases hold.
    want=$(for k in HVM PVH; do for v in 1 2 3; do for s in 0 1; do
        echo "described: $k x2apic=off vCPU $v leaf 0xb:$s: ECX[7:0] = $s, EDX = $((2 * v))"
    done; done; done)
    failed=$(grep '^not ok: ' <<<"$out")
    is "$(sed -n 's/^not ok: \(.*\): got .*$/\1/p' <<<"$failed")" "$want" \
        "before the fix: exactly the 12 HVM/PVH x2apic=off cases of vCPUs 1-3 fail"
    is "$(grep -c ' 00000000, want ' <<<"$failed")" 12 \
        "before the fix: those read x2APIC ID 0"
else
    # Only another TREE than the series' own may lack the fix.
    if [ "$TREE" = "$BUILD/xen" ]; then
        ok "$TREE has the commit \"$FIX\"" false
    else
        echo "ok $((_tap_n += 1)) # SKIP $TREE has no commit \"$FIX\""
    fi
fi

done_testing
