#!/usr/bin/env bash
# The ACPI tables libxl builds for a PVH guest with vNUMA: the tree's
# libxl_x86_acpi.c compiled into libxl-acpi.c with the tree's libxenlight.a,
# libxenctrl and libxenguest, only the hypercall layer replaced
# (fake-xencall.c and libxl-acpi.c answer as Xen does).  For each layout,
# init_acpi_config() must read the layout back from Xen (a size
# probe answered with ENOBUFS, then the arrays) and the guest's SLIT and
# SRAT must hold exactly the distances, vCPU vnodes and memory ranges given
# (for 1, 2, 3 and 4 vnodes), with the APIC IDs 2 * vcpu_id, or those
# cpu_topology chose, which libxl__build_pre() leaves in the build state.
# Plain, with ASan/UBSan and under valgrind's memcheck: Xen hands back
# nr_vnodes * nr_vnodes distances, and a table allocated for nr_vnodes of
# them overflows from 2 vnodes on (a heap-buffer-overflow in
# xc_hypercall_bounce_post).  Finally the check must catch that very bug:
# with the commit that sizes the table reverted from a copy of the file,
# the ASan build must report the overflow.
# TREE (default build/xen) must have its tools built (`make tools`);
# ACPI_SRC names another libxl_x86_acpi.c to test against TREE's libraries
# (default: TREE's own).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/fake-xen.sh"
set -u

TREE=${TREE:-$BUILD/xen}
export PATH=/usr/bin:/bin:$PATH
dir=$(dirname "$0")
light=$TREE/tools/libs/light
subject='libxl: allocate the whole vNUMA distance table of PVH guests'

if [ ! -f "$light/libxenlight.a" ] || [ ! -f "$light/libxl_x86_acpi.c" ]; then
    bail "$TREE: tools not built (run 'make tools')"
fi
fake_xen_env ctrl guest call foreignmemory devicemodel toollog evtchn gnttab \
    toolcore store hypfs

# OUT ACPI_C CFLAGS...: the program, with ACPI_C as libxl_x86_acpi.c, built
# with the flags libxl's own objects are built with.
build() {
    local out=$1 acpi=$2; shift 2
    gcc -m64 -std=gnu99 -fno-strict-aliasing -O2 -g -Wall -Werror \
        -Wstrict-prototypes -Wmissing-prototypes -Wmissing-declarations \
        -Wno-unused-but-set-variable -Wno-unused-local-typedefs \
        -Wno-format-zero-length -Wformat-nonliteral -Wshadow -pthread \
        -D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__ \
        -D__XEN_TOOLS__ -D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE \
        -DCONFIG_PCI_SUPP_LEGACY_IRQ -include "$TREE/tools/config.h" \
        -I"$light" -I"$TREE/tools/include" -I"$TREE/tools" \
        -iquote "$TREE/tools/libacpi" "$@" \
        -o "$out" "$acpi" "$dir/libxl-acpi.c" "$dir/fake-xencall.c" \
        "$light/libxenlight.a" \
        -L"$TREE/tools/libs/guest" -L"$TREE/tools/libs/ctrl" \
        -L"$TREE/tools/libs/store" -L"$TREE/tools/libs/toollog" \
        -L"$TREE/tools/libs/evtchn" -L"$TREE/tools/libs/hypfs" \
        -L"$TREE/tools/libs/toolcore" -Wl,-rpath-link,"$libs" \
        -lxenguest -lxenctrl -lxenstore -lxentoollog -lxenevtchn \
        -lxenhypfs -lxentoolcore -luuid -lyajl >"$out.log" 2>&1 ||
        { sed 's/^/# /' "$out.log" | head -n 20; return 1; }
}

# The layouts: NAME NR_VNODES VCPU_TO_VNODE DISTANCES [APIC_IDS].  Every
# distance differs, so that a table read in the wrong order shows.
layouts=(
    "1vnode 1 0,0 10"
    "2vnodes 2 0,1,1,0 10,21,22,10"
    "3vnodes 3 0,0,1,1,2,2 10,21,22,23,10,25,26,27,10"
    "4vnodes 4 0,1,2,3,3,2,1,0 10,20,21,22,23,10,24,25,26,27,10,28,29,30,31,10"
    "3vnodes-chosen 3 0,0,0,1,1,2 10,21,22,23,10,25,26,27,10 0,1,2,4,5,8"
)

# What the guest must find for NR_VNODES VCPU_TO_VNODE DISTANCES [APIC_IDS]:
# vCPU i has APIC ID 2i unless chosen; vnode k [k, k+1) * 256 MiB.
want() {
    local n=$1 v2n=$2 dist=$3 i v nv=0 cpus='' mem='' ids
    read -r -a ids <<<"${4//,/ }"
    for v in ${v2n//,/ }; do
        cpus+=" ${ids[nv]:-$((2 * nv))}:$v"; nv=$((nv + 1))
    done
    for ((i = 0; i < n; i++)); do
        mem+=" $i:$(printf '%#x-%#x' $((i << 28)) $(((i + 1) << 28)))"
    done
    printf '%s\n' "setvnuma 0" \
        "get_vnumainfo in 0 0 0 -> ENOBUFS" \
        "get_vnumainfo in $n $n $nv -> 0" \
        "load_acpi 0" "slit $n: $dist" "srat cpus$cpus" \
        "srat memory$mem" "srat whole"
}

# run LABEL PROG [WRAPPER...]: each layout through PROG, checked.
run() {
    local label=$1 prog=$2 l name n v2n dist ids out rc; shift 2
    for l in "${layouts[@]}"; do
        read -r name n v2n dist ids <<<"$l"
        out=$(LD_LIBRARY_PATH=$libs ASAN_OPTIONS=detect_leaks=1 \
              "$@" "$prog" "$n" "$v2n" "$dist" $ids 2>"$tmp/err")
        rc=$?
        is "$rc" 0 "$label, $name: exits 0, no error found"
        [ "$rc" = 0 ] || grep -v '^=*$' "$tmp/err" | head -n 8 | sed 's/^/# /'
        is "$out" "$(want "$n" "$v2n" "$dist" "$ids")" \
            "$label, $name: Xen's answers, and the SLIT and SRAT the guest gets"
    done
}

acpi_c=${ACPI_SRC:-$light/libxl_x86_acpi.c}
ok "libxl-acpi builds with ${ACPI_SRC:+ACPI_SRC, not }the tree's libxl_x86_acpi.c" \
    build "$tmp/plain" "$acpi_c"
run plain "$tmp/plain"
run valgrind "$tmp/plain" valgrind -q --error-exitcode=99

ok "libxl-acpi builds with ASan and UBSan" \
    build "$tmp/asan" "$acpi_c" -fsanitize=address,undefined \
    -fno-sanitize-recover=all
run ASan/UBSan "$tmp/asan"

# The check against the bug: TREE's file with the commit that sizes the
# distance table undone, in a copy (the tree is left as it is).
commit=$(git -C "$TREE" log --format=%H -F --grep="$subject" -n 1 2>/dev/null)
if [ -z "$commit" ]; then
    # Only another TREE than the series' own may lack the fix.
    if [ "$TREE" = "$BUILD/xen" ]; then
        ok "$TREE has the commit \"$subject\"" false
    else
        echo "ok $((_tap_n += 1)) # SKIP $TREE has no commit \"$subject\""
    fi
else
    cp "$light/libxl_x86_acpi.c" "$tmp/libxl_x86_acpi.c"
    git -C "$TREE" diff --no-ext-diff --no-color "$commit^" "$commit" -- \
        tools/libs/light/libxl_x86_acpi.c >"$tmp/fix.diff"
    ok "the fix reverts from a copy of libxl_x86_acpi.c" \
        patch -s -R "$tmp/libxl_x86_acpi.c" "$tmp/fix.diff"
    ok "libxl-acpi builds with the fix reverted" \
        build "$tmp/old" "$tmp/libxl_x86_acpi.c" \
        -fsanitize=address,undefined -fno-sanitize-recover=all
    # n vnodes: n * n distances of 4 bytes written where n were allocated.
    for l in "${layouts[1]}" "${layouts[2]}"; do
        read -r name n v2n dist <<<"$l"
        LD_LIBRARY_PATH=$libs "$tmp/old" "$n" "$v2n" "$dist" \
            >/dev/null 2>"$tmp/old.err"
        rc=$?
        report=$(grep -E -m3 'ERROR: AddressSanitizer|^WRITE of size|region \[' \
                 "$tmp/old.err")
        diag "with the fix reverted, $name: exit $rc"
        sed 's/^/# /' <<<"$report"
        ok "with the fix reverted, $name: ASan reports the $((4 * n * n))-byte write into $((4 * n)) bytes" \
            grep -Pzq "heap-buffer-overflow.*\nWRITE of size $((4 * n * n)) .*\n.*$((4 * n))-byte region" \
            <<<"$report"
    done
fi

done_testing
