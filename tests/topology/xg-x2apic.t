#!/usr/bin/env bash
# What the tree's xc_hvm_set_x2apic_ids() (libxenguest) hands Xen, with the
# hypercall layer replaced by fake-xencall.c and xg-x2apic.c (no Xen
# needed): from a context as Xen saves it, the header, then every vCPU's
# LAPIC record at its full length with its ID and the rest as it was, its
# LAPIC_REGS with the xAPIC ID register set, then END, nothing else; a LAPIC
# record for a vCPU the domain has not, or a record running past the
# context, is EINVAL and sets nothing.  Plain, under valgrind's memcheck,
# and with ASan/UBSan.  TREE (default build/xen) must have its tools built.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/fake-xen.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(dirname "$0")

[ -f "$TREE/tools/libs/guest/libxenguest.so" ] ||
    bail "$TREE: tools not built (run 'make tools')"
fake_xen_env ctrl guest call foreignmemory devicemodel toollog evtchn gnttab \
    toolcore

build() { # OUT CFLAGS...
    local out=$1; shift
    gcc -O2 -g -Wall -Werror -D__XEN_TOOLS__ -I"$TREE/tools/include" "$@" \
        -o "$out" "$dir/xg-x2apic.c" "$dir/fake-xencall.c" \
        -L"$TREE/tools/libs/guest" -L"$TREE/tools/libs/ctrl" \
        -Wl,-rpath-link,"$libs" -lxenguest -lxenctrl >"$out.log" 2>&1 ||
        { sed 's/^/# /' "$out.log" | tail -n 20; false; }
}

# expect HOW CASE OUTPUT
expect() {
    case $2 in
    good) is "$3" "rc 0
gets 2, sets 1, wrong domid 0
header first 1
lapic 3, with the ID and the rest as given 3
lapic_regs 3, with the ID register 3
other records 0
end last 1" "$1: the context Xen is given: header, 3 LAPIC with their IDs, 3 LAPIC_REGS, END" ;;
    *) is "$3" "rc -1
errno EINVAL
gets 2, sets 0, wrong domid 0" "$1: $2: EINVAL, and nothing set" ;;
    esac
}

ok "xg-x2apic builds against the tree's libraries" build "$tmp/plain"
ok "xg-x2apic builds with ASan and UBSan" \
    build "$tmp/asan" -fsanitize=address,undefined -fno-sanitize-recover=all
for c in good instance truncated; do
    expect plain $c "$(LD_LIBRARY_PATH=$libs "$tmp/plain" $c 2>&1)"

    out=$(LD_LIBRARY_PATH=$libs valgrind -q --error-exitcode=99 \
              --log-file="$tmp/vg.log" "$tmp/plain" $c 2>&1)
    rc=$?
    is "$rc" 0 "valgrind: $c: no uninitialised byte reaches Xen, no bad access"
    [ "$rc" = 0 ] || sed 's/^/# /' "$tmp/vg.log" | head -n 12
    expect valgrind $c "$out"

    out=$(LD_LIBRARY_PATH=$libs ASAN_OPTIONS=detect_leaks=1 "$tmp/asan" $c 2>&1)
    is "$?" 0 "ASan/UBSan: $c: exits 0"
    expect ASan/UBSan $c "$out"
done

done_testing
