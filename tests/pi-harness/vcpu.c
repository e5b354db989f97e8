/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: vCPUs and the scheduler.  Each vCPU is a thread that runs on
 * its pCPU (an exec lock per pCPU), halts, is woken, migrates, with Xen's
 * lazy context switch; pCPUs go offline and online under a stop-machine
 * rwlock; a timer wakes vCPUs as other event sources do.  The replay drives
 * the same steps from one thread, with a run queue.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <sched.h>
#include <time.h>

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
void (*harness_lock_hook)(spinlock_t *l);
bool fixup_posts, trace_on_in_walk, cold_walks;
__thread bool harness_seen_on;
__thread unsigned long harness_seen[NR_CPUS / 64];

static struct notifier_block *cpu_notifier;

void register_cpu_notifier(struct notifier_block *nb)
{
    HARNESS_CHECK(!cpu_notifier);
    cpu_notifier = nb;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static pthread_mutex_t rng_lock = PTHREAD_MUTEX_INITIALIZER;
bool threaded;

uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
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

/*
 * Two cpupools: pool 0 holds pCPUs pool_first..pool_last at the start
 * (all of them without --pool), pool 1 the others.  As in Xen, a pool's
 * cpu_valid holds only pCPUs that are up (S3 aside: there Xen keeps the
 * pools as they are), and every change of a domain's or a pCPU's pool is
 * followed by arch_cpupool_changed().  Both domains start in pool 0.
 */
struct cpupool {
    cpumask_t cpu_valid;
};
static struct cpupool pools[2];
static unsigned char home[NR_CPUS];     /* the pool a pCPU is in, or was */
unsigned int pool_first, pool_last = ~0u;

const cpumask_t *cpupool_valid_cpus(const struct cpupool *p)
{
    return &p->cpu_valid;
}

static struct domain dom2 = { .domain_id = 2, .max_vcpus = 16,
                              .cpupool = &pools[0] };
static struct domain dom = { .domain_id = 1, .cpupool = &pools[0],
                             .next_in_list = &dom2 };
struct domain *domain_list = &dom;
int domlist_read_lock;
static bool dom2_hooks;

/* Whether pCPU @cpu is in the cpupool of the domain whose vCPUs run here. */
bool in_pool(unsigned int cpu)
{
    return cpumask_test_cpu(cpu, &dom.cpupool->cpu_valid);
}

static bool pool_has_online(const struct cpupool *p, unsigned int except)
{
    unsigned int c;

    for_each_cpu ( c, &p->cpu_valid )
        if ( c != except && cpu_online(c) )
            return true;
    return false;
}

/* Whether a pCPU of the domain's pool other than @except is online. */
bool pool_online(unsigned int except)
{
    return pool_has_online(dom.cpupool, except);
}

static bool pool_has_domains(const struct cpupool *p)
{
    return dom.cpupool == p || dom2.cpupool == p;
}

/*
 * CPU hotplug in the scenarios: not pCPU 0, at least 2 pCPUs stay online,
 * and, as Xen refuses to take a cpupool's last pCPU while it has domains,
 * another of its pool stays.
 */
bool may_offline(unsigned int cpu)
{
    const struct cpupool *p = &pools[home[cpu]];

    return cpu && cpu_online(cpu) && num_online_cpus() > 2 &&
           (!pool_has_domains(p) || pool_has_online(p, cpu));
}

/*
 * --fixup-posts: a device posts to the vCPU the CPU-dead fixup (or a
 * cpupool change) is moving, once per entry, at one of the steps for it: a
 * lock taken or released (the fixup only), a write to its PI descriptor
 * (NDST), a read or update of ON or SN.  The step is the entry's number
 * modulo FIXUP_STEPS, so that over a list every step gets its post.  The
 * notification, if any, is raised as any other.
 */
#define FIXUP_STEPS 6
static unsigned int fixup_cpu;
void (*harness_step_hook)(const void *p);

static void fixup_step(struct vcpu *cur)
{
    static struct vcpu *last;
    static unsigned int step, entry;

    if ( cur != last )
    {
        last = cur;
        step = 0;
        entry++;
    }
    if ( step++ == entry % FIXUP_STEPS )
        raise_irq(post_interrupt(cur));
}

/* The entry the fixup is at: the first left on the dead pCPU's list. */
static void fixup_post_lock(spinlock_t *l)
{
    struct list_head *head = harness_list(fixup_cpu);

    if ( in_fixup && l != harness_list_lock(fixup_cpu) && !list_empty(head) )
        fixup_step(container_of(head->next, struct vcpu,
                                arch.hvm.vmx.pi_blocking.list));
}

static void fixup_post_desc(const void *p)
{
    unsigned int i;

    if ( !in_fixup )
        return;
    for ( i = 0; i < nr_vcpus; i++ )
    {
        const char *d = (const char *)&hv[i]->v.arch.hvm.vmx.pi_desc;

        if ( (const char *)p >= d &&
             (const char *)p < d + sizeof(struct pi_desc) )
        {
            fixup_step(&hv[i]->v);
            return;
        }
    }
}

/*
 * What cpupool.c does after a change: tell the arch code, which here
 * runs on another pCPU and, like the CPU-dead fixup, may nest list locks.
 */
static void pools_changed(void)
{
    unsigned int saved = harness_cpu;

    harness_cpu = cpumask_first(&cpu_online_map);
    in_fixup = true;
    if ( fixup_posts )
        harness_step_hook = fixup_post_desc;
    trace_moves_begin();
    harness_pools_changed();
    if ( fixup_posts )
        harness_step_hook = NULL;
    in_fixup = false;
    harness_cpu = saved;
    limits_changed();
}

/* The pCPU leaves or joins its pool (CPU_DOWN_PREPARE / CPU_ONLINE). */
static void pool_cpu(unsigned int cpu, bool join)
{
    if ( join )
        cpumask_set_cpu(cpu, &pools[home[cpu]].cpu_valid);
    else
        cpumask_clear_cpu(cpu, &pools[home[cpu]].cpu_valid);
    pools_changed();
}

/*
 * A cpupool change of the replay or the stress: the domain moves to the
 * other pool (if that has a pCPU up), or a pCPU moves to the other pool
 * (if its own keeps one up while it has domains).  As sched_move_domain()
 * and cpu_disable_scheduler(), the scheduler gives the vCPUs concerned new
 * pCPUs, each with the vCPU's own steps held off.
 */
void pool_change(uint64_t *rng)
{
    struct cpupool *other = &pools[dom.cpupool == &pools[0]];
    unsigned int i, x;

    if ( rng_next(rng) & 1 )
    {
        if ( !pool_has_online(other, ~0u) )
            return;
        for ( i = 0; i < nr_vcpus; i++ )
            pthread_mutex_lock(&hv[i]->sched);
        dom.cpupool = other;
        for ( i = 0; i < nr_vcpus; i++ )
            hv[i]->v.processor = pick_online(rng);
        for ( i = 0; i < nr_vcpus; i++ )
            pthread_mutex_unlock(&hv[i]->sched);
        pools_changed();
        st_pool_changes++;
        return;
    }

    x = 1 + rng_next(rng) % (nr_cpu_ids - 1);
    if ( !cpu_online(x) ||
         (pool_has_domains(&pools[home[x]]) &&
          !pool_has_online(&pools[home[x]], x)) )
        return;
    pool_cpu(x, false);
    for ( i = 0; i < nr_vcpus; i++ )
    {
        pthread_mutex_lock(&hv[i]->sched);
        if ( hv[i]->v.processor == x && &pools[home[x]] == dom.cpupool )
            hv[i]->v.processor = pick_online(rng);
        pthread_mutex_unlock(&hv[i]->sched);
    }
    home[x] = !home[x];
    pool_cpu(x, true);
    st_pool_changes++;
}

/*
 * vmx_pi_hooks_deassign() on a domain that never had the hooks (the
 * source of a device reassignment can be one), then alternately
 * vmx_pi_hooks_assign() and _deassign() on dom2.
 */
void hooks_toggle(void)
{
    if ( !dom2_hooks )
        harness_account(&dom2, false);
    dom2_hooks = !dom2_hooks;
    harness_account(&dom2, dom2_hooks);
    limits_changed();
}

/* B of pCPU @c's limit (0 for a pCPU in no pool, a free one). */
unsigned int pool_blockable_vcpus(unsigned int c)
{
    const struct cpupool *p = &pools[home[c]];

    if ( !cpumask_test_cpu(c, &p->cpu_valid) )
        return 0;
    return (dom.cpupool == p ? nr_vcpus : 0) +
           (dom2.cpupool == p && dom2_hooks ? dom2.max_vcpus : 0);
}

/* The online pCPUs of @c's pool: P of its limit. */
unsigned int pool_online_cpus(unsigned int c)
{
    unsigned int n = 0, x;

    for_each_cpu ( x, &pools[home[c]].cpu_valid )
        n += cpu_online(x);
    return n;
}
/* One page each, as Xen's alloc_vcpu_struct() gives them. */
struct harness_vcpu *hv[MAX_VCPUS];
unsigned int nr_vcpus;
static cpumask_t socket_mask[NR_CPUS];
struct vcpu *_Atomic curr_vcpu[NR_CPUS]; /* context loaded (lazy) */

/* Stop-machine: pi.c runs in read sections, CPU online/offline and the
 * invariant checks in write sections. */
pthread_rwlock_t stop_machine = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t exec_lock[NR_CPUS];

_Atomic bool stop_all;

/* ---- the scheduler's side ---- */
struct harness_vcpu *runq[MAX_VCPUS];   /* replay only */
unsigned int runq_head, runq_tail;
uint64_t vcpu_unblocks;

void vcpu_unblock(struct vcpu *v)
{
    struct harness_vcpu *h = v->h;

    /* The walk wakes each entry it takes off, blocked still or not. */
    if ( in_walk )
        walk_woken++;
    if ( !threaded )
        vcpu_unblocks++;
    if ( !(__atomic_fetch_and(&v->pause_flags, ~(1UL << _VPF_blocked),
                              __ATOMIC_SEQ_CST) & (1UL << _VPF_blocked)) )
        return;
    st_woken++;
    if ( trace_on_in_walk && in_walk && !tb_init_done )
        tb_init_done = 1;
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

bool is_blocked(const struct vcpu *v)
{
    return test_bit(_VPF_blocked, &v->pause_flags);
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
            harness_switch_from(prev);
            prev->h->loaded_on = ~0u;
        }
        pthread_mutex_unlock(&prev->h->sched);
    }
}

/*
 * The way into the guest, as vmx_asm_do_vmentry: vmx_intr_assist() syncs
 * PIR into the IRR when ON is set, interrupts go off, and
 * vmx_vmenter_helper() (pi.c's resume) enters the guest or sends the vCPU
 * round again.
 *
 * --entry-posts (replay): a device posts to the entering vCPU once, at one
 * of the steps of its entry: before or after each of those, or after any
 * write pi.c makes to its descriptor meanwhile; the step is the entry's
 * number modulo ENTRY_STEPS.  The interrupt must reach the guest on this
 * entry: synced into the IRR before the VM entry, or notified with the
 * posted vector to the vCPU's own pCPU, which the CPU then processes in
 * non-root mode.  A notification with the wakeup vector, or to another
 * pCPU, leaves it in PIR until the vCPU's next VM exit.
 */
#define ENTRY_STEPS 8
bool entry_posts;
static struct vcpu *entering;
static unsigned int entry_step, entry_post_at;
/* The entry's post notified the vCPU's pCPU with the posted vector. */
static bool entry_heard;

static void entry_post(void)
{
    int notified, raise;

    if ( entry_step++ != entry_post_at )
        return;
    raise = post_interrupt_to(entering, &notified);
    /* Only the wakeup vector raises an interrupt of the harness's own. */
    entry_heard = notified == (int)entering->processor && raise < 0;
    raise_irq(raise);
}

static void entry_step_desc(const void *p)
{
    const char *d = (const char *)&entering->arch.hvm.vmx.pi_desc;

    if ( (const char *)p >= d && (const char *)p < d + sizeof(struct pi_desc) )
        entry_post();
}

static void vm_entry(struct vcpu *v)
{
    static unsigned int entries;

    if ( entry_posts )
    {
        entering = v;
        entry_step = 0;
        entry_post_at = entries++ % ENTRY_STEPS;
        entry_heard = false;
        harness_step_hook = entry_step_desc;
    }
    do {
        if ( entry_posts )
            entry_post();
        sync_pir_to_irr(v);
        if ( entry_posts )
            entry_post();
    } while ( !harness_do_resume(v) );
    if ( entry_posts )
    {
        entry_post();
        harness_step_hook = NULL;
        if ( pi_test_on(&v->arch.hvm.vmx.pi_desc) && !entry_heard )
            violation("interrupt posted on the way into the guest waits in "
                      "PIR for the next VM exit", v->vcpu_id, entry_post_at);
    }
}

/* Load @v on its pCPU (exec lock held): lazy context switch as Xen's. */
void context_switch_in(struct vcpu *v)
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
        harness_switch_to(v);
        curr_vcpu[cpu] = v;
        v->h->loaded_on = cpu;
    }
    vm_entry(v);
}

void deschedule(struct vcpu *v)
{
    harness_switch_from(v);
    curr_vcpu[v->processor] = NULL;
    v->h->loaded_on = ~0u;
}

/* HLT: Xen's vcpu_block() with the PI hook. */
void block(struct vcpu *v)
{
    __atomic_fetch_or(&v->pause_flags, 1UL << _VPF_blocked, __ATOMIC_SEQ_CST);
    st_blocks++;
    blocking_vcpu = v;
    harness_block_hook(v);
    blocking_vcpu = NULL;
    /*
     * vcpu_block() checks local_events_need_delivery(), which for a VMX
     * vCPU syncs PIR into the IRR (vmx_sync_pir_to_irr(): a locked
     * test-and-clear of ON).
     */
    if ( sync_pir_to_irr(v) )
        vcpu_unblock(v);
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

/* A pCPU for a vCPU to run on: an online one of the pool if any. */
unsigned int pick_online(uint64_t *rng)
{
    unsigned int c;
    bool pool_ok = pool_online(~0u);

    do
        c = rng_next(rng) % nr_cpu_ids;
    while ( !cpu_online(c) || (pool_ok && !in_pool(c)) );
    return c;
}


void *vcpu_thread(void *arg)
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

            deschedule(v);
            v->processor = to;
        }
        leave_cpu(h, cpu);
        if ( r >= 90 )
            sched_yield();
    }
    return NULL;
}


/* Other wakeup sources (timers, event channels): vcpu_unblock() directly. */
void *timer_thread(void *arg)
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

/* CPU_DOWN_PREPARE: the cpupool code takes @x out of its pool. */
void cpu_down_prepare(unsigned int x)
{
    pool_cpu(x, false);
}

/* Take pCPU @x offline: __cpu_disable() in stop-machine, then CPU_DEAD. */
void cpu_offline(unsigned int x, uint64_t *rng)
{
    cpu_disable(x, rng, true);
    cpu_dead(x, true);
}

/* @pools: the pCPU leaves its pool first (not for S3, as in Xen). */
void cpu_disable(unsigned int x, uint64_t *rng, bool pools)
{
    unsigned int i;

    if ( pools )
        cpu_down_prepare(x);

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
}

/* CPU_DEAD, on another pCPU; then (@free) the per-CPU area goes. */
uint64_t fixup_cycles;

void cpu_dead(unsigned int x, bool free)
{
    unsigned int i;
    uint64_t t0;

    harness_cpu = cpumask_first(&cpu_online_map);

    /* With no pCPU of the pool left, the fixup may use any other. */
    if ( in_pool(x) && !pool_online(~0u) )
        for ( i = 0; i < nr_vcpus; i++ )
            if ( list_cpu_of(&hv[i]->v) == (int)x )
                hv[i]->outside_pool_ok = true;
    in_fixup = true;
    if ( fixup_posts )
    {
        fixup_cpu = x;
        harness_lock_hook = fixup_post_lock;
        harness_step_hook = fixup_post_desc;
    }
    trace_moves_begin();
    t0 = rdtsc_ordered();
    harness_fixup(x);
    fixup_cycles = rdtsc_ordered() - t0;
    if ( fixup_posts )
    {
        harness_lock_hook = NULL;
        harness_step_hook = NULL;
    }
    in_fixup = false;
    harness_cpu = ~0u;
    limits_changed();
    /*
     * Xen frees the per-CPU area with call_rcu(): code that read a pointer
     * into it before the fixup (an unblock about to take that list's lock)
     * is done with it after the grace period.  Here: once every pCPU's
     * code in flight has left, as stop-machine waits for.
     */
    if ( free )
    {
        pthread_rwlock_wrlock(&stop_machine);
        harness_cpu_free(x);
        pthread_rwlock_unlock(&stop_machine);
    }
    if ( !tb_init_done )
    {
        /* no PI_LIST_MOVE records to learn from: look at the lists */
        unsigned int c;

        for ( c = 0; c < nr_cpu_ids; c++ )
            if ( cpu_online(c) && harness_limit_of(c) &&
                 count_list(c) > harness_limit_of(c) )
                over_excused[c] = true;
    }
}

/*
 * What pCPU @x runs of pi.c while it comes up: vmx_cpu_up() in
 * start_secondary(), interrupts off, before it is online, without
 * spinlock debugging.
 */
static void ap_starts(unsigned int x)
{
    unsigned long flags;

    harness_cpu = x;
    lock_debug_off = true;
    flags = harness_irq_save();
    harness_per_cpu_init(x);
    harness_irq_restore(flags);
    lock_debug_off = false;
    harness_cpu = ~0u;
}

/* @pools: the pCPU joins its pool again once online (not for S3). */
void cpu_up(unsigned int x, bool pools)
{

    pthread_rwlock_wrlock(&stop_machine);
    if ( count_list(x) )
        violation("pCPU comes up with a non-empty list", x, count_list(x));
    harness_cpu_alloc(x);       /* CPU_UP_PREPARE: per-CPU area */
    ap_starts(x);
    cpumask_set_cpu(x, &cpu_online_map);
    cpumask_set_cpu(x, socket_mask + (x / 32));
    pthread_rwlock_unlock(&stop_machine);
    /*
     * CPU_ONLINE, on the pCPU that brought it up, which rebalances the
     * lists and so, like the CPU-dead fixup, may nest list locks.
     */
    harness_cpu = cpumask_first(&cpu_online_map);
    in_fixup = true;
    trace_moves_begin();
    if ( cpu_notifier )
        cpu_notifier->notifier_call(cpu_notifier, CPU_ONLINE,
                                    (void *)(uintptr_t)x);
    in_fixup = false;
    harness_cpu = ~0u;
    limits_changed();
    if ( pools )
        pool_cpu(x, true);
}

/*
 * A pCPU that fails to come up: CPU_UP_PREPARE gave it a zeroed per-CPU
 * area, it never got as far as vmx_cpu_up(), and CPU_UP_CANCELED runs the
 * same teardown as CPU_DEAD on another pCPU, the fixup included.
 */
void cpu_up_canceled(unsigned int x)
{
    pthread_rwlock_wrlock(&stop_machine);
    harness_cpu_alloc(x);
    pthread_rwlock_unlock(&stop_machine);
    cpu_dead(x, true);
}

/*
 * Once the pCPUs are back from S3, the lists are as the bound wants them
 * again, without waiting for the vCPUs the fixups moved to wake: no blocked
 * vCPU on a list outside its cpupool, and no list above its limit while
 * another list of the same pool is below its own.
 */
static void check_resumed(void)
{
    unsigned int c, d, i;

    for ( i = 0; i < nr_vcpus; i++ )
    {
        int lc = list_cpu_of(&hv[i]->v);

        if ( lc >= 0 && harness_limit_of(lc) && !in_pool(lc) )
            violation("after resume: vCPU on a list outside its cpupool",
                      i, lc);
    }
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        unsigned int limit = cpu_online(c) ? harness_limit_of(c) : 0;

        if ( !limit || count_list(c) <= limit )
            continue;
        for ( d = 0; d < nr_cpu_ids; d++ )
            if ( d != c && cpu_online(d) && home[d] == home[c] &&
                 count_list(d) < harness_limit_of(d) )
            {
                violation("after resume: list above its limit, another of "
                          "its pool below", c, d);
                break;
            }
    }
}

/*
 * S3: every pCPU but 0 goes offline (their lists moved by the fixup, to
 * pCPU 0's), pCPU 0 goes through vmx_cpu_up() again on resume, the others
 * come back.
 */
void suspend_resume(uint64_t *rng)
{
    cpumask_t up = cpu_online_map;
    unsigned int c;

    /* Xen keeps the per-CPU areas of CPUs taken down for S3. */
    for ( c = 1; c < nr_cpu_ids; c++ )
        if ( cpu_online(c) )
        {
            cpu_disable(c, rng, false);
            cpu_dead(c, false);
        }
    harness_cpu = 0;
    harness_per_cpu_init(0);
    harness_cpu = ~0u;
    /* Suspend and resume leave the cpupools as they are. */
    for_each_cpu ( c, &up )
        if ( c )
            cpu_up(c, false);
    /* The scheduler puts vCPUs back on their pool's pCPUs. */
    for ( c = 0; c < nr_vcpus; c++ )
        if ( !in_pool(hv[c]->v.processor) )
            hv[c]->v.processor = pick_online(rng);
    check_resumed();
}

/* ---- setup ---- */
void setup(unsigned int pcpus, unsigned int vcpus, bool all_on_0,
                  uint64_t seed)
{
    unsigned int c, i;

    nr_cpu_ids = pcpus;
    nr_vcpus = vcpus;
    if ( pool_last >= pcpus )
        pool_last = pcpus - 1;
    for ( c = 0; c < pcpus; c++ )
    {
        home[c] = c < pool_first || c > pool_last;
        cpumask_set_cpu(c, &pools[home[c]].cpu_valid);
    }
    harness_vectors(WAKEUP_VECTOR, POSTED_VECTOR);
    for ( c = 0; c < pcpus; c++ )
    {
        harness_apic_id[c] = 2 * c;     /* sparse, as with SMT off */
        per_cpu(cpu_core_mask, c) = &socket_mask[c / 32];
        pthread_mutex_init(&exec_lock[c], NULL);
        pthread_mutex_init(&irq_gate[c], NULL);
        pthread_mutex_init(&irq_mtx[c], NULL);
        pthread_cond_init(&irq_cond[c], NULL);
        trace_cpu_init(c);
        if ( c )
            ap_starts(c);
        else
        {
            harness_cpu = c;
            harness_per_cpu_init(c);
        }
        cpumask_set_cpu(c, &cpu_online_map);
        cpumask_set_cpu(c, &socket_mask[c / 32]);
    }
    dom.max_vcpus = vcpus;
    for ( i = 0; i < vcpus; i++ )
    {
        struct harness_vcpu *h;
        struct vcpu *v;

        h = hv[i] = aligned_alloc(4096, (sizeof(*h) + 4095) & ~4095UL);
        HARNESS_CHECK(h);
        memset(h, 0, sizeof(*h));
        v = &h->v;
        v->vcpu_id = i;
        v->domain = &dom;
        v->h = h;
        v->processor = pool_first +
                       (all_on_0 ? 0 : i % (pool_last - pool_first + 1));
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
    harness_account(&dom, true);
    harness_cpu = ~0u;
}

