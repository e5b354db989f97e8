#!/usr/bin/env bash
# xentrace writing to a pipe while its stop signal arrives: the tree's own
# write_buffer() and membuf_dump() (tools/xentrace/xentrace.c, built into
# pipe-write.c) must hand the slow reader every byte of every window, in
# order, and return, where xentrace 4.17 said "Write failed!" and exited 1.
# Built plain and with ASan/UBSan.  No Xen needed; TREE (default build/xen)
# must have its tools built (`make tools`) for the libraries xentrace.c
# links against.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
src=$(dirname "$0")/pipe-write.c

[ -f "$TREE/tools/libs/ctrl/libxenctrl.so" ] ||
    bail "$TREE: tools not built (run 'make tools')"

libs=
for d in ctrl call foreignmemory devicemodel toollog evtchn gnttab toolcore; do
    libs=${libs:+$libs:}$TREE/tools/libs/$d
done
export LD_LIBRARY_PATH=$libs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # OUT CFLAGS...
    local out=$1; shift
    gcc -O2 -g -Wall -Werror -D__XEN_TOOLS__ -I"$TREE/tools/include" \
        -I"$TREE/tools/xentrace" "$@" -o "$out" "$src" \
        -L"$TREE/tools/libs/ctrl" -L"$TREE/tools/libs/evtchn" \
        -Wl,-rpath-link,"$libs" -lxenctrl -lxenevtchn >"$out.log" 2>&1
}

# cut_short N: a write of 1 MiB returned N, less than it was asked (or -1)
cut_short() { [ -n "$1" ] && [ "$1" != 1048576 ]; }

# Windows of 1 MiB; the reader expects 3 of them, each after its 12-byte
# cpu_change record.
want="reader: $((3 * (12 + 1048576))) bytes of $((3 * (12 + 1048576))), content ok"

for v in plain asan; do
    bin=$tmp/pipe-write-$v
    flags=()
    [ $v = plain ] || flags=(-fsanitize=address,undefined \
        -fno-sanitize-recover=all -fno-omit-frame-pointer)
    ok "$v: pipe-write.c builds with the tree's xentrace.c" \
        build "$bin" "${flags[@]}" ||
        { sed 's/^/# /' "$bin.log"; continue; }

    # The conditions are real: a plain write() of a window is cut short.
    out=$("$bin" raw 2>&1)
    n=$(sed -n 's/^raw write: \(-\{0,1\}[0-9]*\) of 1048576.*/\1/p' <<<"$out" | tail -n1)
    ok "$v: a signal cuts a plain write() to the pipe short (${n:-no} bytes)" \
        cut_short "$n"

    for m in direct membuf; do
        out=$("$bin" $m 2>&1)
        rc=$?
        is "$rc" 0 "$v: $m: the write path returns (xentrace goes on to flush)"
        [ "$rc" = 0 ] || sed 's/^/# /' <<<"$out"
        is "$(grep '^reader: ' <<<"$out")" "$want" "$v: $m: the reader gets every window whole, in order"
        ok "$v: $m: the stop signal arrived during the writes" \
            grep -qE '^signals: [1-9]' <<<"$out"
        ok "$v: $m: no other output, no Write failed" \
            [ -z "$(grep -v -e '^reader: ' -e '^signals: ' -e '^Dumping memory buffer\.$' <<<"$out")" ]
    done
done
done_testing
