/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the environment xen/arch/x86/hvm/vmx/pi.c needs, in userspace.
 *
 * Built the way Xen's tools/tests/vpci builds the vPCI code: the Makefile
 * copies pi.c (and xen/list.h, public/trace.h) out of the patched tree with
 * every #include removed and this file included instead.  Everything here
 * is a working stand-in: spinlocks exclude (ticket locks as Xen's), per-CPU
 * data is one array element per CPU, cpumasks are bitmaps, the trace
 * macros write records that main.c turns into a real xentrace file.
 *
 * Fields that Xen reads without a lock, relying on x86 single-copy
 * atomicity of aligned accesses (the PI descriptor, a vCPU's list lock
 * pointer), are C11 _Atomic here, so that ThreadSanitizer sees what the
 * hardware guarantees and reports any real race.
 */
#ifndef PI_HARNESS_EMUL_H
#define PI_HARNESS_EMUL_H

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef bool bool_t;
typedef uint16_t domid_t;

#define cf_check
#define __init
#define __read_mostly
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define prefetch(x) __builtin_prefetch(x)
#define barrier()   __asm__ __volatile__ ( "" ::: "memory" )
#define smp_mb()    __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()   __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()   __atomic_thread_fence(__ATOMIC_RELEASE)
/*
 * pi.c's own ASSERT()s: with -DNDEBUG they check nothing, as in a release
 * build of Xen.  The harness never relies on them: its own checks are
 * HARNESS_CHECK()s, which -DNDEBUG leaves in.
 */
#ifdef NDEBUG
#define ASSERT(x)   do { if ( 0 && (x) ) {} } while ( 0 )
#else
#define ASSERT(x)   assert(x)
#endif
void harness_check_failed(const char *what, const char *file, int line);
#define HARNESS_CHECK(x) \
    (likely(x) ? (void)0 : harness_check_failed(#x, __FILE__, __LINE__))

#define container_of(ptr, type, member) ({                      \
        typeof(((type *)0)->member) *mptr_ = (ptr);             \
        (type *)((char *)mptr_ - offsetof(type, member));       \
})

#define max(x, y) ({                            \
        const typeof(x) x_ = (x);               \
        const typeof(y) y_ = (y);               \
        (void)(&x_ == &y_);                     \
        x_ > y_ ? x_ : y_; })
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define MASK_INSR(v, m) (((v) * ((m) & -(m))) & (m))

/*
 * x86 loads are acquires and stores releases.  harness_step_hook, when set,
 * is called after every write_atomic() and every PI descriptor access
 * below, with the address: a scenario may act between any two steps.
 */
extern void (*harness_step_hook)(const void *p);
#define read_atomic(p)      __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define write_atomic(p, v) do {                                 \
        __atomic_store_n(p, v, __ATOMIC_RELEASE);               \
        if ( unlikely(harness_step_hook != NULL) )              \
            harness_step_hook(p);                               \
    } while ( 0 )
#define cmpxchg(p, o, n) ({                                             \
        typeof(__atomic_load_n(p, __ATOMIC_RELAXED)) o_ = (o);          \
        __atomic_compare_exchange_n(p, &o_, n, false, __ATOMIC_SEQ_CST, \
                                    __ATOMIC_SEQ_CST);                  \
        o_; })

static inline int test_bit(int nr, const unsigned long *addr)
{
    return (__atomic_load_n(addr, __ATOMIC_ACQUIRE) >> nr) & 1;
}

static inline unsigned long simple_strtoul(const char *s, const char **e,
                                           unsigned int base)
{
    return strtoul(s, (char **)e, base);
}

/* Command line: the harness calls the parser itself. */
#define custom_param(name, fn) \
    int (*const harness_param_fn)(const char *) = (fn); \
    const char harness_param_name[] = name

/*
 * Interrupts: each pCPU's wakeup interrupt is a thread (hw.c), which cannot
 * run while code acting as that pCPU has interrupts off.  Lock checks
 * (hw.c): a lock taken both with interrupts off and on is reported, as
 * Xen's debug spinlocks do (irq_use, written under the lock), and so is a
 * lock taken while another is held outside the CPU-dead fixup (H8).
 */
#define LOCK_IRQS_OFF 1
#define LOCK_IRQS_ON  2
unsigned long harness_irq_save(void);
void harness_irq_restore(unsigned long flags);
struct spinlock;
void harness_lock_acquired(struct spinlock *l);
void harness_lock_released(void);

/*
 * Spinlocks, as Xen's: ticket locks whose all-zero state is free, so that
 * a lock in a per-CPU area nobody initialised is taken as Xen takes it.
 * A thread taking a lock it holds would spin for ever: that is reported at
 * once (harness_lock_deadlock()), not after the run's timeout.  The
 * address of harness_thread names the thread.
 */
typedef struct spinlock {
    _Atomic uint16_t head, tail;
    _Atomic int held;
    unsigned char irq_use;
    const char *_Atomic holder;
} spinlock_t;
extern __thread char harness_thread;
void harness_lock_deadlock(struct spinlock *l);

static inline void spin_lock_init(spinlock_t *l)
{
    memset(l, 0, sizeof(*l));
}
/* Called once a lock is taken and before it is released: a scenario may
 * act at these points. */
extern void (*harness_lock_hook)(spinlock_t *l);
/* The replay's preemption point: another pCPU acts before @l is taken. */
extern struct spinlock *harness_preempt_lock;
extern void (*harness_preempt)(struct spinlock *l);
static inline void spin_lock(spinlock_t *l)
{
    uint16_t t;

    if ( unlikely(harness_preempt_lock == l) )
        harness_preempt(l);
    if ( unlikely(l->held && l->holder == &harness_thread) )
        harness_lock_deadlock(l);
    t = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    while ( __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != t )
        _mm_pause();
    l->held = 1;
    l->holder = &harness_thread;
    harness_lock_acquired(l);
    if ( unlikely(harness_lock_hook != NULL) )
        harness_lock_hook(l);
}
static inline void spin_unlock(spinlock_t *l)
{
    HARNESS_CHECK(l->held);
    if ( unlikely(harness_lock_hook != NULL) )
        harness_lock_hook(l);
    harness_lock_released();
    l->holder = NULL;
    l->held = 0;
    __atomic_store_n(&l->head, l->head + 1, __ATOMIC_RELEASE);
}
#define spin_is_locked(l) ((l)->held)
#define spin_lock_irqsave(l, f)      ((f) = harness_irq_save(), spin_lock(l))
#define spin_unlock_irqrestore(l, f) (spin_unlock(l), harness_irq_restore(f))
#define DEFINE_SPINLOCK(n)                                              \
    spinlock_t n;                                                       \
    static void __attribute__((constructor)) n ## _harness_init(void)   \
    { spin_lock_init(&n); }

#include "list.h"

/* CPUs (the bench builds one harness with -DNR_CPUS=4096). */
#ifndef NR_CPUS
#define NR_CPUS 128
#endif
extern unsigned int nr_cpu_ids;
extern __thread unsigned int harness_cpu;   /* pCPU this thread acts as */
#define smp_processor_id() \
    (HARNESS_CHECK(harness_cpu < nr_cpu_ids), harness_cpu)

#define DEFINE_PER_CPU(type, name) typeof(type) per_cpu__ ## name[NR_CPUS]
#define DECLARE_PER_CPU(type, name) extern typeof(type) per_cpu__ ## name[NR_CPUS]
/*
 * While harness_seen_on is set, every pCPU whose per-CPU data pi.c touches
 * is recorded in harness_seen (bit c of word c / 64): the replay learns
 * which lists a block looked at.
 */
extern __thread bool harness_seen_on;
extern __thread unsigned long harness_seen[NR_CPUS / 64];
#define per_cpu(name, cpu) (per_cpu__ ## name[({ unsigned int c_ = (cpu); \
                                        HARNESS_CHECK(c_ < nr_cpu_ids); \
                                        if ( unlikely(harness_seen_on) ) \
                                            harness_seen[c_ / 64] |= \
                                                1UL << (c_ % 64); \
                                        c_; })])
#define this_cpu(name) per_cpu(name, smp_processor_id())

#define BITS_PER_LONG 64
typedef struct {
    unsigned long bits[NR_CPUS / BITS_PER_LONG];
} cpumask_t;

static inline bool cpumask_test_cpu(unsigned int cpu, const cpumask_t *m)
{
    return (__atomic_load_n(&m->bits[cpu / BITS_PER_LONG], __ATOMIC_ACQUIRE)
            >> (cpu % BITS_PER_LONG)) & 1;
}
static inline void cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
    __atomic_fetch_or(&m->bits[cpu / BITS_PER_LONG],
                      1UL << (cpu % BITS_PER_LONG), __ATOMIC_SEQ_CST);
}
static inline void cpumask_clear_cpu(unsigned int cpu, cpumask_t *m)
{
    __atomic_fetch_and(&m->bits[cpu / BITS_PER_LONG],
                       ~(1UL << (cpu % BITS_PER_LONG)), __ATOMIC_SEQ_CST);
}
static inline int cpumask_weight(const cpumask_t *m)
{
    unsigned int i, w = 0;

    for ( i = 0; i < NR_CPUS / BITS_PER_LONG; i++ )
        w += __builtin_popcountl(__atomic_load_n(&m->bits[i],
                                                 __ATOMIC_ACQUIRE));
    return w;
}
/* Next CPU in @m after @n, nr_cpu_ids if none. */
static inline unsigned int cpumask_next(int n, const cpumask_t *m)
{
    unsigned int c;

    for ( c = n + 1; c < nr_cpu_ids; c++ )
        if ( cpumask_test_cpu(c, m) )
            return c;
    return nr_cpu_ids;
}
#define cpumask_first(m) cpumask_next(-1, m)
/* Next CPU in @m after @n, wrapping round; nr_cpu_ids if @m is empty. */
static inline unsigned int cpumask_cycle(int n, const cpumask_t *m)
{
    unsigned int c = cpumask_next(n, m);

    return c < nr_cpu_ids ? c : cpumask_first(m);
}
unsigned int get_random(void);
/* As Xen's: a random CPU of the mask. */
static inline unsigned int cpumask_any(const cpumask_t *m)
{
    unsigned int cpu = cpumask_first(m), w = cpumask_weight(m);

    if ( w > 1 && cpu < nr_cpu_ids )
        for ( w = get_random() % w; w--; )
            cpu = cpumask_next(cpu, m);
    return cpu;
}
extern cpumask_t cpu_online_map;
#define cpu_online(c) cpumask_test_cpu(c, &cpu_online_map)
#define num_online_cpus() cpumask_weight(&cpu_online_map)
DECLARE_PER_CPU(cpumask_t *, cpu_core_mask);

/* CPU notifiers: cpu_up() calls the registered one at CPU_ONLINE. */
#define CPU_ONLINE  2
#define NOTIFY_DONE 0
struct notifier_block {
    int (*notifier_call)(struct notifier_block *nfb, unsigned long action,
                         void *hcpu);
};
void register_cpu_notifier(struct notifier_block *nb);

#define for_each_cpu(c, m) \
    for ( (c) = cpumask_first(m); (c) < nr_cpu_ids; (c) = cpumask_next(c, m) )
static inline void cpumask_clear(cpumask_t *m)
{
    memset(m, 0, sizeof(*m));
}
static inline bool cpumask_empty(const cpumask_t *m)
{
    return !cpumask_weight(m);
}
static inline bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b)
{
    unsigned int i;

    for ( i = 0; i < NR_CPUS / BITS_PER_LONG; i++ )
        if ( __atomic_load_n(&a->bits[i], __ATOMIC_ACQUIRE) &
             __atomic_load_n(&b->bits[i], __ATOMIC_ACQUIRE) )
            return true;
    return false;
}
static inline void cpumask_and(cpumask_t *d, const cpumask_t *a,
                               const cpumask_t *b)
{
    unsigned int i;

    for ( i = 0; i < NR_CPUS / BITS_PER_LONG; i++ )
        d->bits[i] = __atomic_load_n(&a->bits[i], __ATOMIC_ACQUIRE) &
                     __atomic_load_n(&b->bits[i], __ATOMIC_ACQUIRE);
}
static inline void cpumask_or(cpumask_t *d, const cpumask_t *a,
                              const cpumask_t *b)
{
    unsigned int i;

    for ( i = 0; i < NR_CPUS / BITS_PER_LONG; i++ )
        d->bits[i] = __atomic_load_n(&a->bits[i], __ATOMIC_ACQUIRE) |
                     __atomic_load_n(&b->bits[i], __ATOMIC_ACQUIRE);
}
#define for_each_online_cpu(c) \
    for ( (c) = cpumask_first(&cpu_online_map); (c) < nr_cpu_ids; \
          (c) = cpumask_next(c, &cpu_online_map) )

/* Debug keys and the console: invariants.c presses the key and reads. */
typedef void (keyhandler_fn_t)(unsigned char key);
void register_keyhandler(unsigned char key, keyhandler_fn_t *fn,
                         const char *desc, bool diagnostic);
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

extern bool x2apic_enabled;
extern bool iommu_intpost;
extern unsigned int harness_apic_id[NR_CPUS];
#define cpu_physical_id(c) (harness_apic_id[({ unsigned int c_ = (c); \
                                        HARNESS_CHECK(c_ < nr_cpu_ids); \
                                        c_; })])

/* VMX posted interrupts.  The control word has the layout of the SDM's. */
#define POSTED_INTR_ON  0
#define POSTED_INTR_SN  1
#define PI_xAPIC_NDST_MASK 0xFF00
struct pi_desc {
    _Atomic uint64_t pir[4];
    union {
        struct {
            _Atomic uint16_t bits;
            _Atomic uint8_t  nv;
            uint8_t          rsvd_2;
            _Atomic uint32_t ndst;
        };
        _Atomic uint64_t control;
    };
} __attribute__ ((aligned (64)));

/* ON and SN are read at their own location, as Xen's bit-fields are. */
static inline int pi_test_on(struct pi_desc *d)
{
    if ( unlikely(harness_step_hook != NULL) )
        harness_step_hook(d);
    return (d->bits >> POSTED_INTR_ON) & 1;
}
static inline int pi_test_sn(struct pi_desc *d)
{
    return (d->bits >> POSTED_INTR_SN) & 1;
}
static inline void pi_set_sn(struct pi_desc *d)
{
    __atomic_fetch_or(&d->control, 1ULL << POSTED_INTR_SN, __ATOMIC_SEQ_CST);
    if ( unlikely(harness_step_hook != NULL) )
        harness_step_hook(d);
}
static inline void pi_clear_sn(struct pi_desc *d)
{
    __atomic_fetch_and(&d->control, ~(1ULL << POSTED_INTR_SN),
                       __ATOMIC_SEQ_CST);
    if ( unlikely(harness_step_hook != NULL) )
        harness_step_hook(d);
}
static inline int pi_test_and_clear_on(struct pi_desc *d)
{
    return (__atomic_fetch_and(&d->control, ~(1ULL << POSTED_INTR_ON),
                               __ATOMIC_SEQ_CST) >> POSTED_INTR_ON) & 1;
}
static inline void pi_set_on(struct pi_desc *d)
{
    __atomic_fetch_or(&d->control, 1ULL << POSTED_INTR_ON, __ATOMIC_SEQ_CST);
}

/* PIR's size: X86_NR_VECTORS before Xen 4.21, X86_IDT_VECTORS since. */
#define X86_NR_VECTORS  256
#define X86_IDT_VECTORS 256
static inline bool bitmap_empty(const _Atomic uint64_t *map,
                                unsigned int bits)
{
    unsigned int i;

    for ( i = 0; i < bits / 64; i++ )
        if ( map[i] )
            return false;

    return true;
}

struct pi_blocking_vcpu {
    struct list_head     list;
    spinlock_t *_Atomic  lock;
};

struct vmx_vcpu {
    struct pi_desc           pi_desc;
    struct pi_blocking_vcpu  pi_blocking;
};

struct cpupool;
const cpumask_t *cpupool_valid_cpus(const struct cpupool *pool);

struct domain {
    domid_t       domain_id;
    unsigned int  max_vcpus;
    struct cpupool *cpupool;
    struct domain *next_in_list;
    struct {
        struct {
            struct {
                unsigned int pi_blockable_vcpus;
            } vmx;
        } hvm;
    } arch;
};

/* The harness's domains, all HVM, in one list that does not change. */
extern struct domain *domain_list;
extern int domlist_read_lock;
#define rcu_read_lock(l)    ((void)(l))
#define rcu_read_unlock(l)  ((void)(l))
#define is_hvm_domain(d)    ((void)(d), true)
#define for_each_domain(d) \
    for ( (d) = domain_list; (d); (d) = (d)->next_in_list )
#define for_each_domain_in_cpupool(d, c) \
    for_each_domain ( d ) if ( (d)->cpupool != (c) ) {} else

#define _VPF_blocked 0
struct harness_vcpu;
struct vcpu {
    int              vcpu_id;
    unsigned int     processor;
    unsigned long    pause_flags;
    struct domain   *domain;
    struct {
        struct {
            struct vmx_vcpu vmx;
        } hvm;
    } arch;
    struct harness_vcpu *h;
};

extern uint8_t posted_intr_vector;
void vcpu_unblock(struct vcpu *v);

/* Only the pre-pi.c code (the upstream reference build) uses these. */
#define ack_APIC_irq() ((void)0)
DECLARE_PER_CPU(unsigned int, irq_count);
struct cpu_user_regs;

/* Tracing: main.c collects the records and writes a xentrace file. */
#include "public-trace.h"
extern int tb_init_done;
void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *data);
#define TRACE_varD(e_, ...)                                     \
    do {                                                        \
        if ( unlikely(tb_init_done) )                           \
        {                                                       \
            uint32_t d_[] = { __VA_ARGS__ };                    \
            __trace_var(e_, true, sizeof(d_), d_);              \
        }                                                       \
    } while ( 0 )
#define TRACE_1D(e, d1)                 TRACE_varD(e, d1)
#define TRACE_2D(e, d1, d2)             TRACE_varD(e, d1, d2)
#define TRACE_3D(e, d1, d2, d3)         TRACE_varD(e, d1, d2, d3)
#define TRACE_4D(e, d1, d2, d3, d4)     TRACE_varD(e, d1, d2, d3, d4)
/* Xen 4.19 and later. */
#define TRACE_TIME(e, ...)              TRACE_varD(e, __VA_ARGS__)

static inline uint64_t rdtsc_ordered(void)
{
    _mm_lfence();
    return __rdtsc();
}

#endif /* PI_HARNESS_EMUL_H */
