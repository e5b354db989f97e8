/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: what the harness's own files share.  emul.h is the
 * environment pi.c needs; this is the harness around it:
 *
 *   unit.c        the code under test (pi.c, or the code before the series
 *                 with -DPI_REF) and the calls into it
 *   hw.c          the hardware's side of posting: PI descriptor updates,
 *                 notification, the local APIC of each pCPU
 *   vcpu.c        vCPUs and the scheduler: block, wake, lazy context
 *                 switch, migration, pCPUs going offline and online
 *   invariants.c  the checks, with everything else stopped
 *   trace.c       the xentrace writer behind pi.c's TRACE_xD records
 *   scenarios.c   the threaded stress and the deterministic replay
 *   main.c        options, setup, exit status
 */
#ifndef PI_HARNESS_HARNESS_H
#define PI_HARNESS_HARNESS_H

#include "emul.h"

#define WAKEUP_VECTOR 0xf1
#define POSTED_VECTOR 0xf2
#define MAX_VCPUS 256

/* ---- unit.c: the code under test ---- */
void harness_vectors(uint8_t wakeup, uint8_t posted);
void harness_per_cpu_init(unsigned int cpu);
void harness_block_hook(struct vcpu *v);
void harness_switch_from(struct vcpu *v);
void harness_switch_to(struct vcpu *v);
bool harness_do_resume(struct vcpu *v);
void harness_fixup(unsigned int cpu);
void harness_wakeup(void);
void harness_set_limit(const char *s);
/* The limit of pCPU @c's list (0: none). */
unsigned int harness_limit_of(unsigned int c);
/* A domain or a pCPU changed cpupool: what cpupool.c tells the arch. */
void harness_pools_changed(void);
void harness_account(struct domain *d, bool assign);
/* pCPU @c's list: head, lock; counters (0 for the reference build). */
struct list_head *harness_list(unsigned int c);
spinlock_t *harness_list_lock(unsigned int c);
unsigned int harness_list_len(unsigned int c);
unsigned int harness_list_max(unsigned int c);
/* The lock under which the limit is computed (NULL: no limit). */
spinlock_t *harness_limit_lock(void);
/* How many lists a spill search looks at per pass (0: no bound). */
unsigned int harness_spill_probes(void);
/*
 * pCPU @c's per-CPU data freed (filled with a pattern, poisoned), allocated
 * (zeroed); whether it is freed; peeks.  harness_check_freed() reports any
 * byte of a freed area that is no longer the pattern: pi.c wrote there.
 */
void harness_cpu_free(unsigned int c);
void harness_cpu_alloc(unsigned int c);
bool harness_cpu_freed(unsigned int c);
void harness_check_freed(void);
void harness_peek_begin(void);
void harness_peek_end(void);

/* ---- vcpu.c: vCPUs, scheduler, pCPUs ---- */
struct harness_vcpu {
    struct vcpu v;
    pthread_t thread;
    pthread_mutex_t sched;      /* held by the vCPU's own steps, migration */
    pthread_mutex_t wmtx;
    pthread_cond_t wcond;
    uint64_t rng;
    unsigned int loaded_on;     /* pCPU holding its context, or ~0u */
    /* Moved outside its cpupool while the pool had no online pCPU. */
    _Atomic bool outside_pool_ok;
};

extern bool threaded;
extern struct harness_vcpu *hv[MAX_VCPUS];
extern unsigned int nr_vcpus;
extern struct vcpu *_Atomic curr_vcpu[NR_CPUS];
/* Stop-machine: pi.c runs in read sections, CPU online/offline and the
 * invariant checks in write sections. */
extern pthread_rwlock_t stop_machine;
extern pthread_mutex_t exec_lock[NR_CPUS];
extern _Atomic bool stop_all, stop_devices;
extern struct harness_vcpu *runq[MAX_VCPUS];   /* replay only */
extern unsigned int runq_head, runq_tail;

uint64_t rng_next(uint64_t *s);
void rng_seed(uint64_t seed);
void setup(unsigned int pcpus, unsigned int vcpus, bool all_on_0,
           uint64_t seed);
bool is_blocked(const struct vcpu *v);
void context_switch_in(struct vcpu *v);
/* @v is descheduled while runnable (preempted): its state is saved. */
void deschedule(struct vcpu *v);
/* Replay: 1 run in N, the vCPU is preempted and posted to meanwhile. */
extern unsigned int preempt_every;
void block(struct vcpu *v);
/* How many times vcpu_unblock() was called (single-threaded). */
extern uint64_t vcpu_unblocks;
unsigned int pick_online(uint64_t *rng);
void cpu_offline(unsigned int x, uint64_t *rng);
void cpu_down_prepare(unsigned int x);
void cpu_disable(unsigned int x, uint64_t *rng, bool pools);
void cpu_dead(unsigned int x, bool free);
/* Cycles the last CPU-dead fixup took. */
extern uint64_t fixup_cycles;
void cpu_up(unsigned int x, bool pools);
void cpu_up_canceled(unsigned int x);
void suspend_resume(uint64_t *rng);
/*
 * Two cpupools: the first starts with pCPUs pool_first..pool_last (all of
 * them unless --pool), the other with the rest.  in_pool() and
 * pool_online() are about the pool of the domain whose vCPUs run here.
 */
extern unsigned int pool_first, pool_last;
bool in_pool(unsigned int cpu);
bool pool_online(unsigned int except);
bool may_offline(unsigned int cpu);
/* --pool-moves: the domain or a pCPU changes pool. */
void pool_change(uint64_t *rng);
/*
 * B and P of pCPU @c's limit, from what the harness did: the vCPUs of the
 * domains of its pool which have the PI hooks, the pool's online pCPUs.
 */
unsigned int pool_blockable_vcpus(unsigned int c);
unsigned int pool_online_cpus(unsigned int c);
void hooks_toggle(void);
/* Post to the vCPU the CPU-dead fixup is at, whenever it takes a lock. */
extern bool fixup_posts;
/* Post to each vCPU entering the guest at one step of its entry. */
extern bool entry_posts;
/* Switch tracing on from inside the first wakeup walk that wakes a vCPU. */
extern bool trace_on_in_walk;
void *vcpu_thread(void *arg);
void *timer_thread(void *arg);

/* ---- hw.c: the hardware ---- */
extern _Atomic unsigned int irq_pending[NR_CPUS];
extern __thread bool lock_debug_off, in_fixup;
extern pthread_mutex_t irq_gate[NR_CPUS];
extern pthread_mutex_t irq_mtx[NR_CPUS];
extern pthread_cond_t irq_cond[NR_CPUS];

uint32_t ndst_of(unsigned int cpu);
int post_interrupt(struct vcpu *v);
int post_interrupt_to(struct vcpu *v, int *notified);
bool sync_pir_to_irr(struct vcpu *v);
void guest_runs(struct vcpu *v);
/* The wakeup interrupt's handler on the current pCPU. */
void wakeup_walk(void);
/* --cold-walks: the replay evicts a walk's lines before measuring it. */
extern bool cold_walks;
void evict_walk_lines(unsigned int cpu);
extern __thread bool in_walk;
extern __thread uint64_t walk_start;
/*
 * With tracing: whether the walk's list was counted when the walk locked
 * it, its length then, and the vCPUs the walk woke (PI_WAKEUP's fields).
 */
extern __thread bool walk_counted;
extern __thread unsigned int walk_len, walk_woken;
void raise_irq(int cpu);
void irq_enter(unsigned int cpu);
struct cpu_ctx {
    unsigned int cpu, irq_off_depth, locks_held;
};
void other_cpu_begin(struct cpu_ctx *c);
void other_cpu_end(const struct cpu_ctx *c);
void irq_exit(unsigned int cpu);
void *irq_thread(void *arg);
void *device_thread(void *arg);

/* ---- invariants.c ---- */
extern _Atomic uint64_t st_adds, st_spilled, st_over_limit, st_moves,
    st_walks, st_woken, st_posted, st_notified, st_dropped, st_blocks,
    st_violations, st_lost, st_max_len, st_running_ndst_stale,
    st_trace_mismatch, st_races, st_pool_changes;
/*
 * A list may be longer than the limit in force when pi.c said so itself (an
 * add or move above the limit: every list it looked at was full) or when
 * the limit went down since (a pCPU came up): then until it is back below.
 */
extern _Atomic bool over_excused[NR_CPUS];

/* vmx-pi-list-limit=auto: the limit must be the documented formula. */
extern bool limit_auto;
/*
 * vmx-pi-list-limit=0: the bound off, which must behave as upstream: no
 * list has a limit, every vCPU goes on its own pCPU's list.
 */
extern bool limit_off;

void violation(const char *what, unsigned int a, unsigned int b);
void limits_changed(void);
void note_max(_Atomic uint64_t *m, uint64_t v);
int list_cpu_of(const struct vcpu *v);
unsigned int count_list(unsigned int c);
void check_invariants(bool final);
/* Press the debug key pi.c registered; check what it prints. */
void check_debug_key(void);

/* ---- trace.c ---- */
extern FILE *trace_file;
extern uint64_t trace_records;
/* The vCPU this thread blocks in pi.c: the one PI_LIST_ADD is about. */
extern __thread struct vcpu *blocking_vcpu;
/*
 * A move of entries begins (CPU-dead fixup, cpupool change, pCPU online):
 * where its PI_LIST_MOVEs above the limit go is judged per move.
 */
void trace_moves_begin(void);
void trace_cpu_init(unsigned int cpu);
void trace_close(void);

/* ---- scenarios.c ---- */
extern FILE *digest_file;
struct scenario {
    const char *name, *trace;
    unsigned int pcpus, vcpus, seconds, events, burst, hotplug, devices;
    unsigned int s3;            /* replay: suspend and resume every s3 events */
    unsigned int hooks;         /* replay: hooks_toggle() every hooks events */
    unsigned int up_cancel;     /* replay: a pCPU fails to come up */
    unsigned int pool_moves;    /* a domain or pCPU changes pool, 1 in N */
    unsigned int timer;         /* replay: a timer wakes 1 in N events */
    bool race_fixup;            /* replay: see scenarios.c */
    bool race_limit;            /* replay: see scenarios.c */
    bool fixup_bench;           /* replay: see scenarios.c */
    uint64_t seed;
};
void run_replay(const struct scenario *s);
void run_stress(const struct scenario *s);

#endif /* PI_HARNESS_HARNESS_H */
