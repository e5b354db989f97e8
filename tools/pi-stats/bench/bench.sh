#!/bin/bash
# bench.sh - throughput of pi-stats against xenalyze --summary and against
# a minimal header walk (the practical ceiling of one pass), same machine,
# same run, warm page cache.  Run by `make bench`; prints MB/s and ratios.
#   (a) the real 3.9 MB credit2 trace, whole process, RUNS_A runs
#   (b) >= SPLICE_MB of copies of the real traces, TSCs shifted forward
#   (c) a PI-heavy generated trace of PI_MB
#   peak RSS of pi-stats on an RSS_MB PI-heavy trace
# Times are the best of the runs (and the median for (a)).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
PI_STATS=${PI_STATS:-$here/../pi-stats}
BUILD=${BUILD:-$top/build/pi-stats}
HDRWALK=${HDRWALK:-$BUILD/hdrwalk}
TRACESPLICE=${TRACESPLICE:-$BUILD/tracesplice}
GENPI=${GENPI:-$BUILD/genpi}
if [ -z "${XENALYZE:-}" ]; then
    XENALYZE=$top/build/xen/dist/install/usr/sbin/xenalyze
    [ -x "$XENALYZE" ] || XENALYZE=$top/build/xen/tools/xentrace/xenalyze
fi
TRACES=${TRACES:-$(cd "$top/.." && pwd)/shared/traces}
RUNS_A=${RUNS_A:-50}
RUNS_BIG=${RUNS_BIG:-5}
SPLICE_MB=${SPLICE_MB:-320}
PI_MB=${PI_MB:-256}
RSS_MB=${RSS_MB:-1024}
work=$BUILD/bench
mkdir -p "$work"

have_xa=1
if [ ! -x "$XENALYZE" ]; then
    echo "bench: xenalyze not found at $XENALYZE (top-level 'make tools'," \
         "or XENALYZE=...): its columns are skipped" >&2
    have_xa=0
fi

now() { date +%s%N; }

# time_runs N CMD... -> sets BEST_MS MEDIAN_MS RC LAST_ERR
time_runs() {
    local n=$1; shift
    local ts=() i t0 t1
    "$@" >/dev/null 2>"$work/err" || true          # warm the cache
    for ((i = 0; i < n; i++)); do
        t0=$(now)
        "$@" >/dev/null 2>"$work/err"
        RC=$?
        t1=$(now)
        ts+=($(( (t1 - t0) / 1000 )))
    done
    LAST_ERR=$(grep -m1 -E 'FATAL|error|Error' "$work/err" | cut -c1-100)
    read -r BEST_US MEDIAN_US < <(printf '%s\n' "${ts[@]}" | sort -n |
        awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}')
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

bench() { # label file runs
    local label=$1 f=$2 n=$3 bytes pi_us hw_us xa_us
    bytes=$(stat -c %s "$f")
    echo
    echo "($label) $(basename "$f"): $bytes bytes, best of $n runs"
    time_runs "$n" "$HDRWALK" "$f"
    hw_us=$BEST_US
    row "header walk (ceiling)" "$bytes" "$hw_us"
    time_runs "$n" "$PI_STATS" -q "$f"
    pi_us=$BEST_US
    row "pi-stats" "$bytes" "$pi_us" \
        "median $(ms "$MEDIAN_US") ms, exit $RC, $(ratio "$hw_us" "$pi_us") of the ceiling"
    if [ $have_xa = 1 ]; then
        time_runs "$n" "$XENALYZE" --summary "$f"
        xa_us=$BEST_US
        if [ "$RC" = 0 ]; then
            row "xenalyze --summary" "$bytes" "$xa_us" \
                "median $(ms "$MEDIAN_US") ms; pi-stats is $(ratio "$xa_us" "$pi_us")x faster"
        else
            row "xenalyze --summary" "$bytes" "$xa_us" \
                "ABORTED (exit $RC): $LAST_ERR"
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

if [ "$RSS_MB" -gt 0 ]; then
    big=$work/piheavy-${RSS_MB}M.xentrace
    [ -f "$big" ] || "$GENPI" "$big" "$RSS_MB" 64 >/dev/null || exit 1
    "$PI_STATS" -q "$big" >/dev/null               # warm
    rss=$( { /usr/bin/time -f '%M' "$PI_STATS" -q "$big" >/dev/null; } 2>&1 | tail -1)
    echo
    echo "peak RSS of pi-stats on $(basename "$big") ($(stat -c %s "$big") bytes): $((rss / 1024)) MiB"
    rm -f "$big"
fi
