#!/usr/bin/env bash
# hvmloader's lapic_ids_setup() of the tree (4.17: the vCPUs' APIC IDs
# that libxl lists in xenstore, hvmloader/apic-ids), with hvmloader's own
# strtoll(), cut out of tools/firmware/hvmloader and run in userspace by
# tests/topology/hvmloader-apic-ids/main.c: no key gives 2 * vcpu_id, a
# list gives its IDs, and a list hvmloader can't use stops it (BUG()).
# Plain and with ASan/UBSan.  TREE (default build/xen) needs no build; a
# tree whose hvmloader has no lapic_ids_setup() (4.20 and master learn the
# IDs from the vCPUs) is skipped.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(cd "$(dirname "$0")/hvmloader-apic-ids" && pwd)
hl=$TREE/tools/firmware/hvmloader

[ -f "$hl/smp.c" ] || bail "$TREE: not a Xen tree"
if ! grep -q '^void lapic_ids_setup(void)$' "$hl/smp.c"; then
    ok "skipped: $TREE's hvmloader has no lapic_ids_setup()" true
    done_testing
    exit
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# FUNCTION FIRST-LINE-REGEX FILE: from that line to the next "}" alone
cut_out() {
    awk -v re="$1" '$0 ~ re { on = 1 } on { print } on && /^}$/ { exit }' "$2"
}
{
    cut_out '^static inline int __digit\(' "$hl/util.c"
    echo 'long long'
    cut_out '^strtoll\(' "$hl/util.c"
    cut_out '^void lapic_ids_setup\(void\)$' "$hl/smp.c"
} >"$tmp/extracted.c"
ok "lapic_ids_setup(), strtoll() and __digit() cut out of the tree" \
    test "$(grep -c '^}$' "$tmp/extracted.c")" = 3

build() { # OUT [CFLAGS...]
    local out=$1; shift
    gcc -std=gnu99 -Wall -Werror -g "$@" -I"$tmp" -I"$TREE/xen/include" \
        -o "$out" "$dir/main.c" 2>"$out.log" ||
        { sed 's/^/# /' "$out.log" | head -n 20; false; }
}
ok "builds plain" build "$tmp/plain"
ok "builds with ASan/UBSan" build "$tmp/asan" -fsanitize=address,undefined \
    -fno-sanitize-recover=all

for bin in plain asan; do
    out=$("$tmp/$bin" 2>"$tmp/stderr"); rc=$?
    [ -s "$tmp/stderr" ] && sed 's/^/# /' "$tmp/stderr" | head -n 20
    case_lines "$bin: " "$out"
    is "$rc" 0 "$bin: exits 0"
    ok "$bin: nothing on stderr" test ! -s "$tmp/stderr"
done

done_testing
