#!/usr/bin/env bash
# Build the patched tree TREE (default build/xen).
#
#   build-xen.sh hypervisor debug    TREE/xen/xen{,.gz}, CONFIG_DEBUG=y
#   build-xen.sh hypervisor release  TREE-release/xen/xen{,.gz}, defconfig
#   build-xen.sh tools               TREE/dist/install
#   build-xen.sh stock               TREE-stock: TREE's base (no patch of the
#                                    series), debug hypervisor and tools
#
# Each build says when it starts (naming its log) and how long it took.
# Builds are incremental.  What was built last is only marked as done
# (TREE/.xen-bigvm-*.ok) once the build succeeded; a failed build removes the
# mark and the output it would vouch for.
# Environment: JOBS (default: number of CPUs), NONET (a command prefix that
# cuts the network off, e.g. "unshare -n"; the Makefile sets it when possible),
# CCACHE_DIR (default ~/.cache/xen-bigvm/ccache; CCACHE_DISABLE=1 compiles
# without it).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-$top/build/xen}
JOBS=${JOBS:-$(nproc)}
NONET=${NONET:-}
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"
# "stock " while building the base alone
kind=

die() { echo "build-xen: $*" >&2; exit 1; }

# show_failure LOG: a failed parallel make goes on with its other jobs
# after the first error, so the compiler's and linker's complaints are
# shown first, then the end of the log.
show_failure() {
    grep -E -m 20 -e '(error|Error): ' -e 'undefined reference' -e '\*\*\* ' "$1" >&2
    tail -n 20 "$1" >&2
}

[ -e "$TREE/.git" ] || die "$TREE: no patched tree (run 'make pq-import')"

# shellcheck source=scripts/lib/ccache.sh
. "$top/scripts/lib/ccache.sh"

# The mark says whether the build could reach the network.
mark_ok() {
    if [ -n "$NONET" ]; then
        echo "network: none ($NONET)" > "$1"
    else
        echo "network: available" > "$1"
    fi
}

hypervisor() {
    local flavour=$1 dir=$TREE ok
    if [ "$flavour" = release ]; then
        dir=$TREE-release
        # A second checkout of the same commit: an in-tree build of its own,
        # updated file by file so that it stays incremental.
        # (After a fresh import of build/xen, an old checkout is orphaned.)
        git -C "$dir" rev-parse -q --verify HEAD >/dev/null 2>&1 || rm -rf "$dir"
        if [ ! -d "$dir" ]; then
            git -C "$TREE" worktree prune
            git -C "$TREE" worktree add -q --detach "$dir" HEAD
        fi
        git -C "$dir" checkout -q --detach "$(git -C "$TREE" rev-parse HEAD)"
        # Uncommitted edits in build/xen are built too.
        git -C "$TREE" diff HEAD -- xen | git -C "$dir" apply --allow-empty 2>/dev/null ||
            git -C "$TREE" diff HEAD -- xen | git -C "$dir" apply
    fi
    ok=$dir/.xen-bigvm-hypervisor-$flavour.ok
    rm -f "$ok"
    local label="build-xen: ${kind}hypervisor ($flavour)"
    stage_begin "$label" building "$dir/xen-$flavour.log"
    # debug: defconfig + CONFIG_DEBUG=y + CONFIG_SHADOW_PAGING=y (which PV
    # guests' live migration needs, and 4.20's defconfig leaves out);
    # release: defconfig.  Xen rewrites .config while building, so the
    # flavour is read back from it.
    local want='^# CONFIG_DEBUG is not set$'
    [ "$flavour" = release ] || want='^CONFIG_DEBUG=y$'
    if ! grep -q "$want" "$dir/xen/.config" 2>/dev/null ||
       { [ "$flavour" = debug ] &&
         ! grep -q '^CONFIG_SHADOW_PAGING=y$' "$dir/xen/.config"; }; then
        $NONET make -s -C "$dir/xen" defconfig >/dev/null
        if [ "$flavour" = debug ]; then
            sed -i -e 's/^# CONFIG_DEBUG is not set$/CONFIG_DEBUG=y/' \
                -e 's/^# CONFIG_SHADOW_PAGING is not set$/CONFIG_SHADOW_PAGING=y/' \
                "$dir/xen/.config"
            $NONET make -s -C "$dir/xen" olddefconfig >/dev/null
        fi
    fi
    if ! $NONET make -j"$JOBS" -C "$dir/xen" >"$dir/xen-$flavour.log" 2>&1; then
        show_failure "$dir/xen-$flavour.log"
        rm -f "$dir/xen/xen" "$dir/xen/xen.gz"
        die "hypervisor ($flavour) build failed; log: $dir/xen-$flavour.log"
    fi
    mark_ok "$ok"
    stage_end "$label" "$(stage_rel "$dir/xen/xen"), $(stage_rel "$dir/xen/xen.gz")"
}

tools() {
    local ok=$TREE/.xen-bigvm-tools.ok
    rm -f "$ok"
    cd "$TREE"
    if [ ! -f config/Tools.mk ] || [ configure -nt config/Tools.mk ]; then
        stage_begin "build-xen: ${kind}configure" running "$TREE/configure.log"
        $NONET ./configure PYTHON=/usr/bin/python3 --prefix=/usr \
            --disable-stubdom --disable-docs --disable-qemu-traditional \
            --with-system-qemu=/usr/bin/qemu-system-i386 --disable-seabios \
            --disable-rombios --disable-ipxe --disable-ocamltools \
            --disable-golang --disable-pvshim --disable-xsmpolicy \
            --with-xenstored=xenstored >"$TREE/configure.log" 2>&1 ||
            { tail -n 20 "$TREE/configure.log" >&2; die "tools configure failed; log: $TREE/configure.log"; }
        stage_end "build-xen: ${kind}configure"
    fi
    stage_begin "build-xen: ${kind}tools" building "$TREE/tools.log"
    if ! $NONET make -j"$JOBS" dist-tools >"$TREE/tools.log" 2>&1; then
        show_failure "$TREE/tools.log"
        die "tools build failed; log: $TREE/tools.log"
    fi
    mark_ok "$ok"
    stage_end "build-xen: ${kind}tools" "$(stage_rel "$TREE/dist/install")"
}

# The base alone, for comparing with stock Xen (tests/e2e/e2e.py --flake): a
# checkout of build/xen's "base" tag, built in its own directory.
stock() {
    local dir=$TREE-stock base
    base=$(git -C "$TREE" rev-parse -q --verify 'base^{commit}') ||
        die "$TREE has no base tag (run 'make pq-import')"
    if [ "$(git -C "$dir" rev-parse -q --verify HEAD 2>/dev/null)" != "$base" ]; then
        rm -rf "$dir"
        git -C "$TREE" worktree prune
        git -C "$TREE" worktree add -q --detach "$dir" "$base"
    fi
    TREE=$dir
    kind="stock "
    hypervisor debug
    tools
}

case "${1:-}" in
stock) stock ;;
hypervisor)
    case "${2:-}" in
    debug|release) hypervisor "$2" ;;
    *) die "usage: build-xen.sh hypervisor debug|release" ;;
    esac ;;
tools) tools ;;
*) die "usage: build-xen.sh hypervisor debug|release | tools | stock" ;;
esac
