#!/bin/sh
# TAP for prove: tests/e2e/e2e.py --tap boots the patched Xen under QEMU,
# runs the guest cases and prints one TAP line per case (its verdict and
# detail; a selected case without a verdict fails), the rest as comments,
# and keeps it all in build/e2e/run.log.  Same environment as e2e.py.  A
# hard timeout above the boot timeouts so a stuck host tool cannot hang CI.
exec timeout -k 30 "${E2E_TOTAL_TIMEOUT:-3600}" /usr/bin/python3 "$(dirname "$0")/e2e.py" --tap
