#!/usr/bin/env bash
# Patch queue round trip, in the manner of `gbp pq`:
#
#   pq.sh import TREE   TREE becomes a git repository of the base with one
#                       commit per patch of PATCHES/series (git am).  An
#                       existing TREE is reused (build outputs kept) unless
#                       it holds work that was never exported.
#   pq.sh export TREE   PATCHES and PATCHES/series are regenerated from the
#                       commits base..HEAD of TREE.
#   pq.sh status TREE   exit 0 when TREE is what the series describes, 1 if
#                       it must be imported again, 2 if it holds unexported
#                       work (it says which).
#   pq.sh series        the patch files of PATCHES/series, in order, one a
#                       line (comments and blank lines dropped).
#
# BASE picks the Xen release the series is for, and so its queue
# (patches/BASE) and its base: 4.17 (default) and 4.20 are the orig tarballs
# of Debian 12's and Debian 13's xen source packages, which
# scripts/fetch-base.sh fetches into CACHE (CACHE/base.txt records which);
# master has no package and needs XEN_SRC.  XEN_SRC=PATH uses the user's
# tree instead: a directory (a checkout's tracked files are taken, else the
# whole directory) or a tarball of one (as `git archive` writes), whose
# xen/Makefile must say the release BASE names (master: 4.23 or later).
# The base's name ("deb:VERSION" or "src:PATH") is stored with the tree, so
# a tree imported onto another base counts as stale.  Environment: BASE,
# PATCHES (default patches/BASE), CACHE (default build/cache, for 4.20
# build/cache/4.20), XEN_SRC, XEN_DEB_VERSION (see fetch-base.sh).  An import
# says when it starts and how long it and the fetching of the base took.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-4.17}
case $BASE in
4.17) CACHE=${CACHE:-$top/build/cache} ;;
4.20) CACHE=${CACHE:-$top/build/cache/4.20} ;;
master) ;;
*) echo "pq: BASE=$BASE: no such base (4.17, 4.20, master)" >&2; exit 1 ;;
esac
PATCHES=${PATCHES:-$top/patches/$BASE}
export BASE
STAMP=xen-bigvm-pq          # under TREE/.git: "series-hash base-id head"
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"

die() { echo "pq: $*" >&2; exit 1; }

# Every git call is independent of the user's configuration.
g() {
    git -C "$tree" -c core.abbrev=12 -c diff.renames=false \
        -c diff.noprefix=false -c diff.mnemonicPrefix=false \
        -c format.signature= -c format.numbered=false \
        -c core.autocrlf=false -c user.name=xen-bigvm -c user.email=pq@xen-bigvm.invalid \
        -c commit.gpgsign=false "$@"
}

series_files() {
    [ -f "$PATCHES/series" ] || die "$PATCHES/series: missing"
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

series_hash() {
    {
        series_files
        series_files | while read -r p; do cat "$PATCHES/$p"; done
    } | sha256sum | cut -c1-16
}

base_id() {
    if [ "$BASE" = master ] && [ -z "${XEN_SRC:-}" ]; then
        echo "none"
    elif [ -n "${XEN_SRC:-}" ]; then
        echo "src:$(cd "$XEN_SRC" 2>/dev/null && pwd || echo "$XEN_SRC")"
    else
        echo "deb:$("$top/scripts/fetch-base.sh" --version "$CACHE")"
    fi
}

# Unpack the base into $1 (which must not exist).
make_base() {
    local dest=$1 src
    if [ -z "${XEN_SRC:-}" ]; then
        [ "$BASE" != master ] ||
            die "BASE=master needs XEN_SRC=/path/to/xen: an upstream checkout, or a tarball of one, at c447b7308b or later"
        stage_begin "pq: base" "fetching and unpacking the Debian xen source (scripts/fetch-base.sh)"
        "$top/scripts/fetch-base.sh" "$CACHE" "$dest" >&2
        stage_end "pq: base"
        return
    fi
    [ -e "$XEN_SRC" ] || die "XEN_SRC=$XEN_SRC: no such file or directory"
    stage_begin "pq: base" "copying XEN_SRC=$XEN_SRC"
    mkdir -p "$dest"
    if [ -f "$XEN_SRC" ]; then
        # A tarball: its one top directory, or its files if it has none.
        mkdir "$dest/.src"
        tar -xf "$XEN_SRC" -C "$dest/.src" 2>/dev/null ||
            die "XEN_SRC=$XEN_SRC: cannot unpack"
        src=$dest/.src
        if [ "$(ls -A "$src" | wc -l)" = 1 ] && [ -d "$src/$(ls -A "$src")" ]; then
            src=$src/$(ls -A "$src")
        fi
        (cd "$src" && tar -cf - .) | tar -xf - -C "$dest"
        rm -rf "$dest/.src"
    elif git -C "$XEN_SRC" rev-parse --show-toplevel >/dev/null 2>&1 &&
       [ "$(cd "$(git -C "$XEN_SRC" rev-parse --show-toplevel)" && pwd)" = "$(cd "$XEN_SRC" && pwd)" ]; then
        # A checkout: its tracked files as they are in the working tree.
        (cd "$XEN_SRC" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$dest"
    else
        (cd "$XEN_SRC" && tar --exclude=.git -cf - .) | tar -xf - -C "$dest"
    fi
    [ -f "$dest/xen/Makefile" ] && [ -f "$dest/tools/Makefile" ] ||
        die "XEN_SRC=$XEN_SRC: not a Xen source tree (no xen/Makefile, tools/Makefile)"
    local ver
    ver=$(awk '$1 == "export" && $2 == "XEN_VERSION" { v = $4 }
               $1 == "export" && $2 == "XEN_SUBVERSION" { s = $4 }
               END { print v "." s }' "$dest/xen/Makefile")
    case $BASE in
    master)
        [ "${ver%%.*}" -gt 4 ] 2>/dev/null ||
            { [ "${ver%%.*}" = 4 ] && [ "${ver#*.}" -ge 23 ] 2>/dev/null; } ||
            die "XEN_SRC=$XEN_SRC: Xen $ver, BASE=master needs 4.23 or later" ;;
    *)
        [ "$ver" = "$BASE" ] ||
            die "XEN_SRC=$XEN_SRC: Xen $ver, the series is for $BASE (BASE=4.17, 4.20 or master picks another)" ;;
    esac
    stage_end "pq: base"
}

# Apply the series on top of the base commit.
apply_series() {
    local p
    for p in $(series_files); do
        [ -f "$PATCHES/$p" ] || die "$PATCHES/series names $p, which does not exist"
        if ! g am -q --keep-cr --committer-date-is-author-date "$PATCHES/$p" >/dev/null 2>&1; then
            g am --abort >/dev/null 2>&1 || true
            return 1
        fi
    done
}

write_stamp() {
    echo "$(series_hash) $(base_id) $(g rev-parse HEAD)" > "$tree/.git/$STAMP"
}

# 0 = matches the series, 1 = stale but safe to re-import, 2 = unexported work
status() {
    [ -d "$tree/.git" ] && [ -f "$tree/.git/$STAMP" ] || return 1
    local hash base head
    read -r hash base head < "$tree/.git/$STAMP"
    if [ "$(g rev-parse HEAD)" != "$head" ]; then
        echo "pq: $tree has commits that are not in $PATCHES (run 'make pq-export' to keep them)" >&2
        return 2
    fi
    if [ -n "$(g status --porcelain --untracked-files=no)" ]; then
        echo "pq: $tree has uncommitted changes to tracked files" >&2
        return 2
    fi
    [ "$hash" = "$(series_hash)" ] && [ "$base" = "$(base_id)" ] || return 1
    return 0
}

# Apply the series in $1, a repository at its base; on failure say which
# patch did not apply and fail.
apply_in() {
    local tree=$1 done bad
    if ! apply_series; then
        done=$(g rev-list --count base..HEAD)
        bad=$(series_files | sed -n "$((done + 1))p")
        echo "pq: $bad does not apply to $(base_id)" >&2
        return 1
    fi
}

import() {
    local rc=0
    status || rc=$?
    case $rc in
    0) echo "pq: $(stage_rel "$tree") is up to date with $(stage_rel "$PATCHES")/series"; return 0 ;;
    2) [ -n "${FORCE:-}" ] || die "refusing to import over unexported work in $tree (FORCE=1 discards it)" ;;
    esac

    local label
    label="pq: $(stage_rel "$tree")"
    stage_begin "$label" "importing $(stage_rel "$PATCHES")/series"
    # work is global: the EXIT trap needs it.
    work=$tree.import.$$
    rm -rf "$work"
    trap 'rm -rf "$work"' EXIT
    if [ -d "$tree/.git" ] && [ -f "$tree/.git/$STAMP" ] &&
       [ "$(cut -d' ' -f2 "$tree/.git/$STAMP")" = "$(base_id)" ]; then
        # Same base: build the new history in a scratch clone, then move
        # the tree to it.  Git rewrites only the files whose content
        # differs, so the others keep their timestamps and the next build
        # is incremental.
        rm -f "$tree/.git/$STAMP"
        git clone -q --shared "$tree" "$work"
        git -C "$work" checkout -q -B patches base
        apply_in "$work" || exit 1
        g fetch -q "$work" patches
        g checkout -q -f -B patches FETCH_HEAD
        rm -rf "$work"
    else
        make_base "$work"
        local final=$tree
        tree=$work
        g init -q -b base-only
        g add -A -f .
        GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
            g commit -q -m "base: $(base_id)"
        g tag base
        g checkout -q -b patches
        apply_in "$work" || exit 1
        tree=$final
        rm -rf "$tree"
        mv "$work" "$tree"
    fi
    trap - EXIT
    write_stamp
    stage_end "$label" "base + $(g rev-list --count base..HEAD) patches from $(stage_rel "$PATCHES")/series"
}

export_() {
    [ -d "$tree/.git" ] || die "$tree is not a patch-queue tree (run 'make pq-import')"
    g rev-parse -q --verify base >/dev/null || die "$tree has no 'base' tag"
    tmp=$(mktemp -d "$PATCHES/.export.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    g format-patch -q --no-signature --zero-commit --full-index --no-numbered \
        --no-renames --diff-algorithm=myers -o "$tmp" base..HEAD >/dev/null ||
        die "git format-patch failed"
    (cd "$tmp" && ls -1 -- *.patch 2>/dev/null) > "$tmp/series" || true
    # Replace the queue: old patches that are no longer in it go.  A
    # directory without a series yet is simply filled.
    local p
    if [ -f "$PATCHES/series" ]; then
        for p in $(series_files); do rm -f "$PATCHES/$p"; done
    fi
    mv "$tmp"/*.patch "$PATCHES"/ 2>/dev/null || true
    mv "$tmp/series" "$PATCHES/series"
    rm -rf "$tmp"
    trap - EXIT
    write_stamp
    echo "pq: exported $(wc -l < "$PATCHES/series") patches to $PATCHES"
}

usage="usage: pq.sh import|export|status TREE, or pq.sh series"
[ "${1:-}" = series ] && [ $# -eq 1 ] && { series_files; exit 0; }
[ $# -eq 2 ] || die "$usage"
tree=$(realpath -m -- "$2")
case $1 in
import) import ;;
export) export_ ;;
status) status ;;
*) die "$usage" ;;
esac
