/*
 * What libxenctrl puts in XEN_DOMCTL_set_vcpu_apic_ids, without Xen: the
 * hypercall layer is replaced by fake-xencall.c and xencall1() below,
 * which the tree's libxenctrl calls instead of its own.
 * xencall1() checks the domctl as Xen does (pad must be zero) and records
 * what it got.
 *
 * Before the call, the stack is filled with a pattern, so that a field the
 * library leaves unset reads as garbage, as it may in any real caller.
 * Output: one "key value" line each, for the .t file to judge.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xencall.h>
#include <xenctrl.h>

static unsigned int calls;
static uint8_t got_ids[8];

int xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1)
{
    const struct xen_domctl *d = (const void *)(uintptr_t)arg1;
    const struct xen_domctl_vcpu_apic_ids *a = &d->u.vcpu_apic_ids;

    if ( op != __HYPERVISOR_domctl ||
         d->cmd != XEN_DOMCTL_set_vcpu_apic_ids ||
         d->interface_version != XEN_DOMCTL_INTERFACE_VERSION )
    {
        printf("unexpected hypercall %u\n", op);
        return -1;
    }

    calls++;
    printf("domid %u\n", d->domain);
    printf("nr_vcpus %u\n", a->nr_vcpus);
    /* As Xen: a non-zero pad is refused with EINVAL. */
    printf("pad %s\n", a->pad ? "set" : "zero");
    if ( a->pad )
        return -1;

    if ( a->nr_vcpus <= sizeof(got_ids) )
        memcpy(got_ids, (const void *)(uintptr_t)a->apic_id.p, a->nr_vcpus);
    return 0;
}

static void __attribute__((noinline)) dirty_stack(void)
{
    volatile uint8_t junk[16384];
    unsigned int i;

    for ( i = 0; i < sizeof(junk); i++ )
        junk[i] = 0xa5;
}

int main(void)
{
    static const uint8_t ids[] = { 0, 1, 4, 5, 8 };
    xc_interface *xch = xc_interface_open(NULL, NULL, 0);
    unsigned int i;
    int rc;

    if ( !xch )
    {
        printf("xc_interface_open failed\n");
        return 1;
    }

    dirty_stack();
    rc = xc_domain_set_vcpu_apic_ids(xch, 7, sizeof(ids), ids);
    printf("rc %d\n", rc);
    printf("calls %u\n", calls);
    printf("ids");
    for ( i = 0; i < sizeof(ids); i++ )
        printf(" %u", got_ids[i]);
    printf("\n");

    xc_interface_close(xch);
    return 0;
}
