#!/bin/sh
# The replays for the CPU-dead fixup, S3, the PI hooks' accounting,
# cpupools, the limit's formula, the trace, the option's parsing, a pCPU
# whose bring-up is cancelled, the limit recomputed concurrently, domains
# and pCPUs changing cpupool, interrupts posted on the way into the guest
# (x2APIC and xAPIC), preempted vCPUs posted to, and cpupools of every
# size, within a socket and across two.  Each of them failed on the code
# before the fix, or on the mutant, it checks (docs/pi-bound.md).
# Exit status 0 only if every run exits 0 (and the empty limit exits 2).
#
#   replays.sh BINARY
set -u
bin=${1:?usage: replays.sh BINARY}
T=${TIMEOUT:-120}
run() {
    echo "+ $(basename "$bin") $*"
    timeout "$T" "$bin" "$@" >/dev/null || {
        echo "replays.sh: $(basename "$bin") $* failed" >&2
        exit 1
    }
}
run replay --pcpus 16 --vcpus 64 --hotplug 50 --s3 400 --pool-moves 20 \
    --events 3000 --fixup-posts
run replay --pcpus 16 --vcpus 64 --s3 500 --events 3000
run replay --pcpus 16 --vcpus 64 --hooks 100 --hotplug 70 --events 3000
run replay --pcpus 16 --vcpus 64 --all-on-0 --pool 0-7 --events 2000
run replay --pcpus 16 --vcpus 64 --pool 8-15 --s3 500 --events 3000
run replay --pcpus 16 --vcpus 64 --pool 4-11 --hotplug 30 --events 3000
run replay --pcpus 16 --vcpus 64 --pool 4-11 --pool-moves 10 --hotplug 30 \
    --s3 700 --events 3000 --trace /dev/null
run replay --pcpus 16 --vcpus 40 --all-on-0 --limit 3 --hotplug 20 \
    --events 3000 --trace /dev/null
# Full lists of a small pool in a larger socket: each spill search must
# look at as many lists of the pool as it probes, pCPUs it skips aside.
run replay --pcpus 16 --vcpus 40 --all-on-0 --pool 0-5 --limit 3 \
    --hotplug 20 --events 3000
run replay --pcpus 8 --vcpus 32 --events 300 --trace-on-in-walk
run replay --pcpus 16 --vcpus 64 --hotplug 30 --up-cancel 7 --events 3000
run replay --pcpus 8 --vcpus 64 --hooks 50 --race-limit --events 1000
run replay --scenario nic-128on1 --pcpus 64 --vcpus 128 --all-on-0 \
    --burst 2 --events 2000 --entry-posts
run replay --pcpus 16 --vcpus 64 --all-on-0 --pool 0-3 --events 2000 \
    --entry-posts
# The same with xAPIC's NDST encoding, vCPUs switched in on many pCPUs.
run replay --pcpus 16 --vcpus 64 --pool 4-11 --pool-moves 10 --hotplug 30 \
    --events 2000 --entry-posts --preempt 3 --xapic
run replay --pcpus 8 --vcpus 32 --events 2000 --preempt 3
# within_limit ARGS...: a replay that exits 0 and adds nothing above the limit
within_limit() {
    echo "+ $(basename "$bin") $*"
    out=$(timeout "$T" "$bin" "$@") && case $out in
        *'"over_limit": 0,'*) ;;
        *) false ;;
    esac || {
        echo "replays.sh: $(basename "$bin") $* failed or added above the" \
            "limit: $out" >&2
        exit 1
    }
}
# Every pool size: a domain whose vCPUs all start on one pCPU keeps every
# list within its pool's limit (other lists of the pool have room).
for n in 1 2 3 4 6 8 12; do
    within_limit replay --pcpus 16 --vcpus 64 --all-on-0 --pool 0-$((n - 1)) \
        --events 2000
done
# The same in pools across two sockets (of 32 pCPUs each), with few or
# many of their pCPUs in the first pCPU's socket.
for p in 28-43 24-47; do
    within_limit replay --pcpus 64 --vcpus 128 --all-on-0 --pool $p \
        --events 2000
done
echo "+ $(basename "$bin") replay --limit= --events 1"
timeout "$T" "$bin" replay --limit= --events 1 >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || {
    echo "replays.sh: an empty --limit= gave exit status $rc, not 2" >&2
    exit 1
}
