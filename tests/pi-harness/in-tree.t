#!/usr/bin/env bash
# tools/tests/vmx-pi, the series' own unit test of pi.c that travels with
# the patches (single threaded, built and run by Xen's make as upstream
# would run it), on TREE (default build/xen; its tools configured, as
# `make tools` leaves them).  It must pass, built as it is and with
# -DNDEBUG; and with -DNDEBUG, so that no ASSERT() in pi.c can be what
# catches it, it must fail for every mutant of pi.c in mutants/ except those
# named in SEQUENTIAL_MISSES: the bugs that only an interleaving of pCPUs,
# or tracing switched on during a walk, brings out; and in UNCHECKED_MISSES:
# the bugs in what the in-tree test does not look at (xAPIC's NDST, how many
# lists a spill search looks at and whether it goes round them, on its host
# of 8 pCPUs where 4 probes reach a whole socket; where a move goes once
# every list is full, writes into freed per-CPU areas).  The harness
# (mutants.t) catches those.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
dir=$TREE/tools/tests/vmx-pi
SEQUENTIAL_MISSES=" c1-spill-no-recheck d1-fixup-sn-window d7-wakeup-cycles
    h2-unblock-no-recheck h8-spill-holds-own-lock
    x2-limit-cpus-counted-unlocked x3-resume-reads-on-early "
UNCHECKED_MISSES=" c4-switch-to-x2apic-ndst c5-spill-probes-skipped
    c5-spill-rotor-stuck c5-spill-one-rotor c5-fixup-overflow-one-cpu
    c6-limits-written-offline "

[ -f "$dir/main.c" ] || bail "$TREE has no tools/tests/vmx-pi"
[ -f "$TREE/config/Tools.mk" ] ||
    bail "$TREE: tools not configured (run 'make tools')"

log=$(mktemp)
trap 'make -s -C "$dir" clean >/dev/null 2>&1; rm -f "$log"' EXIT

# run [MAKE VARIABLES...]: a clean build and run; its output in $out
run() {
    make -s -C "$dir" clean >/dev/null 2>&1
    out=$(make -s -C "$dir" "$@" run 2>&1); rc=$?
}

for flags in "" -DNDEBUG; do
    run APPEND_CFLAGS="$flags"
    is "$rc" 0 "make -C tools/tests/vmx-pi run${flags:+ (APPEND_CFLAGS=$flags)}: exit 0" ||
        tail -n 10 <<<"$out" | sed 's/^/# /'
    ok "every check held: $(tail -n 1 <<<"$out")" \
        grep -qE '^[1-9][0-9]* checks, 0 failed$' <<<"$out"
done

for d in "$TOP"/tests/pi-harness/mutants/*.diff; do
    m=$(basename "$d" .diff)
    make -s -C "$dir" clean >/dev/null 2>&1
    make -s -C "$dir" pi.c >/dev/null 2>&1
    if ! patch -s -f "$dir/pi.c" <"$d" >"$log" 2>&1; then
        echo "ok $((_tap_n += 1)) # SKIP $m: does not apply to this base's pi.c"
        continue
    fi
    # A mutant may leave a variable or a function unused.
    if ! make -s -C "$dir" APPEND_CFLAGS="-DNDEBUG -Wno-error" test_vmx_pi \
            >"$log" 2>&1; then
        ok "$m: builds" false
        sed 's/^/# /' "$log" | tail -n 5
        continue
    fi
    out=$("$dir/test_vmx_pi" 2>&1); rc=$?
    case " $(echo $SEQUENTIAL_MISSES) " in
    *" $m "*)
        diag "$m: exit $rc (a race or mid-walk tracing: the harness's)"
        continue ;;
    esac
    case " $(echo $UNCHECKED_MISSES) " in
    *" $m "*)
        diag "$m: exit $rc (not what this test looks at: the harness's)"
        continue ;;
    esac
    ok "$m: the test fails (exit $rc) $(grep -m 1 FAIL <<<"$out" | cut -c 1-90)" \
        test "$rc" != 0
done

done_testing
