#!/usr/bin/env bash
# A bad XEN_SRC or BASE, or a tarball with the wrong sha256, stops with one line that
# names the problem, exit status 1, and nothing left behind that looks built.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-bad.XXXXXX")
trap 'rm -rf "$work"' EXIT

# expect_fail NAME PATTERN ENV... : pq import into a fresh tree must fail.
expect_fail() {
    local name=$1 pattern=$2 out rc
    shift 2
    out=$(env "$@" "$TOP/scripts/pq.sh" import "$work/tree" 2>&1 >/dev/null)
    rc=$?
    is "$rc" 1 "$name: exit status 1"
    is "$(printf '%s\n' "$out" | wc -l)" 1 "$name: one line of error"
    ok "$name: message names the problem: $out" grep -q -- "$pattern" <<<"$out"
    ok "$name: no tree left behind" \
        test -z "$(ls -d "$work"/tree* 2>/dev/null)"
}

expect_fail "missing XEN_SRC" "XEN_SRC=$work/nowhere: no such file or directory" \
    XEN_SRC="$work/nowhere"

expect_fail "BASE=master without XEN_SRC" "BASE=master needs XEN_SRC" BASE=master
expect_fail "an unknown BASE" "BASE=4.99: no such base (4.17, 4.20, master)" BASE=4.99

echo "not a tarball" > "$work/junk.tar.xz"
expect_fail "XEN_SRC a file that is no tarball" "XEN_SRC=$work/junk.tar.xz: cannot unpack" \
    XEN_SRC="$work/junk.tar.xz"

mkdir -p "$work/notxen/docs"
expect_fail "XEN_SRC not a Xen tree" "not a Xen source tree" XEN_SRC="$work/notxen"

mkdir -p "$work/xen418/xen" "$work/xen418/tools"
printf 'export XEN_VERSION       = 4\nexport XEN_SUBVERSION    = 18\n' > "$work/xen418/xen/Makefile"
: > "$work/xen418/tools/Makefile"
expect_fail "XEN_SRC of another version" "Xen 4.18, the series is for 4.17" XEN_SRC="$work/xen418"
expect_fail "XEN_SRC too old for master" "Xen 4.18, BASE=master needs 4.23 or later" \
    BASE=master XEN_SRC="$work/xen418"

# The pristine base (a 4.17 tree of the user's, below); this also leaves
# the cache's base.txt naming the tarball in use.
"$TOP/scripts/fetch-base.sh" "$BUILD/cache" "$work/mine" >/dev/null

# A cached tarball that is not the one pinned (or recorded in base.txt).
mkdir "$work/cache"
orig=$(awk '$1 == "orig" { print $2 }' "$BUILD/cache/base.txt")
head -c 100000 "$BUILD/cache/$orig" > "$work/cache/$orig"
cp "$BUILD/cache/base.txt" "$work/cache/"
expect_fail "tarball with the wrong sha256" "sha256 .* does not match the" CACHE="$work/cache"

# A user's own 4.17 tree (here: a git checkout of the pristine base) works.
git -C "$work/mine" init -q && git -C "$work/mine" add -A . &&
    git -C "$work/mine" -c user.name=t -c user.email=t@t commit -qm mine
XEN_SRC=$work/mine "$TOP/scripts/pq.sh" import "$work/own" >/dev/null
is "$?" 0 "XEN_SRC=<a 4.17 checkout> imports the series"
# (A checkout lacks the tarball's git-ignored files, so compare the change.)
is "$(git -C "$work/own" diff base HEAD | sha256sum)" "$(git -C "$BUILD/xen" diff base patches | sha256sum)" \
    "and the series changes it exactly as it changes the tarball's tree"

# ... and so does a tarball of it, as `git archive` writes one.
git -C "$work/mine" archive --prefix=xen-mine/ -o "$work/mine.tar" HEAD
XEN_SRC=$work/mine.tar "$TOP/scripts/pq.sh" import "$work/own-tar" >/dev/null
is "$?" 0 "XEN_SRC=<a tarball of that checkout> imports the series"
is "$(git -C "$work/own-tar" diff base HEAD | sha256sum)" "$(git -C "$work/own" diff base HEAD | sha256sum)" \
    "and the series changes it as it changes the checkout"

# make qemu on a machine without Debian's QEMU: one line, nothing made
mkdir -p "$work/fakebin"
printf '#!/bin/sh\nexit 1\n' > "$work/fakebin/dpkg-query"
chmod +x "$work/fakebin/dpkg-query"
out=$(PATH="$work/fakebin:$PATH" "$TOP/scripts/build-qemu.sh" "$work/qcache" "$work/qemu" 2>&1 >/dev/null)
is "$?" 1 "build-qemu.sh without qemu-system-x86: exit status 1"
is "$out" "build-qemu: qemu-system-x86 is not installed (scripts/deps.sh e2e)" \
    "build-qemu.sh without qemu-system-x86: one line naming it"
ok "build-qemu.sh without qemu-system-x86: nothing left behind" \
    test ! -e "$work/qcache" -a ! -e "$work/qemu"

done_testing
