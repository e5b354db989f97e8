#!/bin/sh
# The quick run of one pi-harness build: deterministic replays first (the
# bound auto and a small fixed one, CPU hotplug, the CPU-dead fixup raced
# against unblock), then replays.sh (the fixup raced against the IOMMU, S3,
# PI hooks coming and going, cpupools, the limit, the trace, the option's
# parsing), then two short threaded stresses (the second with cpupool
# changes and PI hooks coming and going).  Exit status 0 only if every run
# exits 0: an invariant broken, a wakeup lost, a crash or a run that hangs
# (TIMEOUT seconds) fails it.
#
#   quick.sh BINARY
set -u
bin=${1:?usage: quick.sh BINARY}
T=${TIMEOUT:-120}
STRESS_SECONDS=${STRESS_SECONDS:-3}
run() {
    echo "+ $(basename "$bin") $*"
    timeout "$T" "$bin" "$@"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "quick.sh: $(basename "$bin") $1 failed (exit status $rc)" >&2
        exit 1
    fi
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
run stress --pcpus 8 --vcpus 24 --all-on-0 --hotplug 20 --limit 3 \
    --seconds "$STRESS_SECONDS"
run stress --pcpus 8 --vcpus 24 --all-on-0 --hotplug 20 --pool 0-3 \
    --pool-moves 5 --hooks 7 --seconds "$STRESS_SECONDS"
