#!/usr/bin/env bash
# Debian packages of the patched Xen: Debian's own xen source package of the
# base, the queue appended to its debian/patches/series, one changelog entry,
# built with dpkg-buildpackage; and pi-stats as a package of its own.
# Nothing else of Debian's packaging is changed.
#
# usage: deb.sh [--prepare] OUT_DIR
#   OUT_DIR    gets the .deb files (and dpkg-buildpackage's .buildinfo and
#              .changes); OUT_DIR/src the source tree, OUT_DIR/build.log
#   --prepare  only the source tree: unpacked, the queue added, every patch
#              applied the way dpkg-source applies them (quilt order, no
#              fuzz), nothing built
#
# The source package is the version the base is (scripts/fetch-base.sh
# --version), fetched through a private apt configuration made of the
# deb-src lines fetch-base.sh derives from the machine's apt sources; apt
# checks it against Debian's signed index.  The version is Debian's with
# "+bigvmN" appended, N the number of commits that changed the queue: it
# sorts above Debian's, so apt takes it, and below Debian's next upload of
# the same release (-1+deb12u1, -2), which then replaces it.
#
# The packages build on the release they are for (4.17 on Debian 12, 4.20 on
# Debian 13), in a root of their own as Debian's build daemons build them:
# Debian's minimal system of the release (debootstrap) with the source
# package's Build-Depends, build-essential and ccache, nothing of this
# machine's installed packages (which configure would find and link, e.g.
# bzip2's library).  The root is made once per Build-Depends and kept in
# ~/.cache/xen-bigvm/deb-root (remove it to take the mirror's newer
# packages).  Needs root (chroot).  --prepare runs anywhere.
# Environment: BASE (4.17 default, or 4.20), JOBS, NONET, CCACHE_DIR as for
# build-xen.sh; DEB_CACHE (default ~/.cache/xen-bigvm/deb) keeps the
# packages of each set of inputs (see below).
# Exit status: 0 done, 1 failed (one line on stderr: a patch that does not
# apply names itself), 2 usage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-4.17}
JOBS=${JOBS:-$(nproc)}
NONET=${NONET:-}
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"
# shellcheck source=scripts/lib/apt.sh
. "$top/scripts/lib/apt.sh"
# shellcheck source=scripts/lib/debroot.sh
. "$top/scripts/lib/debroot.sh"

die() { echo "deb: $*" >&2; exit 1; }

prepare=
if [ "${1:-}" = --prepare ]; then prepare=1; shift; fi
if [ $# -ne 1 ]; then
    echo "usage: deb.sh [--prepare] OUT_DIR" >&2
    exit 2
fi
case $BASE in
4.17) codename=bookworm cache=$top/build/cache ;;
4.20) codename=trixie cache=$top/build/cache/4.20 ;;
*) die "BASE=$BASE: Debian packages only Xen 4.17 and 4.20" ;;
esac
queue=$top/patches/$BASE
[ -f "$queue/series" ] || die "$queue/series: no such queue"
mkdir -p "$1" "$cache"
out=$(cd "$1" && pwd)

# The source package, once: the .dsc, Debian's debian/ and the orig tarball.
version=$("$top/scripts/fetch-base.sh" --version "$cache")
dsc=$cache/deb-src/xen_${version#*:}.dsc
if [ ! -f "$dsc" ]; then
    apt=$cache/apt-deb
    private_apt "$apt"
    BASE=$BASE "$top/scripts/fetch-base.sh" --sources > "$apt/sources.list" ||
        die "no deb-src lines for $codename (scripts/fetch-base.sh --sources)"
    apt-get "${apt_opts[@]}" -qq update || die "apt-get update of $apt/sources.list failed"
    mkdir -p "$cache/deb-src"
    (cd "$cache/deb-src" && apt-get "${apt_opts[@]}" -qq --download-only source "xen=$version" >/dev/null 2>&1) ||
        die "apt-get source xen=$version failed: the mirror does not serve it (see $apt/sources.list)"
    [ -f "$dsc" ] || die "apt-get source xen=$version wrote no $dsc"
fi

# The version: Debian's, then +bigvmN.
if n=$(git -C "$top" rev-list --count HEAD -- "patches/$BASE" 2>/dev/null) && [ "$n" -gt 0 ]; then
    date=$(git -C "$top" log -1 --format=%aD -- "patches/$BASE")
    commit=$(git -C "$top" log -1 --format=%h -- "patches/$BASE")
else
    die "$top is not a git checkout: the package version counts the commits of patches/$BASE"
fi
ours=$version+bigvm$n
# pi-stats is versioned by its own history.
pis_version=0+bigvm$(git -C "$top" rev-list --count HEAD -- tools/pi-stats)

src=$out/src log=$out/build.log
rm -rf "$src"
mkdir -p "$src"
dpkg-source -q -x "$dsc" "$src/xen" > "$log" 2>&1 || die "dpkg-source -x $dsc failed, see $(stage_rel "$log")"
src=$src/xen

mkdir "$src/debian/patches/xen-bigvm"
count=0
while read -r p; do
    case $p in ''|'#'*) continue ;; esac
    cp "$queue/$p" "$src/debian/patches/xen-bigvm/$p"
    echo "xen-bigvm/$p" >> "$src/debian/patches/series"
    count=$((count + 1))
done < "$queue/series"
{
    echo "xen ($ours) $codename; urgency=medium"
    echo
    echo "  * Apply the xen-bigvm series: $count patches in debian/patches/xen-bigvm,"
    echo "    patches/$BASE as of commit $commit."
    echo
    echo " -- xen-bigvm developers <devel@xen-bigvm.invalid>  $date"
    echo
    cat "$src/debian/changelog"
} > "$src/debian/changelog.new"
mv "$src/debian/changelog.new" "$src/debian/changelog"

# dpkg-source applies what the series lists and is not applied yet: the
# queue, with patch -F0 as for every 3.0 (quilt) package.
if ! (cd "$src" && dpkg-source --before-build .) >> "$log" 2>&1; then
    bad=$(sed -n 's/^dpkg-source: info: applying //p' "$log" | tail -n 1)
    die "$bad does not apply on Debian's xen $version (its debian/patches before it), see $(stage_rel "$log")"
fi
if [ -n "$prepare" ]; then
    echo "deb: xen $ours source at $(stage_rel "$src"): Debian's patches and $count of the queue applied"
    exit 0
fi

# The build root (see the top), and the mounts a build needs in it.
cache_top=${XDG_CACHE_HOME:-$HOME/.cache}/xen-bigvm
root=$cache_top/deb-root/$codename-$(sed -n '/^Build-Depends/,/^[^ ]/p' "$dsc" | sha256sum | cut -c1-16)
mounts=()
trap 'for m in "${mounts[@]}"; do umount -l "$m"; done' EXIT
# in_root CMD...: CMD in the build root with a clean environment (no
# network when NONET says so: the build; apt sets NONET= for the root)
in_root() {
    # shellcheck disable=SC2086 # NONET is a command prefix
    $NONET chroot "$root" env -i PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
        CCACHE_DIR=/ccache CCACHE_BASEDIR=/build/xen CCACHE_NOHASHDIR=1 \
        CCACHE_COMPILERCHECK=content CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}" "$@"
}
# root_mount WHAT WHERE OPTION...: mounted until the script exits
root_mount() {
    mkdir -p "$root$2"
    mount "${@:3}" "$1" "$root$2" || die "cannot mount $1 on $root$2"
    mounts=("$root$2" "${mounts[@]}")
}
# build_root: the build root, made once: the release's minimal root with
# the source package's Build-Depends, build-essential and ccache
build_root() {
    local base=$cache/deb-root-$codename.tar final=$root sources=$out/sources.list m
    [ -f "$root/done" ] && return 0
    BASE=$BASE "$top/scripts/fetch-base.sh" --sources | sed 's/^deb-src /deb /' > "$sources"
    stage_begin deb "making the build root of Debian $codename" "$log"
    debroot_minbase "$base" "$codename" "$sources" "$out/debootstrap.log" ||
        die "debootstrap of $codename failed, see $(stage_rel "$out/debootstrap.log")"
    root=$final.new
    rm -rf "$root"
    debroot_unpack "$base" "$root" "$sources" || die "cannot unpack $base"
    root_mount "$out/src" /build --bind
    root_mount proc /proc -t proc
    { NONET= in_root apt-get -q update &&
      NONET= in_root sh -c 'cd /build/xen && apt-get -y -q --no-install-recommends build-dep ./' &&
      NONET= in_root apt-get -y -q --no-install-recommends install build-essential ccache; } >> "$log" 2>&1 ||
        die "apt-get in the build root failed, see $(stage_rel "$log")"
    for m in "${mounts[@]}"; do umount "$m"; done
    mounts=()
    rm -rf "$final"
    mv "$root" "$final"
    root=$final
    touch "$root/done"
    stage_end deb
}

# pi_stats_deb: pi-stats, a package of its own: the program (built in the
# build root with Debian's flags, linked with the shared compression
# libraries as Debian wants), its man page, README, changelog and
# copyright.
pi_stats_deb() {
    local pkg=$out/src/pi-stats bld=$out/src/pi-stats.build meta=$out/src/pi-stats.meta
    local arch depends doc
    rm -rf "$pkg" "$bld" "$meta"
    cp -a "$top/tools/pi-stats" "$bld"
    make -s -C "$bld" clean >> "$log" 2>&1
    # shellcheck disable=SC2016 # expanded in the build root
    in_root sh -c 'CFLAGS=$(dpkg-buildflags --get CFLAGS) CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS) \
        LDFLAGS=$(dpkg-buildflags --get LDFLAGS) \
        make -s -C /build/pi-stats.build pi-stats COMP_LIBS="-lz -llzma -lzstd"' >> "$log" 2>&1 ||
        die "pi-stats does not build, see $(stage_rel "$log")"
    make -s -C "$bld" install PREFIX=/usr DESTDIR="$pkg" >> "$log" 2>&1
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$pkg/usr/bin/pi-stats"
    gzip -9n "$pkg/usr/share/man/man1/pi-stats.1"
    doc=$pkg/usr/share/doc/pi-stats
    mkdir -p "$pkg/DEBIAN" "$doc" "$meta/debian"
    cp "$top/tools/pi-stats/README.md" "$doc/"
    printf 'pi-stats (%s) %s; urgency=medium\n\n  * Built from the xen-bigvm repository, tools/pi-stats as of commit %s.\n\n -- xen-bigvm developers <devel@xen-bigvm.invalid>  %s\n' \
        "$pis_version" "$codename" "$(git -C "$top" log -1 --format=%h -- tools/pi-stats)" \
        "$(git -C "$top" log -1 --format=%aD -- tools/pi-stats)" | gzip -9n > "$doc/changelog.gz"
    cat > "$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pi-stats
Upstream-Contact: xen-bigvm developers <devel@xen-bigvm.invalid>

Files: *
Copyright: xen-bigvm developers
License: none-stated
 The xen-bigvm repository states no licence for pi-stats.
EOF
    arch=$(dpkg --print-architecture)
    # dpkg-shlibdeps wants a debian/control where it runs.
    printf 'Source: pi-stats\n\nPackage: pi-stats\nArchitecture: any\n' > "$meta/debian/control"
    depends=$(in_root sh -c 'cd /build/pi-stats.meta && dpkg-shlibdeps -O /build/pi-stats/usr/bin/pi-stats' 2>> "$log" |
              sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || die "dpkg-shlibdeps found no dependency of pi-stats, see $(stage_rel "$log")"
    cat > "$pkg/DEBIAN/control" <<EOF
Package: pi-stats
Version: $pis_version
Architecture: $arch
Maintainer: xen-bigvm developers <devel@xen-bigvm.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: $depends
Section: admin
Priority: optional
Description: posted-interrupt blocking list statistics from xentrace dumps
 pi-stats reads the trace records of the VT-d posted-interrupt blocking
 lists from a xentrace dump (or a live capture) and prints list-length
 and wakeup-latency histograms per pCPU, vCPU and domain.
EOF
    dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/pi-stats_${pis_version}_$arch.deb" >> "$log"
}

host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ "$host" = "$codename" ] ||
    die "xen $ours is for Debian $codename and builds on it only (this is ${host:-not Debian}); deb.sh --prepare makes its source anywhere"
[ "$(id -u)" = 0 ] || die "the packages build in a root of their own (chroot): run as root"
build_root
ccache_dir=${CCACHE_DIR:-$cache_top/ccache}
mkdir -p "$ccache_dir"
root_mount "$out/src" /build --bind
root_mount "$ccache_dir" /ccache --bind
root_mount proc /proc -t proc

# Xen's packages built before on this machine from the same inputs are
# taken from a cache outside the clone, as ccache's objects are: named
# after the source package, the prepared debian/ (the queue and the
# changelog), the build command below and the build root's packages.
# shellcheck disable=SC2016 # expanded by sh in the build root; hashed as written
build_cmd='cd /build/xen && DEB_BUILD_OPTIONS="parallel=$0 nocheck" dpkg-buildpackage -b -uc -us'
key=$({ cat "$dsc"; echo "$build_cmd"
        tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 -cf - debian
        dpkg-query --admindir="$root/var/lib/dpkg" -W; } 2>&1 | sha256sum | cut -c1-16)
cached=${DEB_CACHE:-$cache_top/deb}/$key
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
if [ -f "$cached/done" ]; then
    cp "$cached"/*.deb "$cached"/*.buildinfo "$cached"/*.changes "$out"/
    echo "deb: xen $ours: built from the same inputs before, taken from $(stage_rel "$cached")"
else
    stage_begin deb "building xen $ours with dpkg-buildpackage in the build root" "$log"
    in_root sh -c "$build_cmd" "$JOBS" >> "$log" 2>&1 ||
        die "dpkg-buildpackage failed, see $(stage_rel "$log")"
    mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
    rm -rf "$cached"
    mkdir -p "$cached"
    cp "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$cached"/
    touch "$cached/done"
    stage_end deb
fi
pi_stats_deb
echo "deb: $(ls "$out"/*.deb | wc -l) packages in $(stage_rel "$out")"
