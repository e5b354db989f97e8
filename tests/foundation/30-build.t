#!/usr/bin/env bash
# What `make xen tools` left: a debug=y and a release hypervisor, the tools,
# all built from the patched tree without network; the tools work.
. "$(dirname "$0")/../lib/tap.sh"
set -u

tree=$BUILD/xen
rel=$BUILD/xen-release

ok "debug hypervisor: build/xen/xen/xen and xen.gz" test -s "$tree/xen/xen" -a -s "$tree/xen/xen.gz"
ok "debug hypervisor was built with CONFIG_DEBUG=y" grep -q '^CONFIG_DEBUG=y$' "$tree/xen/.config"
ok "debug hypervisor says debug=y" grep -q -a 'debug=y' "$tree/xen/xen-syms"
ok "release hypervisor: build/xen-release/xen/xen.gz" test -s "$rel/xen/xen.gz"
ok "release hypervisor says debug=n" grep -q -a 'debug=n' "$rel/xen/xen-syms"
is "$(git -C "$tree" rev-list --count base..HEAD)" \
   "$("$TOP/scripts/pq.sh" series | wc -l)" "build/xen carries the whole series"

inst=$tree/dist/install
for f in usr/sbin/xl usr/sbin/xenstored usr/sbin/xentrace usr/bin/xenalyze usr/bin/xentrace_format; do
    ok "tools: $f installed" test -x "$inst/$f"
done

for m in hypervisor-debug hypervisor-release tools; do
    d=$tree; [ "$m" = hypervisor-release ] && d=$rel
    mark=$(cat "$d/.xen-bigvm-$m.ok" 2>/dev/null)
    if unshare -n true 2>/dev/null; then
        ok "$m built with the network cut off ($mark)" grep -q 'network: none' <<<"$mark"
    else
        diag "unshare -n is not available here: $m built with the network on"
        ok "$m build finished ($mark)" test -n "$mark"
    fi
done

# xentrace_format (patch 0004): runs under Python 3 on a real trace and
# prints one line per record (5,706 in rtds-8cpu, per traces/README.md;
# its formats file has a catch-all line, so every record prints).
trace=$TOP/tests/data/traces/rtds-8cpu.xentrace
fmt=$inst/usr/bin/xentrace_format
lines=$("$fmt" "$tree/tools/xentrace/formats" < "$trace" | grep -vc ' cpu_change ')
is "$lines" 5706 "xentrace_format, run as installed, prints every record of rtds-8cpu"
# A record cut short: the byte offset of that record, status 1.
out=$(head -c 1001 "$trace" | "$fmt" "$tree/tools/xentrace/formats" 2>&1 >/dev/null)
rc=$?
is "$rc" 1 "xentrace_format: truncated trace exits 1"
is "$out" "Truncated trace record at byte offset 992" "xentrace_format: names the offset of the cut record"

done_testing
