/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: drive xen/arch/x86/hvm/vmx/pi.c (copied from a patched Xen
 * tree by the Makefile) in userspace.
 *
 *   pi-harness stress [options]   threads: vCPUs blocking and running,
 *                                 devices posting interrupts, one wakeup
 *                                 interrupt thread per pCPU, a timer waking
 *                                 vCPUs, pCPUs going offline and online;
 *                                 invariants checked all along.
 *   pi-harness replay [options]   one thread, deterministic: a scenario
 *                                 replayed event by event, walk and block
 *                                 costs measured with rdtsc.
 *
 * Options: --scenario NAME --pcpus N --vcpus N --limit auto|N (N=0: none)
 * --seconds S --events N --seed N --trace FILE --digest FILE --xapic;
 * replay only: --s3 N (suspend and resume every N events), --fixup-posts
 * (a device posts to the vCPU the CPU-dead fixup is moving whenever the
 * fixup takes or releases a list lock), --trace-on-in-walk (tracing switched on from
 * inside a wakeup walk), --hooks N (every N events, a second domain gets
 * or loses the PI hooks, after a deassign from a domain never assigned),
 * --timer N (a timer wakes a random vCPU, 1 event in N), --race-fixup (the
 * CPU-dead fixup runs between an unblock's read of its list and its lock),
 * --cold-walks (each measured walk starts with what it reads out of the
 * caches, as after guest code ran on the pCPU), --up-cancel N (every N
 * events an offline pCPU fails to come up: CPU_UP_CANCELED before
 * vmx_cpu_up()), --race-limit (with --hooks: a pCPU goes offline or comes
 * online whenever the hooks' accounting is about to take the limit's lock);
 * any mode: --pool FIRST-LAST (the domain's cpupool at the start; the other
 * pCPUs form another one), --pool-moves N (1 in N events or stress checks,
 * the domain or a pCPU moves to the other cpupool), --entry-posts (replay:
 * a device posts to each vCPU entering the guest at one step of its entry,
 * vcpu.c), --preempt N (replay: 1 run in N, the vCPU is preempted and a
 * device posts to it meanwhile), --fixup-bench (replay: after the boot, the first pCPU of the
 * pool, which holds every vCPU with --all-on-0, goes down as in S3 and the
 * CPU-dead fixup is timed).
 * Prints one JSON object.  Exit status 1 when an invariant was broken or a
 * wakeup lost.
 *
 * Built with -DPI_REF, the file under test is the code before the series
 * (unit.c).  The files and what each does: harness.h.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <getopt.h>
#include <inttypes.h>

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "scenario", 1, NULL, 's' }, { "pcpus", 1, NULL, 'p' },
        { "vcpus", 1, NULL, 'v' }, { "limit", 1, NULL, 'l' },
        { "seconds", 1, NULL, 't' }, { "events", 1, NULL, 'e' },
        { "seed", 1, NULL, 'r' }, { "trace", 1, NULL, 'T' },
        { "digest", 1, NULL, 'd' }, { "xapic", 0, NULL, 'x' },
        { "all-on-0", 0, NULL, '0' }, { "burst", 1, NULL, 'b' },
        { "hotplug", 1, NULL, 'h' }, { "devices", 1, NULL, 'D' },
        { "s3", 1, NULL, 'S' }, { "fixup-posts", 0, NULL, 'F' },
        { "trace-on-in-walk", 0, NULL, 'W' }, { "hooks", 1, NULL, 'H' },
        { "pool", 1, NULL, 'P' },
        { "timer", 1, NULL, 'I' }, { "race-fixup", 0, NULL, 'R' },
        { "cold-walks", 0, NULL, 'C' }, { "up-cancel", 1, NULL, 'U' },
        { "race-limit", 0, NULL, 'L' }, { "pool-moves", 1, NULL, 'M' },
        { "entry-posts", 0, NULL, 'E' }, { "fixup-bench", 0, NULL, 'B' },
        { "preempt", 1, NULL, 'Q' },
        { NULL, 0, NULL, 0 } };
    struct scenario s = {
        .name = "custom", .pcpus = 8, .vcpus = 32, .seconds = 5,
        .events = 20000, .burst = 1, .hotplug = 0, .devices = 2, .seed = 1,
    };
    const char *limit = "auto";
    bool all_on_0 = false;
    int c;

    if ( argc < 2 )
    {
        fprintf(stderr, "usage: %s stress|replay [options]\n", argv[0]);
        return 2;
    }
    optind = 2;
    while ( (c = getopt_long(argc, argv, "", opts, NULL)) != -1 )
        switch ( c )
        {
        case 's': s.name = optarg; break;
        case 'p': s.pcpus = atoi(optarg); break;
        case 'v': s.vcpus = atoi(optarg); break;
        case 'l': limit = optarg; break;
        case 't': s.seconds = atoi(optarg); break;
        case 'e': s.events = atoi(optarg); break;
        case 'r': s.seed = strtoull(optarg, NULL, 0); break;
        case 'T': s.trace = optarg; break;
        case 'd': digest_file = fopen(optarg, "w"); break;
        case 'x': x2apic_enabled = false; break;
        case '0': all_on_0 = true; break;
        case 'b': s.burst = atoi(optarg); break;
        case 'h': s.hotplug = atoi(optarg); break;
        case 'D': s.devices = atoi(optarg); break;
        case 'S': s.s3 = atoi(optarg); break;
        case 'F': fixup_posts = true; break;
        case 'W': trace_on_in_walk = true; break;
        case 'H': s.hooks = atoi(optarg); break;
        case 'P':
            if ( sscanf(optarg, "%u-%u", &pool_first, &pool_last) != 2 ||
                 pool_first > pool_last )
            {
                fprintf(stderr, "bad --pool %s (FIRST-LAST)\n", optarg);
                return 2;
            }
            break;
        case 'I': s.timer = atoi(optarg); break;
        case 'R': s.race_fixup = true; break;
        case 'C': cold_walks = true; break;
        case 'U': s.up_cancel = atoi(optarg); break;
        case 'L': s.race_limit = true; break;
        case 'M': s.pool_moves = atoi(optarg); break;
        case 'E': entry_posts = true; break;
        case 'Q': preempt_every = atoi(optarg); break;
        case 'B': s.fixup_bench = true; break;
        default: return 2;
        }
    if ( s.pcpus < 2 || s.pcpus > NR_CPUS || !s.vcpus ||
         s.vcpus > MAX_VCPUS || !s.burst || s.burst > 8 )
    {
        fprintf(stderr, "bad sizes\n");
        return 2;
    }
    rng_seed(s.seed);
    harness_set_limit(limit);
    limit_auto = !strcmp(limit, "auto");
    limit_off = !limit_auto && !strtoul(limit, NULL, 0);
    if ( s.trace && !(trace_file = fopen(s.trace, "wb")) )
    {
        perror(s.trace);
        return 2;
    }
    /* The stress run learns list lengths from the records. */
    tb_init_done = trace_file || !strcmp(argv[1], "stress");
    setup(s.pcpus, s.vcpus, all_on_0, s.seed);

    if ( !strcmp(argv[1], "replay") )
        run_replay(&s);
    else if ( !strcmp(argv[1], "stress") )
        run_stress(&s);
    else
    {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    if ( digest_file )
        fclose(digest_file);
    for ( c = 0; c < (int)nr_vcpus; c++ )
        free(hv[c]);
    if ( st_trace_mismatch )
        fprintf(stderr, "trace: %" PRIu64 " PI_LIST_ADD lengths differ from "
                "the list\n", (uint64_t)st_trace_mismatch);
    return (st_lost || st_violations || st_trace_mismatch) ? 1 : 0;
}

