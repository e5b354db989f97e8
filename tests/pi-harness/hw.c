/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the hardware's side of posting.  The IOMMU posts an interrupt
 * into a vCPU's PI descriptor (PIR, then ON unless SN or ON, in one atomic
 * update of the control word) and notifies NDST with NV; each pCPU's local
 * APIC keeps one pending instance of the wakeup vector, which its interrupt
 * thread handles; devices post to random vCPUs.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <sched.h>

/* Held while pCPU c has interrupts off: by its wakeup handler, and by code
 * acting as c in an irqsave section (stress only; the replay is one
 * thread, nothing can interrupt it). */
pthread_mutex_t irq_gate[NR_CPUS];
_Atomic unsigned int irq_pending[NR_CPUS];
pthread_mutex_t irq_mtx[NR_CPUS];
pthread_cond_t irq_cond[NR_CPUS];

uint32_t ndst_of(unsigned int cpu)
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


/* Interrupts off, per thread: the depth of irqsave sections. */
static __thread unsigned int irq_off_depth;
/*
 * Set while acting as a pCPU that is coming up, not yet online: as Xen's
 * start_secondary() (spin_debug_disable()), no lock checks then.
 */
__thread bool lock_debug_off;
/*
 * Set while running the CPU-dead fixup, a cpupool change or CPU_ONLINE:
 * the places where list locks nest.
 */
__thread bool in_fixup;
static __thread unsigned int locks_held;
struct spinlock *harness_preempt_lock;
void (*harness_preempt)(struct spinlock *l);

__thread bool in_walk, walk_counted;
__thread unsigned int walk_len, walk_woken;
static __thread bool walk_counting;

void harness_lock_acquired(struct spinlock *l)
{
    unsigned char use = irq_off_depth ? LOCK_IRQS_OFF : LOCK_IRQS_ON;

    if ( walk_counting && !walk_counted &&
         l == harness_list_lock(harness_cpu) )
    {
        /* The wakeup walk has locked its list: what it will walk. */
        struct list_head *p;

        walk_len = 0;
        list_for_each ( p, harness_list(harness_cpu) )
            walk_len++;
        walk_counted = true;
    }
    if ( locks_held++ && !in_fixup )
        violation("lock taken while another is held, outside the fixup",
                  harness_cpu, locks_held);
    if ( lock_debug_off || (l->irq_use & use) )
        return;
    l->irq_use |= use;
    if ( l->irq_use == (LOCK_IRQS_OFF | LOCK_IRQS_ON) )
    {
        unsigned int c;

        for ( c = 0; c < nr_cpu_ids && l != harness_list_lock(c); c++ )
            ;
        /* which: the pCPU whose list lock it is, or nr_cpu_ids (another) */
        violation("lock taken with interrupts both off and on",
                  harness_cpu, c);
    }
}

/*
 * The replay runs another pCPU's code at a preemption point, in the same
 * thread: that pCPU has its own interrupt flag and holds no locks.
 */
void other_cpu_begin(struct cpu_ctx *c)
{
    c->cpu = harness_cpu;
    c->irq_off_depth = irq_off_depth;
    c->locks_held = locks_held;
    irq_off_depth = locks_held = 0;
}

void other_cpu_end(const struct cpu_ctx *c)
{
    HARNESS_CHECK(!irq_off_depth && !locks_held);
    harness_cpu = c->cpu;
    irq_off_depth = c->irq_off_depth;
    locks_held = c->locks_held;
}

__thread char harness_thread;

void harness_lock_deadlock(struct spinlock *l)
{
    unsigned int c;

    for ( c = 0; c < nr_cpu_ids && l != harness_list_lock(c); c++ )
        ;
    if ( c < nr_cpu_ids )
        fprintf(stderr, "harness: pCPU %u takes pCPU %u's list lock, which "
                "it holds: deadlock\n", harness_cpu, c);
    else
        fprintf(stderr, "harness: pCPU %u takes a lock it holds: deadlock\n",
                harness_cpu);
    abort();
}

void harness_lock_released(void)
{
    HARNESS_CHECK(locks_held);
    locks_held--;
}

unsigned long harness_irq_save(void)
{
    unsigned int cpu = smp_processor_id();

    if ( !irq_off_depth++ && threaded )
        pthread_mutex_lock(&irq_gate[cpu]);
    return cpu;
}

void harness_irq_restore(unsigned long flags)
{
    HARNESS_CHECK(irq_off_depth && flags == smp_processor_id());
    if ( !--irq_off_depth && threaded )
        pthread_mutex_unlock(&irq_gate[flags]);
}

/* An interrupt handler of @cpu: interrupts off while it runs. */
void irq_enter(unsigned int cpu)
{
    if ( threaded )
        pthread_mutex_lock(&irq_gate[cpu]);
    irq_off_depth++;
}

void irq_exit(unsigned int cpu)
{
    irq_off_depth--;
    if ( threaded )
        pthread_mutex_unlock(&irq_gate[cpu]);
}

/*
 * The hardware: post an interrupt to @v's descriptor, notify if due.
 * Returns the pCPU to raise the wakeup vector on, or -1; *@notified (if
 * given) is the pCPU NDST named when a notification was sent, whatever
 * its vector, or -1 when none was (ON or SN already set).
 */
int post_interrupt_to(struct vcpu *v, int *notified)
{
    struct pi_desc *d = &v->arch.hvm.vmx.pi_desc;
    uint64_t o, n;
    unsigned int cpu;

    if ( notified )
        *notified = -1;
    st_posted++;
    __atomic_fetch_or(&d->pir[1], 1, __ATOMIC_SEQ_CST);
    o = d->control;
    do {
        if ( o & ((1ULL << POSTED_INTR_SN) | (1ULL << POSTED_INTR_ON)) )
            return -1;
        n = o | (1ULL << POSTED_INTR_ON);
    } while ( !__atomic_compare_exchange_n(&d->control, &o, n, false,
                                           __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST) );
    st_notified++;
    cpu = cpu_of_ndst(o >> 32);
    if ( notified )
        *notified = cpu;
    /* Whatever the vector, in the encoding of the APIC mode (xAPIC, x2APIC). */
    if ( cpu >= nr_cpu_ids )
    {
        violation("NDST names no pCPU", v->vcpu_id, o >> 32);
        return -1;
    }
    if ( ((o >> 16) & 0xff) != WAKEUP_VECTOR )
        return -1;      /* running (or about to): delivered at VM entry */
    if ( !cpu_online(cpu) )
    {
        st_dropped++;   /* an IPI to a dead pCPU goes nowhere */
        return -1;
    }
    return cpu;
}

int post_interrupt(struct vcpu *v)
{
    return post_interrupt_to(v, NULL);
}

/*
 * vmx_sync_pir_to_irr(): if ON was set, clear it and move PIR into the
 * IRR (the vCPU then has an interrupt to take).
 */
bool sync_pir_to_irr(struct vcpu *v)
{
    struct pi_desc *d = &v->arch.hvm.vmx.pi_desc;

    if ( !pi_test_and_clear_on(d) )
        return false;
    __atomic_store_n(&d->pir[1], 0, __ATOMIC_SEQ_CST);
    return true;
}

/*
 * The guest consumes what was posted while it runs, as the CPU does: PIR
 * only through ON.  Bits posted while a preempted vCPU had SN set stay in
 * PIR unless something sets ON; a blocked vCPU with PIR bits and no ON is
 * what a stranded interrupt looks like (invariants.c).
 */
void guest_runs(struct vcpu *v)
{
    struct pi_desc *d = &v->arch.hvm.vmx.pi_desc;

    if ( pi_test_and_clear_on(d) )
        __atomic_store_n(&d->pir[1], 0, __ATOMIC_SEQ_CST);
    v->h->outside_pool_ok = false;
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

__thread uint64_t walk_start;

void wakeup_walk(void)
{
    in_walk = true;
    walk_counted = false;
    walk_woken = 0;
    /* Only for the trace checks: not an extra cost in the untraced walk. */
    walk_counting = tb_init_done || trace_on_in_walk;
    if ( walk_counting )
        walk_start = rdtsc_ordered();
    harness_wakeup();
    walk_counting = false;
    in_walk = false;
}

/*
 * Flush from the caches all that a walk of @cpu's list can read (every
 * vCPU's struct vcpu: list node, descriptor, flags; the list head and its
 * lock), as when guest code ran on the pCPU before the interrupt came.
 */
void evict_walk_lines(unsigned int cpu)
{
    unsigned int i;
    size_t o;

    for ( i = 0; i < nr_vcpus; i++ )
        for ( o = 0; o < sizeof(struct vcpu); o += 64 )
            _mm_clflush((const char *)&hv[i]->v + o);
    _mm_clflush(harness_list(cpu));
    _mm_clflush(harness_list_lock(cpu));
    _mm_mfence();
}

void raise_irq(int cpu)
{
    if ( cpu < 0 )
        return;
    pthread_mutex_lock(&irq_mtx[cpu]);
    irq_pending[cpu]++;
    pthread_cond_signal(&irq_cond[cpu]);
    pthread_mutex_unlock(&irq_mtx[cpu]);
}

void *irq_thread(void *arg)
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

        pthread_rwlock_rdlock(&stop_machine);
        irq_enter(cpu);
        /* A local APIC keeps one pending instance of a vector. */
        if ( __atomic_exchange_n(&irq_pending[cpu], 0, __ATOMIC_SEQ_CST) &&
             cpu_online(cpu) )
        {
            st_walks++;
            wakeup_walk();
        }
        irq_exit(cpu);
        pthread_rwlock_unlock(&stop_machine);
    }
    return NULL;
}

_Atomic bool stop_devices;

void *device_thread(void *arg)
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

