#!/usr/bin/env bash
# Every patch builds on its own, and a patch that breaks the build is named.
# Runs last: it moves build/xen through a broken series and back.
. "$(dirname "$0")/../lib/tap.sh"
set -u

n=$("$TOP/scripts/pq.sh" series | wc -l)
work=$(mktemp -d "$BUILD/test-series.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Commits that built before on this machine, with the same compiler,
# packages and build scripts, are taken from series-check's cache; the
# rest are built now.
out=$("$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 0 "series-check passes on patches/series"
cache=$(sed -n 's/^series-check: commits that built are kept in //p' <<<"$out")
diag "$(grep -c ', built before) ' <<<"$out") of $n patches built before (cache $cache)"
is "$(grep -c -E '^series-check: ok [0-9]+/[0-9]+ \((hypervisor|tools|tests|docs only)' <<<"$out")" "$n" \
    "series-check built (or had built) after each of the $n patches"
ok "a patch touching only tools/ builds the tools alone" \
    grep -q -E '^series-check: ok [0-9]+/[0-9]+ \(tools, ' <<<"$out"
ok "the patch adding tools/tests/vmx-pi builds that test alone" \
    grep -q -E '^series-check: ok [0-9]+/[0-9]+ \(tests vmx-pi, [^)]*\) [0-9]+-tools-tests-' <<<"$out"
[ "$rc" = 0 ] || diag "$out"
# (Built or not: with every commit in the cache it builds nothing.)
is "$(git -C "$BUILD/xen" symbolic-ref -q HEAD)" refs/heads/patches \
    "it leaves build/xen on the series' last patch"
ok "each commit that built is remembered" \
    bash -c 'git -C "$1" rev-list base..patches |
             grep -v -x -F -f "$2" | grep -q . && exit 1 || exit 0' _ "$BUILD/xen" "$cache"

# A second run builds nothing again, and says what it would have built.
out=$("$TOP/scripts/series-check.sh" 2>&1)
is "$(grep -c -E '^series-check: ok [0-9]+/[0-9]+ \((hypervisor|tools|tests|docs only)[^)]*, built before\)' <<<"$out")" "$n" \
    "a second run takes all $n from the cache"

# A deliberately broken patch after the series must be the one named:
# once broken for every build, once for the release build only (code under
# #ifndef CONFIG_DEBUG, which the debug build never compiles).
git clone -q --shared "$BUILD/xen" "$work/scratch"
tip=$(git -C "$BUILD/xen" rev-parse patches)
# broken NAME CODE [FILE]: a copy of the series with one more patch, NAME,
# that appends CODE to FILE (default xen/common/version.c); PATCHES for
# series-check
broken() {
    local d=$work/$1
    git -C "$work/scratch" checkout -q --detach "$tip"
    printf '%s\n' "$2" >> "$work/scratch/${3:-xen/common/version.c}"
    git -C "$work/scratch" -c user.name=t -c user.email=t@t commit -q -am "xen: break the build on purpose

This patch exists only to prove that series-check names the patch that
breaks the build.  It must never be part of the series."
    mkdir "$d"
    cp "$TOP/patches/4.17/"*.patch "$d/"
    git -C "$work/scratch" format-patch -q --stdout -1 > "$d/$1"
    { cat "$TOP/patches/4.17/series"; echo "$1"; } > "$d/series"
}

bad=9999-xen-break-the-build-on-purpose.patch
broken "$bad" 'int xen_bigvm_broken(void) { return undeclared_symbol; }'
out=$(PATCHES=$work/$bad "$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 1 "series-check fails on a series with a broken patch"
ok "and names it: $(grep FAIL <<<"$out")" grep -q "^series-check: FAIL at patch $((n + 1))/$((n + 1)): $bad\$" <<<"$out"
ok "the compiler's complaint is shown" grep -q "undeclared_symbol" <<<"$out"
ok "a failed hypervisor build leaves no xen binary behind" test ! -e "$BUILD/xen/xen/xen"

rel=9999-xen-break-the-release-build-on-purpose.patch
broken "$rel" '#ifndef CONFIG_DEBUG
int xen_bigvm_broken(void) { return undeclared_in_release; }
#endif'
out=$(PATCHES=$work/$rel "$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 1 "series-check fails on a patch that breaks the release build only"
ok "it built the release hypervisor for that patch alone" \
    test "$(grep -c '^series-check: [0-9]*/[0-9]*: building (hypervisor and release' <<<"$out")" = 1
ok "and names the patch: $(grep FAIL <<<"$out")" grep -q "^series-check: FAIL at patch $((n + 1))/$((n + 1)): $rel\$" <<<"$out"
ok "the compiler's complaint is shown" grep -q "undeclared_in_release" <<<"$out"
ok "the failed release build leaves no xen binary behind" test ! -e "$BUILD/xen-release/xen/xen"

tst=9999-tools-tests-break-the-build-on-purpose.patch
broken "$tst" 'int xen_bigvm_broken(void) { return undeclared_in_test; }' \
    tools/tests/vmx-pi/main.c
out=$(PATCHES=$work/$tst "$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 1 "series-check fails on a patch that breaks a unit test's build"
ok "it built that test alone: $(grep "$tst" <<<"$out" | head -n 1)" \
    grep -q "^series-check: [0-9]*/[0-9]*: building (tests vmx-pi) $tst" <<<"$out"
ok "and names the patch: $(grep FAIL <<<"$out")" grep -q "^series-check: FAIL at patch $((n + 1))/$((n + 1)): $tst\$" <<<"$out"
ok "the compiler's complaint is shown" grep -q "undeclared_in_test" <<<"$out"

# The same on a tree whose tools were never configured or tested (a fresh
# one): the tools build comes first, builds the tests too, and fails.
rm -f "$BUILD/xen/config/Tools.mk" "$BUILD/xen/tools-tests.log"
out=$(PATCHES=$work/$tst "$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 1 "unconfigured tools: series-check fails on that patch"
ok "and names it: $(grep FAIL <<<"$out")" grep -q "^series-check: FAIL at patch $((n + 1))/$((n + 1)): $tst\$" <<<"$out"
ok "the compiler's complaint is shown" grep -q "undeclared_in_test" <<<"$out"

# Back to the real series, built.
"$TOP/scripts/pq.sh" import "$BUILD/xen" >/dev/null &&
    "$TOP/scripts/build-xen.sh" hypervisor debug >/dev/null &&
    "$TOP/scripts/build-xen.sh" tools >/dev/null
ok "build/xen is back at the series, built" \
    test -s "$BUILD/xen/xen/xen" -a -e "$BUILD/xen/.xen-bigvm-tools.ok"

done_testing
