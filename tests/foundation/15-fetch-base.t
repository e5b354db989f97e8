#!/usr/bin/env bash
# fetch-base.sh: the Debian mirror is found in the machine's apt sources
# (deb822 and one-line, vendor and disabled entries ignored) or the script
# says in one line what to do; when the requested xen version is not on the
# mirror the newest 4.17 source is used, said in one line, recorded in
# CACHE/base.txt, and pq.sh imports onto it and names it.
# Needs Debian's mirror (deb.debian.org).  The fallback's download is kept
# in build/cache-fallback, so a rerun does not fetch it again.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
fetch=$TOP/scripts/fetch-base.sh
pin=4.17.5+72-g01140da4e8-1
debian_key=/usr/share/keyrings/debian-archive-keyring.gpg

# run NAME ENV...: fetch-base.sh into a fresh cache and DEST of case NAME;
# sets rc, out (stdout), err (stderr).
run() {
    local name=$1
    shift
    mkdir -p "$work/$name"
    env "$@" "$fetch" "$work/$name/cache" "$work/$name/dest" \
        >"$work/$name/out" 2>"$work/$name/err"
    rc=$?
    out=$(cat "$work/$name/out") err=$(cat "$work/$name/err")
}

# expect_no_mirror NAME: the case failed for want of a mirror, cleanly.
expect_no_mirror() {
    is "$rc" 1 "$1: exit status 1"
    is "$(printf '%s\n' "$err" | wc -l)" 1 "$1: one line of error"
    ok "$1: it says what to do: $err" \
        grep -q 'no Debian bookworm or trixie main mirror.*add one.*XEN_SRC=' <<<"$err"
    ok "$1: no DEST left behind" test -z "$(ls -d "$work/$1/dest"* 2>/dev/null)"
}

# expect_debian NAME: the case found the Debian mirror and unpacked the pin.
expect_debian() {
    is "$rc" 0 "$1: exit status 0${err:+ ($err)}"
    ok "$1: fetched from the Debian mirror: $(head -n1 <<<"$out")" \
        grep -q '^fetch-base: fetching .* from http://deb.debian.org/debian$' <<<"$out"
    ok "$1: no vendor or disabled URI in the private sources" \
        not_grep 'example\|invalid' "$work/$1/cache/apt/sources.list"
    ok "$1: every private source line is signed-by the Debian keyring" \
        not_grep -v "^deb-src \[signed-by=$debian_key\] " "$work/$1/cache/apt/sources.list"
    ok "$1: pristine tree unpacked" test -f "$work/$1/dest/xen/Makefile"
}

not_grep() { ! grep -q "$@"; }
# other_4_17 VERSION: a Xen 4.17 version and not the one asked for.
other_4_17() { [ "$1" != "$nosuch" ] && [[ $1 == 4.17.[0-9]* ]]; }

# A Debian stanza as Debian 12 installs it.
debian_sources() {
    cat <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: $debian_key

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: $debian_key
EOF
}

# 1. No apt sources at all.
mkdir -p "$work/etc-none/sources.list.d"
run none APT_ETC="$work/etc-none"
expect_no_mirror none

# 2. Only a disabled Debian stanza.
mkdir -p "$work/etc-disabled/sources.list.d"
debian_sources > "$work/etc-disabled/sources.list.d/debian.sources"
# Enabled: applies to its own stanza only; disable both.
sed -i 's/^Types: deb$/Types: deb\nEnabled: no/' "$work/etc-disabled/sources.list.d/debian.sources"
run disabled APT_ETC="$work/etc-disabled"
expect_no_mirror disabled

# 3. A vendor's .sources sorting before debian.sources, and a vendor's
#    one-line bookworm entry of another component.
mkdir -p "$work/etc-vendor/sources.list.d"
cat > "$work/etc-vendor/sources.list.d/a-vendor.sources" <<EOF
Types: deb
URIs: https://packages.vendor.example/ubuntu
Suites: jammy
Components: main
EOF
echo 'deb [arch=amd64] https://download.vendor.example/linux/debian bookworm stable' \
    > "$work/etc-vendor/sources.list.d/a-tool.list"
debian_sources > "$work/etc-vendor/sources.list.d/debian.sources"
run vendor APT_ETC="$work/etc-vendor"
expect_debian vendor

# expect_sources NAME: fetch-base.sh --sources with APT_ETC=$work/etc-NAME
# names the Debian mirror for bookworm first, and nothing else's.
expect_sources() {
    local lines rc
    lines=$(APT_ETC=$work/etc-$1 "$fetch" --sources 2>&1)
    rc=$?
    is "$rc" 0 "$1: --sources exit status 0"
    is "$(head -n1 <<<"$lines")" \
        "deb-src [signed-by=$debian_key] http://deb.debian.org/debian bookworm main" \
        "$1: the Debian mirror for bookworm"
    ok "$1: no vendor or disabled URI" not_grep 'example\|invalid' <<<"$lines"
}

# 4. A one-line sources.list only (no keyring named: the Debian one is used),
#    after a commented-out entry.
mkdir -p "$work/etc-oneline"
printf '%s\n' '# Debian' '# deb http://disabled.invalid/debian bookworm main' \
    'deb http://deb.debian.org/debian bookworm main contrib' > "$work/etc-oneline/sources.list"
expect_sources oneline

# 5. A disabled stanza sorting first is skipped for the enabled one.
mkdir -p "$work/etc-skip/sources.list.d"
printf '%s\n' 'Types: deb deb-src' 'URIs: http://disabled.invalid/debian' 'Suites: bookworm' \
    'Components: main' 'Enabled: no' > "$work/etc-skip/sources.list.d/a-old.sources"
debian_sources > "$work/etc-skip/sources.list.d/debian.sources"
expect_sources skip
is "$(APT_ETC=$work/etc-skip "$fetch" --sources 2>&1 | awk '{ print $3, $4 }' | tr '\n' ,)" \
    "http://deb.debian.org/debian bookworm,http://deb.debian.org/debian bookworm-updates,http://deb.debian.org/debian-security bookworm-security," \
    "skip: bookworm-updates and bookworm-security come along"
expect_sources vendor

# 5b. BASE=4.20: Debian 13's suites, from a Debian 12 machine's entries.
is "$(BASE=4.20 APT_ETC=$work/etc-skip "$fetch" --sources 2>&1 | awk '{ print $3, $4 }' | tr '\n' ,)" \
    "http://deb.debian.org/debian trixie,http://deb.debian.org/debian trixie-updates,http://deb.debian.org/debian-security trixie-security," \
    "BASE=4.20: the same mirrors, with trixie's suites"

# 6. The requested version is not on the mirror: the newest 4.17 instead.
nosuch=4.17.5+0-nosuch-1
fbcache=$BUILD/cache-fallback
mkdir -p "$work/fallback"
if [ -f "$fbcache/base.txt" ]; then
    diag "the fallback tarball is cached in $fbcache (remove it to test the download)"
fi
XEN_DEB_VERSION=$nosuch "$fetch" "$fbcache" "$work/fallback/dest" \
    >"$work/fallback/out" 2>"$work/fallback/err"
rc=$?
err=$(cat "$work/fallback/err")
rec() { [ ! -f "$fbcache/base.txt" ] || awk -v k="$1" '$1 == k { print $2 }' "$fbcache/base.txt"; }
# sha_recorded: base.txt names a tarball in the cache and its sha256.
sha_recorded() {
    [ -n "$(rec orig)" ] && [ -f "$fbcache/$(rec orig)" ] &&
        [ "$(rec sha256)" = "$(sha256sum "$fbcache/$(rec orig)" | cut -d' ' -f1)" ]
}
is "$rc" 0 "fallback: exit status 0"
is "$(printf '%s\n' "$err" | wc -l)" 1 "fallback: one line on stderr"
ok "fallback: it says which version it uses: $err" \
    grep -q "^fetch-base: xen=$nosuch is no longer on the mirror; using xen=4\.17\.[^ ]* instead" <<<"$err"
used=$(rec version)
diag "fallback base: xen=$used"
is "$(rec requested)" "$nosuch" "fallback: base.txt records the version asked for"
ok "fallback: base.txt records a 4.17 version other than the one asked for ($used)" \
    other_4_17 "$used"
ok "fallback: the line names the recorded version" grep -qF "using xen=$used instead" <<<"$err"
ok "fallback: base.txt records the tarball and its sha256" sha_recorded
is "$(awk '$2 == "XEN_SUBVERSION" { print $4 }' "$work/fallback/dest/xen/Makefile" 2>/dev/null)" 17 \
    "fallback: a Xen 4.17 tree is unpacked"
is "$(XEN_DEB_VERSION=$nosuch "$fetch" --version "$fbcache")" "$used" \
    "fallback: fetch-base.sh --version names it"

# 7. pq.sh imports the series onto the fallback base and names that base.
CACHE=$fbcache XEN_DEB_VERSION=$nosuch "$TOP/scripts/pq.sh" import "$work/tree" \
    >/dev/null 2>"$work/pq.err"
rc=$?
is "$rc" 0 "pq import onto the fallback base"
[ "$rc" = 0 ] || diag "$(cat "$work/pq.err")"
is "$(git -C "$work/tree" log -1 --format=%s base 2>/dev/null)" "base: deb:$used" \
    "the base commit names the version used"
is "$(git -C "$work/tree" rev-list --count base..HEAD 2>/dev/null)" "$("$TOP/scripts/pq.sh" series | wc -l)" \
    "one commit per patch"
CACHE=$fbcache XEN_DEB_VERSION=$nosuch "$TOP/scripts/pq.sh" status "$work/tree" 2>/dev/null
is "$?" 0 "pq status: up to date on the same base"

# A cache whose record names another base makes the tree stale.
mkdir -p "$work/other"
printf 'requested %s\nversion %s\norig %s\nsha256 %s\n' "$nosuch" 4.17.6+1-other-1 \
    xen_4.17.6+1-other.orig.tar.xz 0000 > "$work/other/base.txt"
CACHE=$work/other XEN_DEB_VERSION=$nosuch "$TOP/scripts/pq.sh" status "$work/tree" 2>/dev/null
is "$?" 1 "pq status: stale once the cache's base is another version"
if [ "$used" != "$pin" ]; then
    "$TOP/scripts/pq.sh" status "$work/tree" 2>/dev/null
    is "$?" 1 "pq status: stale against the pinned base"
fi

done_testing
