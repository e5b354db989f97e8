#!/usr/bin/env bash
# Where do the PVH guests' deaths and hangs under TCG come from?  N fresh
# boots per variant (a new QEMU each, one guest, one attempt), the variants
# taking turns so that they share the machine's load:
#
#   a   pvh-default on Xen built from the base without the series
#       (hypervisor and tools: build/xen-stock, `make xen-stock`)
#   b   pvh-default on the patched Xen (build/xen)
#   c   pvh-vnuma-aligned (vnuma + cpu_topology="vnuma") on the patched Xen
#
# A variant may carry knobs after '+', each applied to its boots only:
#   xen:ARG     more Xen command line       e.g. c+xen:hap=0
#   guest:ARG   more guest kernel command line   e.g. b+guest:nopti
#   cpu:MODEL   QEMU -cpu instead of max    e.g. a+cpu:EPYC
#   qemu:PATH   another QEMU binary         e.g. a+qemu:/opt/qemu/bin/qemu-system-x86_64
#   cfg:LINE    one more line of the guest's xl configuration
#                                           e.g. c+cfg:cpus="2-3"
#
# usage: tests/e2e/flake.sh [RUNS]        (default 10; make e2e-flake RUNS=N)
# environment: E2E_FLAKE_VARIANTS (default "a b c"), E2E_FLAKE_OUT (default
#   build/e2e-flake), and run.sh's E2E_GUEST_TIMEOUT and E2E_GUEST_SILENCE
#
# Prints each variant's failures / N with each failure's signature (the
# guest's BUG/panic line, or the last console line of a hang) and a
# one-sided Fisher exact test of each variant against the first.  Every
# boot's verdict, guest console and serial log (Xen and dom0) stays under
# E2E_FLAKE_OUT/VARIANT/.  Exit 0 when the runs completed (whatever they
# found), 1 when one could not be run, 2 on bad usage.
set -u
set -o pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$E2E_DIR/../.." && pwd)
RUNS=${1:-10}
VARIANTS=${E2E_FLAKE_VARIANTS:-a b c}
ROOT=$(realpath -m "${E2E_FLAKE_OUT:-$TOP/build/e2e-flake}")
export E2E_GUEST_TIMEOUT=${E2E_GUEST_TIMEOUT:-240}

usage() { echo "usage: $0 [RUNS]  (variants: E2E_FLAKE_VARIANTS, see the top of $0)" >&2; exit 2; }
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac

# variant_env VARIANT: the environment of its run.sh, one NAME=VALUE a line
variant_env() {
    local v=$1 base knob xen="" guest="" cpu="" cfg="" qemu=""
    base=${v%%+*}
    case $base in
    a) echo "TREE=$TOP/build/xen-stock"; echo "E2E_CASES=pvh-default" ;;
    b) echo "TREE=$TOP/build/xen"; echo "E2E_CASES=pvh-default" ;;
    c) echo "TREE=$TOP/build/xen"; echo "E2E_CASES=pvh-vnuma-aligned" ;;
    *) return 1 ;;
    esac
    [ "$v" = "$base" ] || for knob in $(echo "${v#*+}" | tr '+' ' '); do
        case $knob in
        xen:?*) xen="$xen${xen:+ }${knob#xen:}" ;;
        guest:?*) guest="$guest${guest:+ }${knob#guest:}" ;;
        cpu:?*) cpu=${knob#cpu:} ;;
        cfg:?*) cfg="$cfg${cfg:+;}${knob#cfg:}" ;;
        qemu:?*) qemu=${knob#qemu:} ;;
        *) return 1 ;;
        esac
    done
    echo "E2E_XEN_EXTRA=$xen"
    echo "E2E_GUEST_EXTRA=$guest"
    echo "E2E_GUEST_CFG=$cfg"
    [ -z "$cpu" ] || echo "E2E_CPU_AMD=$cpu"
    [ -z "$qemu" ] || echo "E2E_QEMU=$qemu"
}

for v in $VARIANTS; do
    variant_env "$v" > /dev/null || { echo "e2e-flake: unknown variant '$v'" >&2; usage; }
done
for v in $VARIANTS; do
    tree=$(variant_env "$v" | sed -n 's/^TREE=//p')
    [ -f "$tree/xen/xen" ] && [ -x "$tree/dist/install/usr/sbin/xl" ] || {
        echo "e2e-flake: no hypervisor and tools in $tree (make xen-debug tools xen-stock)" >&2
        exit 1
    }
done

# dir VARIANT: its results directory (knobs made file-name safe)
dir() { echo "$ROOT/$(echo "$1" | tr -c 'A-Za-z0-9=.\n-' '_')"; }

mkdir -p "$ROOT"
for v in $VARIANTS; do
    rm -rf "$(dir "$v")"/run-*
    mkdir -p "$(dir "$v")"
done
: > "$ROOT/results.txt"
t0=$(date +%s)
echo "e2e-flake: $RUNS boots per variant ($VARIANTS), in turns; results in $ROOT"

# one VARIANT I: the I-th boot of VARIANT; appends "VARIANT I OUTCOME SIGNATURE"
# to results.txt
one() {
    local v=$1 i=$2 d case verdict outcome sig t
    d=$(dir "$v")
    t=$(date +%s)
    (
        while IFS= read -r kv; do export "${kv%%=*}=${kv#*=}"; done < <(variant_env "$v")
        E2E_OUT=$d E2E_PVH_BOOTS=1 E2E_BOOT_TIMEOUT=$((E2E_GUEST_TIMEOUT + 360)) "$E2E_DIR/run.sh"
    ) > "$d/run-$i.txt" 2>&1
    case=$(variant_env "$v" | sed -n 's/^E2E_CASES=//p')
    mkdir -p "$d/run-$i"
    cp "$d/$case.console" "$d/run-$i/" 2>/dev/null
    cp "$d/$case.log" "$d/run-$i/" 2>/dev/null
    cp "$d"/serial-*.log "$d/run-$i/" 2>/dev/null
    cp -r "$d"/out-* "$d/run-$i/" 2>/dev/null
    verdict=$(grep -a -m1 -E "^e2e: (PASS|FAIL) $case" "$d/run-$i.txt")
    case $verdict in
    "e2e: PASS "*) outcome=ok; sig="" ;;
    *": crashed: "*) outcome=crash ;;
    *": hung: "*) outcome=hang ;;
    *) outcome=other ;;
    esac
    if [ $outcome != ok ]; then
        sig=${verdict#*"$case: "}
        [ -n "$verdict" ] || sig="no verdict: $(tail -n1 "$d/run-$i.txt")"
    fi
    echo "$v $i $outcome $sig" >> "$ROOT/results.txt"
    echo "e2e-flake: $v boot $i: $outcome ($(( $(date +%s) - t )) s)${sig:+: $sig}"
}

for i in $(seq 1 "$RUNS"); do
    for v in $VARIANTS; do one "$v" "$i"; done
done

# -- summary -----------------------------------------------------------------
{
echo
echo "e2e-flake: $RUNS fresh boots per variant, $(( ($(date +%s) - t0) / 60 )) min, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# count VARIANT OUTCOME: how many of its boots had it ("failed": all but ok)
count() {
    awk -v v="$1" -v o="$2" '$1 == v && ($3 == o || (o == "failed" && $3 != "ok"))' \
        "$ROOT/results.txt" | wc -l
}
for v in $VARIANTS; do
    echo "$v: $(count "$v" failed)/$RUNS failed (crash $(count "$v" crash), hang $(count "$v" hang), other $(count "$v" other)), case $(variant_env "$v" | sed -n 's/^E2E_CASES=//p')"
    awk -v v="$v" '$1 == v && $3 != "ok" { $1 = ""; sub(/^ /, ""); print "    boot " $0 }' "$ROOT/results.txt" | cut -c1-220
done
# one-sided Fisher exact test: P(at least this many failures in V) if V and
# the first variant failed alike
python3 - "$ROOT/results.txt" "$RUNS" $VARIANTS <<'EOF'
import sys
from math import comb
res, n, vs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
fails = {v: 0 for v in vs}
for line in open(res):
    f = line.split()
    if f[0] in fails and f[2] != "ok":
        fails[f[0]] += 1
ref = vs[0]
for v in vs[1:]:
    k = fails[v] + fails[ref]
    p = sum(comb(n, x) * comb(n, k - x) for x in range(fails[v], min(n, k) + 1)) / comb(2 * n, k)
    print(f"{v} vs {ref}: {fails[v]}/{n} vs {fails[ref]}/{n} failed, one-sided Fisher p = {p:.3f}")
EOF
} | tee "$ROOT/summary.txt"
exit 0
