#!/usr/bin/env bash
# Install the Debian 12 packages the build and tests need, only those that
# are missing, and say which.  Needs root (or sudo) and Debian's registry.
#
# usage: deps.sh [GROUP...]   groups: build (default), e2e, fuzz
set -euo pipefail

build_pkgs="make gcc git bison flex acpica-tools libyajl-dev uuid-dev
    libncurses-dev zlib1g-dev liblzma-dev libbz2-dev libzstd-dev python3
    python3-dev python3-setuptools pkg-config gettext xz-utils bzip2 patch
    ca-certificates perl dpkg-dev"
e2e_pkgs="qemu-system-x86 busybox-static cpio"
fuzz_pkgs="clang libclang-rt-14-dev"

groups=${*:-build}
want=
for g in $groups; do
    case $g in
    build) want="$want $build_pkgs" ;;
    e2e)   want="$want $e2e_pkgs" ;;
    fuzz)  want="$want $fuzz_pkgs" ;;
    *) echo "deps: unknown group '$g' (build, e2e, fuzz)" >&2; exit 2 ;;
    esac
done

missing=
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
        missing="$missing $p"
done
[ -n "$missing" ] || exit 0

echo "deps: installing:$missing"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet.
if ! $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
fi
