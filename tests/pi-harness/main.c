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
 * --seconds S --events N --seed N --trace FILE --digest FILE --xapic.
 * Prints one JSON object.  Exit status 1 when an invariant was broken or a
 * wakeup lost.
 *
 * Built with -DPI_REF, the file under test is instead the same code cut out
 * of the unpatched vmx.c (the base of the series), to show that the patched
 * code with the bound off behaves identically.
 */
#define _GNU_SOURCE
#include "emul.h"

#ifdef PI_REF
#include "ref-pi.c"
static void harness_wakeup(void) { pi_wakeup_interrupt(NULL); }
static void harness_set_limit(const char *s) { (void)s; }
static unsigned int harness_limit(void) { return 0; }
static void harness_account(struct domain *d) { (void)d; }
#else
#include "pi.c"
uint8_t posted_intr_vector;
static void harness_wakeup(void) { vmx_pi_wakeup(); }
static void harness_set_limit(const char *s)
{
    if ( harness_param_fn(s) )
    {
        fprintf(stderr, "bad %s=%s\n", harness_param_name, s);
        exit(2);
    }
}
static unsigned int harness_limit(void) { return read_atomic(&pi_list_limit); }
static void harness_account(struct domain *d) { vmx_pi_limit_account(d, true); }
#endif

#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

/* ---- the environment emul.h declares ---- */
unsigned int nr_cpu_ids;
__thread unsigned int harness_cpu = ~0u;
cpumask_t cpu_online_map;
DEFINE_PER_CPU(cpumask_t *, cpu_core_mask);
DEFINE_PER_CPU(unsigned int, irq_count);
bool x2apic_enabled = true;
bool iommu_intpost = true;
unsigned int harness_apic_id[NR_CPUS];
int tb_init_done;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static pthread_mutex_t rng_lock = PTHREAD_MUTEX_INITIALIZER;
static bool threaded;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

unsigned int get_random(void)
{
    unsigned int r;

    if ( threaded )
        pthread_mutex_lock(&rng_lock);
    r = rng_next(&rng_state) >> 32;
    if ( threaded )
        pthread_mutex_unlock(&rng_lock);
    return r;
}

/* ---- model ---- */
#define WAKEUP_VECTOR 0xf1
#define POSTED_VECTOR 0xf2
#define MAX_VCPUS 256

struct harness_vcpu {
    struct vcpu v;
    pthread_t thread;
    pthread_mutex_t sched;      /* held by the vCPU's own steps, migration */
    pthread_mutex_t wmtx;
    pthread_cond_t wcond;
    uint64_t rng;
    unsigned int loaded_on;     /* pCPU holding its context, or ~0u */
};

static struct domain dom = { .domain_id = 1 };
/* One page each, as Xen's alloc_vcpu_struct() gives them. */
static struct harness_vcpu *hv[MAX_VCPUS];
static unsigned int nr_vcpus;
static cpumask_t socket_mask[NR_CPUS];
static struct vcpu *_Atomic curr_vcpu[NR_CPUS]; /* context loaded (lazy) */

/* Stop-machine: pi.c runs in read sections, CPU online/offline and the
 * invariant checks in write sections. */
static pthread_rwlock_t stop_machine = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t exec_lock[NR_CPUS];
static pthread_mutex_t irq_gate[NR_CPUS];
static _Atomic unsigned int irq_pending[NR_CPUS];
static pthread_mutex_t irq_mtx[NR_CPUS];
static pthread_cond_t irq_cond[NR_CPUS];

/* statistics */
static _Atomic uint64_t st_adds, st_spilled, st_over_limit, st_moves,
    st_walks, st_woken, st_posted, st_notified, st_dropped, st_blocks,
    st_violations, st_lost, st_max_len, st_running_ndst_stale,
    st_trace_mismatch;
static _Atomic bool stop_all;
/*
 * A list may be longer than the limit in force when pi.c said so itself (an
 * add or move above the limit: every list it looked at was full) or when
 * the limit went down since (a pCPU came up): then until it is back below.
 */
static _Atomic bool over_excused[NR_CPUS];
static unsigned int limit_seen;

static void violation(const char *what, unsigned int a, unsigned int b)
{
    if ( st_violations++ < 20 )
        fprintf(stderr, "invariant: %s (%u, %u)\n", what, a, b);
}

static void note_max(_Atomic uint64_t *m, uint64_t v)
{
    uint64_t o = *m;

    while ( v > o && !__atomic_compare_exchange_n(m, &o, v, false,
                                                  __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST) )
        ;
}

static uint32_t ndst_of(unsigned int cpu)
{
    unsigned int dest = harness_apic_id[cpu];

    return x2apic_enabled ? dest : MASK_INSR(dest, PI_xAPIC_NDST_MASK);
}

static unsigned int cpu_of_ndst(uint32_t ndst)
{
    unsigned int c;

    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( ndst_of(c) == ndst )
            return c;
    return ~0u;
}

/* ---- tracing: per-pCPU buffers flushed as xentrace windows ---- */
#define TBUF_WINDOW 32768
struct tbuf {
    pthread_mutex_t lock;
    unsigned char data[TBUF_WINDOW];
    size_t used;
};
static struct tbuf tbuf[NR_CPUS];
static FILE *trace_file;
static pthread_mutex_t trace_file_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t trace_bytes, trace_records;

static void tbuf_flush(unsigned int cpu)
{
    struct tbuf *b = &tbuf[cpu];
    uint32_t hdr[3] = { TRC_TRACE_CPU_CHANGE | (2u << TRACE_EXTRA_SHIFT),
                        cpu, b->used };

    if ( !b->used )
        return;
    pthread_mutex_lock(&trace_file_lock);
    if ( fwrite(hdr, sizeof(hdr), 1, trace_file) != 1 ||
         fwrite(b->data, b->used, 1, trace_file) != 1 )
    {
        perror("trace");
        exit(2);
    }
    trace_bytes += sizeof(hdr) + b->used;
    pthread_mutex_unlock(&trace_file_lock);
    b->used = 0;
}

static unsigned int count_list(unsigned int c);

/* What the harness itself learns from the records pi.c emits. */
static void trace_observe(uint32_t event, const uint32_t *d)
{
    switch ( event )
    {
    case TRC_HW_IRQ_PI_LIST_ADD:
        /* single-threaded, the list cannot change meanwhile: cross-check */
        if ( !threaded && d[2] != count_list(d[1] & 0xffff) )
            st_trace_mismatch++;
        st_adds++;
        if ( (d[1] >> 16) != (d[1] & 0xffff) )
            st_spilled++;
        if ( d[3] && d[2] > d[3] )
        {
            st_over_limit++;
            over_excused[d[1] & 0xffff] = true;
        }
        note_max(&st_max_len, d[2]);
        break;
    case TRC_HW_IRQ_PI_LIST_MOVE:
        st_moves++;
        if ( harness_limit() && d[3] > harness_limit() )
            over_excused[d[2]] = true;
        note_max(&st_max_len, d[3]);
        break;
    }
}

void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *data)
{
    unsigned int cpu = smp_processor_id(), n = extra / 4;
    struct tbuf *b = &tbuf[cpu];
    uint32_t hdr = event | (n << TRACE_EXTRA_SHIFT) | (cycles ? 1u << 31 : 0);
    size_t size = 4 + (cycles ? 8 : 0) + extra;
    uint64_t tsc;

    assert(extra % 4 == 0 && n <= 7);
    trace_observe(event, data);
    if ( !trace_file )
        return;

    pthread_mutex_lock(&b->lock);
    if ( b->used + size > TBUF_WINDOW )
        tbuf_flush(cpu);
    tsc = __rdtsc();    /* under the lock: ordered within this pCPU */
    memcpy(b->data + b->used, &hdr, 4);
    b->used += 4;
    if ( cycles )
    {
        memcpy(b->data + b->used, &tsc, 8);
        b->used += 8;
    }
    memcpy(b->data + b->used, data, extra);
    b->used += extra;
    pthread_mutex_unlock(&b->lock);
    __atomic_fetch_add(&trace_records, 1, __ATOMIC_RELAXED);
}

static void trace_close(void)
{
    unsigned int c;

    if ( !trace_file )
        return;
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        pthread_mutex_lock(&tbuf[c].lock);
        tbuf_flush(c);
        pthread_mutex_unlock(&tbuf[c].lock);
    }
    fclose(trace_file);
    trace_file = NULL;
}

/* ---- the scheduler's side ---- */
static struct harness_vcpu *runq[MAX_VCPUS];   /* replay only */
static unsigned int runq_head, runq_tail;

void vcpu_unblock(struct vcpu *v)
{
    struct harness_vcpu *h = v->h;

    if ( !(__atomic_fetch_and(&v->pause_flags, ~(1UL << _VPF_blocked),
                              __ATOMIC_SEQ_CST) & (1UL << _VPF_blocked)) )
        return;
    st_woken++;
    if ( threaded )
    {
        pthread_mutex_lock(&h->wmtx);
        pthread_cond_signal(&h->wcond);
        pthread_mutex_unlock(&h->wmtx);
    }
    else
    {
        runq[runq_tail++ % MAX_VCPUS] = h;
    }
}

static bool is_blocked(const struct vcpu *v)
{
    return test_bit(_VPF_blocked, &v->pause_flags);
}

/* Which pCPU's list holds @v, or -1 (callers hold whatever makes it stable). */
static int list_cpu_of(const struct vcpu *v)
{
    spinlock_t *l = v->arch.hvm.vmx.pi_blocking.lock;
    unsigned int c;

    if ( !l )
        return -1;
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( l == &per_cpu(vmx_pi_blocking, c).lock )
            return c;
    violation("lock pointer names no list", v->vcpu_id, 0);
    return -2;
}

/* The hardware: post an interrupt to @v's descriptor, notify if due.
 * Returns the pCPU to raise the wakeup vector on, or -1. */
static int post_interrupt(struct vcpu *v)
{
    struct pi_desc *d = &v->arch.hvm.vmx.pi_desc;
    uint64_t o = d->control, n;
    unsigned int cpu;

    st_posted++;
    __atomic_fetch_or(&d->pir[1], 1, __ATOMIC_SEQ_CST);
    do {
        if ( o & ((1ULL << POSTED_INTR_SN) | (1ULL << POSTED_INTR_ON)) )
            return -1;
        n = o | (1ULL << POSTED_INTR_ON);
    } while ( !__atomic_compare_exchange_n(&d->control, &o, n, false,
                                           __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST) );
    st_notified++;
    if ( ((o >> 16) & 0xff) != WAKEUP_VECTOR )
        return -1;      /* running (or about to): delivered at VM entry */
    cpu = cpu_of_ndst(o >> 32);
    if ( cpu >= nr_cpu_ids )
    {
        violation("NDST names no pCPU", v->vcpu_id, o >> 32);
        return -1;
    }
    if ( !cpu_online(cpu) )
    {
        st_dropped++;   /* an IPI to a dead pCPU goes nowhere */
        return -1;
    }
    return cpu;
}

/* The guest consumes what was posted while it runs. */
static void guest_runs(struct vcpu *v)
{
    struct pi_desc *d = &v->arch.hvm.vmx.pi_desc;

    if ( pi_test_and_clear_on(d) )
        __atomic_store_n(&d->pir[1], 0, __ATOMIC_SEQ_CST);
    /*
     * A running vCPU's notifications must go to its pCPU.  The code before
     * the series can get this wrong when a CPU-dead fixup races with the
     * vCPU resuming: counted for it, an invariant for the patched code.
     */
    if ( d->ndst != ndst_of(v->processor) )
    {
        st_running_ndst_stale++;
#ifndef PI_REF
        violation("running vCPU's NDST is not its pCPU", v->vcpu_id,
                  v->processor);
#endif
    }
}

/*
 * Save the lazily kept context of @prev on pCPU @cpu (exec lock held), as
 * __context_switch() does when another vCPU is loaded.  If @prev's own
 * thread is busy, it is about to load itself elsewhere and does the
 * equivalent (switch_to) itself.
 */
static void save_lazy(unsigned int cpu, struct vcpu *prev)
{
    struct vcpu *p = prev;

    if ( !prev || !__atomic_compare_exchange_n(&curr_vcpu[cpu], &p, NULL,
                                               false, __ATOMIC_SEQ_CST,
                                               __ATOMIC_SEQ_CST) )
        return;
    if ( pthread_mutex_trylock(&prev->h->sched) == 0 )
    {
        if ( prev->h->loaded_on == cpu )
        {
            vmx_pi_switch_from(prev);
            prev->h->loaded_on = ~0u;
        }
        pthread_mutex_unlock(&prev->h->sched);
    }
}

/* Load @v on its pCPU (exec lock held): lazy context switch as Xen's. */
static void context_switch_in(struct vcpu *v)
{
    unsigned int cpu = v->processor, old = v->h->loaded_on;

    if ( old != cpu )
    {
        if ( old < nr_cpu_ids )
        {
            struct vcpu *p = v;

            /* its state is flushed from the other pCPU first */
            __atomic_compare_exchange_n(&curr_vcpu[old], &p, NULL, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
        save_lazy(cpu, curr_vcpu[cpu]);
        vmx_pi_switch_to(v);
        curr_vcpu[cpu] = v;
        v->h->loaded_on = cpu;
    }
    vmx_pi_do_resume(v);
}

/* HLT: Xen's vcpu_block() with the PI hook. */
static void block(struct vcpu *v)
{
    __atomic_fetch_or(&v->pause_flags, 1UL << _VPF_blocked, __ATOMIC_SEQ_CST);
    st_blocks++;
    vmx_vcpu_block(v);
    /*
     * vcpu_block() checks local_events_need_delivery(), which for a VMX
     * vCPU syncs PIR into the IRR (vmx_sync_pir_to_irr(): a locked
     * test-and-clear of ON).
     */
    if ( pi_test_and_clear_on(&v->arch.hvm.vmx.pi_desc) )
        vcpu_unblock(v);
}

/* ---- invariants, with everything else stopped ---- */
static void check_invariants(bool final)
{
    static unsigned char seen[MAX_VCPUS];
    unsigned int c, i, limit = harness_limit();

    memset(seen, 0, sizeof(seen));
    if ( limit < limit_seen )
        for ( c = 0; c < nr_cpu_ids; c++ )
            over_excused[c] = true;
    limit_seen = limit;
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        struct list_head *head = &per_cpu(vmx_pi_blocking, c).list;
        struct vmx_vcpu *vmx;
        unsigned int n = 0;

        if ( !head->next )
            continue;
        list_for_each_entry ( vmx, head, pi_blocking.list )
        {
            struct vcpu *v = container_of(vmx, struct vcpu, arch.hvm.vmx);

            n++;
            if ( seen[v->vcpu_id]++ )
                violation("vCPU on two lists", v->vcpu_id, c);
            if ( vmx->pi_blocking.lock != &per_cpu(vmx_pi_blocking, c).lock )
                violation("lock pointer is not its list's", v->vcpu_id, c);
            if ( is_blocked(v) && vmx->pi_desc.ndst != ndst_of(c) )
                violation("blocked vCPU's NDST is not its list's pCPU",
                          v->vcpu_id, c);
            if ( is_blocked(v) && vmx->pi_desc.nv != WAKEUP_VECTOR )
                violation("blocked vCPU's NV is not the wakeup vector",
                          v->vcpu_id, c);
            if ( n > 4 * MAX_VCPUS )
            {
                violation("list loops", c, n);
                break;
            }
        }
        if ( n && !cpu_online(c) )
            violation("offline pCPU has a list", c, n);
#ifndef PI_REF
        if ( n != per_cpu(vmx_pi_blocking, c).len )
            violation("length counter wrong", c, n);
        if ( per_cpu(vmx_pi_blocking, c).max_len < n )
            violation("high-water mark below length", c, n);
        if ( limit && n > limit && !over_excused[c] )
            violation("list above the limit", c, n);
        if ( n <= limit )
            over_excused[c] = false;
#endif
        note_max(&st_max_len, n);
    }
    for ( i = 0; i < nr_vcpus; i++ )
    {
        struct vcpu *v = &hv[i]->v;
        int lc = list_cpu_of(v);

        if ( is_blocked(v) && lc < 0 )
            violation("blocked vCPU on no list", i, 0);
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
    (void)limit;
}

/* ---- threads ---- */
static void enter_cpu(struct harness_vcpu *h, unsigned int *cpu)
{
    for ( ; ; )
    {
        pthread_mutex_lock(&h->sched);
        *cpu = h->v.processor;
        pthread_mutex_lock(&exec_lock[*cpu]);
        pthread_rwlock_rdlock(&stop_machine);
        /* Nothing runs on a pCPU taken down: wait to be moved off it. */
        if ( cpu_online(*cpu) )
            break;
        pthread_rwlock_unlock(&stop_machine);
        pthread_mutex_unlock(&exec_lock[*cpu]);
        pthread_mutex_unlock(&h->sched);
        sched_yield();
    }
    harness_cpu = *cpu;
}

static void leave_cpu(struct harness_vcpu *h, unsigned int cpu)
{
    harness_cpu = ~0u;
    pthread_rwlock_unlock(&stop_machine);
    pthread_mutex_unlock(&exec_lock[cpu]);
    pthread_mutex_unlock(&h->sched);
}

static void raise_irq(int cpu)
{
    if ( cpu < 0 )
        return;
    pthread_mutex_lock(&irq_mtx[cpu]);
    irq_pending[cpu]++;
    pthread_cond_signal(&irq_cond[cpu]);
    pthread_mutex_unlock(&irq_mtx[cpu]);
}

static unsigned int pick_online(uint64_t *rng)
{
    unsigned int c;

    do
        c = rng_next(rng) % nr_cpu_ids;
    while ( !cpu_online(c) );
    return c;
}

static void *vcpu_thread(void *arg)
{
    struct harness_vcpu *h = arg;
    struct vcpu *v = &h->v;
    unsigned int cpu;

    while ( !stop_all )
    {
        unsigned int r = rng_next(&h->rng) % 100;

        enter_cpu(h, &cpu);
        context_switch_in(v);
        guest_runs(v);
        if ( r < 80 )
        {
            block(v);
            leave_cpu(h, cpu);
            pthread_mutex_lock(&h->wmtx);
            while ( is_blocked(v) && !stop_all )
                pthread_cond_wait(&h->wcond, &h->wmtx);
            pthread_mutex_unlock(&h->wmtx);
            continue;
        }
        if ( r < 90 )
        {
            /* migrate: save state here, run elsewhere next */
            unsigned int to = pick_online(&h->rng);

            vmx_pi_switch_from(v);
            curr_vcpu[cpu] = NULL;
            h->loaded_on = ~0u;
            v->processor = to;
        }
        leave_cpu(h, cpu);
        if ( r >= 90 )
            sched_yield();
    }
    return NULL;
}

static void *irq_thread(void *arg)
{
    unsigned int cpu = (uintptr_t)arg;

    harness_cpu = cpu;
    for ( ; ; )
    {
        pthread_mutex_lock(&irq_mtx[cpu]);
        while ( !irq_pending[cpu] && !stop_all )
            pthread_cond_wait(&irq_cond[cpu], &irq_mtx[cpu]);
        pthread_mutex_unlock(&irq_mtx[cpu]);
        if ( !irq_pending[cpu] && stop_all )
            break;

        pthread_mutex_lock(&irq_gate[cpu]);
        pthread_rwlock_rdlock(&stop_machine);
        /* A local APIC keeps one pending instance of a vector. */
        if ( __atomic_exchange_n(&irq_pending[cpu], 0, __ATOMIC_SEQ_CST) &&
             cpu_online(cpu) )
        {
            st_walks++;
            harness_wakeup();
        }
        pthread_rwlock_unlock(&stop_machine);
        pthread_mutex_unlock(&irq_gate[cpu]);
    }
    return NULL;
}

static _Atomic bool stop_devices;

static void *device_thread(void *arg)
{
    uint64_t rng = (uintptr_t)arg * 0x2545F4914F6CDD1DULL + 1;

    while ( !stop_devices )
    {
        struct vcpu *v = &hv[rng_next(&rng) % nr_vcpus]->v;
        int cpu;

        pthread_rwlock_rdlock(&stop_machine);
        cpu = post_interrupt(v);
        /* The notification enters the target's IRR atomically with ON. */
        raise_irq(cpu);
        pthread_rwlock_unlock(&stop_machine);
        if ( (rng_next(&rng) & 7) == 0 )
            sched_yield();
    }
    return NULL;
}

/* Other wakeup sources (timers, event channels): vcpu_unblock() directly. */
static void *timer_thread(void *arg)
{
    uint64_t rng = 12345;

    (void)arg;
    while ( !stop_devices )
    {
        struct timespec ts = { 0, 200000 };

        vcpu_unblock(&hv[rng_next(&rng) % nr_vcpus]->v);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void cpu_offline(unsigned int x, uint64_t *rng)
{
    unsigned int i;

    /* stop_machine: __cpu_disable() */
    pthread_rwlock_wrlock(&stop_machine);
    cpumask_clear_cpu(x, &cpu_online_map);
    cpumask_clear_cpu(x, socket_mask + (x / 32));
    pthread_rwlock_unlock(&stop_machine);

    /* cpu_disable_scheduler(): nothing runs on x any more */
    for ( i = 0; i < nr_vcpus; i++ )
    {
        pthread_mutex_lock(&hv[i]->sched);
        if ( hv[i]->v.processor == x )
            hv[i]->v.processor = pick_online(rng);
        pthread_mutex_unlock(&hv[i]->sched);
    }
    pthread_mutex_lock(&exec_lock[x]);
    harness_cpu = x;
    save_lazy(x, curr_vcpu[x]);
    harness_cpu = ~0u;
    pthread_mutex_unlock(&exec_lock[x]);
    pthread_mutex_lock(&irq_gate[x]);
    irq_pending[x] = 0;
    pthread_mutex_unlock(&irq_gate[x]);

    /* CPU_DEAD, on another pCPU */
    harness_cpu = cpumask_first(&cpu_online_map);
    vmx_pi_desc_fixup(x);
    harness_cpu = ~0u;
    if ( !tb_init_done )
    {
        /* no PI_LIST_MOVE records to learn from: look at the lists */
        unsigned int c, limit = harness_limit();

        for ( c = 0; c < nr_cpu_ids; c++ )
            if ( limit && count_list(c) > limit )
                over_excused[c] = true;
    }
}

static void cpu_up(unsigned int x)
{
    pthread_rwlock_wrlock(&stop_machine);
    harness_cpu = cpumask_first(&cpu_online_map);
    if ( count_list(x) )
        violation("pCPU comes up with a non-empty list", x, count_list(x));
    vmx_pi_per_cpu_init(x);     /* CPU_UP_PREPARE */
    cpumask_set_cpu(x, &cpu_online_map);
    cpumask_set_cpu(x, socket_mask + (x / 32));
    harness_cpu = ~0u;
    pthread_rwlock_unlock(&stop_machine);
}

/* ---- setup ---- */
static void setup(unsigned int pcpus, unsigned int vcpus, bool all_on_0,
                  uint64_t seed)
{
    unsigned int c, i;

    nr_cpu_ids = pcpus;
    nr_vcpus = vcpus;
    pi_wakeup_vector = WAKEUP_VECTOR;
    posted_intr_vector = POSTED_VECTOR;
    for ( c = 0; c < pcpus; c++ )
    {
        harness_apic_id[c] = 2 * c;     /* sparse, as with SMT off */
        per_cpu(cpu_core_mask, c) = &socket_mask[c / 32];
        pthread_mutex_init(&exec_lock[c], NULL);
        pthread_mutex_init(&irq_gate[c], NULL);
        pthread_mutex_init(&irq_mtx[c], NULL);
        pthread_cond_init(&irq_cond[c], NULL);
        pthread_mutex_init(&tbuf[c].lock, NULL);
        harness_cpu = c;
        vmx_pi_per_cpu_init(c);
        cpumask_set_cpu(c, &cpu_online_map);
        cpumask_set_cpu(c, &socket_mask[c / 32]);
    }
    dom.max_vcpus = vcpus;
    for ( i = 0; i < vcpus; i++ )
    {
        struct harness_vcpu *h;
        struct vcpu *v;

        h = hv[i] = aligned_alloc(4096, (sizeof(*h) + 4095) & ~4095UL);
        assert(h);
        memset(h, 0, sizeof(*h));
        v = &h->v;
        v->vcpu_id = i;
        v->domain = &dom;
        v->h = h;
        v->processor = all_on_0 ? 0 : i % pcpus;
        INIT_LIST_HEAD(&v->arch.hvm.vmx.pi_blocking.list);
        /* vmx_create_vmcs(): NDST invalid, NV posted_intr_vector */
        v->arch.hvm.vmx.pi_desc.nv = POSTED_VECTOR;
        v->arch.hvm.vmx.pi_desc.ndst = 0xffffffff;
        pthread_mutex_init(&h->sched, NULL);
        pthread_mutex_init(&h->wmtx, NULL);
        pthread_cond_init(&h->wcond, NULL);
        h->rng = seed * 1000003 + i + 1;
        h->loaded_on = ~0u;
    }
    /* vmx_pi_hooks_assign(): NDST of each vCPU, then the block hook */
    for ( i = 0; i < vcpus; i++ )
        hv[i]->v.arch.hvm.vmx.pi_desc.ndst = ndst_of(hv[i]->v.processor);
    harness_cpu = 0;
    harness_account(&dom);
    harness_cpu = ~0u;
}

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
static FILE *digest_file;

static void digest_add(uint64_t x)
{
    digest = (digest ^ x) * 1099511628211ULL;
}

static void digest_state(uint64_t event)
{
    unsigned int c, i;

    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        struct vmx_vcpu *vmx;

        digest_add(0x1000000 + c);
        list_for_each_entry ( vmx, &per_cpu(vmx_pi_blocking, c).list,
                              pi_blocking.list )
            digest_add(container_of(vmx, struct vcpu, arch.hvm.vmx)->vcpu_id);
    }
    for ( i = 0; i < nr_vcpus; i++ )
    {
        const struct pi_desc *d = &hv[i]->v.arch.hvm.vmx.pi_desc;

        digest_add(d->control);
        digest_add(hv[i]->v.processor);
    }
    if ( digest_file )
        fprintf(digest_file, "%" PRIu64 " %016" PRIx64 "\n", event, digest);
}

struct replay_cost {
    uint64_t *walk, *block;
    size_t nwalk, nblock;
};

static unsigned int count_list(unsigned int c)
{
    struct list_head *p;
    unsigned int n = 0;

    list_for_each ( p, &per_cpu(vmx_pi_blocking, c).list )
        n++;
    return n;
}

/* Run every woken vCPU on its pCPU until it halts again. */
static void replay_run_queue(struct replay_cost *rc, unsigned int limit)
{
    while ( runq_head != runq_tail )
    {
        struct harness_vcpu *h = runq[runq_head++ % MAX_VCPUS];
        struct vcpu *v = &h->v;
        uint64_t t0, t1;
        int lc;

        harness_cpu = v->processor;
        context_switch_in(v);
        guest_runs(v);
        __atomic_fetch_or(&v->pause_flags, 1UL << _VPF_blocked,
                          __ATOMIC_SEQ_CST);
        st_blocks++;
        t0 = rdtsc_ordered();
        vmx_vcpu_block(v);
        t1 = rdtsc_ordered();
        rc->block[rc->nblock++] = t1 - t0;
        lc = list_cpu_of(v);
        if ( lc < 0 )
            violation("blocked vCPU on no list", v->vcpu_id, 0);
        else if ( !tb_init_done )
        {
            /* with tracing off, learn from the lists themselves */
            unsigned int n = count_list(lc);

            st_adds++;
            if ( (unsigned int)lc != v->processor )
                st_spilled++;
            if ( limit && n > limit )
            {
                st_over_limit++;
                over_excused[lc] = true;
            }
            note_max(&st_max_len, n);
        }
        if ( pi_test_and_clear_on(&v->arch.hvm.vmx.pi_desc) )
            vcpu_unblock(v);    /* as block() */
        harness_cpu = ~0u;
    }
}

static int replay(unsigned int events, unsigned int burst_max,
                  unsigned int hotplug_every, uint64_t seed,
                  struct replay_cost *rc)
{
    uint64_t rng = seed, e;
    unsigned int i, limit = harness_limit();

    rc->walk = calloc(events * 8 + 16, sizeof(uint64_t));
    rc->block = calloc(events * 8 + nr_vcpus * 2 + 16, sizeof(uint64_t));
    rc->nwalk = rc->nblock = 0;

    /* boot: every vCPU runs once and halts */
    for ( i = 0; i < nr_vcpus; i++ )
        runq[runq_tail++ % MAX_VCPUS] = hv[i];
    replay_run_queue(rc, limit);
    digest_state(0);

    for ( e = 1; e <= events; e++ )
    {
        unsigned int n = 1 + rng_next(&rng) % burst_max, k;
        int cpus[8];

        if ( hotplug_every && e % hotplug_every == 0 )
        {
            /* take a pCPU other than 0 offline, or bring one back */
            unsigned int x = 1 + rng_next(&rng) % (nr_cpu_ids - 1);

            if ( cpu_online(x) && num_online_cpus() > 2 )
                cpu_offline(x, &rng);
            else if ( !cpu_online(x) )
                cpu_up(x);
            limit = harness_limit();
        }
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
            t0 = rdtsc_ordered();
            harness_wakeup();
            t1 = rdtsc_ordered();
            rc->walk[rc->nwalk++] = t1 - t0;
            harness_cpu = ~0u;
        }
        replay_run_queue(rc, limit);
        digest_state(e);
        check_invariants(false);
    }
    check_invariants(true);
    return 0;
}

/* ---- main ---- */
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
        { NULL, 0, NULL, 0 } };
    const char *scenario = "custom", *limit = "auto", *trace = NULL;
    unsigned int pcpus = 8, vcpus = 32, seconds = 5, events = 20000;
    unsigned int burst = 1, hotplug = 0, devices = 2;
    bool all_on_0 = false;
    uint64_t seed = 1;
    int c, rc_exit;

    if ( argc < 2 )
    {
        fprintf(stderr, "usage: %s stress|replay [options]\n", argv[0]);
        return 2;
    }
    optind = 2;
    while ( (c = getopt_long(argc, argv, "", opts, NULL)) != -1 )
        switch ( c )
        {
        case 's': scenario = optarg; break;
        case 'p': pcpus = atoi(optarg); break;
        case 'v': vcpus = atoi(optarg); break;
        case 'l': limit = optarg; break;
        case 't': seconds = atoi(optarg); break;
        case 'e': events = atoi(optarg); break;
        case 'r': seed = strtoull(optarg, NULL, 0); break;
        case 'T': trace = optarg; break;
        case 'd': digest_file = fopen(optarg, "w"); break;
        case 'x': x2apic_enabled = false; break;
        case '0': all_on_0 = true; break;
        case 'b': burst = atoi(optarg); break;
        case 'h': hotplug = atoi(optarg); break;
        case 'D': devices = atoi(optarg); break;
        default: return 2;
        }
    if ( pcpus < 2 || pcpus > NR_CPUS || !vcpus || vcpus > MAX_VCPUS ||
         !burst || burst > 8 )
    {
        fprintf(stderr, "bad sizes\n");
        return 2;
    }
    rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
    harness_set_limit(limit);
    if ( trace && !(trace_file = fopen(trace, "wb")) )
    {
        perror(trace);
        return 2;
    }
    /* The stress run learns list lengths from the records. */
    tb_init_done = trace_file || !strcmp(argv[1], "stress");
    setup(pcpus, vcpus, all_on_0, seed);

    if ( !strcmp(argv[1], "replay") )
    {
        struct replay_cost rc;
        uint64_t sum = 0;
        size_t i;
        cpu_set_t cs;

        /* Stay on one CPU: no migration between measured walks. */
        CPU_ZERO(&cs);
        CPU_SET(sched_getcpu(), &cs);
        sched_setaffinity(0, sizeof(cs), &cs);

        replay(events, burst, hotplug, seed, &rc);
        trace_close();
        qsort(rc.walk, rc.nwalk, sizeof(uint64_t), cmp_u64);
        qsort(rc.block, rc.nblock, sizeof(uint64_t), cmp_u64);
        for ( i = 0; i < rc.nwalk; i++ )
            sum += rc.walk[i];
        printf("{\"scenario\": \"%s\", \"mode\": \"replay\", "
               "\"pcpus\": %u, \"online_pcpus\": %u, \"vcpus\": %u, "
               "\"limit\": %u, "
               "\"max_len\": %" PRIu64 ", \"adds\": %" PRIu64 ", "
               "\"spilled\": %" PRIu64 ", \"over_limit\": %" PRIu64 ", "
               "\"moves\": %" PRIu64 ", \"walks\": %zu, "
               "\"p50_walk_cycles\": %" PRIu64 ", "
               "\"p99_walk_cycles\": %" PRIu64 ", "
               "\"max_walk_cycles\": %" PRIu64 ", "
               "\"mean_walk_cycles\": %" PRIu64 ", "
               "\"p50_block_cycles\": %" PRIu64 ", "
               "\"p99_block_cycles\": %" PRIu64 ", "
               "\"woken\": %" PRIu64 ", \"posted\": %" PRIu64 ", "
               "\"lost_wakeups\": %" PRIu64 ", "
               "\"invariant_violations\": %" PRIu64 ", "
               "\"running_ndst_stale\": %" PRIu64 ", "
               "\"trace\": %s%s%s, \"trace_records\": %" PRIu64 ", "
               "\"digest\": \"%016" PRIx64 "\"}\n",
               scenario, pcpus, num_online_cpus(), vcpus,
               harness_limit(),
               (uint64_t)st_max_len, (uint64_t)st_adds,
               (uint64_t)st_spilled, (uint64_t)st_over_limit,
               (uint64_t)st_moves, rc.nwalk,
               pct(rc.walk, rc.nwalk, 50), pct(rc.walk, rc.nwalk, 99),
               rc.nwalk ? rc.walk[rc.nwalk - 1] : 0,
               rc.nwalk ? sum / rc.nwalk : 0,
               pct(rc.block, rc.nblock, 50), pct(rc.block, rc.nblock, 99),
               (uint64_t)st_woken, (uint64_t)st_posted,
               (uint64_t)st_lost, (uint64_t)st_violations,
               (uint64_t)st_running_ndst_stale,
               trace ? "\"" : "", trace ? trace : "null", trace ? "\"" : "",
               trace_records, digest);
        free(rc.walk);
        free(rc.block);
    }
    else if ( !strcmp(argv[1], "stress") )
    {
        pthread_t irq[NR_CPUS], dev[16], timer;
        uint64_t rng = seed + 7, checks = 0, hotplugs = 0;
        struct timespec t0, now;
        unsigned int i;

        pthread_rwlockattr_t ra;

        threaded = true;
        pthread_rwlockattr_init(&ra);
        pthread_rwlockattr_setkind_np(&ra,
            PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&stop_machine, &ra);
        for ( i = 0; i < pcpus; i++ )
            pthread_create(&irq[i], NULL, irq_thread, (void *)(uintptr_t)i);
        for ( i = 0; i < vcpus; i++ )
            pthread_create(&hv[i]->thread, NULL, vcpu_thread, hv[i]);
        for ( i = 0; i < devices && i < 16; i++ )
            pthread_create(&dev[i], NULL, device_thread,
                           (void *)(uintptr_t)(i + 1));
        pthread_create(&timer, NULL, timer_thread, NULL);

        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            struct timespec ts = { 0, 500000 };
            unsigned int x;

            nanosleep(&ts, NULL);
            if ( hotplug && rng_next(&rng) % hotplug == 0 )
            {
                x = 1 + rng_next(&rng) % (pcpus - 1);
                if ( cpu_online(x) && num_online_cpus() > 2 )
                    cpu_offline(x, &rng);
                else if ( !cpu_online(x) )
                    cpu_up(x);
                hotplugs++;
            }
            pthread_rwlock_wrlock(&stop_machine);
            check_invariants(false);
            pthread_rwlock_unlock(&stop_machine);
            checks++;
            clock_gettime(CLOCK_MONOTONIC, &now);
        } while ( now.tv_sec - t0.tv_sec < (time_t)seconds );

        /* Quiesce: no more interrupts, let the pending ones be handled. */
        stop_devices = true;
        for ( i = 0; i < devices && i < 16; i++ )
            pthread_join(dev[i], NULL);
        pthread_join(timer, NULL);
        for ( ; ; )
        {
            bool busy = false;

            for ( i = 0; i < pcpus; i++ )
                busy |= irq_pending[i] && cpu_online(i);
            if ( !busy )
                break;
            sched_yield();
        }
        pthread_rwlock_wrlock(&stop_machine);
        /* IRQ threads are between handlers: nothing pending is in flight */
        check_invariants(true);
        checks++;
        stop_all = true;
        pthread_rwlock_unlock(&stop_machine);
        for ( i = 0; i < vcpus; i++ )
        {
            pthread_mutex_lock(&hv[i]->wmtx);
            pthread_cond_broadcast(&hv[i]->wcond);
            pthread_mutex_unlock(&hv[i]->wmtx);
        }
        for ( i = 0; i < vcpus; i++ )
            pthread_join(hv[i]->thread, NULL);
        for ( i = 0; i < pcpus; i++ )
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
               scenario, pcpus, num_online_cpus(), vcpus,
               harness_limit(), seconds, checks,
               hotplugs, (uint64_t)st_max_len, (uint64_t)st_adds,
               (uint64_t)st_spilled, (uint64_t)st_over_limit,
               (uint64_t)st_moves, (uint64_t)st_walks, (uint64_t)st_blocks,
               (uint64_t)st_woken, (uint64_t)st_posted,
               (uint64_t)st_notified, (uint64_t)st_dropped,
               (uint64_t)st_lost, (uint64_t)st_violations,
               (uint64_t)st_running_ndst_stale,
               trace ? "\"" : "", trace ? trace : "null", trace ? "\"" : "",
               trace_records);
    }
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
    rc_exit = (st_lost || st_violations || st_trace_mismatch) ? 1 : 0;
    return rc_exit;
}
