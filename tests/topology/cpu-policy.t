#!/usr/bin/env bash
# Xen's own CPU policy unit tests (tools/tests/cpu-policy), built from the
# patched tree, with the vNUMA topology cases of x86_topo_from_vnuma().
# TREE (default build/xen) must have its tools configured (`make tools`).
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
NONET=${NONET:-}
export PATH=/usr/bin:/bin:$PATH
dir=$TREE/tools/tests/cpu-policy

[ -f "$TREE/config/Tools.mk" ] ||
    bail "$TREE: tools not configured (run 'make tools')"

ok "x86_topo_from_vnuma() is declared by the tree" \
    grep -q '^int x86_topo_from_vnuma(' "$TREE/xen/include/xen/lib/x86/cpu-policy.h"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Always relink, so that the binary run is the one built from TREE now.
rm -f "$dir/test-cpu-policy"
ok "test-cpu-policy builds" \
    bash -c '$1 make -C "$2" test-cpu-policy >"$3" 2>&1' _ "$NONET" "$dir" "$log"
[ -x "$dir/test-cpu-policy" ] || { sed 's/^/# /' "$log" | tail -n 20; bail "no test-cpu-policy"; }

ok "test-cpu-policy links x86_topo_from_vnuma()" \
    bash -c 'nm "$1" | grep -qw x86_topo_from_vnuma' _ "$dir/test-cpu-policy"

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

cases=$(sed -n 's/^Testing vNUMA topology (\([0-9]*\) cases):$/\1/p' <<<"$out")
group=$(sed -n '/^Testing vNUMA topology/,/^Done:/p' <<<"$out")
passed=$(grep -c '^  ok: ' <<<"$group")
ok "vNUMA topology: ${cases:-no} cases announced (>= 29)" [ "${cases:-0}" -ge 29 ]
is "$passed" "${cases:-0}" "vNUMA topology: every case announced said 'ok'"

# Failures print indented "  Test ..." lines; none in the vNUMA group.
fails=$(grep -c '^  Test ' <<<"$group")
is "$fails" 0 "no vNUMA topology case failed"

# The cases a reviewer asked for ran and held.
for c in "Intel PV 3/2/1" "AMD PV 3/2/1" "Intel PV non-contiguous" \
         "AMD PV non-contiguous" "Intel PV 1 vnode" "AMD HVM 4/2" \
         "Intel HVM non-contiguous" "257 vCPUs" "AMD PV 256 vnodes"; do
    ok "case held: $c" grep -qxF "  ok: $c" <<<"$group"
done

done_testing
