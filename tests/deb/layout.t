#!/usr/bin/env bash
# The packages `make deb` built (DEB_OUT, default build/deb) against
# Debian's own build of the same version, without installing them (that is
# tests/deb/packages.t):
#
# - the same binary packages as Debian's, plus pi-stats;
# - each holds Debian's files, but for the series' own (two documents, the
#   PI unit test beside the other tests) and libxenlight's SONAME (README
#   "Bases"): the installed layout;
# - each has Debian's control fields (dependencies, conflicts, section,
#   description...), but for the version: what apt sees;
# - lintian finds no error in them that it does not find in Debian's, and
#   none in pi-stats.
#
# Needs the network (Debian's mirror, about 12 MB).
. "$(dirname "$0")/../lib/tap.sh"
set -u
BASE=${BASE:-4.17}
out=${DEB_OUT:-$BUILD/deb}
[ "$BASE" = 4.17 ] || bail "layout.t judges 4.17's packages only"
if ! ls "$out"/xen-utils-*.deb >/dev/null 2>&1; then
    echo "1..0 # SKIP no packages in $out: make deb (as root) builds them"
    exit 0
fi

work=$(mktemp -d "$BUILD/test-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Debian's packages, from the mirror the build fetched the source from.
# shellcheck source=scripts/lib/apt.sh
. "$TOP/scripts/lib/apt.sh"
private_apt "$work/apt"
"$TOP/scripts/fetch-base.sh" --sources | sed 's/^deb-src /deb /' > "$work/apt/sources.list"
apt-get "${apt_opts[@]}" -qq update || bail "apt-get update of the mirror failed"

ours_version=$(dpkg-deb -f "$(ls "$out"/xen-utils-common_*.deb)" Version)
deb_version=${ours_version%+bigvm*}
mapfile -t ours < <(for f in "$out"/*.deb; do dpkg-deb -f "$f" Package; done | sort)
mapfile -t names < <(printf '%s\n' "${ours[@]}" | grep -v -e '-dbgsym$' -e '^pi-stats$')

mkdir "$work/debian"
(cd "$work/debian" && apt-get "${apt_opts[@]}" -qq download "${names[@]/%/=$deb_version}") ||
    bail "apt-get download of Debian's xen $deb_version packages failed"
mapfile -t theirs < <(for f in "$work"/debian/*.deb; do dpkg-deb -f "$f" Package; done | sort)
is "$(printf '%s\n' "${names[@]}")" "$(printf '%s\n' "${theirs[@]}")" \
    "the packages Debian builds from xen $deb_version, all of them (${#theirs[@]}), and no other"
ok "and pi-stats" test -f "$(ls "$out"/pi-stats_*.deb)"

# File lists: Debian's, but for what the series adds and libxenlight's
# SONAME.  Not compared: the debug files' names (build IDs).
added="./usr/lib/xen-4.17/bin/test_vmx_pi
./usr/share/doc/xen/html/misc/vmx-pi-blocking.html
./usr/share/doc/xen/html/misc/vnuma-cpu-topology.html"
files() {
    dpkg-deb -c "$1" | awk '{ print $6 }' |
        sed -e 's/libxenlight\.so\.4\.17\.topo1/libxenlight.so.4.17/' |
        grep -v '^\./usr/lib/debug/\.build-id/..' | sort -u
}
# control DEB: its control fields, the version read as Debian's; not
# compared: the installed size and the debug files' build IDs.
control() {
    dpkg-deb -f "$1" | grep -v -e '^Installed-Size:' -e '^Build-Ids:' |
        sed "s/$ours_version/$deb_version/g"
}
for p in "${names[@]}"; do
    d=$(diff <(files "$work/debian/${p}_"*.deb) <(files "$out/${p}_${ours_version}_"*.deb))
    is "$(sed -n 's/^> //p' <<<"$d" | grep -vxF "$added")" "" \
        "$p: no file that Debian's has not, but the series' own"
    is "$(sed -n 's/^< //p' <<<"$d")" "" "$p: every file Debian's has"
    is "$(control "$out/${p}_${ours_version}_"*.deb)" "$(control "$work/debian/${p}_"*.deb)" \
        "$p: Debian's control fields"
done

# lintian's errors: ours against Debian's own build.
# errors DEB...: lintian's error tags, "package: tag detail", the SONAME
# and the version read as Debian's.
errors() {
    lintian -q "$@" 2>/dev/null | awk '$1 == "E:" { $1 = ""; print substr($0, 2) }' |
        sed -e 's/libxenlight\.so\.4\.17\.topo1/libxenlight.so.4.17/g' -e "s/$ours_version/$deb_version/g" | sort -u
}
mapfile -t our_debs < <(for p in "${names[@]}"; do ls "$out/${p}_${ours_version}_"*.deb; done)
is "$(errors "${our_debs[@]}")" "$(errors "$work"/debian/*.deb)" \
    "lintian: the errors of Debian's own packages, no other"
ok "lintian: pi-stats has no error" \
    bash -c 'f=$(ls "$1"/pi-stats_*.deb) || exit 1; lintian -q "$f" > "$2" 2>&1; ! grep -q "^E:" "$2"' _ "$out" "$work/lintian-pi-stats"
done_testing
