#!/usr/bin/env bash
# Build BASE's patched tree in the configurations of scripts/matrix.conf
# (upstream Xen's build matrix) and name the first that fails.
#
#   matrix.sh [CONF...]   the configurations named (default: all of them,
#                         in the file's order); MATRIX=a,b does the same
#   matrix.sh --list      the configurations, one a line
#
# Each configuration builds a commit of the tree (HEAD, or MATRIX_REV: e.g.
# MATRIX_REV=base for the pristine base, to tell a failure of the series
# from one upstream has) in a checkout of its own,
# build/matrix/BASE[-REV]/CONF (a git worktree of the tree, updated file by
# file, so a second run is incremental), its log beside it (CONF.log) with
# the .config it built (CONF.config).  The tree itself is not touched.
# Every configuration is built, each saying when it starts (naming its log)
# and how long it took; a configuration the base cannot have (a Kconfig
# symbol it lacks) is skipped, saying why.  At the end a table of results
# and times, and, when one failed, one line on stderr naming the first
# that failed and its log.
#
# Exit status: 0 every configuration built or was skipped (also when the
# base has no source: BASE=4.20 without XEN_SRC), 1 one failed (or the
# tree could not be made), 2 an unknown configuration or revision.
# Environment: BASE, TREE, XEN_SRC, JOBS, NONET as for build-xen.sh;
# MATRIX, MATRIX_REV; MATRIX_CONF (another configuration file, for the
# tests); CCACHE_DIR as everywhere.
set -euo pipefail
# One block, read whole before it runs: a long run is not thrown off by an
# edit of this file.
{
top=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-4.17}
case $BASE in
4.17) default_tree=$top/build/xen ;;
*) default_tree=$top/build/xen-$BASE ;;
esac
TREE=${TREE:-$default_tree}
JOBS=${JOBS:-$(nproc)}
NONET=${NONET:-}
REV=${MATRIX_REV:-HEAD}
conf_file=${MATRIX_CONF:-$top/scripts/matrix.conf}
export BASE TREE
# shellcheck source=scripts/lib/stage.sh
. "$top/scripts/lib/stage.sh"

die() { echo "matrix: $1" >&2; exit "${2:-1}"; }

# The configurations: names in order, and each one's words.
declare -A words=()
names=()
while read -r name rest; do
    case $name in ''|'#'*) continue ;; esac
    names+=("$name")
    words[$name]=$rest
done <"$conf_file"

if [ "${1:-}" = --list ]; then
    for n in "${names[@]}"; do printf '%-13s %s\n' "$n" "${words[$n]}"; done
    exit 0
fi

# The configurations asked for: arguments, else MATRIX (commas or blanks).
want=("$@")
if [ ${#want[@]} = 0 ]; then
    list=${MATRIX:-}
    read -r -a want <<<"${list//,/ }"
fi
[ ${#want[@]} -gt 0 ] || want=("${names[@]}")
for n in "${want[@]}"; do
    [ -n "${words[$n]+set}" ] ||
        die "unknown configuration '$n' (known: ${names[*]})" 2
done

# The tree, as `make tree` makes it: imported when stale, built as it is
# when it holds unexported commits.
rc=0
"$top/scripts/pq.sh" status "$TREE" 2>/dev/null || rc=$?
case $rc in
0) ;;
1)
    log=$(mktemp)
    if ! "$top/scripts/pq.sh" import "$TREE" 2>"$log"; then
        if [ "$BASE" = 4.20 ] && [ -z "${XEN_SRC:-}" ] && grep -q '^fetch-base:' "$log"; then
            echo "matrix: $BASE: skipped, no source: $(grep '^fetch-base:' "$log" | tail -n 1)"
            rm -f "$log"
            exit 0
        fi
        cat "$log" >&2
        rm -f "$log"
        die "$BASE: cannot make the tree $(stage_rel "$TREE")"
    fi
    rm -f "$log" ;;
*) "$top/scripts/pq.sh" status "$TREE" || echo "matrix: building $(stage_rel "$TREE") as it is" ;;
esac
commit=$(git -C "$TREE" rev-parse -q --verify "$REV^{commit}") ||
    die "MATRIX_REV=$REV: no such revision in $(stage_rel "$TREE")" 2
what="$BASE at $(git -C "$TREE" log -1 --format='%h %s' "$commit")"
# Another tree than BASE's own (TREE=...) builds in a directory of its own.
label=$BASE
[ "$TREE" -ef "$default_tree" ] || label=$(basename "$TREE")
if [ "$REV" = HEAD ]; then
    out=$top/build/matrix/$label
else
    out=$top/build/matrix/$label-$(tr -c 'A-Za-z0-9._\n-' _ <<<"$REV")
fi
mkdir -p "$out"

# shellcheck source=scripts/lib/ccache.sh
. "$top/scripts/lib/ccache.sh"

# checkout DIR: DIR is a worktree of the tree at the commit.  (After a fresh
# import of the tree, an old one is orphaned and made again; so is a DIR
# that is no checkout of its own, where git would find this repository, or
# one of another tree.)
checkout() {
    if [ -d "$1" ] &&
       { [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" != "$(cd "$1" && pwd -P)" ] ||
         [ "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
           "$(git -C "$TREE" rev-parse --path-format=absolute --git-common-dir)" ] ||
         ! git -C "$1" rev-parse -q --verify HEAD >/dev/null 2>&1; }; then
        rm -rf "$1"
    fi
    if [ ! -d "$1" ]; then
        git -C "$TREE" worktree prune
        git -C "$TREE" worktree add -q --detach "$1" "$commit"
    fi
    git -C "$1" checkout -q -f --detach "$commit"
}

# has_symbol SYM: the commit's Kconfig defines SYM
has_symbol() {
    git -C "$TREE" grep -qE "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*$" \
        "$commit" -- ':(glob)xen/**/Kconfig*'
}

# holds CONFIG FILE: the assignment CONFIG_X=y|n holds in .config FILE
holds() {
    case ${1#*=} in
    n) ! grep -q "^${1%%=*}=" "$2" ;;
    *) grep -qx "$1" "$2" ;;
    esac
}

# hypervisor CONF DIR LOG: configure and build DIR's hypervisor
hypervisor() {
    local conf=$1 dir=$2 log=$3 w defconfig=defconfig seed='' frag=() mk=() c
    for w in ${words[$conf]}; do
        case $w in
        CONFIG_*) frag+=("$w") ;;
        defconfig=*) defconfig=${w#defconfig=} ;;
        seed=*) seed=${w#seed=} ;;
        cc=clang) mk+=(clang=y) ;;
        arch=arm64) mk+=(XEN_TARGET_ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) ;;
        esac
    done
    for c in "${frag[@]}"; do
        [ "$c" != CONFIG_EXPERT=y ] || export XEN_CONFIG_EXPERT=y
    done
    # Keep an unchanged .config's date, so that a second run is incremental.
    [ ! -f "$dir/xen/.config" ] || cp -p "$dir/xen/.config" "$dir/xen/.config.matrix-old"
    {
        if [ -n "$seed" ]; then
            local all=()
            [ ! -f "$dir/xen/tools/kconfig/allrandom.config" ] ||
                all=(KCONFIG_ALLCONFIG=tools/kconfig/allrandom.config)
            KCONFIG_SEED=$seed $NONET make -C "$dir/xen" "${mk[@]}" "${all[@]}" randconfig
        else
            $NONET make -C "$dir/xen" "${mk[@]}" "$defconfig" &&
                { [ ${#frag[@]} = 0 ] || printf '%s\n' "${frag[@]}" >>"$dir/xen/.config"; } &&
                $NONET make -C "$dir/xen" "${mk[@]}" olddefconfig
        fi
    } >"$log" 2>&1 || return 1
    if [ -f "$dir/xen/.config.matrix-old" ]; then
        if cmp -s "$dir/xen/.config" "$dir/xen/.config.matrix-old"; then
            mv "$dir/xen/.config.matrix-old" "$dir/xen/.config"
        else
            rm -f "$dir/xen/.config.matrix-old"
        fi
    fi
    cp "$dir/xen/.config" "${log%.log}.config"
    for c in "${frag[@]}"; do
        holds "$c" "$dir/xen/.config" ||
            { echo "matrix: $c does not hold in the configuration made (see $(stage_rel "${log%.log}.config"))" >>"$log"; return 1; }
    done
    rm -f "$dir/xen/xen" "$dir/xen/xen.gz"
    $NONET make -j"$JOBS" -C "$dir/xen" "${mk[@]}" >>"$log" 2>&1
}

# tools CONF DIR LOG: configure (as build-xen.sh does) and build DIR's tools
tools() {
    local conf=$1 dir=$2 log=$3 w cc=() mk=()
    for w in ${words[$conf]}; do
        case $w in cc=clang) cc=(CC=clang CXX=clang++); mk=(clang=y) ;; esac
    done
    (
        cd "$dir"
        $NONET ./configure PYTHON=/usr/bin/python3 --prefix=/usr "${cc[@]}" \
            --disable-stubdom --disable-docs --disable-qemu-traditional \
            --with-system-qemu=/usr/bin/qemu-system-i386 --disable-seabios \
            --disable-rombios --disable-ipxe --disable-ocamltools \
            --disable-golang --disable-pvshim --disable-xsmpolicy \
            --with-xenstored=xenstored &&
            $NONET make -j"$JOBS" "${mk[@]}" dist-tools
    ) >"$log" 2>&1
}

# skip_reason CONF: why the base cannot have CONF (nothing when it can)
skip_reason() {
    local w
    for w in ${words[$1]}; do
        case $w in
        CONFIG_*)
            has_symbol "$(sed 's/^CONFIG_//; s/=.*//' <<<"$w")" ||
                { echo "${w%%=*} does not exist on $BASE"; return; } ;;
        defconfig=*)
            git -C "$TREE" cat-file -e "$commit:xen/arch/x86/configs/${w#defconfig=}" 2>/dev/null ||
                { echo "no ${w#defconfig=} on $BASE"; return; } ;;
        esac
    done
}

echo "matrix: $what: ${want[*]}"
results=()
first=
nfail=0 nskip=0 nok=0
for conf in "${want[@]}"; do
    dir=$out/$conf log=$out/$conf.log
    reason=$(skip_reason "$conf")
    if [ -n "$reason" ]; then
        echo "matrix: $conf: skipped: $reason"
        results+=("$(printf '%-13s %-8s %7s  %s' "$conf" skipped - "$reason")")
        nskip=$((nskip + 1))
        continue
    fi
    checkout "$dir"
    kind=hypervisor
    case " ${words[$conf]} " in *" tools "*) kind=tools ;; esac
    stage_begin "matrix: $conf" "building ($kind: ${words[$conf]:-defconfig})" "$log"
    if (
        if [ "$kind" = tools ]; then tools "$conf" "$dir" "$log"
        else hypervisor "$conf" "$dir" "$log"; fi
    ); then
        stage_end "matrix: $conf"
        results+=("$(printf '%-13s %-8s %7s' "$conf" ok "$stage_took")")
        nok=$((nok + 1))
    else
        stage_pop
        err=
        for pat in 'undefined reference' 'error:' 'does not hold' 'Error '; do
            err=$(grep -m1 -e "$pat" "$log") && break
        done
        [ -n "$err" ] || err=$(tail -n 1 "$log")
        echo "matrix: $conf: FAILED after $stage_took: $err" >&2
        results+=("$(printf '%-13s %-8s %7s  %s' "$conf" FAILED "$stage_took" "$(stage_rel "$log")")")
        nfail=$((nfail + 1))
        [ -n "$first" ] || first=$conf
    fi
done

echo "matrix: $what: $nok built, $nfail failed, $nskip skipped"
printf '  %s\n' "${results[@]}"
if [ -n "$first" ]; then
    more=
    [ "$nfail" = 1 ] || more="; $nfail failed in all"
    die "$first failed ($BASE at $(git -C "$TREE" rev-parse --short "$commit")): log $(stage_rel "$out/$first.log")$more"
fi
exit 0
}
