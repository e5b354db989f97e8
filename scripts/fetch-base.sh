#!/usr/bin/env bash
# Fetch the Xen base, the xen source package of a Debian release, through a
# private apt configuration, verify it and unpack the pristine orig tarball
# into a directory.  The machine's own apt sources are read, never edited.
# BASE (default 4.17) picks the release: 4.17 is Debian 12 (bookworm), 4.20
# Debian 13 (trixie).
#
# usage: fetch-base.sh CACHE_DIR DEST_DIR
#        fetch-base.sh --version CACHE_DIR
#        fetch-base.sh --sources
#   CACHE_DIR  where the tarball, the private apt state (apt/) and the record
#              of the base (base.txt) are kept between runs
#   DEST_DIR   where the pristine tree is unpacked (must not exist)
#   --version  print the Debian version of xen that CACHE_DIR's base is (or,
#              before the first fetch, is meant to be); no network
#   --sources  print the deb-src lines the private apt would use (from the
#              machine's sources, see below); no network
#
# The pins (PIN_VERSION below): for 4.17 xen=4.17.5+72-g01140da4e8-1, whose
# orig tarball must have the sha256 PIN_SHA256; for 4.20
# xen=4.20.4+63-g7abfd2bce2-0+deb13u1 (no sha256 pinned: apt's check below is
# the only one).  When the Debian mirrors no longer offer the requested
# version (Debian's pool drops a version once a point release replaces it),
# the newest xen BASE.x source that the release, its -updates or its
# -security suite offer and that downloads is used instead, with one line on
# stderr saying so.  Its integrity is apt's: every private deb-src line is
# signed-by= a keyring (the machine's entry's, else the Debian archive
# keyring), so apt checks the .dsc and the tarball against Debian's signed
# index; the orig tarball is the one the .dsc names.  Nothing that is not
# BASE.x is ever used.
#
# CACHE_DIR/base.txt records the base last unpacked, one "key value" a line:
#   requested  the version asked for (XEN_DEB_VERSION, default the pin)
#   version    the version actually used
#   orig       the orig tarball's file name (in CACHE_DIR)
#   sha256     the orig tarball's sha256
# Later runs with the same request reuse it without the network.  Remove
# base.txt to look for a newer fallback.
#
# The mirror is the one the machine's apt sources name for the release's
# main (or, when they name only the other of bookworm and trixie, the same
# URIs with the release's suites): deb822 stanzas (sources.list.d/*.sources,
# "Enabled: no" skipped) and one-line entries (sources.list,
# sources.list.d/*.list).  URIs given for its -updates and -security suites
# are used too.
#
# Environment: XEN_DEB_VERSION (default the pin), XEN_ORIG_SHA256 (sha256 the
# requested version's orig tarball must have; default the pin's for the pin),
# APT_ETC (the apt configuration to read the mirror from, default /etc/apt).
# Exit status: 0 done, 1 failed (one line on stderr; DEST_DIR not created).
set -euo pipefail

BASE=${BASE:-4.17}
case $BASE in
4.17)
    CODENAME=bookworm
    PIN_VERSION=4.17.5+72-g01140da4e8-1
    PIN_ORIG=xen_4.17.5+72-g01140da4e8.orig.tar.xz
    PIN_SHA256=53922f4d0a02c577f2ea9d63f65989cd88715779eebeed879ca1d314103ee06e ;;
4.20)
    CODENAME=trixie
    PIN_VERSION=4.20.4+63-g7abfd2bce2-0+deb13u1
    PIN_ORIG=xen_4.20.4+63-g7abfd2bce2.orig.tar.xz
    PIN_SHA256= ;;
*)
    echo "fetch-base: BASE=$BASE: Debian has no xen source for it (4.17, 4.20)" >&2
    exit 1 ;;
esac
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

XEN_DEB_VERSION=${XEN_DEB_VERSION:-$PIN_VERSION}
APT_ETC=${APT_ETC:-/etc/apt}

die() { echo "fetch-base: $*" >&2; exit 1; }
# shellcheck source=scripts/lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"

# The sha256 a version's orig tarball must have, if one is pinned.
pinned_sha256() {
    if [ "$1" = "$XEN_DEB_VERSION" ] && [ -n "${XEN_ORIG_SHA256:-}" ]; then
        echo "$XEN_ORIG_SHA256"
    elif [ "$1" = "$PIN_VERSION" ]; then
        echo "$PIN_SHA256"
    fi
}

# record_get KEY: the value of KEY in the record, or nothing.
record_get() {
    [ -f "$record" ] || return 0
    awk -v k="$1" '$1 == k { print $2; exit }' "$record"
}

# --version CACHE_DIR
if [ "${1:-}" = --version ]; then
    [ $# -eq 2 ] || die "usage: fetch-base.sh --version CACHE_DIR"
    record=$2/base.txt
    if [ "$(record_get requested)" = "$XEN_DEB_VERSION" ] &&
       [ -n "$(record_get version)" ]; then
        record_get version
    else
        echo "$XEN_DEB_VERSION"
    fi
    exit 0
fi

# verify FILE SHA256 WHAT: FILE has the sha256 WHAT says it must have.
verify() {
    local sum
    sum=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$sum" = "$2" ] || die "$1: sha256 $sum does not match $3 $2"
}

# Debian bookworm and trixie URIs of the apt configuration under $APT_ETC,
# one "suite uri keyring" a line for each release and its -updates and
# -security suites, main ("-" when the entry names no keyring file).
apt_debian_uris() {
    local f
    # apt's order: sources.list, then sources.list.d in name order.
    for f in "$APT_ETC"/sources.list "$APT_ETC"/sources.list.d/*; do
        [ -f "$f" ] || continue
        case $f in
        */sources.list | *.list)
            # deb [opt=val ...] uri suite component...
            awk '
                { sub(/#.*/, "") }
                $1 != "deb" && $1 != "deb-src" { next }
                {
                    key = "-"; i = 2
                    if ($2 ~ /^\[/) {
                        for (; i <= NF; i++) {
                            if ($i ~ /^\[?signed-by=/) {
                                k = $i; sub(/^\[?signed-by=/, "", k); sub(/\]$/, "", k)
                                if (k ~ /^\//) key = k
                            }
                            if ($i ~ /\]$/) { i++; break }
                        }
                    }
                    uri = $i; suite = $(i + 1); main = 0
                    for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
                    if (main && suite ~ /^(bookworm|trixie)(-updates|-security)?$/) print suite, uri, key
                }
            ' "$f" ;;
        *.sources)
            # deb822: stanzas are separated by blank lines; a line starting
            # with white space continues the field above (only Signed-By's
            # inline keys use that, and those are not a file name).
            awk '
                function flush(   n, s, i, u, j, m) {
                    if (enabled != "no" && types ~ /(^| )deb(-src)?( |$)/ &&
                        (" " comps " ") ~ / main /) {
                        n = split(suites, s, " ")
                        for (i = 1; i <= n; i++)
                            if (s[i] ~ /^(bookworm|trixie)(-updates|-security)?$/) {
                                m = split(uris, u, " ")
                                for (j = 1; j <= m; j++) print s[i], u[j], (key == "" ? "-" : key)
                            }
                    }
                    types = uris = suites = comps = key = ""; enabled = "yes"
                }
                BEGIN { enabled = "yes" }
                /^[ \t]*#/ { next }
                /^[ \t]*$/ { flush(); next }
                /^[ \t]/ { next }
                {
                    field = tolower($1); sub(/:.*/, "", field)
                    value = $0; sub(/^[^:]*:[ \t]*/, "", value); sub(/[ \t]+$/, "", value)
                    if (field == "types") types = value
                    else if (field == "uris") uris = value
                    else if (field == "suites") suites = value
                    else if (field == "components") comps = value
                    else if (field == "enabled") enabled = tolower(value)
                    else if (field == "signed-by" && value ~ /^\//) key = value
                }
                END { flush() }
            ' "$f" ;;
        esac
    done
}

# The private deb-src lines: for each suite of the release the first entry
# the machine's sources have for it, else for the same suite of the other
# release, signed-by its keyring or Debian's.
private_sources() {
    local uris suite uri key first other
    uris=$(apt_debian_uris)
    grep -qE '^(bookworm|trixie) ' <<<"$uris" ||
        die "no Debian bookworm or trixie main mirror in $APT_ETC/sources.list or $APT_ETC/sources.list.d; add one (e.g. http://deb.debian.org/debian $CODENAME main) or use XEN_SRC=/path/to/xen-$BASE"
    other=bookworm
    [ "$CODENAME" != bookworm ] || other=trixie
    for suite in "$CODENAME" "$CODENAME-updates" "$CODENAME-security"; do
        first=$(awk -v s="$suite" -v o="${suite/$CODENAME/$other}" '
            $1 == s { print $2, $3; found = 1; exit }
            $1 == o && alt == "" { alt = $2 " " $3 }
            END { if (!found && alt != "") print alt }' <<<"$uris")
        [ -n "$first" ] || continue
        read -r uri key <<<"$first"
        [ "$key" != - ] || [ ! -f "$DEBIAN_KEYRING" ] || key=$DEBIAN_KEYRING
        if [ "$key" = - ]; then
            echo "deb-src $uri $suite main"
        else
            echo "deb-src [signed-by=$key] $uri $suite main"
        fi
    done
}

# The private apt configuration under $cache/apt: deb-src lines for the
# release's suites.
setup_apt() {
    local lines
    lines=$(private_sources)
    mirror=$(awk -v c="$CODENAME" '$NF == "main" && $(NF - 1) == c { print $(NF - 2) }' <<<"$lines")
    apt_dir=$cache/apt
    private_apt "$apt_dir"
    echo "$lines" > "$apt_dir/sources.list.new"
    mv "$apt_dir/sources.list.new" "$apt_dir/sources.list"
    apt-get "${apt_opts[@]}" -qq update >/dev/null 2>&1 ||
        die "apt-get update with the private source list ($apt_dir/sources.list) failed"
}

# The xen source versions the private apt offers, newest first.
offered_versions() {
    local v sorted=() i
    while read -r v; do
        # Insertion into the list kept sorted newest first, Debian's order.
        for ((i = 0; i < ${#sorted[@]}; i++)); do
            dpkg --compare-versions "$v" gt "${sorted[i]}" && break
        done
        sorted=("${sorted[@]:0:i}" "$v" "${sorted[@]:i}")
    done < <(apt-cache "${apt_opts[@]}" showsrc xen 2>/dev/null |
             awk '$1 == "Package:" { p = $2 } $1 == "Version:" && p == "xen" { print $2 }' |
             sort -u)
    [ ${#sorted[@]} -eq 0 ] || printf '%s\n' "${sorted[@]}"
}

# download VERSION: apt-get source --download-only into a fresh $dl; sets
# orig to the orig tarball the .dsc names.  Fails quietly.
download() {
    local dsc dscs
    [ -z "$dl" ] || rm -rf "$dl"
    dl=$(mktemp -d "$cache/dl.XXXXXX")
    (cd "$dl" && apt-get "${apt_opts[@]}" -qq source --download-only "xen=$1") \
        >/dev/null 2>&1 || return 1
    dscs=("$dl"/xen_*.dsc)
    dsc=${dscs[0]}
    [ -f "$dsc" ] || return 1
    orig=$(awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
                on && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $3; exit }' "$dsc")
    [ -n "$orig" ] && [ -f "$dl/$orig" ] || return 1
    # apt checked the .dsc against the signed index; the tarball against the .dsc.
    verify "$dl/$orig" "$(awk -v f="$orig" '/^Checksums-Sha256:/ { on = 1; next }
                /^[^ ]/ { on = 0 } on && $3 == f { print $1; exit }' "$dsc")" \
        "the sha256 in $(basename "$dsc")"
}

if [ "${1:-}" = --sources ]; then
    [ $# -eq 1 ] || die "usage: fetch-base.sh --sources"
    private_sources
    exit 0
fi
[ $# -eq 2 ] || die "usage: fetch-base.sh CACHE_DIR DEST_DIR"
cache=$1 dest=$2
[ ! -e "$dest" ] || die "$dest already exists"
mkdir -p "$cache"
record=$cache/base.txt

# Scratch files, removed however the script ends.
dl='' tmp=''
trap 'rm -rf ${dl:+"$dl"} ${tmp:+"$tmp"}' EXIT

# version orig sha256 of the base to unpack, from the cache if it has it.
version='' orig='' sha256=''
if [ "$(record_get requested)" = "$XEN_DEB_VERSION" ] &&
   [ -n "$(record_get orig)" ] && [ -f "$cache/$(record_get orig)" ]; then
    version=$(record_get version) orig=$(record_get orig) sha256=$(record_get sha256)
    pin=$(pinned_sha256 "$version")
    if [ -n "$pin" ]; then
        verify "$cache/$orig" "$pin" "the pinned"
    else
        verify "$cache/$orig" "$sha256" "the sha256 recorded in $record:"
    fi
    [ "$version" = "$XEN_DEB_VERSION" ] ||
        echo "fetch-base: xen=$XEN_DEB_VERSION is no longer on the mirror; using xen=$version instead (recorded in $record)" >&2
elif [ "$XEN_DEB_VERSION" = "$PIN_VERSION" ] && [ -n "$PIN_SHA256" ] &&
     [ -f "$cache/$PIN_ORIG" ]; then
    # A cache from before base.txt existed.
    version=$PIN_VERSION orig=$PIN_ORIG
    verify "$cache/$orig" "$(pinned_sha256 "$version")" "the pinned"
else
    mirror=''
    setup_apt
    echo "fetch-base: fetching xen=$XEN_DEB_VERSION source from $mirror"
    mapfile -t offered < <(offered_versions)
    if printf '%s\n' "${offered[@]}" | grep -qxF -- "$XEN_DEB_VERSION"; then
        download "$XEN_DEB_VERSION" ||
            die "apt-get source xen=$XEN_DEB_VERSION failed (see $cache/apt/sources.list); use XEN_SRC=/path/to/xen-$BASE"
        version=$XEN_DEB_VERSION
    else
        # The newest BASE.x that downloads; a listed one that does not is
        # named in the same line.
        failed=''
        for v in "${offered[@]}"; do
            [[ $v == "$BASE".* ]] || continue
            if download "$v"; then version=$v; break; fi
            failed+="${failed:+, }xen=$v"
        done
        [ -n "$version" ] ||
            die "xen=$XEN_DEB_VERSION is not on the mirror and no xen $BASE source there downloads${failed:+ (tried $failed)}; use XEN_SRC=/path/to/xen-$BASE"
        echo "fetch-base: xen=$XEN_DEB_VERSION is no longer on the mirror; using xen=$version instead (newest $BASE source offered${failed:+ that downloads; $failed is listed but failed to download})" >&2
    fi
    pin=$(pinned_sha256 "$version")
    [ -z "$pin" ] || verify "$dl/$orig" "$pin" "the pinned"
    mv "$dl/$orig" "$cache/$orig"
    rm -rf "$dl"
fi
sha256=$(sha256sum "$cache/$orig" | cut -d' ' -f1)

tmp=$dest.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xf "$cache/$orig" -C "$tmp" --strip-components=1 ||
    die "$cache/$orig: cannot unpack"
if [ ! -f "$tmp/xen/Makefile" ] || [ ! -f "$tmp/tools/Makefile" ]; then
    die "$cache/$orig: not a Xen source tree"
fi
printf 'requested %s\nversion %s\norig %s\nsha256 %s\n' \
    "$XEN_DEB_VERSION" "$version" "$orig" "$sha256" > "$record.new"
mv "$record.new" "$record"
mv "$tmp" "$dest"
tmp=''
echo "fetch-base: pristine $version tree at $dest"
