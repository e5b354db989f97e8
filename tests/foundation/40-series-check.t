#!/usr/bin/env bash
# Every patch builds on its own, and a patch that breaks the build is named.
. "$(dirname "$0")/../lib/tap.sh"
set -u

n=$(grep -c -v -e '^#' -e '^$' "$TOP/patches/series")
out=$("$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 0 "series-check passes on patches/series"
is "$(grep -c '^series-check: ok ' <<<"$out")" "$n" "series-check built after each of the $n patches"
[ "$rc" = 0 ] || diag "$out"

# A deliberately broken patch, placed in the middle of a copy of the
# series (after the first patch), must be the one named.
work=$(mktemp -d "$BUILD/test-series.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/patches"
cp "$TOP/patches/"*.patch "$work/patches/"
base=$BUILD/series-check
git -C "$base" checkout -q --detach base
cat >> "$base/xen/common/version.c" <<'C'
int xen_bigvm_broken(void) { return undeclared_symbol; }
C
git -C "$base" -c user.name=t -c user.email=t@t commit -q -am "xen: break the build on purpose

This patch exists only to prove that series-check names the patch that
breaks the build.  It must never be part of the series."
broken=0000-xen-break-the-build-on-purpose.patch
git -C "$base" format-patch -q --stdout -1 > "$work/patches/$broken"
git -C "$base" checkout -q patches
{ sed -n 1p "$TOP/patches/series"; echo "$broken"; sed -n '2,$p' "$TOP/patches/series"; } \
    > "$work/patches/series"
out=$(PATCHES=$work/patches "$TOP/scripts/series-check.sh" 2>&1)
rc=$?
is "$rc" 1 "series-check fails on a series with a broken patch"
ok "and names it: $(grep FAIL <<<"$out")" grep -q "^series-check: FAIL at patch 2/$((n + 1)): $broken\$" <<<"$out"
ok "the compiler's complaint is shown" grep -q "undeclared_symbol" <<<"$out"

done_testing
