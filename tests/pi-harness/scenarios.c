/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the scenarios.
 *
 *   stress  threads: vCPUs blocking and running, devices posting
 *           interrupts, one wakeup interrupt thread per pCPU, a timer waking
 *           vCPUs, pCPUs going offline and online; invariants checked
 *           every 0.5 ms with everything stopped, and after the drain.
 *   replay  one thread, deterministic: a scenario replayed event by event,
 *           walk and block costs measured with rdtsc, a digest of the
 *           whole state after every event.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <inttypes.h>
#include <sched.h>
#include <time.h>

/* ---- replay ---- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *s, size_t n, unsigned int p)
{
    size_t r;

    if ( !n )
        return 0;
    r = (n * p + 99) / 100;     /* nearest rank */
    return s[(r ? r : 1) - 1];
}

static uint64_t digest = 1469598103934665603ULL;
FILE *digest_file;

static void digest_add(uint64_t x)
{
    digest = (digest ^ x) * 1099511628211ULL;
}

static void digest_state(uint64_t event)
{
    unsigned int c, i;

    harness_peek_begin();
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        struct vmx_vcpu *vmx;

        digest_add(0x1000000 + c);
        if ( harness_cpu_freed(c) || !harness_list(c)->next )
            continue;
        list_for_each_entry ( vmx, harness_list(c),
                              pi_blocking.list )
            digest_add(container_of(vmx, struct vcpu, arch.hvm.vmx)->vcpu_id);
    }
    for ( i = 0; i < nr_vcpus; i++ )
    {
        const struct pi_desc *d = &hv[i]->v.arch.hvm.vmx.pi_desc;

        digest_add(d->control);
        digest_add(hv[i]->v.processor);
    }
    harness_peek_end();
    if ( digest_file )
        fprintf(digest_file, "%" PRIu64 " %016" PRIx64 "\n", event, digest);
}

struct replay_cost {
    uint64_t *walk, *block;
    unsigned int *walk_len;     /* the list's length when walk[i] began */
    size_t nwalk, nblock;
};



/*
 * An add above the limit (single-threaded, so nothing moved since the
 * block looked at the lists) is allowed in two cases only, which the docs
 * give: the vCPU's pool has no other online pCPU, or the block looked at
 * other lists of its pool and every one of them was full.  It is counted
 * under its case; anything else is a violation.
 */
static _Atomic uint64_t st_over_alone, st_over_full;

/*
 * The lists of its pool other than its own that the last spill search from
 * each pCPU looked at (forgotten when the pCPU goes offline: its rotor
 * starts again when it comes back).
 */
static cpumask_t last_looked[NR_CPUS];

static void looked_at(unsigned int own, cpumask_t *looked)
{
    unsigned int c;

    cpumask_clear(looked);
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( c != own && cpu_online(c) && in_pool(c) &&
             ((harness_seen[c / 64] >> (c % 64)) & 1) )
            cpumask_set_cpu(c, looked);
}

/*
 * Where an add above the limit searched (every list it looked at full):
 * the search must not have been wasted.  Each pass looks at up to
 * harness_spill_probes() lists, of the online pCPUs of the pool in the
 * pCPU's socket, then of the pool: fewer than that were probes spent on
 * pCPUs it skips.  And a search looks on from where the last one from the
 * same pCPU stopped: the very same lists again, while a list of the pool
 * it did not look at had room, is a rotor that did not move.
 */
static void judge_search(unsigned int own, const cpumask_t *looked)
{
    const cpumask_t *socket = per_cpu(cpu_core_mask, own);
    unsigned int c, probes = harness_spill_probes();
    unsigned int s1 = 0, s2 = 0, n1 = 0, n2 = 0, room = ~0u;

    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        if ( c == own || !cpu_online(c) || !in_pool(c) )
            continue;
        s2++;
        s1 += cpumask_test_cpu(c, socket);
        if ( !cpumask_test_cpu(c, looked) )
        {
            if ( room == ~0u && count_list(c) < harness_limit_of(c) )
                room = c;
            continue;
        }
        n2++;
        n1 += cpumask_test_cpu(c, socket);
    }
    if ( n1 < (s1 < probes ? s1 : probes) || n2 < (s2 < probes ? s2 : probes) )
        violation("add above the limit, the search looked at fewer lists "
                  "than it probes", own, n2);
    else if ( room != ~0u &&
              !memcmp(looked, &last_looked[own], sizeof(*looked)) )
        violation("add above the limit, the search looked at the same lists "
                  "as the last from its pCPU, another had room", own, room);
}

static void judge_over_limit(const struct vcpu *v, unsigned int lc,
                             const cpumask_t *seen)
{
    unsigned int c, own = v->processor, looked = 0;

    if ( lc != own )
    {
        violation("add above the limit to another pCPU's list", v->vcpu_id,
                  lc);
        return;
    }
    if ( !pool_online(own) )
    {
        st_over_alone++;
        return;
    }
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        if ( c == own || !cpu_online(c) || !in_pool(c) ||
             !((harness_seen[c / 64] >> (c % 64)) & 1) )
            continue;
        looked++;
        if ( count_list(c) < harness_limit_of(c) )
        {
            violation("add above the limit, a list it looked at had room",
                      v->vcpu_id, c);
            return;
        }
    }
    if ( !looked )
        violation("add above the limit, no other list of the pool looked at",
                  v->vcpu_id, own);
    else
    {
        judge_search(own, seen);
        st_over_full++;
    }
}

unsigned int preempt_every;

/* Run every woken vCPU on its pCPU until it halts again. */
static void replay_run_queue(struct replay_cost *rc)
{
    static unsigned int runs;

    unsigned int c;

    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( !cpu_online(c) )
            cpumask_clear(&last_looked[c]);
    while ( runq_head != runq_tail )
    {
        struct harness_vcpu *h = runq[runq_head++ % MAX_VCPUS];
        struct vcpu *v = &h->v;
        cpumask_t looked;
        uint64_t t0, t1;
        int lc;

        harness_cpu = v->processor;
        context_switch_in(v);
        guest_runs(v);
        if ( preempt_every && ++runs % preempt_every == 0 )
        {
            /* preempted, a device posts (SN set: PIR only), runs again */
            deschedule(v);
            post_interrupt(v);
            context_switch_in(v);
            guest_runs(v);
        }
        __atomic_fetch_or(&v->pause_flags, 1UL << _VPF_blocked,
                          __ATOMIC_SEQ_CST);
        st_blocks++;
        memset(harness_seen, 0, sizeof(harness_seen));
        harness_seen_on = true;
        blocking_vcpu = v;
        t0 = rdtsc_ordered();
        harness_block_hook(v);
        t1 = rdtsc_ordered();
        blocking_vcpu = NULL;
        harness_seen_on = false;
        rc->block[rc->nblock++] = t1 - t0;
        looked_at(v->processor, &looked);
        lc = list_cpu_of(v);
        if ( lc < 0 )
            violation("blocked vCPU on no list", v->vcpu_id, 0);
        else if ( limit_off && (unsigned int)lc != v->processor )
            violation("the bound off, but a vCPU went on another pCPU's list",
                      v->vcpu_id, lc);
        else if ( harness_limit_of(lc) &&
                  count_list(lc) > harness_limit_of(lc) )
            judge_over_limit(v, lc, &looked);
        if ( !cpumask_empty(&looked) )
            last_looked[v->processor] = looked;
        if ( lc >= 0 && !tb_init_done )
        {
            /* with tracing off, learn from the lists themselves */
            unsigned int n = count_list(lc);

            st_adds++;
            if ( (unsigned int)lc != v->processor )
                st_spilled++;
            if ( harness_limit_of(lc) && n > harness_limit_of(lc) )
            {
                st_over_limit++;
                over_excused[lc] = true;
            }
            note_max(&st_max_len, n);
        }
        if ( sync_pir_to_irr(v) )
            vcpu_unblock(v);    /* as block() */
        harness_cpu = ~0u;
    }
}

/* Handle the wakeup interrupts raised outside the bursts (the fixup's). */
static void replay_pending(void)
{
    unsigned int c;

    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( __atomic_exchange_n(&irq_pending[c], 0, __ATOMIC_SEQ_CST) &&
             cpu_online(c) )
        {
            harness_cpu = c;
            st_walks++;
            irq_enter(c);
            wakeup_walk();
            irq_exit(c);
            harness_cpu = ~0u;
        }
}

/*
 * --race-fixup: pCPU x's CPU-dead fixup runs exactly where it hurts most,
 * between a vCPU's lockless read of its list's lock pointer and its taking
 * that lock (H2).  The replay disables x, wakes a vCPU on x's list as a
 * timer would, and runs the fixup when that vCPU's unblock is about to
 * lock x's list.  x's per-CPU data is freed at the end of the event (Xen
 * frees it after an RCU grace period).
 */
static unsigned int race_cpu = ~0u;

static void race_fixup(spinlock_t *l)
{
    struct cpu_ctx ctx;

    (void)l;
    harness_preempt_lock = NULL;
    other_cpu_begin(&ctx);
    cpu_dead(race_cpu, false);
    other_cpu_end(&ctx);
}

/*
 * --race-limit: whenever a PI hook assignment or deassignment (--hooks) is
 * about to take the lock under which the limit is computed, a pCPU first
 * goes offline or comes online, its CPU-dead fixup or CPU_ONLINE notifier
 * recomputing the limit on another pCPU.  The limit must still be the
 * formula's for the pCPUs online afterwards.
 */
static uint64_t race_rng = 0x5eed;

static void race_limit(spinlock_t *l)
{
    struct cpu_ctx ctx;
    unsigned int x = 1 + rng_next(&race_rng) % (nr_cpu_ids - 1);

    harness_preempt_lock = NULL;
    other_cpu_begin(&ctx);
    if ( may_offline(x) )
        cpu_offline(x, &race_rng);
    else if ( !cpu_online(x) )
        cpu_up(x, true);
    other_cpu_end(&ctx);
    st_races++;
    harness_preempt_lock = l;
}

static void replay_offline(const struct scenario *s, unsigned int x,
                           uint64_t *rng, struct replay_cost *rc)
{
    unsigned int i;

    if ( !s->race_fixup )
    {
        cpu_offline(x, rng);
        return;
    }
    /*
     * CPU_DOWN_PREPARE takes x out of its pool, which moves x's entries to
     * the pool's other lists; a vCPU still running on x then blocks onto
     * x's list before x goes down, as one can in Xen.
     */
    cpu_down_prepare(x);
    for ( i = 0; i < nr_vcpus; i++ )
        if ( is_blocked(&hv[i]->v) )
        {
            vcpu_unblock(&hv[i]->v);
            hv[i]->v.processor = x;
            replay_run_queue(rc);
            break;
        }
    cpu_disable(x, rng, false);
    for ( i = 0; i < nr_vcpus; i++ )
        if ( is_blocked(&hv[i]->v) &&
             list_cpu_of(&hv[i]->v) == (int)x )
        {
            vcpu_unblock(&hv[i]->v);
            race_cpu = x;
            harness_preempt_lock = harness_list_lock(x);
            harness_preempt = race_fixup;
            return;
        }
    cpu_dead(x, true);
}

/* After the event: the fixup of a pCPU disabled in it has run. */
static void replay_offline_done(void)
{
    if ( race_cpu == ~0u )
        return;
    if ( harness_preempt_lock )
    {
        harness_preempt_lock = NULL;
        cpu_dead(race_cpu, false);
    }
    else
        st_races++;
    harness_cpu_free(race_cpu);
    race_cpu = ~0u;
}

static unsigned int fixup_entries;

/* The limit of the lists of the domain's cpupool (0: none, or no pCPU). */
static unsigned int pool_limit(void)
{
    unsigned int c;

    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( cpu_online(c) && in_pool(c) )
            return harness_limit_of(c);
    return 0;
}

static int replay(const struct scenario *s, struct replay_cost *rc)
{
    unsigned int events = s->events, burst_max = s->burst;
    unsigned int hotplug_every = s->hotplug, s3_every = s->s3;
    unsigned int hooks_every = s->hooks;
    uint64_t rng = s->seed, e;
    unsigned int i;

    rc->walk = calloc(events * 8 + 16, sizeof(uint64_t));
    rc->walk_len = calloc(events * 8 + 16, sizeof(unsigned int));
    rc->block = calloc(events * 8 + nr_vcpus * 2 + 16, sizeof(uint64_t));
    rc->nwalk = rc->nblock = 0;

    /* boot: every vCPU runs once and halts */
    for ( i = 0; i < nr_vcpus; i++ )
        runq[runq_tail++ % MAX_VCPUS] = hv[i];
    replay_run_queue(rc);
    digest_state(0);
    /*
     * --fixup-bench: the pCPU holding the vCPUs goes down, its pool left as
     * it is (as in S3): the fixup moves its whole list.
     */
    if ( s->fixup_bench )
    {
        fixup_entries = count_list(pool_first);
        cpu_disable(pool_first, &rng, false);
        cpu_dead(pool_first, true);
        replay_pending();
        replay_run_queue(rc);
    }

    for ( e = 1; e <= events; e++ )
    {
        unsigned int n = 1 + rng_next(&rng) % burst_max, k;
        int cpus[8];

        if ( hotplug_every && e % hotplug_every == 0 )
        {
            /* take a pCPU other than 0 offline, or bring one back */
            unsigned int x = 1 + rng_next(&rng) % (nr_cpu_ids - 1);

            if ( may_offline(x) )
                replay_offline(s, x, &rng, rc);
            else if ( !cpu_online(x) )
                cpu_up(x, true);
            replay_pending();
        }
        if ( s->pool_moves && rng_next(&rng) % s->pool_moves == 0 )
        {
            pool_change(&rng);
            replay_pending();
        }
        if ( s->up_cancel && e % s->up_cancel == 0 )
        {
            /* an offline pCPU other than 0 fails to come up */
            unsigned int x = 1 + rng_next(&rng) % (nr_cpu_ids - 1);

            if ( !cpu_online(x) )
                cpu_up_canceled(x);
        }
        if ( hooks_every && e % hooks_every == 0 )
        {
            if ( s->race_limit )
            {
                harness_preempt = race_limit;
                harness_preempt_lock = harness_limit_lock();
            }
            hooks_toggle();
            harness_preempt_lock = NULL;
            replay_pending();
        }
        if ( s3_every && e % s3_every == 0 )
        {
            suspend_resume(&rng);
            replay_pending();
        }
        if ( s->timer && rng_next(&rng) % s->timer == 0 )
            vcpu_unblock(&hv[rng_next(&rng) % nr_vcpus]->v);
        if ( hotplug_every && rng_next(&rng) % 8 == 0 )
        {
            /* the scheduler moves a halted vCPU: its list stays */
            struct vcpu *v = &hv[rng_next(&rng) % nr_vcpus]->v;

            v->processor = pick_online(&rng);
        }

        /* a burst of NIC interrupts, each to one queue's vCPU */
        for ( k = 0; k < n; k++ )
            cpus[k] = post_interrupt(&hv[rng_next(&rng) % nr_vcpus]->v);
        for ( k = 0; k < n; k++ )
        {
            unsigned int j;
            uint64_t t0, t1;

            if ( cpus[k] < 0 )
                continue;
            for ( j = 0; j < k; j++ )
                if ( cpus[j] == cpus[k] )
                    break;
            if ( j < k )
                continue;       /* the APIC merged it with an earlier one */
            harness_cpu = cpus[k];
            st_walks++;
            /*
             * pi.c's own count (one line the walk reads anyway), before
             * any eviction: the walk is timed as it was.
             */
            rc->walk_len[rc->nwalk] = harness_list_len(cpus[k]);
            irq_enter(cpus[k]);
            if ( cold_walks )
                evict_walk_lines(cpus[k]);
            t0 = rdtsc_ordered();
            wakeup_walk();
            t1 = rdtsc_ordered();
            irq_exit(cpus[k]);
            rc->walk[rc->nwalk++] = t1 - t0;
            harness_cpu = ~0u;
        }
        replay_run_queue(rc);
        replay_offline_done();
        digest_state(e);
        check_invariants(false);
    }
    check_invariants(true);
    check_debug_key();
    return 0;
}


/*
 * The walks grouped by the length of the list they walked, as a JSON array
 * of [length, walks, median cycles], for the per-entry cost (bench.sh fits
 * a line through them).  Empty for the reference build, which keeps no
 * count.
 */
static int cmp_len_cycles(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static char *walks_by_len(const struct replay_cost *rc)
{
    uint64_t *pairs = calloc(rc->nwalk * 2 + 2, sizeof(uint64_t));
    size_t i, j, used = 0, room = 64 + rc->nwalk * 48;
    char *out = malloc(room);

    if ( !pairs || !out )
        abort();
    for ( i = 0; i < rc->nwalk; i++ )
    {
        pairs[2 * i] = rc->walk_len[i];
        pairs[2 * i + 1] = rc->walk[i];
    }
    qsort(pairs, rc->nwalk, 2 * sizeof(uint64_t), cmp_len_cycles);
    used += snprintf(out + used, room - used, "[");
    for ( i = 0; i < rc->nwalk; i = j )
    {
        for ( j = i; j < rc->nwalk && pairs[2 * j] == pairs[2 * i]; j++ )
            ;
        /* nearest-rank median of walks i..j-1, sorted by cycles */
        used += snprintf(out + used, room - used,
                         "%s[%" PRIu64 ", %zu, %" PRIu64 "]", i ? ", " : "",
                         pairs[2 * i], j - i,
                         pairs[2 * (i + (j - i + 1) / 2 - 1) + 1]);
    }
    snprintf(out + used, room - used, "]");
    free(pairs);
    return out;
}

void run_replay(const struct scenario *s)
{
    struct replay_cost rc;
    char *by_len;
    uint64_t sum = 0;
    size_t i;
    cpu_set_t cs;

    /* Stay on one CPU: no migration between measured walks. */
    CPU_ZERO(&cs);
    CPU_SET(sched_getcpu(), &cs);
    sched_setaffinity(0, sizeof(cs), &cs);

    replay(s, &rc);
    trace_close();
    by_len = walks_by_len(&rc);
    qsort(rc.walk, rc.nwalk, sizeof(uint64_t), cmp_u64);
    qsort(rc.block, rc.nblock, sizeof(uint64_t), cmp_u64);
    for ( i = 0; i < rc.nwalk; i++ )
        sum += rc.walk[i];
    printf("{\"scenario\": \"%s\", \"mode\": \"replay\", "
           "\"pcpus\": %u, \"online_pcpus\": %u, \"vcpus\": %u, "
           "\"limit\": %u, "
           "\"max_len\": %" PRIu64 ", \"adds\": %" PRIu64 ", "
           "\"spilled\": %" PRIu64 ", \"over_limit\": %" PRIu64 ", "
           "\"over_limit_pool_full\": %" PRIu64 ", "
           "\"over_limit_pool_alone\": %" PRIu64 ", "
           "\"moves\": %" PRIu64 ", \"walks\": %zu, "
           "\"p50_walk_cycles\": %" PRIu64 ", "
           "\"p99_walk_cycles\": %" PRIu64 ", "
           "\"max_walk_cycles\": %" PRIu64 ", "
           "\"mean_walk_cycles\": %" PRIu64 ", "
           "\"walks_by_len\": %s, "
           "\"p50_block_cycles\": %" PRIu64 ", "
           "\"p99_block_cycles\": %" PRIu64 ", "
           "\"woken\": %" PRIu64 ", \"posted\": %" PRIu64 ", "
           "\"lost_wakeups\": %" PRIu64 ", "
           "\"invariant_violations\": %" PRIu64 ", "
           "\"running_ndst_stale\": %" PRIu64 ", \"races\": %" PRIu64 ", "
           "\"pool_changes\": %" PRIu64 ", "
           "\"fixup_entries\": %u, \"fixup_cycles\": %" PRIu64 ", "
           "\"trace\": %s%s%s, \"trace_records\": %" PRIu64 ", "
           "\"digest\": \"%016" PRIx64 "\"}\n",
           s->name, s->pcpus, num_online_cpus(), s->vcpus,
           pool_limit(),
           (uint64_t)st_max_len, (uint64_t)st_adds,
           (uint64_t)st_spilled, (uint64_t)st_over_limit,
           (uint64_t)st_over_full, (uint64_t)st_over_alone,
           (uint64_t)st_moves, rc.nwalk,
           pct(rc.walk, rc.nwalk, 50), pct(rc.walk, rc.nwalk, 99),
           rc.nwalk ? rc.walk[rc.nwalk - 1] : 0,
           rc.nwalk ? sum / rc.nwalk : 0, by_len,
           pct(rc.block, rc.nblock, 50), pct(rc.block, rc.nblock, 99),
           (uint64_t)st_woken, (uint64_t)st_posted,
           (uint64_t)st_lost, (uint64_t)st_violations,
           (uint64_t)st_running_ndst_stale, (uint64_t)st_races,
           (uint64_t)st_pool_changes, fixup_entries,
           s->fixup_bench ? fixup_cycles : 0,
           s->trace ? "\"" : "", s->trace ? s->trace : "null", s->trace ? "\"" : "",
           trace_records, digest);
    free(rc.walk);
    free(rc.walk_len);
    free(by_len);
    free(rc.block);
}

void run_stress(const struct scenario *s)
{
    pthread_t irq[NR_CPUS], dev[16], timer;
    uint64_t rng = s->seed + 7, checks = 0, hotplugs = 0;
    struct timespec t0, now;
    unsigned int i;

    pthread_rwlockattr_t ra;

    threaded = true;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setkind_np(&ra,
        PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&stop_machine, &ra);
    for ( i = 0; i < s->pcpus; i++ )
        pthread_create(&irq[i], NULL, irq_thread, (void *)(uintptr_t)i);
    for ( i = 0; i < s->vcpus; i++ )
        pthread_create(&hv[i]->thread, NULL, vcpu_thread, hv[i]);
    for ( i = 0; i < s->devices && i < 16; i++ )
        pthread_create(&dev[i], NULL, device_thread,
                       (void *)(uintptr_t)(i + 1));
    pthread_create(&timer, NULL, timer_thread, NULL);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        struct timespec ts = { 0, 500000 };
        unsigned int x;

        nanosleep(&ts, NULL);
        if ( s->hotplug && rng_next(&rng) % s->hotplug == 0 )
        {
            x = 1 + rng_next(&rng) % (s->pcpus - 1);
            if ( may_offline(x) )
                cpu_offline(x, &rng);
            else if ( !cpu_online(x) )
                cpu_up(x, true);
            hotplugs++;
        }
        if ( s->pool_moves && rng_next(&rng) % s->pool_moves == 0 )
            pool_change(&rng);
        if ( s->hooks && rng_next(&rng) % s->hooks == 0 )
            hooks_toggle();
        pthread_rwlock_wrlock(&stop_machine);
        check_invariants(false);
        pthread_rwlock_unlock(&stop_machine);
        checks++;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ( now.tv_sec - t0.tv_sec < (time_t)s->seconds );

    /* Quiesce: no more interrupts, let the pending ones be handled. */
    stop_devices = true;
    for ( i = 0; i < s->devices && i < 16; i++ )
        pthread_join(dev[i], NULL);
    pthread_join(timer, NULL);
    for ( ; ; )
    {
        bool busy = false;

        for ( i = 0; i < s->pcpus; i++ )
            busy |= irq_pending[i] && cpu_online(i);
        if ( !busy )
            break;
        sched_yield();
    }
    pthread_rwlock_wrlock(&stop_machine);
    /* IRQ threads are between handlers: nothing pending is in flight */
    check_invariants(true);
    check_debug_key();
    checks++;
    stop_all = true;
    pthread_rwlock_unlock(&stop_machine);
    for ( i = 0; i < s->vcpus; i++ )
    {
        pthread_mutex_lock(&hv[i]->wmtx);
        pthread_cond_broadcast(&hv[i]->wcond);
        pthread_mutex_unlock(&hv[i]->wmtx);
    }
    for ( i = 0; i < s->vcpus; i++ )
        pthread_join(hv[i]->thread, NULL);
    for ( i = 0; i < s->pcpus; i++ )
    {
        pthread_mutex_lock(&irq_mtx[i]);
        pthread_cond_broadcast(&irq_cond[i]);
        pthread_mutex_unlock(&irq_mtx[i]);
        pthread_join(irq[i], NULL);
    }
    trace_close();
    printf("{\"scenario\": \"%s\", \"mode\": \"stress\", "
           "\"pcpus\": %u, \"online_pcpus\": %u, \"vcpus\": %u, "
           "\"limit\": %u, "
           "\"seconds\": %u, \"checks\": %" PRIu64 ", "
           "\"hotplugs\": %" PRIu64 ", "
           "\"max_len\": %" PRIu64 ", \"adds\": %" PRIu64 ", "
           "\"spilled\": %" PRIu64 ", \"over_limit\": %" PRIu64 ", "
           "\"moves\": %" PRIu64 ", \"walks\": %" PRIu64 ", "
           "\"blocks\": %" PRIu64 ", \"woken\": %" PRIu64 ", "
           "\"posted\": %" PRIu64 ", \"notified\": %" PRIu64 ", "
           "\"dropped\": %" PRIu64 ", "
           "\"lost_wakeups\": %" PRIu64 ", "
           "\"invariant_violations\": %" PRIu64 ", "
           "\"running_ndst_stale\": %" PRIu64 ", "
           "\"trace\": %s%s%s, \"trace_records\": %" PRIu64 "}\n",
           s->name, s->pcpus, num_online_cpus(), s->vcpus,
           pool_limit(), s->seconds, checks,
           hotplugs, (uint64_t)st_max_len, (uint64_t)st_adds,
           (uint64_t)st_spilled, (uint64_t)st_over_limit,
           (uint64_t)st_moves, (uint64_t)st_walks, (uint64_t)st_blocks,
           (uint64_t)st_woken, (uint64_t)st_posted,
           (uint64_t)st_notified, (uint64_t)st_dropped,
           (uint64_t)st_lost, (uint64_t)st_violations,
           (uint64_t)st_running_ndst_stale,
           s->trace ? "\"" : "", s->trace ? s->trace : "null", s->trace ? "\"" : "",
           trace_records);
}
