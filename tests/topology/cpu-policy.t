#!/usr/bin/env bash
# Xen's own CPU policy unit tests (tools/tests/cpu-policy), built from the
# patched tree, with the topology cases of x86_topo_from_packages() and
# x86_topo_from_layout().
# TREE (default build/xen) must have its tools configured (`make tools`).
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
NONET=${NONET:-}
export PATH=/usr/bin:/bin:$PATH
dir=$TREE/tools/tests/cpu-policy

[ -f "$TREE/config/Tools.mk" ] ||
    bail "$TREE: tools not configured (run 'make tools')"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Always relink, so that the binary run is the one built from TREE now.
rm -f "$dir/test-cpu-policy"
ok "test-cpu-policy builds" \
    bash -c '$1 make -C "$2" test-cpu-policy >"$3" 2>&1' _ "$NONET" "$dir" "$log"
[ -x "$dir/test-cpu-policy" ] || { sed 's/^/# /' "$log" | tail -n 20; bail "no test-cpu-policy"; }

out=$("$dir/test-cpu-policy" 2>&1)
rc=$?
is "$rc" 0 "test-cpu-policy exits 0"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /' | tail -n 40

ok "the whole suite reports 'Done: all ok'" \
    grep -qx 'Done: all ok' <<<"$out"

# The pre-existing groups still run.
for g in "CPU vendor identification" "CPUID serialise success" \
         "CPUID deserialise failure" "CPUID out-of-range clearing" \
         "MSR serialise success" "MSR deserialise failure" \
         "policy compatibility success" "policy compatibility failure"; do
    ok "upstream group ran: $g" grep -q "^Testing $g" <<<"$out"
done

# group TITLE MIN: the group's cases all held, and there are at least MIN
group() {
    local title=$1 min=$2 cases g passed
    cases=$(sed -n "s/^Testing $title (\([0-9]*\) cases):\$/\1/p" <<<"$out")
    g=$(sed -n "/^Testing $title/,/^\(Testing\|Done:\)/p" <<<"$out" | sed '1d;$d')
    passed=$(grep -c '^  ok: ' <<<"$g")
    ok "$title: ${cases:-no} cases announced (>= $min)" [ "${cases:-0}" -ge "$min" ]
    is "$passed" "${cases:-0}" "$title: every case announced said 'ok'"
    # Failures print indented "  Test ..." lines; none in the group.
    is "$(grep -c '^  Test ' <<<"$g")" 0 "$title: no case failed"
    group_out=$g
}

group "vNUMA topology" 48
# The cases a reviewer asked for ran and held: layouts, limits, and which
# layouts a kernel numbering APIC IDs by vCPU reads the same way (vnodes of
# 6, 12, 24, 28 vCPUs refused, their power-of-two roundings accepted).
for c in "Intel PV 3/2/1" "AMD PV 3/2/1" "Intel PV non-contiguous" \
         "AMD PV non-contiguous" "Intel PV 1 vnode" "AMD HVM 4/2" \
         "Intel HVM non-contiguous" "257 vCPUs" "AMD PV 256 vnodes" \
         "AMD PV seq 2x2" "AMD PV seq misnumbered" "Intel PV seq 4/3" \
         "AMD PV seq 3/2/1" "Intel PV seq non-contiguous" \
         "AMD PV seq 4/4/3" "AMD PV seq 4 vnodes of 6" \
         "Intel PV seq 2 vnodes of 12" "AMD PV seq 2 vnodes of 24" \
         "Intel PV seq 2 vnodes of 28" "AMD PV seq 4 vnodes of 8" \
         "Intel PV seq 32+32+24" "AMD PV seq 8 vnodes of 32"; do
    ok "case held: $c" grep -qxF "  ok: $c" <<<"$group_out"
done

group "socket, core and thread layouts" 30
# Layouts users name as QEMU's -smp: threads (Intel, PV), 6 and 12 cores,
# the by-vCPU-number rule, HVM IDs, and each refusal.
for c in "Intel PV 2x2x2" "Intel PV seq 1x3x2" "Intel PV 2x1x3" \
         "Intel PV seq 2x1x3" "Intel PV 2x12x2" "AMD PV 4x6x1" \
         "AMD PV seq 4x6x1" "AMD PV 1x2x2" "AMD HVM 1x6x1" "AMD HVM 2x3x1" \
         "AMD HVM 2x1x2" "Intel HVM 1x64x1" "Intel PV 1x128x1" \
         "AMD PV 1x128x1" "Intel PV 5x33x1"; do
    ok "case held: $c" grep -qxF "  ok: $c" <<<"$group_out"
done

group "vCPU APIC ID checks" 12
# What XEN_DOMCTL_set_vcpu_apic_ids refuses.
for c in "Intel duplicate ID" "AMD duplicate ID" \
         "Intel more vCPUs than a package holds" \
         "Intel leaf 4 disagrees with lppp" "AMD ApicIdSize disagrees with lppp" \
         "no HTT" "lppp not a power of two"; do
    ok "case held: $c" grep -qxF "  ok: $c" <<<"$group_out"
done

# The same suite built with ASan and UBSan (the library files as the tools
# build them: xen/lib/x86, since 4.22 xen/arch/x86/lib/cpu-policy).
asan=$(mktemp)
trap 'rm -f "$log" "$asan"' EXIT
libdir=$TREE/xen/arch/x86/lib/cpu-policy
[ -d "$libdir" ] || libdir=$TREE/xen/lib/x86
ok "test-cpu-policy builds with ASan and UBSan" \
    bash -c 'gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
        -std=gnu99 -D__XEN_TOOLS__ -I"$1/tools/include" -o "$2" \
        "$1/tools/tests/cpu-policy/test-cpu-policy.c" "$4"/*.c >"$3" 2>&1' \
    _ "$TREE" "$asan" "$log" "$libdir"
out=$("$asan" 2>&1)
is "$?" 0 "ASan/UBSan build exits 0"
ok "ASan/UBSan build reports 'Done: all ok'" grep -qx 'Done: all ok' <<<"$out"

done_testing
