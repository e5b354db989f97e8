#!/bin/bash
# bench.sh - throughput of pi-stats against xenalyze --summary and against
# a minimal header walk (the practical ceiling of one pass), same machine,
# same run, warm page cache.  Run by `make bench`; prints MB/s and ratios.
#   (a) the real 3.9 MB credit2 trace, whole process, RUNS_A runs
#   (b) >= SPLICE_MB of copies of the real traces, TSCs shifted forward
#   (c) a PI-heavy generated trace of PI_MB
#   (d) the same PI records (PCPU_MB, windows of 4 KB) spread over 4 and
#       over 4096 pCPUs: whole process, text and JSON, and peak RSS
#   (e) a trace with PI_LIST_DEL records (consistent list lengths) of
#       DEL_MB: list lengths over time worked out; how many lists exact
#   peak RSS of pi-stats on an RSS_MB PI-heavy trace
# Wall time per whole-process run, spawn to exit, measured by bench/timeit.c
# (no shell or date(1) inside the timed interval), each run after an
# untimed warm-up run of the same command; the commands of a case take
# turns (see bench()); times are the best and the median of the rounds.
# All ratios of one case come from the same invocation of this script.
# Each input is first settled (see settle()).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
PI_STATS=${PI_STATS:-$here/../pi-stats}
BUILD=${BUILD:-$top/build/pi-stats}
HDRWALK=${HDRWALK:-$BUILD/hdrwalk}
TIMEIT=${TIMEIT:-$BUILD/timeit}
TRACESPLICE=${TRACESPLICE:-$BUILD/tracesplice}
GENPI=${GENPI:-$BUILD/genpi}
if [ -z "${XENALYZE:-}" ]; then
    XENALYZE=$top/build/xen/dist/install/usr/sbin/xenalyze
    [ -x "$XENALYZE" ] || XENALYZE=$top/build/xen/tools/xentrace/xenalyze
fi
TRACES=${TRACES:-$top/tests/data/traces}
RUNS_A=${RUNS_A:-50}
RUNS_BIG=${RUNS_BIG:-9}
SPLICE_MB=${SPLICE_MB:-320}
PI_MB=${PI_MB:-256}
RSS_MB=${RSS_MB:-1024}
PCPU_MB=${PCPU_MB:-30}
RUNS_D=${RUNS_D:-5}
DEL_MB=${DEL_MB:-256}
work=$BUILD/bench
mkdir -p "$work"

have_xa=1
if [ ! -x "$XENALYZE" ]; then
    echo "bench: xenalyze not found at $XENALYZE (top-level 'make tools'," \
         "or XENALYZE=...): its columns are skipped" >&2
    have_xa=0
fi

# time_run CMD... -> sets US RC LAST_ERR
# timeit (bench/timeit.c) spawns and waits with no shell or date(1) in the
# timed interval: one untimed warm-up, then one timed run; $work/err keeps
# its stderr.
time_run() {
    local out
    out=$("$TIMEIT" -e "$work/err" 1 "$@") || {
        echo "bench: timeit failed: $*" >&2; exit 1; }
    US=$(sed -n 's/.*best_us=\([0-9]*\).*/\1/p' <<<"$out")
    RC=$(sed -n 's/.*rc=\([0-9]*\).*/\1/p' <<<"$out")
    LAST_ERR=$(grep -m1 -E 'FATAL|error|Error' "$work/err" | cut -c1-100)
}

# settle FILE: written back, dropped from the page cache and read again,
# as a trace read from disk is.  The state matters here: right after a file
# is written, and again some minutes after it was read, the header walk
# over it took 2-3x as long (its pages are mapped differently), which
# flatters every ratio to the ceiling.  Timed right after this, the
# ratios are the least favourable to pi-stats.
settle() {
    sync "$1"
    dd if="$1" iflag=nocache count=0 status=none
    cat "$1" >/dev/null
}

mbps() { awk -v b="$1" -v us="$2" 'BEGIN {printf "%.0f", b / us}'; }
ms() { awk -v us="$1" 'BEGIN {printf "%.2f", us / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

row() { # name bytes us [note]
    printf '  %-22s %10s ms %8s MB/s  %s\n' "$1" "$(ms "$3")" \
        "$(mbps "$2" "$3")" "${4:-}"
}

echo "pi-stats bench on $(uname -m), $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pi-stats $("$PI_STATS" --version | cut -d' ' -f2)," \
     "xenalyze: $([ $have_xa = 1 ] && echo "$XENALYZE" || echo missing)"

# best_median US... -> "best median" (median: the lower middle)
best_median() {
    printf '%s\n' "$@" | sort -n |
        awk '{ t[NR] = $1 } END { print t[1], t[int((NR + 1) / 2)] }'
}

# The three commands take turns, one run each per round, so that they all
# see the same machine: on a shared one its speed drifts by tens of
# percent within a minute, more than between the commands.
bench() { # label file rounds
    local label=$1 f=$2 n=$3 bytes i hw=() pi=() xa=() pi_rc xa_rc xa_err
    local hw_us hw_med pi_us pi_med xa_us xa_med
    bytes=$(stat -c %s "$f")
    echo
    echo "($label) $(basename "$f"): $bytes bytes, best of $n rounds"
    settle "$f"
    for ((i = 0; i < n; i++)); do
        time_run "$HDRWALK" "$f"
        hw+=("$US")
        time_run "$PI_STATS" -q "$f"
        pi+=("$US")
        pi_rc=$RC
        if [ $have_xa = 1 ]; then
            time_run "$XENALYZE" --summary "$f"
            xa+=("$US")
            xa_rc=$RC
            xa_err=$LAST_ERR
        fi
    done
    read -r hw_us hw_med <<<"$(best_median "${hw[@]}")"
    read -r pi_us pi_med <<<"$(best_median "${pi[@]}")"
    row "header walk (ceiling)" "$bytes" "$hw_us" "median $(ms "$hw_med") ms"
    row "pi-stats" "$bytes" "$pi_us" \
        "median $(ms "$pi_med") ms, exit $pi_rc, $(ratio "$hw_us" "$pi_us") of the ceiling ($(ratio "$hw_med" "$pi_med") by medians)"
    if [ $have_xa = 1 ]; then
        read -r xa_us xa_med <<<"$(best_median "${xa[@]}")"
        if [ "$xa_rc" = 0 ]; then
            row "xenalyze --summary" "$bytes" "$xa_us" \
                "median $(ms "$xa_med") ms; pi-stats is $(ratio "$xa_us" "$pi_us")x faster"
        else
            row "xenalyze --summary" "$bytes" "$xa_us" \
                "ABORTED (exit $xa_rc): $xa_err"
        fi
    fi
}

bench a "$TRACES/credit2-hvm-8cpu.xentrace" "$RUNS_A"

# CPU time (user+sys) per run, less sensitive than wall time to other
# load on a shared machine: N runs inside one /usr/bin/time.
cpu_ms() { # runs cmd...
    local n=$1; shift
    { /usr/bin/time -f '%U %S' sh -c 'n=$1; shift; i=0
        while [ $i -lt $n ]; do "$@" >/dev/null 2>&1; i=$((i+1)); done' \
        sh "$n" "$@" >/dev/null; } 2>&1 | tail -1 |
        awk -v n="$n" '{printf "%.2f", ($1 + $2) * 1000 / n}'
}
if [ -x /usr/bin/time ]; then
    f=$TRACES/credit2-hvm-8cpu.xentrace
    hw=$(cpu_ms "$RUNS_A" "$HDRWALK" "$f")
    pi=$(cpu_ms "$RUNS_A" "$PI_STATS" -q "$f")
    echo "  CPU time per run (user+sys, $RUNS_A runs): header walk $hw ms," \
         "pi-stats $pi ms$( [ $have_xa = 1 ] &&
         xa=$(cpu_ms "$RUNS_A" "$XENALYZE" --summary "$f") &&
         echo ", xenalyze --summary $xa ms: pi-stats $(ratio "$xa" "$pi")x less CPU")"
fi

tcg=$BUILD/tcg-boot-all.xentrace
[ -f "$tcg" ] || { xz -dc "$TRACES/tcg-boot-all.xentrace.xz" >"$tcg.tmp" &&
                   mv "$tcg.tmp" "$tcg"; }
spliced=$work/spliced-${SPLICE_MB}M.xentrace
[ -f "$spliced" ] || "$TRACESPLICE" "$spliced" "$SPLICE_MB" \
    "$TRACES/credit2-hvm-8cpu.xentrace" "$tcg" "$TRACES/rtds-8cpu.xentrace" \
    >/dev/null || exit 1
bench b "$spliced" "$RUNS_BIG"

piheavy=$work/piheavy-${PI_MB}M.xentrace
[ -f "$piheavy" ] || "$GENPI" "$piheavy" "$PI_MB" 64 >/dev/null || exit 1
bench c "$piheavy" "$RUNS_BIG"

# (d) report phase against pCPU count: the same records over 4 and 4096
# pCPUs, text and JSON in turns; the ratio is best 4096 / best 4.
peak_rss() { # cmd... -> MiB
    { /usr/bin/time -f '%M' "$@" >/dev/null; } 2>&1 | tail -1 |
        awk '{printf "%.0f", $1 / 1024}'
}
if [ "$PCPU_MB" -gt 0 ]; then
    echo
    echo "(d) the same PI records ($PCPU_MB MB, 4 KB windows) on 4 and 4096 pCPUs, best of $RUNS_D rounds"
    declare -A dt
    for n in 4 4096; do
        f=$work/pcpus-$n.xentrace
        [ -f "$f" ] || "$GENPI" "$f" "$PCPU_MB" "$n" 4096 >/dev/null || exit 1
        settle "$f"
    done
    for ((i = 0; i < RUNS_D; i++)); do
        for n in 4 4096; do
            for fmt in text json; do
                opt=(); [ $fmt = json ] && opt=(--json)
                time_run "$PI_STATS" -q "${opt[@]}" "$work/pcpus-$n.xentrace"
                dt[$n$fmt]="${dt[$n$fmt]:-} $US"
            done
        done
    done
    for fmt in text json; do
        read -r b4 _ <<<"$(best_median ${dt[4$fmt]})"
        read -r b4096 _ <<<"$(best_median ${dt[4096$fmt]})"
        opt=(); [ $fmt = json ] && opt=(--json)
        printf '  %-5s 4 pCPUs %8s ms, 4096 pCPUs %8s ms: %sx; peak RSS %s MiB / %s MiB\n' \
            "$fmt" "$(ms "$b4")" "$(ms "$b4096")" "$(ratio "$b4096" "$b4")" \
            "$(peak_rss "$PI_STATS" -q "${opt[@]}" "$work/pcpus-4.xentrace")" \
            "$(peak_rss "$PI_STATS" -q "${opt[@]}" "$work/pcpus-4096.xentrace")"
    done
fi

if [ "$DEL_MB" -gt 0 ]; then
    del=$work/pidel-${DEL_MB}M.xentrace
    [ -f "$del" ] || "$GENPI" --del "$del" "$DEL_MB" 64 >/dev/null || exit 1
    bench e "$del" "$RUNS_BIG"
    "$PI_STATS" --json "$del" | python3 -c '
import json, sys
lt = json.load(sys.stdin)["list_time"]
if not lt["available"]:
    print("  list_time: not available:", lt["reason"])
else:
    ls = lt["lists"].values()
    print("  list_time: %d of %d lists exact, %d changes" % (
        sum(l["exact"] for l in ls), len(ls), sum(l["changes"] for l in ls)))'
fi

if [ "$RSS_MB" -gt 0 ]; then
    big=$work/piheavy-${RSS_MB}M.xentrace
    [ -f "$big" ] || "$GENPI" "$big" "$RSS_MB" 64 >/dev/null || exit 1
    "$PI_STATS" -q "$big" >/dev/null               # warm
    rss=$( { /usr/bin/time -f '%M' "$PI_STATS" -q "$big" >/dev/null; } 2>&1 | tail -1)
    echo
    echo "peak RSS of pi-stats on $(basename "$big") ($(stat -c %s "$big") bytes): $((rss / 1024)) MiB"
    rm -f "$big"
fi
