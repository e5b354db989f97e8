#!/usr/bin/env bash
# The CPUID half of the e2e topology cases, without booting anything:
# tests/e2e/cpuid-dump.c (the guest's program) run on this host, also
# built with ASan and UBSan, and tests/e2e/cpuid_check.py (the host's
# check) on dumps whose register values and fields are worked out by hand.
. "$(dirname "$0")/../lib/tap.sh"
set -u

dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -- cpuid-dump on this host --------------------------------------------------
ok "cpuid-dump builds static with -Wall -Werror (as run.sh builds it)" \
    gcc -static -O2 -Wall -Werror -o "$tmp/dump" "$dir/cpuid-dump.c"
"$tmp/dump" > "$tmp/host.txt" 2> "$tmp/host.err"
is "$?" 0 "cpuid-dump exits 0"
is "$(cat "$tmp/host.err")" "" "cpuid-dump prints nothing on stderr"
re='^cpuid cpu=[0-9]+ leaf=0x[0-9a-f]+ sub=[0-9]+ eax=(0x[0-9a-f]+|0) ebx=(0x[0-9a-f]+|0) ecx=(0x[0-9a-f]+|0) edx=(0x[0-9a-f]+|0)$'
is "$(grep -cvE "$re" "$tmp/host.txt")" 0 "every line has the documented form"
# one leaf-1 line for each CPU the process may run on, in order
want=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
got=$(sed -n 's/^cpuid cpu=\([0-9]*\) leaf=0x1 .*/\1/p' "$tmp/host.txt" | paste -sd' ')
is "$got" "$want" "one leaf 1 line per CPU of the affinity mask"
# Leaf 1's initial APIC IDs, one per line in CPU order.
apic_ids() {
    sed -n 's/^cpuid cpu=[0-9]* leaf=0x1 sub=0 eax=[^ ]* ebx=\(0x[0-9a-f]*\|0\) .*/\1/p' "$1" |
        while read -r b; do echo $(( b >> 24 )); done
}
# Pinned, each CPU shows its own initial APIC ID, the one the kernel read
# at boot.  Some hypervisors let a user-mode CPUID run on whichever
# physical CPU holds the vCPU at that moment; the IDs it shows then differ
# from the kernel's and change from run to run, so there is nothing to
# compare them with.
kernel_ids=$(python3 - "$want" <<'PY'
import sys
want = sys.argv[1].split()
ids, cpu = {}, None
for line in open("/proc/cpuinfo"):
    k, _, v = line.partition(":")
    if k.strip() == "processor":
        cpu = v.strip()
    elif k.strip() == "initial apicid" and cpu in want:
        ids[cpu] = v.strip()
print("\n".join(ids.get(c, "?") for c in want))
PY
)
if [ "$(apic_ids "$tmp/host.txt")" = "$kernel_ids" ]; then
    is "$(apic_ids "$tmp/host.txt" | sort -u | wc -l)" "$(echo "$want" | wc -w)" \
        "each CPU's leaf 1 shows its own APIC ID (pinned)"
else
    echo "ok $((_tap_n += 1)) - # SKIP user-mode CPUID shows other APIC IDs than the kernel's" \
         "($(apic_ids "$tmp/host.txt" | paste -sd,) vs $(echo "$kernel_ids" | paste -sd,))"
fi
first=$(sed -n 's/^cpuid cpu=\([0-9]*\) .*/\1/p' "$tmp/host.txt" | head -n1)
taskset -c "$first" "$tmp/dump" > "$tmp/one.txt"
is "$(sed 's/^cpuid cpu=\([0-9]*\) .*/\1/' "$tmp/one.txt" | sort -u)" "$first" \
    "with one CPU in the mask, only that CPU"
"$tmp/dump" --bogus > "$tmp/usage.out" 2> "$tmp/usage.err"
is "$?:$(wc -l < "$tmp/usage.err"):$(wc -c < "$tmp/usage.out")" "2:1:0" \
    "bad usage: exit 2, one line on stderr"

ok "cpuid-dump builds with ASan and UBSan" \
    gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
        -fno-omit-frame-pointer -Wall -Werror -o "$tmp/dump-san" "$dir/cpuid-dump.c"
"$tmp/dump-san" > "$tmp/san.txt" 2> "$tmp/san.err"
is "$?:$(cat "$tmp/san.err")" "0:" "sanitized cpuid-dump: exit 0, no report"
# the same lines, leaf 1's APIC ID byte aside (see above: it may move)
no_apic_id() {
    python3 -c 'import re, sys
for l in open(sys.argv[1]):
    print(re.sub(r"^(cpuid cpu=\d+ leaf=0x1 sub=0 eax=\S+ ebx=)(\S+)",
                 lambda m: m[1] + hex(int(m[2], 16) & 0xffffff), l), end="")' "$1"
}
is "$(no_apic_id "$tmp/san.txt")" "$(no_apic_id "$tmp/host.txt")" "sanitized cpuid-dump prints the same"
# --all: every leaf from 0 to the largest basic one, each CPU; the leaves
# the plain dump prints among them, with the same values
"$tmp/dump-san" --all > "$tmp/all.txt" 2> "$tmp/all.err"
is "$?:$(cat "$tmp/all.err")" "0:" "cpuid-dump --all (sanitized): exit 0, no report"
is "$(grep -cvE "$re" "$tmp/all.txt")" 0 "--all: every line has the documented form"
max=$(sed -n "s/^cpuid cpu=$first leaf=0x0 sub=0 eax=\([^ ]*\) .*/\1/p" "$tmp/all.txt")
basic=0
for l in $(sed -n "s/^cpuid cpu=$first leaf=\(0x[0-9a-f]*\) sub=0 .*/\1/p" "$tmp/all.txt"); do
    [ $((l)) -le $((max)) ] && basic=$((basic + 1))
done
is "$basic" "$((max + 1))" \
    "--all: CPU $first has subleaf 0 of each basic leaf 0 to $max"
is "$(no_apic_id "$tmp/all.txt" | grep -F -x -f <(no_apic_id "$tmp/host.txt") | wc -l)" \
   "$(wc -l < "$tmp/host.txt")" "--all: the plain dump's lines are all among them"

# -- cpuid_check.py -------------------------------------------------------------
check() { # CONSOLE EXPECTED -> "rc: message"
    local out rc
    out=$(python3 "$dir/cpuid_check.py" "$1" "$2" "$tmp/fields")
    rc=$?
    echo "$rc: $out"
}

# Two vCPUs as a PV guest on an Intel model would read them.  By hand:
# leaf 1 EBX 0x01020800: APIC ID 1, lppp 2; EDX 0x10000000: HTT.
# leaf 4 EAX 0x04000121: type 1, level 1, share 0 + 1, cores 1 + 1;
# EAX 0x04004163: type 3, level 3, share 1 + 1, cores 1 + 1.
# leaf 0xb ECX 0x100/0x201, EAX 0/1, EBX 1/2.
cat > "$tmp/console" <<'EOF'
cpu0 package=0 core=0 core_siblings=0-1 l3=0-1 initial_apicid=0
E2E-CPUID-BEGIN
cpuid cpu=0 leaf=0x1 sub=0 eax=0x806f1 ebx=0x20800 ecx=0x80000000 edx=0x10000000
cpuid cpu=0 leaf=0x4 sub=0 eax=0x4000121 ebx=0x1c0003f ecx=0x3f edx=0x1
cpuid cpu=0 leaf=0x4 sub=1 eax=0x4004163 ebx=0x3c0003f ecx=0x3fff edx=0x6
cpuid cpu=0 leaf=0x4 sub=2 eax=0 ebx=0 ecx=0 edx=0
cpuid cpu=0 leaf=0xb sub=0 eax=0 ebx=0x1 ecx=0x100 edx=0
cpuid cpu=0 leaf=0xb sub=1 eax=0x1 ebx=0x2 ecx=0x201 edx=0
cpuid cpu=0 leaf=0xb sub=2 eax=0 ebx=0 ecx=0x2 edx=0
cpuid cpu=0 leaf=0x80000001 sub=0 eax=0 ebx=0 ecx=0x121 edx=0x2c100800
cpuid cpu=0 leaf=0x80000008 sub=0 eax=0x3030 ebx=0 ecx=0 edx=0
cpuid cpu=1 leaf=0x1 sub=0 eax=0x806f1 ebx=0x1020800 ecx=0x80000000 edx=0x10000000
cpuid cpu=1 leaf=0x4 sub=0 eax=0x4000121 ebx=0x1c0003f ecx=0x3f edx=0x1
cpuid cpu=1 leaf=0x4 sub=1 eax=0x4004163 ebx=0x3c0003f ecx=0x3fff edx=0x6
cpuid cpu=1 leaf=0x4 sub=2 eax=0 ebx=0 ecx=0 edx=0
cpuid cpu=1 leaf=0xb sub=0 eax=0 ebx=0x1 ecx=0x100 edx=0x1
cpuid cpu=1 leaf=0xb sub=1 eax=0x1 ebx=0x2 ecx=0x201 edx=0x1
cpuid cpu=1 leaf=0xb sub=2 eax=0 ebx=0 ecx=0x2 edx=0x1
cpuid cpu=1 leaf=0x80000001 sub=0 eax=0 ebx=0 ecx=0x121 edx=0x2c100800
cpuid cpu=1 leaf=0x80000008 sub=0 eax=0x3030 ebx=0 ecx=0 edx=0
E2E-CPUID-END rc=0
E2E-GUEST-END
EOF
cat > "$tmp/want" <<'EOF'
all 0x1.lppp=2 0x1.htt=1
all 0x4.0.type=1 0x4.0.level=1 0x4.0.share=1 0x4.0.cores=2
all 0x4.1.type=3 0x4.1.level=3 0x4.1.share=2 0x4.1.cores=2 0x4.2.type=0
all 0xb.0.type=1 0xb.0.shift=0 0xb.0.count=1
all 0xb.1.type=2 0xb.1.shift=1 0xb.1.count=2 0xb.2.type=0
all 0x80000001.cmp_legacy=0 0x80000001.topoext=0
all 0x80000008.apicidsize=0 0x80000008.nc=1
cpu0 0x1.apic=0 0xb.0.x2apic=0 0xb.1.x2apic=0 0xb.2.x2apic=0
cpu1 0x1.apic=1 0xb.0.x2apic=1 0xb.1.x2apic=1 0xb.2.x2apic=1
EOF
is "$(check "$tmp/console" "$tmp/want")" "0: " "hand-derived fields of an Intel-like dump match"
is "$(sed -n 2p "$tmp/fields")" "cpu1 0x1.apic=1 0x1.htt=1 0x1.lppp=2 \
0x4.0.cores=2 0x4.0.level=1 0x4.0.share=1 0x4.0.type=1 \
0x4.1.cores=2 0x4.1.level=3 0x4.1.share=2 0x4.1.type=3 0x4.2.type=0 \
0x80000001.cmp_legacy=0 0x80000001.topoext=0 0x80000008.apicidsize=0 0x80000008.nc=1 \
0xb.0.count=1 0xb.0.shift=0 0xb.0.type=1 0xb.0.x2apic=1 \
0xb.1.count=2 0xb.1.shift=1 0xb.1.type=2 0xb.1.x2apic=1 0xb.2.type=0 0xb.2.x2apic=1" \
    "the derived fields are written, one line per vCPU, sorted"

sed 's/^cpu1 0x1.apic=1/cpu1 0x1.apic=3/' "$tmp/want" > "$tmp/want2"
is "$(check "$tmp/console" "$tmp/want2")" "1: cpu1 leaf 0x1 apic: want 3, got 1" \
    "a wrong APIC ID: vCPU, leaf, field, want, got"
sed 's/0x4.1.share=2/0x4.1.share=1/' "$tmp/want" > "$tmp/want2"
is "$(check "$tmp/console" "$tmp/want2")" \
    "1: cpu0 leaf 0x4 sub 1 share: want 1, got 2 (and 1 more)" \
    "a wrong cache sharing on both vCPUs: the first, and how many more"
grep -v '^cpu1' "$tmp/want" > "$tmp/want2"
is "$(check "$tmp/console" "$tmp/want2")" "1: cpu1: dumped, but no such vCPU expected" \
    "a vCPU more than expected"
sed 's/ 0x4.2.type=0//' "$tmp/want" > "$tmp/want2"
is "$(check "$tmp/console" "$tmp/want2")" \
    "1: cpu0 leaf 0x4 sub 2 type: want absent, got 0 (and 1 more)" \
    "a subleaf more than expected"
grep -v '^cpuid cpu=1 leaf=0x80000008' "$tmp/console" > "$tmp/console2"
is "$(check "$tmp/console2" "$tmp/want")" \
    "1: cpu1 leaf 0x80000008 apicidsize: want 0, got absent (and 1 more)" \
    "a leaf missing from the dump"

# AMD-like: CMP_LEGACY (ECX bit 1), ApicIdSize 2 and NC 3 + 1; with
# TOPOEXT (ECX bit 22) 0x8000001e counts: EAX 5, EBX 0x0102: threads 2,
# core 2; ECX 0x0301: node 1.
cat > "$tmp/amd" <<'EOF'
E2E-CPUID-BEGIN
cpuid cpu=0 leaf=0x1 sub=0 eax=0x800f12 ebx=0x5040800 ecx=0 edx=0x10000000
cpuid cpu=0 leaf=0x80000001 sub=0 eax=0 ebx=0 ecx=0x400002 edx=0
cpuid cpu=0 leaf=0x80000008 sub=0 eax=0x3030 ebx=0 ecx=0x2003 edx=0
cpuid cpu=0 leaf=0x8000001e sub=0 eax=0x5 ebx=0x102 ecx=0x301 edx=0
E2E-CPUID-END rc=0
EOF
cat > "$tmp/want" <<'EOF'
cpu0 0x1.apic=5 0x1.lppp=4 0x1.htt=1 0x80000001.cmp_legacy=1 0x80000001.topoext=1
cpu0 0x80000008.apicidsize=2 0x80000008.nc=4
cpu0 0x8000001e.extapic=5 0x8000001e.coreid=2 0x8000001e.threads=2 0x8000001e.node=1
EOF
is "$(check "$tmp/amd" "$tmp/want")" "0: " "AMD-like dump with TOPOEXT: 0x8000001e fields"
sed 's/ecx=0x400002/ecx=0x2/' "$tmp/amd" > "$tmp/amd2"
is "$(check "$tmp/amd2" "$tmp/want")" \
    "1: cpu0 leaf 0x80000001 topoext: want 1, got 0 (and 4 more)" \
    "without TOPOEXT, 0x8000001e gives no fields"

# malformed or unfinished dumps
sed 's/^E2E-CPUID-END rc=0/E2E-CPUID-END rc=1/' "$tmp/amd" > "$tmp/bad"
is "$(check "$tmp/bad" "$tmp/want")" \
    "2: $tmp/bad: cpuid-dump did not finish (E2E-CPUID-END rc=1)" "dump exited 1"
grep -v '^E2E-CPUID-END' "$tmp/amd" > "$tmp/bad"
is "$(check "$tmp/bad" "$tmp/want")" \
    "2: $tmp/bad: cpuid-dump did not finish (no E2E-CPUID-END line)" "dump cut short"
grep -v '^E2E-CPUID-BEGIN' "$tmp/amd" > "$tmp/bad"
is "$(check "$tmp/bad" "$tmp/want")" "2: $tmp/bad: no E2E-CPUID-BEGIN line" "no dump"
sed 's/^cpuid cpu=0 leaf=0x80000008 .*/cpuid cpu=0 leaf=0x80000008 sub=0 eax=0x30[  OK  ]/' \
    "$tmp/amd" > "$tmp/bad"
is "$(check "$tmp/bad" "$tmp/want")" \
    "2: $tmp/bad:4: not a cpuid-dump line: cpuid cpu=0 leaf=0x80000008 sub=0 eax=0x30[  OK  ]" \
    "a damaged line names file and line"
echo "cpu0 0x1.apic=x" > "$tmp/badwant"
is "$(check "$tmp/amd" "$tmp/badwant")" \
    "2: $tmp/badwant:1: expected \"cpuN|all FIELD=NUMBER...\": cpu0 0x1.apic=x" \
    "a bad expected value names file and line"

done_testing
