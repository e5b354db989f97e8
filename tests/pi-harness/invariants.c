/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the invariants, checked with everything else stopped (and so
 * outside every critical section of pi.c, the fixup's included).  They are
 * the harness's own: with -DNDEBUG pi.c's ASSERT()s are gone, these are not.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>

/* statistics */
_Atomic uint64_t st_adds, st_spilled, st_over_limit, st_moves,
    st_walks, st_woken, st_posted, st_notified, st_dropped, st_blocks,
    st_violations, st_lost, st_max_len, st_running_ndst_stale,
    st_trace_mismatch, st_races, st_pool_changes;

_Atomic bool over_excused[NR_CPUS];
static unsigned int limit_seen[NR_CPUS];

/*
 * After anything that may recompute the limits: a list whose limit went
 * down is left as long as it is (see the docs) until it is back below.
 */
void limits_changed(void)
{
    unsigned int c;

    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        unsigned int limit = cpu_online(c) ? harness_limit_of(c) : 0;

        if ( limit < limit_seen[c] )
            over_excused[c] = true;
        limit_seen[c] = limit;
    }
}
bool limit_auto, limit_off;

static keyhandler_fn_t *key_fn;
static unsigned char key_char;
static char console[64 * NR_CPUS + 256];
static size_t console_used;

void register_keyhandler(unsigned char key, keyhandler_fn_t *fn,
                         const char *desc, bool diagnostic)
{
    (void)desc;
    (void)diagnostic;
    HARNESS_CHECK(!key_fn);
    key_fn = fn;
    key_char = key;
}

void printk(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(console + console_used, sizeof(console) - console_used,
                  fmt, ap);
    va_end(ap);
    if ( n > 0 )
        console_used += n;
    if ( console_used >= sizeof(console) )
        console_used = sizeof(console) - 1;
}

/*
 * The debug key prints a header, then one line per online pCPU: its
 * list's length, high-water mark and limit.  Everything else is stopped.
 */
void check_debug_key(void)
{
    unsigned int c, cpu, len, max, limit, lines = 0;
    const char *p;

#ifdef PI_REF
    return;     /* the code before the series has no such key */
#endif
    if ( !key_fn )
    {
        violation("no debug key for the lists' lengths", 0, 0);
        return;
    }
    console_used = 0;
    console[0] = 0;
    key_fn(key_char);
    p = strchr(console, '\n');
    if ( strncmp(console, "'b' pressed -> dumping PI blocking lists\n",
                 p ? p - console + 1 : 0) || !p )
    {
        violation("debug key: no header", 0, 0);
        return;
    }
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        if ( !cpu_online(c) )
            continue;
        if ( sscanf(p + 1, "CPU%u: %u blocked vCPUs, at most %u, limit %u",
                    &cpu, &len, &max, &limit) != 4 || cpu != c ||
             len != count_list(c) || max != harness_list_max(c) ||
             limit != harness_limit_of(c) )
            violation("debug key: pCPU line wrong or missing", c, lines);
        else
            lines++;
        if ( !(p = strchr(p + 1, '\n')) )
            break;
    }
    if ( lines != (unsigned int)num_online_cpus() )
        violation("debug key: lines for online pCPUs", lines,
                  num_online_cpus());
}

/*
 * max(12, ceil(B / P) + 4) for pCPU @c, B the vCPUs of the domains of its
 * cpupool that have the PI hooks, P the pool's online pCPUs
 * (docs/misc/vmx-pi-blocking.pandoc).
 */
static unsigned int documented_limit(unsigned int c)
{
    unsigned int b = pool_blockable_vcpus(c), p = pool_online_cpus(c), l;

    l = (b + (p ?: 1) - 1) / (p ?: 1) + 4;
    return l > 12 ? l : 12;
}

void violation(const char *what, unsigned int a, unsigned int b)
{
    if ( st_violations++ < 20 )
        fprintf(stderr, "invariant: %s (%u, %u)\n", what, a, b);
}

void harness_check_failed(const char *what, const char *file, int line)
{
    fprintf(stderr, "harness: %s:%d: check failed: %s\n", file, line, what);
    abort();
}

void note_max(_Atomic uint64_t *m, uint64_t v)
{
    uint64_t o = *m;

    while ( v > o && !__atomic_compare_exchange_n(m, &o, v, false,
                                                  __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST) )
        ;
}


/* Which pCPU's list holds @v, or -1 (callers hold whatever makes it stable). */
int list_cpu_of(const struct vcpu *v)
{
    spinlock_t *l = v->arch.hvm.vmx.pi_blocking.lock;
    unsigned int c;

    if ( !l )
        return -1;
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( l == harness_list_lock(c) )
            return c;
    violation("lock pointer names no list", v->vcpu_id, 0);
    return -2;
}

unsigned int count_list(unsigned int c)
{
    struct list_head *p;
    unsigned int n = 0;

    harness_peek_begin();
    /* A per-CPU area nobody initialised holds a zeroed list head. */
    if ( !harness_cpu_freed(c) && harness_list(c)->next )
        list_for_each ( p, harness_list(c) )
            n++;
    harness_peek_end();
    return n;
}

/* ---- invariants, with everything else stopped ---- */
void check_invariants(bool final)
{
    static unsigned char seen[MAX_VCPUS];
    unsigned int c, i;

    harness_peek_begin();
    harness_check_freed();
    limits_changed();
    memset(seen, 0, sizeof(seen));
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
#ifndef PI_REF
        unsigned int limit = cpu_online(c) ? harness_limit_of(c) : 0;
#endif
        struct list_head *head = harness_list(c);
        struct vmx_vcpu *vmx;
        unsigned int n = 0;

        /* Freed: nothing there, harness_check_freed() saw to that. */
        if ( harness_cpu_freed(c) || !head->next )
            continue;
        list_for_each_entry ( vmx, head, pi_blocking.list )
        {
            struct vcpu *v = container_of(vmx, struct vcpu, arch.hvm.vmx);

            n++;
            if ( seen[v->vcpu_id]++ )
                violation("vCPU on two lists", v->vcpu_id, c);
            if ( vmx->pi_blocking.lock != harness_list_lock(c) )
                violation("lock pointer is not its list's", v->vcpu_id, c);
            if ( is_blocked(v) && vmx->pi_desc.ndst != ndst_of(c) )
                violation("blocked vCPU's NDST is not its list's pCPU",
                          v->vcpu_id, c);
            if ( is_blocked(v) && vmx->pi_desc.nv != WAKEUP_VECTOR )
                violation("blocked vCPU's NV is not the wakeup vector",
                          v->vcpu_id, c);
            /* H6: notifications suppressed, nothing would wake it */
            if ( is_blocked(v) && pi_test_sn(&vmx->pi_desc) )
                violation("blocked vCPU on a list has SN set", v->vcpu_id, c);
            if ( n > 4 * MAX_VCPUS )
            {
                violation("list loops", c, n);
                break;
            }
        }
        if ( n && !cpu_online(c) )
            violation("offline pCPU has a list", c, n);
#ifndef PI_REF
        if ( n != harness_list_len(c) )
            violation("length counter wrong", c, n);
        if ( harness_list_max(c) < n )
            violation("high-water mark below length", c, n);
        if ( limit && n > limit && !over_excused[c] )
            violation("list above the limit", c, n);
        if ( n <= limit )
            over_excused[c] = false;
        if ( limit_off && limit )
            violation("the bound off, but a list has a limit", c, limit);
#endif
        note_max(&st_max_len, n);
#ifndef PI_REF
        if ( limit_auto && cpu_online(c) && limit != documented_limit(c) )
            violation("limit is not the documented formula", limit,
                      documented_limit(c));
#endif
    }
    for ( i = 0; i < nr_vcpus; i++ )
    {
        struct vcpu *v = &hv[i]->v;
        int lc = list_cpu_of(v);

        if ( is_blocked(v) && lc < 0 )
            violation("blocked vCPU on no list", i, 0);
        /* The bound off keeps upstream's placement, pools or not. */
        if ( lc >= 0 && cpu_online(lc) && harness_limit_of(lc) &&
             !in_pool(lc) && !hv[i]->outside_pool_ok )
            violation("vCPU on the list of a pCPU outside its cpupool", i, lc);
        if ( lc >= 0 && !seen[i] )
            violation("vCPU's lock names a list it is not on", i, lc);
        /*
         * Stranded interrupt: posted (PIR) with no notification pending
         * (ON clear), to a vCPU that nothing will wake.  Only at quiescence:
         * the guest and the IOMMU update PIR and ON in two steps.
         */
        if ( (final || !threaded) && is_blocked(v) &&
             !pi_test_on(&v->arch.hvm.vmx.pi_desc) &&
             v->arch.hvm.vmx.pi_desc.pir[1] )
            violation("stranded interrupt: blocked vCPU has PIR without ON",
                      i, lc);
        if ( is_blocked(v) && pi_test_on(&v->arch.hvm.vmx.pi_desc) &&
             v->arch.hvm.vmx.pi_desc.nv == WAKEUP_VECTOR &&
             (final || lc < 0 || !irq_pending[lc]) )
        {
            st_lost++;
            fprintf(stderr, "lost wakeup: vCPU %u on list %d (final %d, "
                    "control %016" PRIx64 ", pending %u, online %d)\n",
                    i, lc, final, (uint64_t)v->arch.hvm.vmx.pi_desc.control,
                    lc >= 0 ? irq_pending[lc] : 0,
                    lc >= 0 ? cpu_online(lc) : -1);
        }
    }
    harness_peek_end();
}

