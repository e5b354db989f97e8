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
 * area, except across S3) and comes back zeroed at CPU_UP_PREPARE.
 * Meanwhile it holds FREED_BYTE throughout, as freed memory is poisoned:
 * the checks and the next allocation report any other byte there, a write
 * by pi.c, in every build; a pointer read from it is non-canonical, and
 * following it crashes.  With AddressSanitizer it is also poisoned, so
 * that any use of it by pi.c is reported at once.  The harness itself
 * looks at every list, offline ones included, with everything stopped,
 * between harness_peek_begin() and _end(), freed ones aside.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, s)   ((void)(a), (void)(s))
#define ASAN_UNPOISON_MEMORY_REGION(a, s) ((void)(a), (void)(s))
#endif
#define FREED_BYTE 0xa5
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
    unsigned int n;

    HARNESS_CHECK(!peeking && !poisoned[c]);
    if ( (n = count_list(c)) )
        violation("per-CPU area freed with vCPUs on its list", c, n);
    poisoned[c] = true;
    memset(&per_cpu(vmx_pi_blocking, c), FREED_BYTE,
           sizeof(per_cpu(vmx_pi_blocking, c)));
    poison(c, true);
}

bool harness_cpu_freed(unsigned int c)
{
    return poisoned[c];
}

/* A write into @c's freed area (readable now), reported once. */
static void check_freed(unsigned int c)
{
    unsigned char *p = (unsigned char *)&per_cpu(vmx_pi_blocking, c);
    size_t i, n = sizeof(per_cpu(vmx_pi_blocking, c));

    for ( i = 0; i < n; i++ )
        if ( p[i] != FREED_BYTE )
        {
            violation("write into the per-CPU area of an offline pCPU "
                      "(pCPU, offset)", c, i);
            memset(p, FREED_BYTE, n);
            return;
        }
}

void harness_check_freed(void)
{
    unsigned int c;

    harness_peek_begin();
    for ( c = 0; c < nr_cpu_ids; c++ )
        if ( poisoned[c] )
            check_freed(c);
    harness_peek_end();
}

void harness_cpu_alloc(unsigned int c)
{
    HARNESS_CHECK(!peeking);
    if ( !poisoned[c] )
        return;
    poison(c, false);
    check_freed(c);
    poisoned[c] = false;
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
