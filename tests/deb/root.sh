# Fresh Debian 12 roots for tests/deb (bash, sourced after tests/lib/tap.sh).
#
#   deb_roots_init WORK   sources.list (the mirror lines the build fetched
#                         its source from, as `deb`) in WORK; unmounts what
#                         make_root mounted when the shell exits
#   make_root DIR         a minbase root at DIR (debootstrap once, cached as
#                         build/cache/deb-root-bookworm.tar), with the mirror,
#                         /proc and /dev, and no daemon started by a
#                         maintainer script (policy-rc.d)
#   in_root DIR CMD...    CMD in it, apt noninteractive
# shellcheck shell=bash

_deb_mounts=()
_deb_cleanup() {
    local m
    for m in "${_deb_mounts[@]}"; do umount -l "$m" 2>/dev/null; done
}

deb_roots_init() {
    _deb_work=$1
    trap '_deb_cleanup; rm -rf "$_deb_work"' EXIT
    "$TOP/scripts/fetch-base.sh" --sources | sed 's/^deb-src /deb /' > "$_deb_work/sources.list"
}

make_root() {
    local tar=$BUILD/cache/deb-root-bookworm.tar r=$1 mirror
    if [ ! -f "$tar" ]; then
        mirror=$(awk '$(NF - 1) == "bookworm" { print $(NF - 2); exit }' "$_deb_work/sources.list")
        debootstrap --variant=minbase bookworm "${_deb_work:?}/boot" "$mirror" \
            > "$_deb_work/debootstrap.log" 2>&1 ||
            bail "debootstrap failed: $(tail -n 1 "$_deb_work/debootstrap.log")"
        tar -C "$_deb_work/boot" -cf "$tar.new" . && mv "$tar.new" "$tar"
        rm -rf "${_deb_work:?}/boot"
    fi
    mkdir -p "$r"
    tar -C "$r" -xf "$tar"
    sed 's/\[[^]]*\] //' "$_deb_work/sources.list" > "$r/etc/apt/sources.list"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
    chmod +x "$r/usr/sbin/policy-rc.d"
    mount -t proc proc "$r/proc" && _deb_mounts+=("$r/proc")
    mount --bind /dev "$r/dev" && _deb_mounts+=("$r/dev")
    in_root "$r" apt-get -qq update || bail "apt-get update in a fresh root failed"
}

in_root() {
    local r=$1
    shift
    DEBIAN_FRONTEND=noninteractive chroot "$r" "$@"
}
