#!/usr/bin/env bash
# pi-harness: xen/arch/x86/hvm/vmx/pi.c of the patched tree run in userspace.
# Builds the harness from $TREE (default build/xen), runs the threaded
# invariant stress and the deterministic replays with the bound off and on
# (tests/pi-harness/bench.sh, which writes build/pi-harness/summary.json and
# the *.xentrace traces), checks the goals of issue 6 on the figures, then
# the ThreadSanitizer and AddressSanitizer+UBSan builds.
# PI_HARNESS_SANITIZERS=0 leaves the sanitizer runs out.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
OUT=${OUT:-$BUILD/pi-harness}
HDIR=$TOP/tests/pi-harness
export TREE OUT

# The series moves the PI code to pi.c: a patched tree without it is broken.
if [ ! -f "$TREE/xen/arch/x86/hvm/vmx/pi.c" ]; then
    ok "$TREE has xen/arch/x86/hvm/vmx/pi.c (the series' PI code)" false
    done_testing
    exit
fi
mkdir -p "$OUT"

# logged LOG CMD...: run CMD with its output in LOG (for ok)
logged() {
    local log=$1
    shift
    "$@" > "$log" 2>&1
}

ok "harness and upstream reference build from $TREE" \
    make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" all
ok "bench: stress and replays ran, summary.json written" \
    logged "$OUT/bench.log" env REPS=3 EVENTS=${EVENTS:-10000} \
    STRESS_SECONDS=${STRESS_SECONDS:-3} "$HDIR/bench.sh"
sed 's/^/# /' "$OUT/bench.log" | grep -v '^# invariant' | tail -n 20

# Checks on summary.json, one TAP line each, numbered after ours.
checks=$(python3 - "$OUT/summary.json" "$_tap_n" <<'PY'
import json, struct, sys, os
rows = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
by = {}
for r in rows:
    key = r["scenario"] + ("" if r["mode"] == "stress" else
                           ("-on" if r["limit"] else "-off"))
    by.setdefault(key, r)
failed = 0
def ok(cond, name, diag=None):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name))
    if diag:
        print("# " + diag)
    if not cond:
        failed += 1

for r in rows:
    tag = "%s (%s, limit %d)" % (r["scenario"], r["mode"], r["limit"])
    ok(r["lost_wakeups"] == 0, "%s: no lost wakeup" % tag)
    ok(r["invariant_violations"] == 0, "%s: no invariant violation" % tag)

on, off = by["nic-128on1-on"], by["nic-128on1-off"]
ok(0 < on["limit"] <= 16 and on["max_len"] <= on["limit"],
   "nic-128on1: default limit %d <= 16, max list length %d <= limit"
   % (on["limit"], on["max_len"]))
ok(on["over_limit"] == 0, "nic-128on1: over_limit == 0")
ratio = off["p99_walk_cycles"] / max(on["p99_walk_cycles"], 1)
ok(ratio >= 8, "nic-128on1: p99 walk cycles %d -> %d, %.1fx lower (>= 8x)"
   % (off["p99_walk_cycles"], on["p99_walk_cycles"], ratio),
   "p99 of each measured run: off %s, on %s" % (off["p99_walk_cycles_runs"],
                                               on["p99_walk_cycles_runs"]))
on8, off8 = by["nic-128on1-8cpu-on"], by["nic-128on1-8cpu-off"]
avg = -(-on8["vcpus"] // on8["pcpus"])
ok(on8["max_len"] <= on8["limit"] and on8["over_limit"] == 0,
   "nic-128on1-8cpu: max list length %d <= limit %d (average %d), "
   "over_limit 0" % (on8["max_len"], on8["limit"], avg))
r8 = off8["p99_walk_cycles"] / max(on8["p99_walk_cycles"], 1)
ok(r8 > 1, "nic-128on1-8cpu: p99 walk cycles %d -> %d (%.1fx lower)"
   % (off8["p99_walk_cycles"], on8["p99_walk_cycles"], r8))
son, soff = by["spread-128on64-on"], by["spread-128on64-off"]
ok(son["spilled"] == 0 and
   son["p50_block_cycles"] <= 1.10 * soff["p50_block_cycles"],
   "spread-128on64 (nothing spills): block path p50 %d cycles with the "
   "bound, %d without (<= +10%%)" % (son["p50_block_cycles"],
                                     soff["p50_block_cycles"]))
for s in ("nic-128on1", "nic-128on1-8cpu", "mixed-hotplug"):
    up = by[s + "-upstream-off"]
    ok(up["same_as_bound_off"] and up["digest"] == by[s + "-off"]["digest"],
       "%s: bound off gives the same lists, order and NDST as the code "
       "before the series, after every event" % s)
for k, r in by.items():
    if k.endswith("-off") and r["mode"] == "replay":
        ok(r["spilled"] == 0 and r["limit"] == 0,
           "%s: bound off never spills" % k)
ok(off["max_len"] == 128, "nic-128on1 bound off: one list of 128, as upstream")

# The traces: windows of TRC_TRACE_CPU_CHANGE + records, read here
# independently of the harness; PI_WAKEUP records = walks measured.
def read_trace(path):
    data = open(path, "rb").read()
    off, counts = 0, {}
    while off < len(data):
        hdr, cpu, size = struct.unpack_from("<III", data, off)
        assert hdr == 0x2001f003, (path, off, hex(hdr))
        off += 12
        end = off + size
        assert end <= len(data)
        while off < end:
            h, = struct.unpack_from("<I", data, off)
            nx = (h >> 28) & 7
            rec = 4 + (8 if h >> 31 else 0) + 4 * nx
            ev = h & 0x0fffffff
            counts[ev] = counts.get(ev, 0) + 1
            off += rec
        assert off == end, (path, "records do not tile the window")
    return counts
for k in ("nic-128on1-on", "nic-128on1-off", "nic-128on1-8cpu-on"):
    r = by[k]
    try:
        c = read_trace(r["trace"])
        good = (c.get(0x0080200a, 0) == r["walks"] and
                c.get(0x00802009, 0) == r["adds"])
    except Exception as e:
        good, c = False, {"error": str(e)}
    ok(good, "%s.xentrace: well-formed, %d PI_WAKEUP and %d PI_LIST_ADD "
       "records = walks and adds" % (k, r["walks"], r["adds"]))
print("__N__ %d %d" % (n, failed))
PY
)
printf '%s\n' "$checks" | grep -v '^__N__'
set -- $(printf '%s\n' "$checks" | grep '^__N__')
if [ $# -eq 3 ]; then
    _tap_n=$2
    _tap_failed=$((_tap_failed + $3))
else
    ok "summary.json checks ran" false
fi

xenalyze=$TREE/tools/xentrace/xenalyze
if [ -x "$xenalyze" ]; then
    walks=$(python3 -c 'import json,sys; print([r for r in json.load(open(sys.argv[1])) if r["scenario"]=="nic-128on1" and r["limit"]][0]["walks"])' "$OUT/summary.json")
    is "$("$xenalyze" --dump-all "$OUT/nic-128on1-on.xentrace" 2>/dev/null | grep -c ' pi_wakeup ')" \
        "$walks" "xenalyze --dump-all names every PI_WAKEUP record"
    ok "xenalyze --summary reads the trace without aborting" \
        sh -c '"$1" --summary "$2" >/dev/null 2>&1' - "$xenalyze" \
        "$OUT/nic-128on1-on.xentrace"
else
    diag "no $xenalyze (tools not built): xenalyze checks left out"
fi

if [ "${PI_HARNESS_SANITIZERS:-1}" != 0 ]; then
    ok "ThreadSanitizer: stress runs clean (log: $OUT/tsan.log)" \
        logged "$OUT/tsan.log" make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" \
        tsan TSAN_SECONDS=6
    ok "AddressSanitizer + UBSan: stress and replays run clean (log: $OUT/asan.log)" \
        logged "$OUT/asan.log" make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" \
        asan ASAN_SECONDS=3
fi

done_testing
