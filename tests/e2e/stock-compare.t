#!/usr/bin/env bash
# tests/e2e/stock_compare.py's judgement (--judge), on hand-made consoles:
# the same report on both trees passes, a leaf that differs fails naming
# it, leaf 0x40000003 (Xen's TSC calibration) is left out, a console
# without the e2e.compare block fails, and bad usage exits 2.
. "$(dirname "$0")/../lib/tap.sh"
set -u

dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/series" "$tmp/stock"

console() { # LEAF1_ECX TSC_KHZ
    cat <<EOT
E2E-GUEST-BEGIN
cpu0 package=0 core=0 core_siblings=0 l3=none initial_apicid=0
E2E-CPUID-BEGIN
cpuid cpu=0 leaf=0x1 sub=0 eax=0xb00f21 ebx=0x10800 ecx=$1 edx=0x178bfbff
E2E-CPUID-END rc=0
E2E-GUEST-END
E2E-COMPARE-BEGIN
cpuid cpu=0 leaf=0x0 sub=0 eax=0xd ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65
cpuid cpu=0 leaf=0x1 sub=0 eax=0xb00f21 ebx=0x10800 ecx=$1 edx=0x178bfbff
cpuid cpu=0 leaf=0x40000003 sub=0 eax=0 ebx=0 ecx=$2 edx=0
acpi APIC 0123456789abcdef0123456789abcdef
E2E-COMPARE-END
EOT
}
judge() { E2E_COMPARE_OUT=$tmp python3 "$dir/stock_compare.py" --judge "$@"; }

console 0xfed83203 2000000 > "$tmp/series/a.console"
console 0xfed83203 2000123 > "$tmp/stock/a.console"
out=$(judge a); rc=$?
is "$rc" 0 "the same report on both: exit 0"
is "$out" "stock_compare: a: same, 4 lines
1 passed, 0 failed" "it says so, leaf 0x40000003 left out"

console 0xfed83201 2000000 > "$tmp/series/b.console"
console 0xfed83203 2000000 > "$tmp/stock/b.console"
out=$(judge a b); rc=$?
is "$rc" 1 "a leaf that differs: exit 1"
ok "it names the leaf as the series gives it" grep -q \
    '^stock_compare: b: DIFFERS: 2 lines differ; on the series: cpuid cpu=0 leaf=0x1 sub=0 eax=0xb00f21 ebx=0x10800 ecx=0xfed83201 ' <<<"$out"
is "$(tail -n 1 <<<"$out")" "1 passed, 1 failed" "and counts it"

grep -v COMPARE "$tmp/stock/a.console" > "$tmp/stock/c.console"
cp "$tmp/series/a.console" "$tmp/series/c.console"
is "$(judge c | head -n 1)" "stock_compare: c: DIFFERS: no report on stock" \
    "a console without the e2e.compare block fails"

judge --bogus >/dev/null 2>"$tmp/err"
is "$?:$(wc -l <"$tmp/err")" "2:1" "bad usage: exit 2, one line on stderr"

done_testing
