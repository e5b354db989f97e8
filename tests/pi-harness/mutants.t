#!/usr/bin/env bash
# pi-harness mutants: each tests/pi-harness/mutants/NAME.diff is a small,
# realistic bug (its header says which, and which hazard of docs/pi-bound.md
# or which fixed defect it brings back) applied to a copy of the tree's
# pi.c.  `make mutants` builds each with and without -DNDEBUG and runs the
# quick run (quick.sh) of both: every one must fail, while the unmutated
# code's quick run (`make run`) must pass.  One TAP line per mutant.
#
#   TREE  the patched tree (default build/xen)
#   OUT   where the harness is built (default build/pi-harness)
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
OUT=${OUT:-$BUILD/pi-harness}
HDIR=$TOP/tests/pi-harness
MDIR=$OUT/mutants

rm -rf "$MDIR"
mkdir -p "$OUT"
make -s -k -j2 -C "$HDIR" TREE="$TREE" OUT="$OUT" mutants \
    > "$OUT/mutants.log" 2>&1
rc=$?
grep -e '^mutant ' -e ' mutants, ' "$OUT/mutants.log" | sed 's/^/# /'
ok "the unmutated code passes the quick run, built with and without -DNDEBUG" \
    test -f "$OUT/pi-harness" -a -f "$OUT/pi-harness-ndebug" -a \
    -z "$(grep 'run] Error' "$OUT/mutants.log")"
n=0
for d in "$HDIR"/mutants/*.diff; do
    m=$(basename "$d" .diff)
    n=$((n + 1))
    ok "$m: applies to pi.c, and the quick run fails with and without -DNDEBUG" \
        sh -c 'test -f "$1" && ! grep -q missed "$1" &&
               [ "$(grep -c caught "$1")" = 2 ]' - "$MDIR/$m/result"
done
ok "at least one mutant per hazard H1-H10" sh -c '
    for h in 1 2 3 4 5 6 7 8 9 10; do
        ls "$1"/mutants/h$h-*.diff >/dev/null 2>&1 || exit 1
    done' - "$HDIR"
is "$rc" 0 "make mutants: $n mutants, $n caught (exit status)"
done_testing
