# Debian roots made with debootstrap (bash, sourced): the build root of
# scripts/deb.sh and the fresh roots of tests/deb.
#
#   debroot_minbase TAR CODENAME SOURCES LOG
#       TAR: a minbase root of CODENAME, from the mirror the `deb` lines of
#       the file SOURCES name for it; made once (debootstrap's output in
#       LOG), kept
#   debroot_unpack TAR DIR SOURCES
#       DIR: TAR unpacked, with SOURCES as its apt sources (their signed-by
#       options dropped: the root trusts its own keyring), the machine's
#       resolv.conf, and no daemon started by a maintainer script
#       (policy-rc.d)
# Both return 1 when they fail, with LOG or the error on stderr.
# shellcheck shell=bash

debroot_minbase() {
    local tar=$1 codename=$2 sources=$3 log=$4 mirror tmp
    [ -f "$tar" ] && return 0
    mirror=$(awk -v c="$codename" '$(NF - 1) == c { print $(NF - 2); exit }' "$sources")
    [ -n "$mirror" ] || { echo "no $codename line in $sources" > "$log"; return 1; }
    mkdir -p "$(dirname "$tar")"
    tmp=$(mktemp -d "$tar.XXXXXX")
    debootstrap --variant=minbase "$codename" "$tmp" "$mirror" > "$log" 2>&1 &&
        tar -C "$tmp" -cf "$tar.new" . && mv "$tar.new" "$tar"
    local rc=$?
    rm -rf "$tmp" "$tar.new"
    return $rc
}

debroot_unpack() {
    local tar=$1 r=$2 sources=$3
    mkdir -p "$r" && tar -C "$r" -xf "$tar" || return 1
    sed 's/\[[^]]*\] //' "$sources" > "$r/etc/apt/sources.list"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
    chmod +x "$r/usr/sbin/policy-rc.d"
}
