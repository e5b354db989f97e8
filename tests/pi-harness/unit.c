/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the code under test, and the harness's calls into it.
 *
 * pi.c is copied from the patched tree by the Makefile, every #include
 * replaced by emul.h.  Built with -DPI_REF, the file under test is instead
 * the same code cut out of vmx.c just before the series moves it (the base
 * plus the upstream fixes that come first in the series), to
 * show that the patched code with the bound off behaves identically.
 * Everything static in there is reached through the functions below.
 */
#include "harness.h"

#ifdef PI_REF
#include "ref-pi.c"
void harness_wakeup(void) { pi_wakeup_interrupt(); }
void harness_set_limit(const char *s) { (void)s; }
unsigned int harness_limit_of(unsigned int c) { (void)c; return 0; }
void harness_pools_changed(void) { }
void harness_account(struct domain *d, bool assign) { (void)d; (void)assign; }
unsigned int harness_list_len(unsigned int c) { (void)c; return 0; }
unsigned int harness_list_max(unsigned int c) { (void)c; return 0; }
spinlock_t *harness_limit_lock(void) { return NULL; }
unsigned int harness_spill_probes(void) { return 0; }
#else
#include "pi.c"
uint8_t posted_intr_vector;
/* As start_vmx() does when posted interrupts are in use. */
static void __attribute__((constructor)) harness_pi_init(void)
{
    vmx_pi_init();
}
void harness_wakeup(void) { vmx_pi_wakeup(); }
void harness_set_limit(const char *s)
{
    if ( harness_param_fn(s) )
    {
        fprintf(stderr, "bad %s=%s\n", harness_param_name, s);
        exit(2);
    }
}
unsigned int harness_limit_of(unsigned int c)
{
    return read_atomic(&per_cpu(vmx_pi_blocking, c).limit);
}
void harness_pools_changed(void) { vmx_pi_cpupool_changed(); }
void harness_account(struct domain *d, bool assign)
{
    vmx_pi_limit_account(d, assign);
}
unsigned int harness_list_len(unsigned int c)
{
    return per_cpu(vmx_pi_blocking, c).len;
}
unsigned int harness_list_max(unsigned int c)
{
    return per_cpu(vmx_pi_blocking, c).max_len;
}
spinlock_t *harness_limit_lock(void) { return &pi_limit_lock; }
unsigned int harness_spill_probes(void) { return PI_SPILL_PROBES; }
#endif

void harness_vectors(uint8_t wakeup, uint8_t posted)
{
    pi_wakeup_vector = wakeup;
    posted_intr_vector = posted;
}
void harness_per_cpu_init(unsigned int cpu) { vmx_pi_per_cpu_init(cpu); }
void harness_block_hook(struct vcpu *v) { vmx_vcpu_block(v); }
void harness_switch_from(struct vcpu *v) { vmx_pi_switch_from(v); }
void harness_switch_to(struct vcpu *v) { vmx_pi_switch_to(v); }
bool harness_do_resume(struct vcpu *v) { return vmx_pi_do_resume(v); }
void harness_fixup(unsigned int cpu) { vmx_pi_desc_fixup(cpu); }

struct list_head *harness_list(unsigned int c)
{
    return &per_cpu(vmx_pi_blocking, c).list;
}
spinlock_t *harness_list_lock(unsigned int c)
{
    return &per_cpu(vmx_pi_blocking, c).lock;
}

/*
 * A pCPU's per-CPU data goes away after CPU_DEAD (Xen frees the per-CPU
 * area, except across S3) and comes back zeroed at CPU_UP_PREPARE: it is
 * poisoned meanwhile, so that AddressSanitizer reports any use of it by
 * pi.c.  The harness itself looks at every list, offline ones included,
 * with everything stopped, between harness_peek_begin() and _end().
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, s)   ((void)(a), (void)(s))
#define ASAN_UNPOISON_MEMORY_REGION(a, s) ((void)(a), (void)(s))
#endif
static bool poisoned[NR_CPUS];
static unsigned int peeking;

static void poison(unsigned int c, bool on)
{
    if ( on )
        ASAN_POISON_MEMORY_REGION(&per_cpu(vmx_pi_blocking, c),
                                  sizeof(per_cpu(vmx_pi_blocking, c)));
    else
        ASAN_UNPOISON_MEMORY_REGION(&per_cpu(vmx_pi_blocking, c),
                                    sizeof(per_cpu(vmx_pi_blocking, c)));
}

void harness_cpu_free(unsigned int c)
{
    HARNESS_CHECK(!peeking && !poisoned[c]);
    poisoned[c] = true;
    poison(c, true);
}

void harness_cpu_alloc(unsigned int c)
{
    HARNESS_CHECK(!peeking);
    if ( !poisoned[c] )
        return;
    poisoned[c] = false;
    poison(c, false);
    memset(&per_cpu(vmx_pi_blocking, c), 0,
           sizeof(per_cpu(vmx_pi_blocking, c)));
}

void harness_peek_begin(void)
{
    unsigned int c;

    if ( peeking++ )
        return;
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( poisoned[c] )
            poison(c, false);
}

void harness_peek_end(void)
{
    unsigned int c;

    HARNESS_CHECK(peeking);
    if ( --peeking )
        return;
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( poisoned[c] )
            poison(c, true);
}
