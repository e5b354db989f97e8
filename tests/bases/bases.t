#!/usr/bin/env bash
# The series on the other bases (README "Bases"): for each of 4.20 and
# master whose source can be had, its queue applies to the pristine base
# with git am and with patch -p1 alike, survives an export round trip, and
# the patched tree builds (debug and release hypervisor, tools), passes
# the suite's unit tests of the tree's own code (Xen's CPU policy tests
# with the topology cases, guest_cpuid(), libxl's vNUMA ACPI tables, the
# APIC ID domctl's wrapper, xentrace's pipe writes, the in-tree
# tools/tests/vmx-pi), and runs the PI harness on its own pi.c; master's
# queue, written as xen-devel series, applies in order and gives the same
# tree.  The rest of the suite (the boot test, series-check) covers 4.17.
#
# Sources: XEN_SRC_4_20 and XEN_SRC_MASTER (a tree or a tarball of one, as
# XEN_SRC takes); without XEN_SRC_4_20 the Debian 13 source package is
# fetched.  A base whose source cannot be had is skipped, saying why.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-bases.XXXXXX")
trap 'rm -rf "$work"' EXIT

# check_submission SRC: the master queue as xen-devel series
# (scripts/submission.sh), applied with git am in order on the pristine
# base, gives the tree the queue gives.
check_submission() {
    local sub=$work/submission want
    XEN_SRC=$1 "$TOP/scripts/submission.sh" "$sub" >/dev/null
    ok "master: submission.sh writes one series per cover" \
        test "$(ls "$sub" | wc -l)" = "$(ls "$TOP/patches/master/covers" | wc -l)"
    ok "master: every cover letter has its subject and text" \
        bash -c '! grep -l "\*\*\* \(SUBJECT\|BLURB\) HERE" "$1"/*/0000-cover-letter.patch' _ "$sub"
    case $1 in
    *.xz) want=$(xz -dc "$1" | git get-tar-commit-id) ;;
    *) want=$(git -C "$1" rev-parse HEAD) ;;
    esac
    ok "master: every cover letter names the upstream base $want" \
        bash -c 'for f in "$1"/*/0000-cover-letter.patch; do
                     grep -qx "base-commit: $2" "$f" || exit 1; done' _ "$sub" "$want"
    ok "master: every patch of the fixes series has a Fixes: tag" \
        bash -c 'for f in "$1"/1-*/*.patch; do
                     case $f in */0000-cover-letter.patch) continue ;; esac
                     grep -q "^Fixes: [0-9a-f]\{12\} (\"" "$f" || exit 1; done' _ "$sub"
    mkdir "$work/sub-am"
    git -C "$TREE" archive base | tar -xf - -C "$work/sub-am"
    git -C "$work/sub-am" init -q && git -C "$work/sub-am" add -A -f &&
        git -C "$work/sub-am" -c user.name=t -c user.email=t@t commit -qm base
    ok "master: the series apply with git am, in order, on the base" \
        bash -c 'for f in "$1"/*/*.patch; do
                     case $f in */0000-cover-letter.patch) continue ;; esac
                     git -C "$2" -c user.name=t -c user.email=t@t am -q "$f" ||
                         exit 1; done' _ "$sub" "$work/sub-am"
    ok "master: and give the queue's tree" \
        test "$(git -C "$work/sub-am" rev-parse 'HEAD^{tree}')" = \
             "$(git -C "$TREE" rev-parse 'HEAD^{tree}')"
    # The topology series needs the fixes (PVH vNUMA), not the PI series.
    git -C "$work/sub-am" checkout -q -b alone HEAD~$(($(ls "$sub"/2-*/*.patch "$sub"/3-*/*.patch | wc -l) - 2))
    ok "master: the topology series applies on the base and the fixes alone" \
        bash -c 'for f in "$1"/3-*/*.patch; do
                     case $f in */0000-cover-letter.patch) continue ;; esac
                     git -C "$2" -c user.name=t -c user.email=t@t am -q "$f" ||
                         exit 1; done' _ "$sub" "$work/sub-am"
}

# run_base BASE SRC: the checks above for one base (SRC may be empty).
run_base() {
    local base=$1 tree=$BUILD/xen-$1 log=$work/$1.log n rc
    export BASE=$base TREE=$tree
    if [ -n "$2" ]; then export XEN_SRC=$2; else unset XEN_SRC; fi
    mapfile -t series < <("$TOP/scripts/pq.sh" series)
    n=${#series[@]}

    "$TOP/scripts/pq.sh" import "$tree" >"$log" 2>&1
    rc=$?
    if [ "$rc" != 0 ] && [ "$base" = 4.20 ] && [ -z "$2" ] &&
       grep -q '^fetch-base:' "$log"; then
        ok "$base: skipped, no source: $(grep '^fetch-base:' "$log" | tail -n 1)" true
        return
    fi
    is "$rc" 0 "$base: the $n patches apply with git am" || {
        tail -n 5 "$log" | sed 's/^/# /'; return; }
    is "$(git -C "$tree" rev-list --count base..HEAD)" "$n" "$base: one commit per patch"

    mkdir "$work/$base-plain" "$work/$base-patches"
    git -C "$tree" archive base | tar -xf - -C "$work/$base-plain"
    local p fail=
    for p in "${series[@]}"; do
        patch -s -p1 -d "$work/$base-plain" <"$TOP/patches/$base/$p" ||
            { fail=$p; break; }
    done
    is "$fail" "" "$base: every patch applies with patch -p1 in series order"
    mkdir "$work/$base-am"
    git -C "$tree" archive HEAD | tar -xf - -C "$work/$base-am"
    ok "$base: patch -p1 and git am give the same tree" \
        diff -r "$work/$base-plain" "$work/$base-am"
    PATCHES=$work/$base-patches "$TOP/scripts/pq.sh" export "$tree" >/dev/null
    ok "$base: import then export reproduces patches/$base byte for byte" \
        diff -r -x covers "$TOP/patches/$base" "$work/$base-patches"

    [ "$base" != master ] || check_submission "$2"

    ok "$base: debug hypervisor builds" \
        "$TOP/scripts/build-xen.sh" hypervisor debug || return
    ok "$base: release hypervisor builds" \
        "$TOP/scripts/build-xen.sh" hypervisor release
    ok "$base: tools build" "$TOP/scripts/build-xen.sh" tools || return

    local t
    for t in topology/cpu-policy topology/guest-cpuid topology/libxl-acpi \
             topology/xg-domctl topology/xg-x2apic xentrace/pipe-write \
             pi-harness/in-tree; do
        TREE=$tree "$TOP/tests/$t.t" >"$work/$base-${t#*/}.tap" 2>&1
        rc=$?
        is "$rc" 0 "$base: tests/$t.t passes on this tree" ||
            grep '^not ok' "$work/$base-${t#*/}.tap" | head -n 10 | sed 's/^/# /'
    done

    make -s -C "$TOP/tests/pi-harness" TREE="$tree" \
        OUT="$BUILD/pi-harness-$base" run >"$work/$base-harness.log" 2>&1
    rc=$?
    is "$rc" 0 "$base: the PI harness's quick run passes on this base's pi.c" ||
        tail -n 10 "$work/$base-harness.log" | sed 's/^/# /'
}

run_base 4.20 "${XEN_SRC_4_20:-}"
if [ -n "${XEN_SRC_MASTER:-}" ]; then
    run_base master "$XEN_SRC_MASTER"
else
    ok "master: skipped, no source: XEN_SRC_MASTER is not set (a tree or tarball of upstream master, c447b7308b or later)" true
fi

done_testing
