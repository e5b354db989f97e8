#!/usr/bin/env bash
# Build the series patch by patch: after each patch of patches/BASE the
# debug hypervisor (when the patch touches anything outside tools/ and
# docs/), the release hypervisor too (when it changes code under an NDEBUG
# or CONFIG_DEBUG conditional, which the debug build does not compile:
# scripts/debug-only.py), the tools (when it touches tools/ outside
# tools/tests/, the public headers, the CPU policy library or files outside
# xen/ other than .gitignore) and each of Xen's unit tests the patch touches
# (tools/tests/DIR: a patch touching only those builds them alone) must
# build.  Works in TREE, from the first patch to the last, incrementally.
# A commit that built before on this machine is not built again: commits
# are named by their hash, which covers the whole tree and history (pq.sh
# imports with fixed dates, so a fresh clone gives the same hashes), and
# the hashes of those that built are kept outside the clone, as ccache's
# objects are, in a file named after everything else a build depends on:
# the compiler, the linker, the installed packages and the scripts that
# build.  Names the first patch that breaks the build and exits 1.  Each
# build says when it starts (with its logs) and how long it took.
# Environment: BASE, PATCHES, XEN_SRC, JOBS, NONET as for pq.sh /
# build-xen.sh; TREE (default build/xen); SERIES_CHECK_CACHE (default
# ~/.cache/xen-bigvm/series-check/KEY; an empty file builds every patch
# again).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export TREE=${TREE:-$top/build/xen}
if [ -z "${SERIES_CHECK_CACHE:-}" ]; then
    key=$({ gcc --version; ld --version; dpkg-query -W
            cat "$top/scripts/build-xen.sh" "$top/scripts/lib/ccache.sh" \
                "$top/scripts/series-check.sh" "$top/scripts/debug-only.py"
          } 2>&1 | sha256sum | cut -c1-16)
    SERIES_CHECK_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/xen-bigvm/series-check/$key
    mkdir -p "${SERIES_CHECK_CACHE%/*}"
fi
verified=$SERIES_CHECK_CACHE
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"
start=$(stage_now)

"$top/scripts/pq.sh" import "$TREE"
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
mapfile -t names < <("$top/scripts/pq.sh" series)
n=${#commits[@]}
[ "$n" = "${#names[@]}" ] || { echo "series-check: $n commits for ${#names[@]} patches" >&2; exit 1; }
touch "$verified"
echo "series-check: commits that built are kept in $verified"

for i in "${!commits[@]}"; do
    c=${commits[$i]}
    name="${names[$i]}"
    # The tools only see the hypervisor through the public headers and
    # the CPU policy library (xen/lib, since 4.22 xen/arch/x86/lib), and
    # the hypervisor sees nothing of tools/ and docs/ (which nothing
    # builds): a patch touching none of what a part is built from cannot
    # break that part.
    paths=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
    hyp=; rel=; tls=; logs=()
    mapfile -t tests < <(sed -n 's|^tools/tests/\([^/]*\)/.*|\1|p' <<<"$paths" |
                         sort -u)
    if grep -q -v -e '^tools/' -e '^docs/' -e '^\.gitignore$' <<<"$paths"; then
        hyp=1
        logs+=("$TREE/xen-debug.log")
        if "$top/scripts/debug-only.py" "$TREE" "$c" >/dev/null; then
            rel=1
            logs+=("$TREE-release/xen-release.log")
        fi
    fi
    if grep -v '^tools/tests/' <<<"$paths" |
            grep -q -e '^tools/' -e '^xen/include/public/' -e '^xen/lib/' \
            -e '^xen/include/xen/lib/' -e '^xen/arch/x86/lib/cpu-policy/' ||
        grep -q -v -e '^xen/' -e '^docs/' -e '^tools/tests/' \
            -e '^\.gitignore$' <<<"$paths"; then
        tls=1
        logs+=("$TREE/tools.log")
    fi
    [ "${#tests[@]}" = 0 ] || logs+=("$TREE/tools-tests.log")
    what=${hyp:+hypervisor}${rel:+ and release}${hyp:+${tls:++}}${tls:+tools}
    [ "${#tests[@]}" = 0 ] ||
        what=${what:+$what+}"tests ${tests[*]}"
    what=${what:-docs only}
    if grep -qx "$c" "$verified"; then
        echo "series-check: ok $((i + 1))/$n ($what, built before) $name"
        continue
    fi
    git -C "$TREE" checkout -q --detach "$c"
    stage_begin "series-check: $((i + 1))/$n" "building ($what) $name" "${logs[@]}"
    fail=
    if [ -n "$hyp" ]; then
        "$top/scripts/build-xen.sh" hypervisor debug >/dev/null || fail=1
    fi
    if [ -z "$fail" ] && [ -n "$rel" ]; then
        "$top/scripts/build-xen.sh" hypervisor release >/dev/null || fail=1
    fi
    if [ -z "$fail" ] && [ -n "$tls" ]; then
        "$top/scripts/build-xen.sh" tools >/dev/null || fail=1
    fi
    # A unit test needs the tools configured and their headers in place.
    # (Where they are not, the tools are built first: they build the tests
    # too, and a failure there shows its own log.)
    if [ -z "$fail" ] && [ "${#tests[@]}" != 0 ]; then
        rm -f "$TREE/tools-tests.log"
        { [ -f "$TREE/config/Tools.mk" ] ||
              "$top/scripts/build-xen.sh" tools >/dev/null; } &&
            make -C "$TREE/tools/include" >"$TREE/tools-tests.log" 2>&1 &&
            (for d in "${tests[@]}"; do
                 [ ! -f "$TREE/tools/tests/$d/Makefile" ] ||
                     make -C "$TREE/tools/tests/$d" \
                         >>"$TREE/tools-tests.log" 2>&1 || exit 1
             done) ||
            { [ ! -f "$TREE/tools-tests.log" ] || tail -n 30 "$TREE/tools-tests.log" >&2
              fail=1; }
    fi
    if [ -n "$fail" ]; then
        echo "series-check: FAIL at patch $((i + 1))/$n: $name" >&2
        git -C "$TREE" checkout -q patches
        exit 1
    fi
    echo "$c" >> "$verified"
    stage_pop
    echo "series-check: ok $((i + 1))/$n ($what, $stage_took) $name"
done
git -C "$TREE" checkout -q patches
echo "series-check: all $n patches build on their own ($(stage_since "$start"))"
