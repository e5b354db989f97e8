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
#   in_root_log LOG DIR CMD...   the same, its output into LOG
# shellcheck shell=bash
# shellcheck source=scripts/lib/debroot.sh
. "$TOP/scripts/lib/debroot.sh"

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
    local tar=$BUILD/cache/deb-root-bookworm.tar r=$1
    debroot_minbase "$tar" bookworm "$_deb_work/sources.list" "$_deb_work/debootstrap.log" ||
        bail "debootstrap failed: $(tail -n 1 "$_deb_work/debootstrap.log")"
    debroot_unpack "$tar" "$r" "$_deb_work/sources.list" || bail "cannot unpack $tar into $r"
    mount -t proc proc "$r/proc" && _deb_mounts+=("$r/proc")
    mount --bind /dev "$r/dev" && _deb_mounts+=("$r/dev")
    in_root "$r" apt-get -qq update || bail "apt-get update in a fresh root failed"
}

in_root() {
    local r=$1
    shift
    DEBIAN_FRONTEND=noninteractive chroot "$r" "$@"
}

in_root_log() {
    local log=$1
    shift
    in_root "$@" > "$log" 2>&1
}
