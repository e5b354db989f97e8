#!/usr/bin/env bash
# The packages `make deb` built (DEB_OUT, default build/deb), installed as
# an operator installs them: into a fresh Debian 12 root with apt, and over
# Debian's Xen, and back (tests/deb/layout.t compares them with Debian's
# own without installing them).
#
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

ours_version=$(dpkg-deb -f "$(ls "$out"/xen-utils-common_*.deb)" Version)
deb_version=${ours_version%+bigvm*}
mapfile -t names < <(for f in "$out"/*.deb; do dpkg-deb -f "$f" Package; done |
                     grep -v -e '-dbgsym$' -e '^pi-stats$' | sort)

# root NAME: a fresh root at $work/NAME, the packages in its /debs.
root() {
    make_root "$work/$1"
    mkdir "$work/$1/debs" && cp "$out"/*.deb "$work/$1/debs/"
}
installed() { in_root "$work/$1" dpkg-query -W -f='${Version}' "$2" 2>/dev/null; }

root fresh
ok "fresh root: apt-get install ./*.deb installs them" \
    in_root_log "$work/fresh.log" "$work/fresh" sh -c 'apt-get install -y -q /debs/*.deb' ||
    diag "$(tail -n 5 "$work/fresh.log")"
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
    in_root_log "$work/over-debian.log" "$work/over" apt-get install -y -q "${runtime[@]/%/=$deb_version}"
is "$(installed over xen-utils-4.17)" "$deb_version" "Debian's root: xen-utils-4.17 $deb_version"
ok "Debian's root: apt-get install ./*.deb upgrades it in place" \
    in_root_log "$work/over.log" "$work/over" sh -c 'apt-get install -y -q /debs/*.deb' ||
    diag "$(tail -n 5 "$work/over.log")"
is "$(installed over xen-utils-4.17)" "$ours_version" "Debian's root: xen-utils-4.17 $ours_version"
# README "Installing on a host", as it is written there.
back=$(sed -n '/^    v=4\.17/,/^$/p' "$TOP/README.md" | sed -e 's/^    //' -e "s/^v=.*/v=$deb_version/" \
           -e 's/^apt /apt-get -y -q /')
ok "Debian's root: README's commands go back to Debian's Xen" \
    in_root_log "$work/over-back.log" "$work/over" bash -ec "$back"
ok "Debian's root: and pi-stats is removed" \
    bash -c '! chroot "$1" dpkg-query -W -f="\${db:Status-Abbrev}" pi-stats 2>/dev/null | grep -q "^ii"' _ "$work/over"
is "$(installed over xen-utils-4.17)" "$deb_version" "Debian's root: xen-utils-4.17 $deb_version again"

# libvirt's libxl driver, built against Debian's libxenlight.so.4.17.
in_root_log "$work/libvirt.log" "$work/fresh" apt-get install -y -qq libvirt-daemon-driver-xen ||
    diag "apt-get install libvirt-daemon-driver-xen: $(tail -n 1 "$work/libvirt.log")"
driver=$(in_root "$work/fresh" sh -c 'ls /usr/lib/*/libvirt/connection-driver/libvirt_driver_libxl.so' 2>/dev/null)
missing=$(in_root "$work/fresh" ldd "$driver" 2>&1 | awk '/not found/ { print $1 }')
# The 4.17 queue gives libxenlight the SONAME .4.17.topo1 (README "Bases"),
# which Debian's libvirt does not link: a known failure until libxl's ABI
# stays Debian's.
TODO="libvirt links libxenlight.so.4.17 (README Known problems)" \
    is "$missing" "" "libvirt's libxl driver finds every library it links"
done_testing
