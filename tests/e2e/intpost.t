#!/usr/bin/env bash
# An AMD host with interrupt remapping and iommu=intpost on Xen's command
# line boots to dom0: only VMX sets the PI blocking lists up, so nothing
# else may walk them (the cpupool hook did, at boot, from cpupool_init()).
# QEMU's AMD IOMMU gives the interrupt remapping; e2e.py --boot boots the
# patched Xen and the boot test's dom0 once, with no guest.
. "$(dirname "$0")/../lib/tap.sh"
set -u

OUT=${E2E_OUT:-$BUILD/e2e}
serial=$OUT/serial-boot.log
E2E_OUT=$OUT E2E_MACHINE=q35 E2E_QEMU_EXTRA='-device amd-iommu,intremap=on' \
    E2E_XEN_EXTRA='iommu=intpost,debug' \
    timeout -k 30 900 /usr/bin/python3 "$(dirname "$0")/e2e.py" --boot \
    > "$OUT.boot.log" 2>&1
rc=$?
grep -e '^e2e: ' "$OUT.boot.log" | sed 's/^/# /'
ok "the AMD IOMMU remaps interrupts" grep -q 'Interrupt remapping enabled' "$serial"
ok "intpost was asked for" grep -q 'Command line:.* iommu=intpost' "$serial"
ok "Xen did not crash" sh -c '! grep -E "Xen BUG|Panic on CPU" "$1"' - "$serial"
is "$rc" 0 "dom0 finished booting (e2e.py --boot)"
done_testing
