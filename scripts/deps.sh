#!/usr/bin/env bash
# Install the Debian 12 packages the build and tests need, only those that
# are missing, and say which and how long it took.  Needs root (or sudo)
# and Debian's registry.
#
# usage: deps.sh [GROUP...]   groups: build (default), e2e, fuzz, model, matrix,
#                             abi, deb
#
# When it cannot install, it installs nothing and says what to do in one
# line on stderr.  Exit status:
#   0  every package is installed (now or before)
#   1  apt-get failed
#   2  unknown group
#   3  packages are missing, and this is not root and there is no sudo
#      (the line gives the apt-get command to run as root)
#   4  no apt-get or dpkg-query: not Debian 12 (bookworm) or a derivative
#      (the line names the packages whose equivalents are needed)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"

build_pkgs="make gcc git bison flex acpica-tools libyajl-dev uuid-dev
    libncurses-dev zlib1g-dev liblzma-dev libbz2-dev libzstd-dev python3
    python3-dev python3-setuptools pkg-config gettext xz-utils bzip2 patch
    ca-certificates perl dpkg-dev valgrind ccache"
e2e_pkgs="qemu-system-x86 busybox-static cpio kmod meson ninja-build
    libglib2.0-dev libpixman-1-dev libfdt-dev"
fuzz_pkgs="clang libclang-rt-14-dev"
model_pkgs="spin"
# make matrix: clang (upstream's clang builds use GNU ld, so no lld) and
# the arm64 cross compiler
matrix_pkgs="clang gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu"
# make abi-check: abidiff
abi_pkgs="abigail-tools"
# make deb: what prepares the source package and makes the build root
# (which gets the source package's Build-Depends itself, scripts/deb.sh),
# and what tests/deb judges the packages with
deb_pkgs="dpkg-dev debootstrap lintian"

groups=${*:-build}
want=
for g in $groups; do
    case $g in
    build) want="$want $build_pkgs" ;;
    e2e)   want="$want $e2e_pkgs" ;;
    fuzz)  want="$want $fuzz_pkgs" ;;
    model) want="$want $model_pkgs" ;;
    matrix) want="$want $matrix_pkgs" ;;
    abi)   want="$want $abi_pkgs" ;;
    deb)   want="$want $deb_pkgs" ;;
    *) echo "deps: unknown group '$g' (build, e2e, fuzz, model, matrix, abi, deb)" >&2; exit 2 ;;
    esac
done

# not_debian PKG...
not_debian() {
    echo "deps: no apt-get/dpkg-query: this needs Debian 12 (bookworm) or a derivative; install the equivalents of: $*" >&2
    exit 4
}

# shellcheck disable=SC2206 # a list of package names, split on blanks
want=($want)
if ! command -v dpkg-query >/dev/null 2>&1; then
    # Nothing tells what is installed: every package may be missing.
    not_debian "${want[@]}"
fi
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
        missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

command -v apt-get >/dev/null 2>&1 || not_debian "${missing[@]}"
sudo=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "deps: not root and no sudo: as root, run: apt-get install ${missing[*]}" >&2
        exit 3
    }
    sudo=(sudo)
fi

stage_begin deps "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
install=("${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}")
# A fresh machine has no package lists yet.
if ! "${install[@]}" >/dev/null 2>&1; then
    { "${sudo[@]}" apt-get update -qq && "${install[@]}" >/dev/null; } ||
        { echo "deps: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
fi
stage_end deps
