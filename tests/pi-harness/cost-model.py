#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Per-entry walk cycles and the break-even list length, from summary.json.

    cost-model.py SUMMARY.JSON PI.C

Reads the replays' "walks_by_len" ([length, walks, median cycles] per list
length walked) of nic-128on1 (warm walks) and nic-128on1-cold (cold walks),
bound off and on, fits median cycles = fixed + per_entry * length through
them (least squares, each length weighted by its number of walks), and
prints per_entry and the break-even length HOP_CYCLES / per_entry: the list
length whose walk costs as much as the hop a spilled vCPU pays on every
wakeup.  A list shorter than that is cheaper to walk whole than to split
(docs/pi-bound.md, "Cost model").  Measurements and a ratio: no checks.
"""
import json
import re
import sys

# The hop a spilled vCPU adds to its wakeup: the notification interrupts a
# pCPU running a guest (a VM exit and, after the wakeup handler, a VM
# entry), which then sends an IPI to the vCPU's own pCPU.  Published
# figures, Intel hardware:
#  - VM exit + entry, direct cost (the world switch alone, no handling):
#    2,000 cycles, Xeon X5570 under KVM (Landau, Ben-Yehuda, Gordon,
#    "SplitX: Split Guest/Hypervisor Execution on Multi-Core", USENIX
#    WIOV 2011, Table 1 and text).
#  - IPI, receiving core: 1,212 cycles (Kaffes et al., "Shinjuku:
#    Preemptive Scheduling for usecond-scale Tail Latency", USENIX NSDI
#    2019, as its authors' repository quotes it:
#    github.com/stanford-mast/shinjuku issue 5).
# The sender's ICR write and the scheduler's own wakeup work are left out,
# so this is a lower bound of the hop.
VMEXIT_ENTRY_CYCLES = 2000
IPI_CYCLES = 1212
HOP_CYCLES = VMEXIT_ENTRY_CYCLES + IPI_CYCLES


def limit_constants(pi_c):
    """PI_LIMIT_FLOOR and PI_LIMIT_SLACK of the pi.c measured."""
    found = dict(re.findall(r"^#define (PI_LIMIT_FLOOR|PI_LIMIT_SLACK)\s+(\d+)U",
                            open(pi_c).read(), re.M))
    return int(found["PI_LIMIT_FLOOR"]), int(found["PI_LIMIT_SLACK"])


def fit(points):
    """Weighted least squares of cycles on length: (fixed, per_entry)."""
    sw = sum(w for _, w, _ in points)
    mx = sum(w * x for x, w, _ in points) / sw
    my = sum(w * y for _, w, y in points) / sw
    sxx = sum(w * (x - mx) ** 2 for x, w, _ in points)
    sxy = sum(w * (x - mx) * (y - my) for x, w, y in points)
    if sxx == 0:
        return None
    slope = sxy / sxx
    return my - slope * mx, slope


def main():
    rows = json.load(open(sys.argv[1]))
    # pi.c: limit = max(FLOOR, ceil(B / P) + SLACK)
    FLOOR, SLACK = limit_constants(sys.argv[2])
    by = {}
    for r in rows:
        if r.get("mode") == "replay" and r.get("limit_option") is not None:
            by[(r["scenario"], bool(r["limit"]))] = r
    print("cost model (docs/pi-bound.md, \"Cost model\"): hop = VM exit + "
          "entry %d + IPI %d = %d cycles (published, Intel; see "
          "cost-model.py)" % (VMEXIT_ENTRY_CYCLES, IPI_CYCLES, HOP_CYCLES))
    for scen, label in (("nic-128on1", "warm"), ("nic-128on1-cold", "cold")):
        points = []
        for on in (False, True):
            r = by.get((scen, on))
            if r:
                points += [tuple(p) for p in r.get("walks_by_len", [])]
        f = fit(points) if points else None
        if not f or f[1] <= 0:
            print("  %s walks: no per-entry figure (walks at one length only,"
                  " or none)" % label)
            continue
        fixed, per = f
        lens = sorted(p[0] for p in points)
        n = sum(p[1] for p in points)
        be = HOP_CYCLES / per
        print("  %s walks (%s, bound off and on, %d walks at lengths %d-%d):"
              " %.1f cycles per entry, %.0f fixed" % (label, scen, n, lens[0],
                                                      lens[-1], per, fixed))
        print("    break-even length = hop / per entry = %d / %.1f = %.1f "
              "entries; the floor %d is %.2f of it; a full walk at the floor"
              " (%d entries) costs %.2f hop, at floor + slack (%d) %.2f hop"
              % (HOP_CYCLES, per, be, FLOOR, FLOOR / be, FLOOR,
                 FLOOR * per / HOP_CYCLES, FLOOR + SLACK,
                 (FLOOR + SLACK) * per / HOP_CYCLES))


if __name__ == "__main__":
    main()
