#!/usr/bin/env bash
# What the tree's libxenctrl sends in XEN_DOMCTL_set_vcpu_apic_ids, with
# the hypercall layer replaced by fake-xencall.c and xg-domctl.c (no Xen
# needed): every field set (Xen refuses a non-zero pad with EINVAL),
# checked by valgrind's memcheck and by an ASan/UBSan build of the program.
# TREE (default build/xen) must have its tools built (`make tools`).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/fake-xen.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(dirname "$0")

[ -f "$TREE/tools/libs/ctrl/libxenctrl.so" ] ||
    bail "$TREE: tools not built (run 'make tools')"
fake_xen_env ctrl guest call foreignmemory devicemodel toollog evtchn gnttab \
    toolcore

build() { # OUT CFLAGS...
    local out=$1; shift
    gcc -O2 -g -Wall -Werror -D__XEN_TOOLS__ -I"$TREE/tools/include" "$@" \
        -o "$out" "$dir/xg-domctl.c" "$dir/fake-xencall.c" \
        -L"$TREE/tools/libs/ctrl" -Wl,-rpath-link,"$libs" -lxenctrl >"$out.log" 2>&1
}

expect() { # NAME OUTPUT
    is "$(grep -E '^(rc|calls|domid|nr_vcpus|pad|ids) ' <<<"$2")" \
"domid 7
nr_vcpus 5
pad zero
rc 0
calls 1
ids 0 1 4 5 8" "$1: the domctl Xen gets, and its result"
}

ok "xg-domctl builds against the tree's libraries" build "$tmp/plain"
out=$(LD_LIBRARY_PATH=$libs "$tmp/plain" 2>&1)
expect "plain" "$out"

out=$(LD_LIBRARY_PATH=$libs valgrind -q --error-exitcode=99 \
          --log-file="$tmp/vg.log" "$tmp/plain" 2>&1)
rc=$?
is "$rc" 0 "under valgrind: no uninitialised byte reaches the hypercall"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/vg.log" | head -n 12
expect "valgrind" "$out"

ok "xg-domctl builds with ASan and UBSan" \
    build "$tmp/asan" -fsanitize=address,undefined -fno-sanitize-recover=all
out=$(LD_LIBRARY_PATH=$libs ASAN_OPTIONS=detect_leaks=1 "$tmp/asan" 2>&1)
is "$?" 0 "ASan/UBSan build exits 0"
expect "ASan/UBSan" "$out"

done_testing
