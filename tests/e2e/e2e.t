#!/usr/bin/env bash
# TAP wrapper for prove: runs tests/e2e/run.sh (boots the patched Xen under
# QEMU, runs the guest cases, records and analyses a trace) and turns each
# "e2e: PASS/FAIL <case>" verdict into one TAP line, which carries the
# verdict's detail (for a case that took more than one boot: how many, and
# why each earlier one failed).  A selected case without a verdict fails.
# Same environment as run.sh (TREE, E2E_CASES, ...).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
out=${E2E_OUT:-$dir/../../build/e2e}
mkdir -p "$out"
log=$out/run.log
. "$dir/cases.sh"
want=$(echo ${E2E_CASES:-$E2E_ALL_CASES})

n=0
seen=" "
# run.sh prints the verdicts; everything else becomes TAP comments.  A
# hard timeout above the boot timeouts so a stuck host tool cannot hang CI.
while IFS= read -r line; do
    case $line in
    "e2e: PASS "*)
        n=$((n + 1)); rest=${line#e2e: PASS }
        echo "ok $n - ${rest//#/\\#}"
        seen="$seen${rest%% *} " ;;
    "e2e: FAIL "*)
        n=$((n + 1)); rest=${line#e2e: FAIL }
        echo "not ok $n - ${rest//#/\\#}"
        seen="$seen${rest%%:*} " ;;
    *) echo "# ${line#e2e: }" ;;
    esac
done < <(timeout -k 30 "${E2E_TOTAL_TIMEOUT:-3600}" "$dir/run.sh" 2>&1 | tee "$log"; echo "e2e-rc ${PIPESTATUS[0]}" >> "$log")

rc=$(sed -n 's/^e2e-rc //p' "$log" | tail -n1)
for c in $want; do
    case $seen in
    *" $c "*) ;;
    *) n=$((n + 1)); echo "not ok $n - $c: no verdict (run.sh exit ${rc:-?}, see $log)" ;;
    esac
done
# run.sh's exit status must agree with the verdicts
if [ "${rc:-1}" != 0 ] && ! grep -q '^e2e: FAIL ' "$log"; then
    n=$((n + 1))
    echo "not ok $n - e2e run.sh exited ${rc:-?} with no failed case (see $log)"
fi
echo "1..$n"
