#!/usr/bin/env bash
# The Debian source package `make deb` builds from (scripts/deb.sh
# --prepare): Debian's xen source of the base with the queue appended to
# debian/patches/series applies the way dpkg-source applies it (quilt order,
# no fuzz), its version sorts between Debian's and Debian's next upload, and
# nothing else of Debian's packaging changes.  The packages themselves are
# built by `make deb`, compared with Debian's by tests/deb/layout.t and
# installed by `make deb-check` (tests/deb/packages.t).
#
# Needs the network once for the source package (build/cache).  BASE picks
# the release (4.17 default); 4.20's source is skipped when the mirror does
# not serve it.
. "$(dirname "$0")/../lib/tap.sh"
set -u
BASE=${BASE:-4.17}
export BASE

work=$(mktemp -d "$BUILD/test-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! "$TOP/scripts/deb.sh" --prepare "$work/deb" > "$work/out" 2> "$work/err"; then
    if [ "$BASE" = 4.20 ] && grep -q 'does not serve it' "$work/err"; then
        echo "1..0 # SKIP $(cat "$work/err")"
        exit 0
    fi
    ok "the queue applies on Debian's patches with dpkg-source" false
    diag "$(cat "$work/err")"
    done_testing
    exit
fi
ok "the queue applies on Debian's patches with dpkg-source" true
src=$work/deb/src/xen
queue=$TOP/patches/$BASE
mapfile -t ours < <(grep -v '^#' "$queue/series" | grep .)

# Debian's own debian/, from the same .dsc, for comparison.
cache=$BUILD/cache
[ "$BASE" = 4.17 ] || cache=$BUILD/cache/$BASE
dsc=$(ls "$cache"/deb-src/xen_*.dsc)
dpkg-source -q --skip-patches -x "$dsc" "$work/debian" 2>/dev/null
deb_version=$(dpkg-parsechangelog -l "$work/debian/debian/changelog" -S Version)

mapfile -t applied < "$src/.pc/applied-patches"
mapfile -t want < <(grep -v '^#' "$work/debian/debian/patches/series" | grep . |
                    sed 's/[[:space:]].*//'; printf 'xen-bigvm/%s\n' "${ours[@]}")
is "$(printf '%s\n' "${applied[@]}")" "$(printf '%s\n' "${want[@]}")" \
    "applied: Debian's $((${#want[@]} - ${#ours[@]})) patches, then the queue's ${#ours[@]}, in order"
ok "the patches in debian/patches/xen-bigvm are the queue's" \
    bash -c 'for p in "${@:3}"; do cmp -s "$1/$p" "$2/$p" || exit 1; done' _ \
    "$queue" "$src/debian/patches/xen-bigvm" "${ours[@]}"
ok "debian/patches/series is Debian's, then the queue" \
    bash -c 'diff <(cat "$1"; printf "xen-bigvm/%s\n" "${@:3}") "$2" >/dev/null' _ \
    "$work/debian/debian/patches/series" "$src/debian/patches/series" "${ours[@]}"
ok "nothing else of debian/ differs from Debian's but the changelog" \
    bash -c 'diff -rq -x changelog -x series -x xen-bigvm "$1" "$2" >/dev/null' _ \
    "$work/debian/debian" "$src/debian"
ok "the changelog is Debian's with one entry on top" \
    bash -c 'tail -n +"$(($(sed -n "/^ -- /{=;q}" "$2") + 2))" "$2" | cmp -s - "$1"' _ \
    "$work/debian/debian/changelog" "$src/debian/changelog"

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
n=$(git -C "$TOP" rev-list --count HEAD -- "patches/$BASE")
is "$version" "$deb_version+bigvm$n" "the version is Debian's + bigvmN, N the queue's commits"
ok "it sorts above Debian's $deb_version, so apt takes it" \
    dpkg --compare-versions "$version" gt "$deb_version"
# Debian's next upload of the release: its last number up by one (-2, or
# +deb13u2), or a security update of -1 (+deb12u1).
next=$(sed -E 's/[0-9]+$//' <<<"$deb_version")$(($(grep -oE '[0-9]+$' <<<"$deb_version") + 1))
ok "it sorts below Debian's next upload $next, which replaces it" \
    dpkg --compare-versions "$version" lt "$next"
case $deb_version in
*-[0-9]) ok "and below a security update $deb_version+deb12u1" \
             dpkg --compare-versions "$version" lt "$deb_version+deb12u1" ;;
esac
is "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Distribution)" \
    "$([ "$BASE" = 4.17 ] && echo bookworm || echo trixie)" "the entry is for the base's release"
is "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)" \
    "xen-bigvm developers <devel@xen-bigvm.invalid>" "the entry names who built it"
done_testing
