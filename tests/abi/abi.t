#!/usr/bin/env bash
# The ABI of the tools libraries (scripts/abi-check.sh): every library the
# patched 4.17 tree builds keeps the stock library's ABI under the stock
# SONAME, or changes its SONAME so that a program linked with the stock one
# fails to load instead of misreading it.  libxenlight is the one whose
# public types the series changes (cpu_topology in libxl_domain_build_info).
#
# First the comparison itself, on two small libraries built here, so that
# it is seen to fail on each kind of change it must catch.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
check=$TOP/scripts/abi-check.sh

# lib DIR SONAME BODY: DIR/tools/libs/demo/libxendemo.so.1.0 with SONAME,
# built from BODY with debug information, and its header in
# DIR/tools/include.
lib() {
    mkdir -p "$1/tools/libs/demo" "$1/tools/include"
    printf '%s\n' "$3" >"$1/tools/include/xendemo.h"
    printf '#include "xendemo.h"\nint demo_get(struct demo *d) { return d->a; }\n' \
        >"$1/demo.c"
    case $3 in *demo_put*)
        printf 'void demo_put(struct demo *d, int a) { d->a = a; }\n' >>"$1/demo.c" ;;
    esac
    gcc -g -shared -fPIC -I"$1/tools/include" -Wl,-soname,"$2" \
        -o "$1/tools/libs/demo/libxendemo.so.1.0" "$1/demo.c"
}

lib "$work/old" libxendemo.so.1 'struct demo { int a; }; int demo_get(struct demo *d);'
lib "$work/same" libxendemo.so.1 'struct demo { int a; }; int demo_get(struct demo *d);'
lib "$work/grown" libxendemo.so.1 'struct demo { int a; int b; }; int demo_get(struct demo *d);'
lib "$work/added" libxendemo.so.1 'struct demo { int a; }; int demo_get(struct demo *d); void demo_put(struct demo *d, int a);'
lib "$work/bumped" libxendemo.so.2 'struct demo { int a; int b; }; int demo_get(struct demo *d);'

compare() { "$check" --compare "$work/old" "$work/$1" >"$work/$1.out" 2>"$work/$1.err"; }

compare same
is "$?" 0 "the same library passes"
ok "  saying there is no change" grep -qx 'ok: libxendemo libxendemo.so.1: no change' "$work/same.out"
compare added
is "$?" 0 "a library that only gains a function passes"
ok "  naming it" grep -qx 'ok: libxendemo libxendemo.so.1: only added: demo_put' "$work/added.out"
compare grown
is "$?" 1 "a structure grown under the same SONAME fails"
ok "  naming the library" grep -q '^FAIL: libxendemo libxendemo.so.1: changed under an unchanged SONAME' "$work/grown.out"
ok "  and the change" grep -q 'type size changed from 32 to 64' "$work/grown.out"
is "$(tail -n 1 "$work/grown.out")" "abi-check: 1 libraries compared, 1 failed" "  and the count"
compare bumped
is "$?" 0 "the same change under a new SONAME passes"
ok "  because a program linked with the old one fails to load, in the loader's words" \
    grep -q '^ok: libxendemo libxendemo.so.1 -> libxendemo.so.2: SONAME changed; a binary linked with libxendemo.so.1 fails to load: ".*libxendemo.so.1: cannot open shared object file' \
    "$work/bumped.out"
# A new SONAME that the old one still resolves to is no protection.
ln -s libxendemo.so.1.0 "$work/bumped/tools/libs/demo/libxendemo.so.1"
cp "$work/old/tools/libs/demo/libxendemo.so.1.0" "$work/bumped/tools/libs/demo/libxendemo.so.1.1"
compare bumped
is "$?" 1 "a new SONAME fails when the old one still loads"
"$check" --compare "$work/old" >/dev/null 2>"$work/usage.err"
is "$?" 2 "a wrong command line exits 2"
is "$(cat "$work/usage.err")" "abi-check: usage: abi-check.sh [--compare OLD_TREE NEW_TREE]" "  with one line"

# The 4.17 queue against stock 4.17.
export JOBS=${JOBS:-$(nproc)} NONET=${NONET:-$(unshare -n true 2>/dev/null && echo unshare -n)}
TREE=$BUILD/xen "$check" >"$work/4.17.out" 2>"$work/4.17.err"
rc=$?
sed 's/^/# /' "$work/4.17.err"
grep -v '^abi-check: ' "$work/4.17.out" | sed 's/^/# /'
is "$rc" 0 "4.17: every library keeps its ABI or changes its SONAME"
ok "4.17: libxenlight changes its SONAME, and a program linked with the stock one fails to load" \
    grep -q '^ok: libxenlight libxenlight.so.4.17 -> libxenlight.so.4.17.topo1: SONAME changed; a binary linked with libxenlight.so.4.17 fails to load: ".*libxenlight.so.4.17: cannot open shared object file' \
    "$work/4.17.out"
ok "4.17: libxenctrl and libxenguest keep their SONAMEs and only gain functions" \
    bash -c "grep -q '^ok: libxenctrl libxenctrl.so.4.17: only added: ' '$work/4.17.out' &&
             grep -q '^ok: libxenguest libxenguest.so.4.17: only added: ' '$work/4.17.out'"
ok "4.17: all 15 libraries compared" grep -qx 'abi-check: 15 libraries compared, 0 failed' "$work/4.17.out"
done_testing
