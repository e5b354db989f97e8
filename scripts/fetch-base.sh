#!/usr/bin/env bash
# Fetch the pinned Xen base (Debian bookworm's xen source package) through a
# private apt configuration, verify its sha256 and unpack the pristine orig
# tarball into a directory.  The machine's own apt sources are never edited.
#
# usage: fetch-base.sh CACHE_DIR DEST_DIR
#   CACHE_DIR  where the tarball is kept between runs (outside git's view)
#   DEST_DIR   where the pristine tree is unpacked (must not exist)
set -euo pipefail

XEN_DEB_VERSION=${XEN_DEB_VERSION:-4.17.5+72-g01140da4e8-1}
XEN_ORIG=${XEN_ORIG:-xen_4.17.5+72-g01140da4e8.orig.tar.xz}
XEN_ORIG_SHA256=${XEN_ORIG_SHA256:-53922f4d0a02c577f2ea9d63f65989cd88715779eebeed879ca1d314103ee06e}

die() { echo "fetch-base: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: fetch-base.sh CACHE_DIR DEST_DIR"
cache=$1 dest=$2
mkdir -p "$cache"
tarball=$cache/$XEN_ORIG

verify() {
    local sum
    sum=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$sum" = "$XEN_ORIG_SHA256" ] ||
        die "$1: sha256 $sum does not match the pinned $XEN_ORIG_SHA256"
}

if [ ! -f "$tarball" ]; then
    # The Debian mirror this machine already uses for bookworm main.
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
             grep -v security | head -n1)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' \
                                 /etc/apt/sources.list 2>/dev/null)
    [ -n "$mirror" ] || die "no Debian bookworm mirror found in the machine's apt sources"

    apt_dir=$cache/apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
    echo "deb-src $mirror bookworm main" > "$apt_dir/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
              -o "Dir::Etc::SourceParts=/nonexistent"
              -o "Dir::State::Lists=$apt_dir/lists"
              -o "Dir::Cache::Archives=$apt_dir/archives"
              -o "APT::Sandbox::User=root")
    echo "fetch-base: fetching xen=$XEN_DEB_VERSION source from $mirror"
    apt-get "${apt_opts[@]}" -qq update ||
        die "apt-get update with the private source list failed"
    dl=$(mktemp -d "$cache/dl.XXXXXX")
    (cd "$dl" && apt-get "${apt_opts[@]}" -qq source --download-only \
        "xen=$XEN_DEB_VERSION") || { rm -rf "$dl"; die "apt-get source xen=$XEN_DEB_VERSION failed"; }
    [ -f "$dl/$XEN_ORIG" ] || { rm -rf "$dl"; die "download has no $XEN_ORIG"; }
    verify "$dl/$XEN_ORIG"
    mv "$dl/$XEN_ORIG" "$tarball"
    rm -rf "$dl"
fi

verify "$tarball"

[ ! -e "$dest" ] || die "$dest already exists"
tmp=$dest.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xf "$tarball" -C "$tmp" --strip-components=1 ||
    { rm -rf "$tmp"; die "$tarball: cannot unpack"; }
mv "$tmp" "$dest"
echo "fetch-base: pristine $XEN_DEB_VERSION tree at $dest"
