#!/usr/bin/env bash
# Check the Promela model of the PI blocking lists (pi.pml) with Spin:
# every configuration in `configs' must verify with no error, exhaustively;
# every mutant in `mutants' must be rejected (an assertion or an invalid end
# state found).  Work files and counterexample trails go to build/model/.
#
# usage: run.sh [configs|mutants|all]   (default all)
# Exit status: 0 all as expected, 1 a configuration failed or a mutant was
# not rejected, 2 bad usage, 3 spin or a C compiler is missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${MODEL_OUT:-$top/build/model}
jobs=${JOBS:-2}
what=${1:-all}
case $what in configs|mutants|all) ;; *)
    echo "run.sh: unknown argument '$what' (configs, mutants, all)" >&2; exit 2 ;;
esac
for t in spin "${CC:-cc}"; do
    command -v "$t" >/dev/null 2>&1 ||
        { echo "run.sh: $t not found (scripts/deps.sh model installs it)" >&2; exit 3; }
done
mkdir -p "$out"

# one NAME FLAGS...: verify pi.pml built with FLAGS in $out/NAME; prints
# "NAME errors states seconds depth"
# shellcheck disable=SC2317 # called through xargs below
one() {
    local name=$1; shift
    local d=$out/$name
    rm -rf "$d"; mkdir -p "$d"
    cp "$here/pi.pml" "$d/"
    (
        cd "$d"
        echo "$*" > flags
        spin -a "$@" pi.pml > spin.out 2>&1 || { echo "$name spin-failed - - -"; exit 0; }
        # Exhaustive: no bitstate, no hash compaction; -DCOLLAPSE only
        # compresses the states stored.
        # -O1: pan runs as fast as with -O2 and compiles three times
        # faster; mutants stop early, -O0 (PAN_OPT).
        "${CC:-cc}" "${PAN_OPT:--O1}" -w -DSAFETY -DCOLLAPSE -DMEMLIM=1536 -o pan pan.c ||
            { echo "$name cc-failed - - -"; exit 0; }
        start=$(date +%s.%N)
        ./pan -m100000 -w24 > pan.out 2>&1 || true
        end=$(date +%s.%N)
        errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out)
        states=$(awk '/states, stored/ { print $1; exit }' pan.out)
        depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.out)
        # A search cut short (memory, depth) proves nothing.
        if grep -qE "out of memory|max search depth too small|error: max search depth" pan.out; then
            errors=incomplete
        fi
        if [ -f pi.pml.trail ]; then
            spin -t -p -g "$@" pi.pml > trail.txt 2>&1 || true
        fi
        printf '%s %s %s %s %s\n' "$name" "${errors:-none}" "${states:-0}" \
            "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')" \
            "${depth:-0}"
    )
}
export -f one
export here out

# list FILE: "NAME FLAGS..." lines, comments and blank lines dropped
list() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/$1"; }

rc=0
if [ "$what" != mutants ]; then
    n=0; good=0
    while read -r name errors states secs depth; do
        n=$((n + 1))
        if [ "$errors" = 0 ]; then
            good=$((good + 1))
            echo "verified $name: $states states, depth $depth, ${secs} s"
        else
            echo "FAILED $name: errors=$errors (see $out/$name)"; rc=1
        fi
    done < <(list configs | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _)
    echo "$n configurations, $good verified"
    [ "$n" -gt 0 ] || rc=1
fi
if [ "$what" != configs ]; then
    n=0; rej=0
    while read -r name errors states secs depth; do
        n=$((n + 1))
        if [ "$errors" != none ] && [ "$errors" != incomplete ] &&
           [ "$errors" != spin-failed ] && [ "$errors" != cc-failed ] &&
           [ "$errors" -gt 0 ] && [ -f "$out/$name/pi.pml.trail" ]; then
            rej=$((rej + 1))
            why=$(grep -m1 -oE "assertion violated|invalid end state" "$out/$name/pan.out" || echo error)
            echo "rejected $name: $why after $states states, ${secs} s (trail: $out/$name/trail.txt)"
        else
            echo "NOT REJECTED $name: errors=$errors"; rc=1
        fi
    done < <(list mutants | PAN_OPT=-O0 xargs -P "$jobs" -L 1 bash -c 'one "$@"' _)
    echo "$n mutants, $rej rejected"
    [ "$n" -gt 0 ] || rc=1
fi
exit $rc
