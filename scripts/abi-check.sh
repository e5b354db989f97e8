#!/usr/bin/env bash
# Compare the ABI of every tools library of the patched tree TREE (default
# build/xen, its "patches" branch) with the same library built from TREE's
# base alone ("base" tag), as a distribution does before it ships a library
# under an unchanged SONAME.
#
#   abi-check.sh                      build both, then compare them
#   abi-check.sh --compare OLD NEW    compare two built trees (each with
#                                     tools/libs/*/lib*.so.* and tools/include)
#
# Both are built with debug information in checkouts of their own,
# TREE-abi/stock and TREE-abi/patched (incremental, configured as
# build-xen.sh configures TREE), and compared with abidiff (Debian's
# abigail-tools), limited to the types of the installed headers.  For each
# library one line:
#
#   ok: NAME SONAME: no change
#   ok: NAME SONAME: only added: FUNCTION...   the old ones are unchanged
#   ok: NAME OLD -> NEW: SONAME changed; a binary linked with OLD fails to
#       load: "MESSAGE"                        the dynamic loader's own words
#   FAIL: NAME SONAME: changed under an unchanged SONAME (...), with the
#       first lines of abidiff's report
#   FAIL: NAME OLD -> NEW: SONAME changed, but a binary linked with OLD
#       does not fail to load
#   FAIL: NAME: not built by the patched tree
#
# then "abi-check: N libraries compared, M failed".  Exit 0 when every library
# is ok, 1 when one is not, 2 when a build or a tool fails (one line on
# stderr naming it, after its log's end).
# Environment: JOBS, NONET (see build-xen.sh), TREE.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-$top/build/xen}
JOBS=${JOBS:-$(nproc)}
NONET=${NONET:-}
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"

die() { echo "abi-check: $*" >&2; exit 2; }

command -v abidiff >/dev/null || die "no abidiff: apt-get install abigail-tools"

# checkout DIR REV: DIR holds REV of TREE's repository, as a worktree.
checkout() {
    local dir=$1 rev
    rev=$(git -C "$TREE/.git" rev-parse "$2^{commit}")
    # Incremental: a new commit rebuilds what it changes.  A checkout of
    # another repository (TREE imported again) is made anew.
    if [ -e "$dir/.git" ] && git -C "$dir" checkout -q --detach "$rev" 2>/dev/null; then
        return
    fi
    rm -rf "$dir"
    git -C "$TREE/.git" worktree prune
    git -C "$TREE/.git" worktree add -q --detach "$dir" "$rev"
}

# build DIR: the tools' headers and libraries, with debug information.
build() {
    local dir=$1 label
    label="abi-check: $(basename "$dir") libraries"
    stage_begin "$label" building "$dir/abi.log"
    (
        cd "$dir"
        if [ ! -f config/Tools.mk ] || [ configure -nt config/Tools.mk ]; then
            $NONET ./configure PYTHON=/usr/bin/python3 --prefix=/usr \
                --disable-stubdom --disable-docs --disable-qemu-traditional \
                --with-system-qemu=/usr/bin/qemu-system-i386 --disable-seabios \
                --disable-rombios --disable-ipxe --disable-ocamltools \
                --disable-golang --disable-pvshim --disable-xsmpolicy \
                --with-xenstored=xenstored
        fi
        $NONET make -j"$JOBS" -C tools/include debug_symbols=y
        $NONET make -j"$JOBS" -C tools/libs debug_symbols=y
    ) >"$dir/abi.log" 2>&1 || { tail -n 20 "$dir/abi.log" >&2; die "build failed; log: $dir/abi.log"; }
    stage_end "$label"
}

soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p'; }

# libs DIR: the shared libraries DIR built, one path a line.
libs() {
    find "$1/tools/libs" -mindepth 2 -maxdepth 2 -name 'lib*.so.*' -type f |
        grep -E '/lib[^/]*\.so(\.[^.]+)+$' | sort
}

# compare OLD_TREE NEW_TREE OUT: the report above; OUT holds abidiff's
# reports and the loader's test programs.
compare() {
    local old_tree=$1 new_tree=$2 out=$3 failed=0 n=0
    local ld_dir lib old new name old_so new_so prog msg report rc added
    # One directory with every patched library under its SONAME, for the
    # dynamic loader.
    ld_dir=$out/ld
    rm -rf "$ld_dir"
    mkdir -p "$ld_dir"
    while read -r lib; do
        ln -s "$lib" "$ld_dir/$(soname "$lib")"
    done < <(libs "$new_tree")

    while read -r old; do
        name=$(basename "${old%%.so.*}")
        new=$(libs "$new_tree" | grep -E "/$name\.so\." | head -n 1 || true)
        [ -n "$new" ] || { echo "FAIL: $name: not built by the patched tree"; failed=$((failed + 1)); continue; }
        n=$((n + 1))
        old_so=$(soname "$old") new_so=$(soname "$new")
        if [ "$old_so" != "$new_so" ]; then
            # A program linked with the stock library must then not load.
            prog=$out/uses-$name
            echo 'int main(void) { return 0; }' >"$prog.c"
            gcc -o "$prog" "$prog.c" -Wl,--allow-shlib-undefined,--no-as-needed "$old" ||
                die "cannot link a program with $old"
            if msg=$(LD_LIBRARY_PATH=$ld_dir "$prog" 2>&1); then
                echo "FAIL: $name $old_so -> $new_so: SONAME changed, but a binary linked with $old_so does not fail to load"
                failed=$((failed + 1))
            else
                echo "ok: $name $old_so -> $new_so: SONAME changed; a binary linked with $old_so fails to load: \"$msg\""
            fi
            continue
        fi
        report=$out/$name.abidiff
        rc=0
        abidiff --no-added-syms \
            --headers-dir1 "$old_tree/tools/include" --headers-dir2 "$new_tree/tools/include" \
            "$old" "$new" >"$report" 2>&1 || rc=$?
        # abidiff's status: bit 0 an error, 1 a usage error, 2 an ABI change,
        # 3 an incompatible one.
        if [ $((rc & 3)) -ne 0 ]; then
            cat "$report" >&2
            die "abidiff failed on $name (status $rc)"
        elif [ "$rc" -ne 0 ]; then
            echo "FAIL: $name $old_so: changed under an unchanged SONAME (abidiff status $rc):"
            grep -E 'summary|^  \[C\]|^  \[D\]|size changed|offset changed|type of .* changed' "$report" |
                head -n 15 | sed 's/^/    /'
            failed=$((failed + 1))
            continue
        fi
        added=$(abidiff --headers-dir1 "$old_tree/tools/include" --headers-dir2 "$new_tree/tools/include" \
                    "$old" "$new" 2>/dev/null | sed -n "s/^  \[A\] 'function [^']* \([a-z_0-9]*\)(.*/\1/p" | tr '\n' ' ' || true)
        if [ -n "$added" ]; then
            echo "ok: $name $old_so: only added: ${added% }"
        else
            echo "ok: $name $old_so: no change"
        fi
    done < <(libs "$old_tree")

    [ "$n" -gt 0 ] || die "no library found in $old_tree/tools/libs"
    echo "abi-check: $n libraries compared, $failed failed"
    [ "$failed" = 0 ]
}

case "${1:-}" in
--compare)
    [ $# = 3 ] || die "usage: abi-check.sh [--compare OLD_TREE NEW_TREE]"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    rc=0
    compare "$2" "$3" "$out" || rc=$?
    exit "$rc" ;;
"") ;;
*) die "usage: abi-check.sh [--compare OLD_TREE NEW_TREE]" ;;
esac

[ -e "$TREE/.git" ] || die "$TREE: no patched tree (run 'make pq-import')"
TREE=$(cd "$TREE" && pwd)
git -C "$TREE/.git" rev-parse -q --verify 'base^{commit}' >/dev/null ||
    die "$TREE has no base tag (run 'make pq-import')"

# shellcheck source=scripts/lib/ccache.sh
. "$top/scripts/lib/ccache.sh"

stock=$TREE-abi/stock patched=$TREE-abi/patched
mkdir -p "$TREE-abi"
checkout "$stock" base
checkout "$patched" patches
build "$stock"
build "$patched"

rc=0
compare "$stock" "$patched" "$TREE-abi" || rc=$?
exit "$rc"
