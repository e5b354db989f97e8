#!/usr/bin/env bash
# Build the boot test's emulator: the machine's own QEMU (Debian 12's
# qemu-system-x86) rebuilt from its Debian source package, Debian's patches
# and then tests/e2e/qemu/*.patch applied, the x86_64 system emulator only.
# It finds its ROMs where Debian's does (qemu-system-data, seabios,
# ipxe-qemu).
#
# usage: build-qemu.sh CACHE_DIR OUT_DIR
#   CACHE_DIR  the source package and the private apt state (apt-qemu/)
#   OUT_DIR    gets bin/qemu-system-x86_64 and `built`, which names the
#              Debian source version and the sha256 of each patch and of
#              this script; a build that `built` already names is skipped
#
# The source is fetched through a private apt configuration made of the
# deb-src lines scripts/fetch-base.sh derives from the machine's apt
# sources; apt checks it against Debian's signed index.
# Environment: JOBS, NONET, CCACHE_DIR as for build-xen.sh.
# Exit status: 0 built or up to date, 1 failed (one line on stderr; OUT_DIR
# keeps what it had).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${JOBS:-$(nproc)}
NONET=${NONET:-}
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"
# shellcheck source=scripts/lib/apt.sh
. "$top/scripts/lib/apt.sh"

die() { echo "build-qemu: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: build-qemu.sh CACHE_DIR OUT_DIR"
ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
    die "qemu-system-x86 is not installed (scripts/deps.sh e2e)"
cache=$1 out=$2
mkdir -p "$cache" "$out"
cache=$(cd "$cache" && pwd) out=$(cd "$out" && pwd)
patches=("$top"/tests/e2e/qemu/*.patch)
want=$( { echo "qemu $ver"; sha256sum "${patches[@]}" "$0" |
          sed "s|  $top/|  |"; } )
if [ -x "$out/bin/qemu-system-x86_64" ] && [ "$(cat "$out/built" 2>/dev/null)" = "$want" ]; then
    exit 0
fi

# The source package, once.
upstream=${ver#*:}
dsc=$cache/qemu_${upstream}.dsc
if [ ! -f "$dsc" ]; then
    apt=$cache/apt-qemu
    private_apt "$apt"
    # Debian 12's QEMU, whichever Xen base the tree is.
    BASE=4.17 "$top/scripts/fetch-base.sh" --sources > "$apt/sources.list" ||
        die "no deb-src lines for bookworm (scripts/fetch-base.sh --sources)"
    apt-get "${apt_opts[@]}" -qq update || die "apt-get update of $apt/sources.list failed"
    (cd "$cache" && apt-get "${apt_opts[@]}" -qq --download-only source "qemu=$ver" >/dev/null) ||
        die "apt-get source qemu=$ver failed: the mirror no longer has the machine's QEMU (apt-get install qemu-system-x86 to update it)"
    [ -f "$dsc" ] || die "apt-get source qemu=$ver wrote no $dsc"
fi

src=$top/build/qemu-src build=$top/build/qemu-build log=$top/build/qemu.log
stage_begin qemu "building qemu-system-x86_64 ($ver and ${#patches[@]} patch(es))" "$log"
{
    rm -rf "$src" "$build"
    dpkg-source -q -x "$dsc" "$src"
    for p in "${patches[@]}"; do
        patch -s -d "$src" -p1 < "$p"
    done
    mkdir -p "$build"
    # shellcheck source=scripts/lib/ccache.sh
    . "$top/scripts/lib/ccache.sh"
    cd "$build"
    # Only what the boot test uses: TCG, the pc machine, a serial console,
    # virtio disks.
    $NONET "$src/configure" --target-list=x86_64-softmmu \
        --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu \
        --enable-tcg --disable-kvm --disable-xen --disable-tools --disable-docs \
        --disable-guest-agent --disable-werror --disable-gtk --disable-sdl \
        --disable-vnc --disable-opengl --disable-spice --disable-slirp \
        --disable-curl --disable-libusb --disable-usb-redir \
        --disable-vhost-user --disable-capstone --enable-fdt=system \
        --with-git-submodules=ignore
    $NONET ninja -j "$JOBS" qemu-system-x86_64
} > "$log" 2>&1 || die "build failed, see $(stage_rel "$log")"
mkdir -p "$out/bin"
cp "$build/qemu-system-x86_64" "$out/bin/qemu-system-x86_64.new"
mv "$out/bin/qemu-system-x86_64.new" "$out/bin/qemu-system-x86_64"
echo "$want" > "$out/built"
rm -rf "$src" "$build"
stage_end qemu
