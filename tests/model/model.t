#!/usr/bin/env bash
# The Spin model of the PI blocking lists: every configuration verifies with
# no error, exhaustively, and every mutant is rejected with a trail.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

command -v spin >/dev/null 2>&1 || bail "spin is missing: scripts/deps.sh model"

out=$BUILD/model
log=$out/run.log
mkdir -p "$out"
rc=0
MODEL_OUT=$out "$TOP/tests/model/run.sh" all > "$log" 2>&1 || rc=$?
sed 's/^/# /' "$log"

is "$rc" 0 "run.sh: every configuration verified, every mutant rejected"

# Each line of configs / mutants is one run, named in the log.
list() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/model/$1" | awk '{ print $1 }'; }
nconf=$(list configs | wc -l)
nmut=$(list mutants | wc -l)
is "$(grep -c '^verified ' "$log")" "$nconf" "all $nconf configurations verified"
is "$(grep -c '^rejected ' "$log")" "$nmut" "all $nmut mutants rejected"
is "$(tail -n 1 "$log")" "$nmut mutants, $nmut rejected" "summary line"

for name in $(list configs); do
    # exhaustive: full search, no error, states stored
    ok "config $name: exhaustive search (no bitstate)" \
        grep -q "Full statespace search" "$out/$name/pan.out"
done
for name in $(list mutants); do
    ok "mutant $name: a counterexample trail" test -s "$out/$name/trail.txt"
done

# A bad argument is refused with the documented status.
rc=0; "$TOP/tests/model/run.sh" bogus 2>/dev/null || rc=$?
is "$rc" 2 "run.sh bogus: exit 2"

done_testing
