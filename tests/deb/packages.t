#!/usr/bin/env bash
# The packages `make deb` built (DEB_OUT, default build/deb), judged
# against Debian's own build of the same version and installed as an
# operator installs them: into a fresh Debian 12 root with apt, and over
# Debian's Xen, and back.
#
# - the same binary packages as Debian's, plus pi-stats, each holding
#   Debian's files, the series' own (two documents, the PI unit test) and
#   libxenlight's SONAME (README "Bases") apart;
# - lintian finds no error in them that it does not find in Debian's;
# - `apt-get install ./*.deb` (no --force) installs them into a fresh root
#   made by debootstrap; the hypervisor, xl and pi-stats are where Debian
#   puts them, and the packaged pi-stats reads a real trace;
# - on a root with Debian's Xen installed, the same command upgrades it in
#   place, and README's commands go back to it;
# - libvirt's libxl driver, built by Debian against Debian's libxenlight,
#   still finds every library it links.
#
# Needs root (chroot), the network (Debian's mirror) and about 2 GB under
# build/.  The fresh root is cached as build/cache/deb-root-bookworm.tar.
. "$(dirname "$0")/../lib/tap.sh"
set -u
BASE=${BASE:-4.17}
out=${DEB_OUT:-$BUILD/deb}
[ "$BASE" = 4.17 ] || bail "packages.t judges 4.17's packages only (Debian 12 roots)"
ls "$out"/xen-utils-*.deb >/dev/null 2>&1 || bail "no packages in $out: make deb first"
[ "$(id -u)" = 0 ] || bail "needs root (chroot)"

work=$(mktemp -d "$BUILD/test-packages.XXXXXX")
# shellcheck source=tests/deb/root.sh
. "$(dirname "$0")/root.sh"
deb_roots_init "$work"

# Debian's packages, from the mirror the build fetched the source from.
# shellcheck source=scripts/lib/apt.sh
. "$TOP/scripts/lib/apt.sh"
private_apt "$work/apt"
cp "$work/sources.list" "$work/apt/sources.list"
apt-get "${apt_opts[@]}" -qq update || bail "apt-get update of the mirror failed"

ours_version=$(dpkg-deb -f "$(ls "$out"/xen-utils-common_*.deb)" Version)
deb_version=${ours_version%+bigvm*}
mapfile -t ours < <(for f in "$out"/*.deb; do dpkg-deb -f "$f" Package; done | sort)
mapfile -t names < <(printf '%s\n' "${ours[@]}" | grep -v -e '-dbgsym$' -e '^pi-stats$')

# Debian's own packages of the same version.
mkdir "$work/debian"
(cd "$work/debian" && apt-get "${apt_opts[@]}" -qq download "${names[@]/%/=$deb_version}") ||
    bail "apt-get download of Debian's xen $deb_version packages failed"
mapfile -t theirs < <(for f in "$work"/debian/*.deb; do dpkg-deb -f "$f" Package; done | sort)
is "$(printf '%s\n' "${names[@]}")" "$(printf '%s\n' "${theirs[@]}")" \
    "the packages Debian builds from xen $deb_version, all of them (${#theirs[@]}), and no other"
ok "and pi-stats" test -f "$(ls "$out"/pi-stats_*.deb)"

# File lists: Debian's, but for what the series adds (its two documents,
# the PI unit test beside the other tests) and libxenlight's SONAME.  Not
# compared: the debug files' names (build IDs) and the form of the Python
# egg-info (a directory when python3-setuptools is installed where the
# packages are built, a file otherwise).
added="./usr/lib/xen-4.17/bin/test_vmx_pi
./usr/share/doc/xen/html/misc/vmx-pi-blocking.html
./usr/share/doc/xen/html/misc/vnuma-cpu-topology.html"
files() {
    dpkg-deb -c "$1" | awk '{ print $6 }' |
        sed -e 's/libxenlight\.so\.4\.17\.topo1/libxenlight.so.4.17/' \
            -e 's|\(\.egg-info\)/.*|\1|' -e 's|\.egg-info/$|.egg-info|' |
        grep -v '^\./usr/lib/debug/\.build-id/..' | sort -u
}
for p in "${names[@]}"; do
    d=$(diff <(files "$work/debian/${p}_"*.deb) <(files "$out/${p}_${ours_version}_"*.deb))
    is "$(sed -n 's/^> //p' <<<"$d" | grep -vxF "$added")" "" \
        "$p: no file that Debian's has not, but the series' own"
    is "$(sed -n 's/^< //p' <<<"$d")" "" "$p: every file Debian's has"
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

# root NAME: a fresh root at $work/NAME, the packages in its /debs.
root() {
    make_root "$work/$1"
    mkdir "$work/$1/debs" && cp "$out"/*.deb "$work/$1/debs/"
}
installed() { in_root "$work/$1" dpkg-query -W -f='${Version}' "$2" 2>/dev/null; }

root fresh
ok "fresh root: apt-get install ./*.deb installs them" \
    bash -c 'DEBIAN_FRONTEND=noninteractive chroot "$1" sh -c "apt-get install -y -q /debs/*.deb" > "$2" 2>&1' _ \
    "$work/fresh" "$work/fresh.log" || diag "$(tail -n 5 "$work/fresh.log")"
is "$(installed fresh xen-system-amd64)" "$ours_version" "fresh root: xen-system-amd64 $ours_version"
ok "fresh root: the hypervisor where Debian puts it" test -f "$work/fresh/boot/xen-4.17-amd64.gz"
ok "fresh root: xl runs" in_root "$work/fresh" sh -c 'xl help >/dev/null 2>&1; [ $? -le 1 ] && command -v xl'
ok "fresh root: xl links the new libxenlight" \
    bash -c 'chroot "$1" ldd /usr/lib/xen-4.17/bin/xl | grep -q "libxenlight.so.4.17.topo1 => /"' _ "$work/fresh"
ok "fresh root: pi-stats and its man page" \
    test -x "$work/fresh/usr/bin/pi-stats" -a -f "$work/fresh/usr/share/man/man1/pi-stats.1.gz"
cp "$TOP/tests/data/traces/rtds-8cpu.xentrace" "$work/fresh/tmp/t.xentrace"
ok "fresh root: the packaged pi-stats reads a real trace" \
    bash -c 'chroot "$1" pi-stats /tmp/t.xentrace > "$2" && grep -q . "$2"' _ "$work/fresh" "$work/fresh.pis"

root over
mapfile -t runtime < <(printf '%s\n' "${names[@]}" | grep -v -e '-dbg$' -e '^libxen-dev$' -e '^xen-doc$')
ok "Debian's root: Debian's Xen installs" \
    bash -c 'DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q "${@:3}" > "$2" 2>&1' _ \
    "$work/over" "$work/over-debian.log" "${runtime[@]/%/=$deb_version}"
is "$(installed over xen-utils-4.17)" "$deb_version" "Debian's root: xen-utils-4.17 $deb_version"
ok "Debian's root: apt-get install ./*.deb upgrades it in place" \
    bash -c 'DEBIAN_FRONTEND=noninteractive chroot "$1" sh -c "apt-get install -y -q /debs/*.deb" > "$2" 2>&1' _ \
    "$work/over" "$work/over.log" || diag "$(tail -n 5 "$work/over.log")"
is "$(installed over xen-utils-4.17)" "$ours_version" "Debian's root: xen-utils-4.17 $ours_version"
# README "Installing on a host", as it is written there.
back=$(sed -n '/^    v=4\.17/,/^$/p' "$TOP/README.md" | sed -e 's/^    //' -e "s/^v=.*/v=$deb_version/" \
           -e 's/^apt /apt-get -y -q /')
ok "Debian's root: README's commands go back to Debian's Xen" \
    bash -c 'DEBIAN_FRONTEND=noninteractive chroot "$1" bash -ec "$3" > "$2" 2>&1' _ \
    "$work/over" "$work/over-back.log" "$back"
ok "Debian's root: and pi-stats is removed" \
    bash -c '! chroot "$1" dpkg-query -W -f="\${db:Status-Abbrev}" pi-stats 2>/dev/null | grep -q "^ii"' _ "$work/over"
is "$(installed over xen-utils-4.17)" "$deb_version" "Debian's root: xen-utils-4.17 $deb_version again"

# libvirt's libxl driver, built against Debian's libxenlight.so.4.17.
in_root "$work/fresh" apt-get install -y -qq libvirt-daemon-driver-xen > "$work/libvirt.log" 2>&1 ||
    diag "apt-get install libvirt-daemon-driver-xen: $(tail -n 1 "$work/libvirt.log")"
driver=$(in_root "$work/fresh" sh -c 'ls /usr/lib/*/libvirt/connection-driver/libvirt_driver_libxl.so' 2>/dev/null)
missing=$(in_root "$work/fresh" ldd "$driver" 2>&1 | awk '/not found/ { print $1 }')
# The 4.17 queue gives libxenlight the SONAME .4.17.topo1 (README "Bases"),
# which Debian's libvirt does not link: a known failure until libxl's ABI
# stays Debian's.
TODO="libvirt links libxenlight.so.4.17 (README Known problems)" \
    is "$missing" "" "libvirt's libxl driver finds every library it links"
done_testing
