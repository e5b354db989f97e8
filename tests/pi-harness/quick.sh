#!/bin/sh
# The quick run of one pi-harness build: deterministic replays first (the
# bound auto and a small fixed one, CPU hotplug, the CPU-dead fixup raced
# against unblock), then replays.sh (the fixup raced against the IOMMU, S3,
# PI hooks coming and going, cpupools, the limit, the trace, the option's
# parsing), then the bound off (vmx-pi-list-limit=0), whose replays must
# leave the same state after every event as the code before the series
# (REFERENCE), then three short threaded stresses (the second with cpupool
# changes and PI hooks coming and going, the third with the bound off).
# Exit status 0 only if every run exits 0: an invariant broken, a wakeup
# lost, a crash or a run that hangs (TIMEOUT seconds) fails it, and so does
# a bound-off replay whose state differs from the reference's.
#
#   quick.sh BINARY [REFERENCE]
#
# REFERENCE is the build of the code before the series (pi-harness-ref),
# by default the one beside BINARY.
set -u
bin=${1:?usage: quick.sh BINARY [REFERENCE]}
ref=${2:-$(dirname "$bin")/pi-harness-ref}
T=${TIMEOUT:-120}
STRESS_SECONDS=${STRESS_SECONDS:-3}
[ -x "$ref" ] || {
    echo "quick.sh: no reference build $ref (make pi-harness-ref)" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
    echo "+ $(basename "$bin") $*"
    timeout "$T" "$bin" "$@"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "quick.sh: $(basename "$bin") $1 failed (exit status $rc)" >&2
        exit 1
    fi
}
# off REPLAY-OPTIONS: the replay with the bound off, traced, and the same
# replay of the reference build: the state digests after every event must
# be the same.
off() {
    run replay "$@" --limit 0 --trace /dev/null --digest "$tmp/off"
    echo "+ $(basename "$ref") replay $*"
    timeout "$T" "$ref" replay "$@" --digest "$tmp/ref" >/dev/null || {
        echo "quick.sh: $(basename "$ref") replay failed" >&2
        exit 1
    }
    cmp -s "$tmp/off" "$tmp/ref" || {
        echo "quick.sh: the bound off differs from the code before the" \
            "series from event $(diff "$tmp/off" "$tmp/ref" |
            sed -n 's/^< \([0-9]*\) .*/\1/p' | head -n 1) on" >&2
        exit 1
    }
}
run replay --scenario nic-128on1 --pcpus 64 --vcpus 128 --all-on-0 \
    --burst 2 --events 2000
run replay --pcpus 16 --vcpus 64 --hotplug 50 --events 3000
run replay --pcpus 8 --vcpus 64 --hotplug 50 --events 3000
run replay --scenario race-fixup --pcpus 8 --vcpus 48 --all-on-0 \
    --hotplug 10 --timer 4 --race-fixup --events 3000 --limit 3 --xapic \
    --trace /dev/null
"$(dirname "$0")/replays.sh" "$bin" || {
    echo "quick.sh: replays.sh $(basename "$bin") failed" >&2
    exit 1
}
off --pcpus 16 --vcpus 64 --all-on-0 --burst 3 --hotplug 20 --s3 500 \
    --up-cancel 7 --timer 4 --pool 0-7 --pool-moves 20 --entry-posts \
    --preempt 5 --events 3000 --xapic
off --pcpus 8 --vcpus 48 --all-on-0 --hotplug 10 --timer 4 --race-fixup \
    --events 3000
run stress --pcpus 8 --vcpus 24 --all-on-0 --hotplug 20 --limit 3 \
    --seconds "$STRESS_SECONDS"
run stress --pcpus 8 --vcpus 24 --all-on-0 --hotplug 20 --pool 0-3 \
    --pool-moves 5 --hooks 7 --seconds "$STRESS_SECONDS"
run stress --pcpus 8 --vcpus 24 --all-on-0 --hotplug 20 --pool 0-3 \
    --pool-moves 5 --hooks 7 --limit 0 --seconds 1
