#!/usr/bin/env bash
# pi-harness: xen/arch/x86/hvm/vmx/pi.c of the patched tree run in userspace.
# Builds the harness from $TREE (default build/xen), runs the threaded
# invariant stress and the deterministic replays with the bound off and on
# (tests/pi-harness/bench.sh, which writes $OUT/summary.json and the
# *.xentrace traces), checks the bound's behaviour on them (limits from the
# documented formula, list lengths, spills, over-limit adds, lost wakeups,
# invariant violations, record counts; no timings: those are `make bench`'s),
# reads a trace with the tree's xenalyze, checks pi-stats' time at each
# list length on the replay traces against an independent replay, runs
# the quick run (quick.sh) of the builds with and without -DNDEBUG, then
# the ThreadSanitizer and
# AddressSanitizer+UBSan builds.  The mutants are mutants.t's.
#
#   TREE      the patched tree (default build/xen)
#   OUT       where the harness is built and run (default build/pi-harness)
#   XENALYZE  the patched xenalyze (default $TREE/tools/xentrace/xenalyze,
#             built by `make tools`); missing, it is a failure
#   PI_HARNESS_SANITIZERS=0 leaves the sanitizer runs out.
. "$(dirname "$0")/../lib/tap.sh"
set -u

TREE=${TREE:-$BUILD/xen}
OUT=${OUT:-$BUILD/pi-harness}
XENALYZE=${XENALYZE:-$TREE/tools/xentrace/xenalyze}
HDIR=$TOP/tests/pi-harness
export TREE OUT

# The series moves the PI code to pi.c: a patched tree without it is broken.
if [ ! -f "$TREE/xen/arch/x86/hvm/vmx/pi.c" ]; then
    ok "$TREE has xen/arch/x86/hvm/vmx/pi.c (the series' PI code)" false
    done_testing
    exit
fi
mkdir -p "$OUT"
# Nothing of an earlier run may be read as this one's.
rm -f "$OUT/summary.json" "$OUT"/*.xentrace "$OUT/bench.log"
run_id=pi-harness.t-$(date -u +%Y%m%dT%H%M%SZ)-$$

# logged LOG CMD...: run CMD with its output in LOG (for ok)
logged() {
    local log=$1
    shift
    "$@" > "$log" 2>&1
}

ok "harness and upstream reference build from $TREE" \
    make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" all
logged "$OUT/bench.log" env RUN_ID="$run_id" REPS=3 \
    EVENTS=${EVENTS:-10000} STRESS_SECONDS=${STRESS_SECONDS:-3} "$HDIR/bench.sh"
is "$?" 0 "bench: stress and replays ran (bench.sh exit status)"
sed 's/^/# /' "$OUT/bench.log" | grep -v '^# invariant' | tail -n 28

# Checks on summary.json, one TAP line each, numbered after ours.
checks=$(python3 - "$OUT/summary.json" "$_tap_n" "$run_id" "$TREE" \
    "$OUT" <<'PY'
import json, struct, sys, os
n = int(sys.argv[2])
run_id, tree, out = sys.argv[3], sys.argv[4], sys.argv[5]
failed = 0
def ok(cond, name, diag=None):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name))
    if diag:
        print("# " + diag)
    if not cond:
        failed += 1
def stop():
    print("__N__ %d %d" % (n, failed))
    sys.exit(0)

# Only what this run wrote: bench.sh and this test both removed the old
# summary, and every record must carry this run's id.
ok(os.path.exists(sys.argv[1]), "summary.json written by this run's bench")
if failed:
    stop()
rows = json.load(open(sys.argv[1]))
stale = [r for r in rows if r.get("run") != run_id]
ok(rows and not stale, "summary.json: all %d records from this run (%s)"
   % (len(rows), run_id), "%d records of run %s" % (len(stale), sorted(
       {str(r.get("run")) for r in stale})) if stale else None)
if failed:
    stop()
by = {}
for r in rows:
    key = r["scenario"] + ("" if r["mode"] == "stress" else
                           ("-on" if r["limit"] else "-off"))
    by.setdefault(key, r)

# The default limit, as docs/misc/xen-command-line.pandoc and
# docs/misc/vmx-pi-blocking.pandoc give it: max(12, ceil(B / P) + 4), B the
# vCPUs that can block (the harness's one guest: all of its vCPUs), P the
# online pCPUs.
FORMULA = "max(12, ceil(B / P) + 4)"
def documented_limit(b, p):
    return max(12, -(-b // p) + 4)
for doc in ("docs/misc/xen-command-line.pandoc",
            "docs/misc/vmx-pi-blocking.pandoc"):
    try:
        text = " ".join(open(os.path.join(tree, doc)).read().split())
    except OSError:
        text = ""
    ok(FORMULA in text, "%s gives the default limit as %s" % (doc, FORMULA))

for r in rows:
    tag = "%s (%s, limit %d)" % (r["scenario"], r["mode"], r["limit"])
    ok(r["lost_wakeups"] == 0, "%s: no lost wakeup" % tag)
    ok(r["invariant_violations"] == 0, "%s: no invariant violation" % tag)

# The limit of every run: exactly the documented formula for the pCPUs
# online at the end (a pCPU coming up is counted once it is online); the
# number given with --limit N.  The harness also checks the formula after
# every replay event and every stress check.
NOHOTPLUG = {"nic-128on1-on": (128, 64), "nic-128on1-8cpu-on": (128, 8),
             "spread-128on64-on": (128, 64)}
for k, (b, p) in NOHOTPLUG.items():
    r, want = by[k], documented_limit(b, p)
    ok(r["vcpus"] == b and r["pcpus"] == r["online_pcpus"] == p and
       r["limit_option"] == "auto" and r["limit"] == want,
       "%s: %d vCPUs on %d pCPUs, default limit %d, documented %s = %d"
       % (k, b, p, r["limit"],
          FORMULA.replace("B", str(b)).replace("P", str(p)), want))
for r in rows:
    k, opt = r["scenario"] + " (limit %s)" % r["limit_option"], r["limit_option"]
    if opt == "auto":
        b, p = r["vcpus"], r["online_pcpus"]
        want = {documented_limit(b, p)}
        ok(r["limit"] in want, "%s: limit %d, formula for %d vCPUs and %d "
           "online pCPUs gives %s" % (k, r["limit"], b, p, sorted(want)))
    else:
        want = 0 if opt is None else int(opt)
        ok(r["limit"] == want, "%s: limit %d as given" % (k, r["limit"]))

# Behaviour with the bound: no list above the limit, no over-limit add, and
# the vCPUs that do not fit on their own pCPU's list spill to others.
for k in ("nic-128on1-on", "nic-128on1-8cpu-on"):
    r = by[k]
    ok(r["max_len"] <= r["limit"] and r["over_limit"] == 0 and
       r["spilled"] > 0,
       "%s: max list length %d <= limit %d, over_limit %d, %d adds spilled"
       % (k, r["max_len"], r["limit"], r["over_limit"], r["spilled"]))
son, soff = by["spread-128on64-on"], by["spread-128on64-off"]
ok(son["spilled"] == 0 and son["over_limit"] == 0 and
   son["digest"] == soff["digest"],
   "spread-128on64 (lists below the limit): nothing spills, and the bound "
   "on gives the same lists, order and NDST as the bound off",
   "spilled %d, over_limit %d, state digest %s on, %s off"
   % (son["spilled"], son["over_limit"], son["digest"], soff["digest"]))
for s in ("nic-128on1", "nic-128on1-8cpu", "mixed-hotplug"):
    up = by[s + "-upstream-off"]
    ok(up["same_as_bound_off"] and up["digest"] == by[s + "-off"]["digest"],
       "%s: bound off gives the same lists, order and NDST as the code "
       "before the series, after every event" % s)
for k, r in by.items():
    if k.endswith("-off") and r["mode"] == "replay":
        ok(r["spilled"] == 0 and r["limit"] == 0,
           "%s: bound off never spills" % k)
ok(by["nic-128on1-off"]["max_len"] == 128, "nic-128on1 bound off: one list of 128, as upstream")
for lim in ("off", "on"):
    cold, warm = by["nic-128on1-cold-" + lim], by["nic-128on1-" + lim]
    ok(cold["digest"] == warm["digest"] and cold["walks"] == warm["walks"],
       "nic-128on1-cold (bound %s): evicting the walk's lines changes "
       "nothing, the same state after every event as warm" % lim,
       "digest %s cold, %s warm" % (cold["digest"], warm["digest"]))

# The traces: windows of TRC_TRACE_CPU_CHANGE + records, read here
# independently of the harness; PI_WAKEUP records = walks measured.
def read_trace(path):
    data = open(path, "rb").read()
    off, counts, limits = 0, {}, set()
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
            if ev == 0x00802009 and nx == 4:
                # PI_LIST_ADD: vCPU, cpu << 16 | list cpu, length, limit
                limits.add(struct.unpack_from("<I", data,
                                              off + rec - 4)[0])
            off += rec
        assert off == end, (path, "records do not tile the window")
    return counts, limits
for k in ("nic-128on1-on", "nic-128on1-off", "nic-128on1-8cpu-on"):
    r = by[k]
    try:
        assert os.path.dirname(os.path.abspath(r["trace"])) == \
            os.path.abspath(out), r["trace"]
        c, limits = read_trace(r["trace"])
        good = (c.get(0x0080200a, 0) == r["walks"] and
                c.get(0x00802009, 0) == r["adds"] and
                limits == {r["limit"]})
        diag = None if good else "records %s, limits in PI_LIST_ADD %s" % (
            {hex(e): v for e, v in c.items()}, sorted(limits))
    except Exception as e:
        good, diag = False, "error: %s" % e
    ok(good, "%s.xentrace: well-formed, %d PI_WAKEUP and %d PI_LIST_ADD "
       "records = walks and adds, every PI_LIST_ADD with limit %d"
       % (k, r["walks"], r["adds"], r["limit"]), diag)
print("__WALKS__ %d" % by["nic-128on1-on"]["walks"])
stop()
PY
)
printf '%s\n' "$checks" | grep -v '^__N__\|^__WALKS__'
walks=$(printf '%s\n' "$checks" | sed -n 's/^__WALKS__ //p')
set -- $(printf '%s\n' "$checks" | grep '^__N__')
if [ $# -eq 3 ]; then
    _tap_n=$2
    _tap_failed=$((_tap_failed + $3))
else
    # the checker died: count the lines it printed, then fail
    _tap_n=$((_tap_n + $(printf '%s\n' "$checks" | grep -c '^\(not \)\?ok ')))
    _tap_failed=$((_tap_failed + $(printf '%s\n' "$checks" | grep -c '^not ok ')))
    ok "summary.json checks ran to the end" false
fi

# The patched xenalyze: `make check` builds the tools before the tests.
ok "xenalyze of the patched tools: $XENALYZE (make tools, or set XENALYZE)" \
    test -x "$XENALYZE"
if [ -x "$XENALYZE" ]; then
    is "$("$XENALYZE" --dump-all "$OUT/nic-128on1-on.xentrace" 2>/dev/null | grep -c ' pi_wakeup ')" \
        "${walks:-no walks}" "xenalyze --dump-all names every PI_WAKEUP record"
    ok "xenalyze --summary reads the trace without aborting" \
        sh -c '"$1" --summary "$2" >/dev/null 2>&1' - "$XENALYZE" \
        "$OUT/nic-128on1-on.xentrace"
fi

# Replays that each failed on the code before a fix (see docs/pi-bound.md).
H=$OUT/pi-harness
ok "interrupts posted whenever the CPU-dead fixup takes a lock: no stranded interrupt, no violation" \
    logged "$OUT/fixup-posts.log" "$H" replay --pcpus 16 --vcpus 64 \
    --hotplug 50 --events 3000 --fixup-posts
ok "S3 every 500 events (APs down, pCPU 0 initialised again, APs up): no lost wakeup, no violation" \
    logged "$OUT/s3.log" "$H" replay --pcpus 16 --vcpus 64 --s3 500 \
    --events 3000
ok "PI hooks deassigned from a domain never counted, a second domain's hooks come and go: limit as documented after every event" \
    logged "$OUT/hooks.log" "$H" replay --pcpus 16 --vcpus 64 --hooks 100 \
    --hotplug 70 --events 3000
ok "cpupool of pCPUs 0-7 of 16, 64 vCPUs homed on pCPU 0: spills stay in the pool" \
    logged "$OUT/pool.log" "$H" replay --pcpus 16 --vcpus 64 --all-on-0 \
    --pool 0-7 --events 2000
ok "cpupool of pCPUs 8-15 emptied by S3: its vCPUs go to pCPU 0's list, none lost, back in the pool as its pCPUs come back" \
    logged "$OUT/pool-s3.log" "$H" replay --pcpus 16 --vcpus 64 --pool 8-15 \
    --s3 500 --events 3000
ok "cpupool of pCPUs 4-11 of 16 with CPU hotplug: the fixup keeps entries in the pool" \
    logged "$OUT/pool-hotplug.log" "$H" replay --pcpus 16 --vcpus 64 \
    --pool 4-11 --hotplug 30 --events 3000
ok "limit 3, CPU hotplug, traced: the fixup goes above the limit only when no list of the pool is below it" \
    logged "$OUT/fixup-limit.log" "$H" replay --pcpus 16 --vcpus 40 \
    --all-on-0 --limit 3 --hotplug 20 --events 3000 --trace /dev/null
ok "threaded stress in a cpupool of pCPUs 0-3 of 8, with hotplug: no violation" \
    logged "$OUT/pool-stress.log" "$H" stress --pcpus 8 --vcpus 24 \
    --all-on-0 --hotplug 20 --pool 0-3 --seconds 2
ok "tracing switched on inside a wakeup walk: its PI_WAKEUP cycles are within the walk" \
    logged "$OUT/trace-on.log" "$H" replay --pcpus 8 --vcpus 32 \
    --events 300 --trace-on-in-walk
"$H" replay --limit= --events 1 > "$OUT/empty-limit.log" 2>&1
is "$?" 2 "vmx-pi-list-limit= with an empty value: rejected, exit status 2"
ok "... with a message naming vmx-pi-list-limit" \
    grep -q '^bad vmx-pi-list-limit=' "$OUT/empty-limit.log"

# pi-stats' time at each list length on traces of Xen's pi.c: equal, list
# by list, to an independent replay of every change sorted by TSC
# (tools/pi-stats/tests/gentrace.py).  The bench's replays without an
# unblock have no PI_LIST_DEL: pi-stats must say not available; these
# replays have them (--timer: unblocks; --fixup-posts and --race-fixup:
# the fixup's DELs, moves at every pCPU offline).  Single-threaded
# replays only: the threaded stress writes a record after dropping the
# list's lock, so two pCPUs' records of one list can be out of order.
ok "pi-stats builds" make -s -C "$TOP/tools/pi-stats" pi-stats
"$H" replay --scenario mixed-hotplug-timer --pcpus 16 --vcpus 64 --burst 3 \
    --hotplug 40 --timer 4 --events 3000 \
    --trace "$OUT/lt-mixed-hotplug-timer.xentrace" > "$OUT/lt-1.log" 2>&1
is "$?" 0 "mixed-hotplug with a timer waking vCPUs, traced"
"$H" replay --pcpus 16 --vcpus 64 --hotplug 50 --events 3000 --fixup-posts \
    --trace "$OUT/lt-fixup-posts.xentrace" > "$OUT/lt-2.log" 2>&1
is "$?" 0 "fixup-posts, traced"
"$H" replay --pcpus 8 --vcpus 48 --all-on-0 --hotplug 10 --timer 4 \
    --race-fixup --events 3000 --limit 3 \
    --trace "$OUT/lt-race-fixup.xentrace" > "$OUT/lt-3.log" 2>&1
is "$?" 0 "race-fixup, traced"
lt=$(python3 - "$TOP/tools/pi-stats" "$OUT" <<'PY'
import glob, json, os, subprocess, sys
tool, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(tool, "tests"))
import gentrace as g
for path in sorted(glob.glob(os.path.join(out, "*.xentrace"))):
    name = os.path.basename(path)
    if name.startswith("stress-"):
        continue
    data = open(path, "rb").read()
    dels = sum(1 for r in g.walk(data) if r[2] == g.PI_DEL)
    moves = sum(1 for r in g.walk(data) if r[2] == g.PI_MOVE)
    p = subprocess.run([os.path.join(tool, "pi-stats"), "--json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lt = json.loads(p.stdout)["list_time"]
    if not dels:
        good = (not lt["available"] and lt["reason"] ==
                "the trace has no PI_LIST_DEL records")
        print("%s %s: no PI_LIST_DEL, pi-stats: not available (%s)"
              % ("ok" if good else "not ok", name, lt["reason"]))
        continue
    bad = []
    try:
        start, end, ref = g.replay_list_time(data)
        straddled = g.straddled_lists(data)
        if not lt["available"]:
            bad.append("not available: %s" % lt["reason"])
        elif sorted(map(int, lt["lists"])) != sorted(ref):
            bad.append("lists %s, replay %s" % (sorted(lt["lists"]),
                                               sorted(ref)))
        for c, want in sorted(ref.items()) if not bad else ():
            got = lt["lists"][str(c)]
            if not got["exact"]:
                if c not in straddled:
                    bad.append("list %d: %s" % (c, got["reasons"]))
                continue
            at = {int(k): v for k, v in got["time_at_length"].items()}
            if at != want or sum(at.values()) != end - start:
                bad.append("list %d: %s, replay %s" % (c, at, want))
        nexact = sum(l["exact"] for l in lt["lists"].values()) if not bad \
            else 0
    except ValueError as e:
        bad.append("replay: %s" % e)
    print("%s %s: %d PI_LIST_DEL, %d PI_LIST_MOVE: time at each length of "
          "every list = replay (%d lists exact, %d straddled)"
          % ("not ok" if bad else "ok", name, dels, moves,
             0 if bad else nexact, 0 if bad else len(straddled)))
    for b in bad[:5]:
        print("# " + b)
PY
)
while IFS= read -r line; do
    case $line in
    "ok "*) ok "pi-stats list_time: ${line#ok }" true ;;
    "not ok "*) ok "pi-stats list_time: ${line#not ok }" false ;;
    "# "*) printf '%s\n' "$line" ;;
    esac
done <<EOF2
$lt
EOF2
ok "pi-stats list_time: at least one harness trace with PI_LIST_DEL and PI_LIST_MOVE checked" \
    sh -c 'printf "%s\n" "$1" | grep -q "^ok .*[1-9][0-9]* PI_LIST_DEL, [1-9][0-9]* PI_LIST_MOVE"' - "$lt"

# The quick run (replays, stress) of both builds: every check is the
# harness's own, so it must hold where pi.c's ASSERT()s are compiled out.
for b in pi-harness pi-harness-ndebug; do
    ok "quick run of $b (quick.sh): no lost wakeup, no invariant or lock violation" \
        logged "$OUT/quick-$b.log" "$HDIR/quick.sh" "$OUT/$b"
done
"$H" replay --scenario race-fixup --pcpus 8 --vcpus 48 --all-on-0 \
    --hotplug 10 --timer 4 --race-fixup --events 3000 --limit 3 \
    > "$OUT/race-fixup.json" 2> "$OUT/race-fixup.log"
is "$?" 0 "CPU-dead fixup run inside unblock's window (H2): no violation"
ok "... and the race happened (races > 0 in $OUT/race-fixup.json)" \
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["races"] < 1)' \
    "$OUT/race-fixup.json"

if [ "${PI_HARNESS_SANITIZERS:-1}" != 0 ]; then
    ok "ThreadSanitizer: stress runs clean (log: $OUT/tsan.log)" \
        logged "$OUT/tsan.log" make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" \
        tsan TSAN_SECONDS=6
    ok "AddressSanitizer + UBSan: stress and replays run clean (log: $OUT/asan.log)" \
        logged "$OUT/asan.log" make -s -C "$HDIR" TREE="$TREE" OUT="$OUT" \
        asan ASAN_SECONDS=3
fi

done_testing
