/*
 * What xc_hvm_set_x2apic_ids() (libxenguest) hands Xen, without Xen: the
 * hypercall layer is replaced by fake-xencall.c and xencall1() below, which
 * answers XEN_DOMCTL_gethvmcontext with a context as Xen saves it for a
 * domain of NR_VCPUS vCPUs none of which has a chosen ID (LAPIC records of
 * the length without the ID), and records the context that
 * XEN_DOMCTL_sethvmcontext is given.
 *
 * Cases: "good" (a whole context), "instance" (a LAPIC record for a vCPU
 * beyond nr_vcpus), "truncated" (a record running past the context's end).
 * Output: "key value" lines for the .t file to judge.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xencall.h>
#include <xenctrl.h>
#include <xenguest.h>

#define NR_VCPUS 3
#define APIC_ID_REG 0x20

/* The length of a LAPIC record without the x2APIC ID: Xen's, by default. */
#define LAPIC_SHORT offsetof(struct hvm_hw_lapic, x2apic_id)
#define LAPIC_LONG (offsetof(struct hvm_hw_lapic, x2apic_id) + \
                    sizeof(uint32_t))

static uint8_t given[8192];
static uint32_t given_len;
static uint8_t *got;
static uint32_t got_len;
static unsigned int get_calls, set_calls, bad_domid;

static void *add(uint32_t *off, uint16_t code, uint16_t inst, uint32_t len)
{
    struct hvm_save_descriptor *d = (void *)(given + *off);

    d->typecode = code;
    d->instance = inst;
    d->length = len;
    *off += sizeof(*d) + len;

    return d + 1;
}

/* The context Xen would save; what the case breaks in it. */
static void make_context(const char *which)
{
    struct hvm_save_header *h;
    unsigned int v;
    uint32_t off = 0, last_regs = 0;

    memset(given, 0, sizeof(given));
    h = add(&off, HVM_SAVE_CODE(HEADER), 0, sizeof(*h));
    h->magic = HVM_FILE_MAGIC;
    h->version = HVM_FILE_VERSION;
    h->gtsc_khz = 1000000;

    for ( v = 0; v < NR_VCPUS; v++ )
    {
        struct hvm_hw_lapic *l;
        uint8_t *regs;
        uint32_t id = (2 * v) << 24;

        add(&off, HVM_SAVE_CODE(CPU), v, sizeof(struct hvm_hw_cpu));
        l = add(&off, HVM_SAVE_CODE(LAPIC),
                !strcmp(which, "instance") && v == 2 ? NR_VCPUS : v,
                LAPIC_SHORT);
        l->apic_base_msr = 0xfee00900 | (v ? 0 : 0x100);
        l->disabled = v;
        l->timer_divisor = v + 1;
        l->tdt_msr = 0x1000 + v;
        last_regs = off;
        regs = add(&off, HVM_SAVE_CODE(LAPIC_REGS), v, 1024);
        memcpy(regs + APIC_ID_REG, &id, sizeof(id));
        regs[0x80] = 0x10 + v;
    }
    add(&off, HVM_SAVE_CODE(MTRR), 0, sizeof(struct hvm_hw_mtrr));
    add(&off, HVM_SAVE_CODE(END), 0, 0);
    given_len = off;

    /* The last LAPIC_REGS record claims more than the context holds. */
    if ( !strcmp(which, "truncated") )
        given_len = last_regs + sizeof(struct hvm_save_descriptor) + 100;
}

int xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1)
{
    struct xen_domctl *d = (void *)(uintptr_t)arg1;
    uint8_t *buf;

    if ( op != __HYPERVISOR_domctl ||
         d->interface_version != XEN_DOMCTL_INTERFACE_VERSION )
    {
        printf("unexpected hypercall %u\n", op);
        return -1;
    }
    if ( d->domain != 7 )
        bad_domid++;
    buf = (void *)(uintptr_t)d->u.hvmcontext.buffer.p;

    switch ( d->cmd )
    {
    case XEN_DOMCTL_gethvmcontext:
        get_calls++;
        if ( buf )
        {
            if ( d->u.hvmcontext.size < given_len )
            {
                errno = ENOSPC;
                return -1;
            }
            memcpy(buf, given, given_len);
        }
        d->u.hvmcontext.size = given_len;
        return 0;

    case XEN_DOMCTL_sethvmcontext:
        set_calls++;
        free(got);
        got_len = d->u.hvmcontext.size;
        got = malloc(got_len);
        if ( !got )
            return -1;
        memcpy(got, buf, got_len);
        return 0;
    }

    printf("unexpected domctl %u\n", d->cmd);
    return -1;
}

/* Judge the context set against the one given, a line per finding. */
static void judge(const uint32_t *ids)
{
    const struct hvm_save_descriptor *d;
    unsigned int lapic = 0, regs = 0, other = 0, header_first = 0, n = 0;
    unsigned int lapic_ok = 0, regs_ok = 0, end_last = 0;
    uint32_t off;

    for ( off = 0; off + sizeof(*d) <= got_len;
          off += sizeof(*d) + d->length, n++ )
    {
        const uint8_t *p;

        d = (const void *)(got + off);
        p = (const void *)(d + 1);
        if ( d->length > got_len - off - sizeof(*d) )
        {
            printf("record %u runs past the end\n", n);
            return;
        }

        switch ( d->typecode )
        {
        case HVM_SAVE_CODE(HEADER):
            header_first += !n && d->length == sizeof(struct hvm_save_header) &&
                            !memcmp(d, given, sizeof(*d) + d->length);
            break;

        case HVM_SAVE_CODE(LAPIC):
        {
            const struct hvm_save_descriptor *g = NULL;
            struct hvm_hw_lapic l;
            uint32_t o;

            lapic++;
            /* The given record of the same vCPU. */
            for ( o = 0; o < given_len; o += sizeof(*g) + g->length )
            {
                g = (const void *)(given + o);
                if ( g->typecode == HVM_SAVE_CODE(LAPIC) &&
                     g->instance == d->instance )
                    break;
            }
            if ( d->length != LAPIC_LONG || d->instance >= NR_VCPUS ||
                 o >= given_len )
                break;
            memcpy(&l, p, LAPIC_LONG);
            lapic_ok += !memcmp(p, g + 1, g->length) && !l.rsvd_zero &&
                        l.x2apic_id == ids[d->instance];
            break;
        }

        case HVM_SAVE_CODE(LAPIC_REGS):
        {
            uint32_t id;

            regs++;
            if ( d->length != 1024 || d->instance >= NR_VCPUS )
                break;
            memcpy(&id, p + APIC_ID_REG, sizeof(id));
            regs_ok += id == ids[d->instance] << 24 &&
                       p[0x80] == 0x10 + d->instance;
            break;
        }

        case HVM_SAVE_CODE(END):
            end_last += !d->length && off + sizeof(*d) == got_len;
            break;

        default:
            other++;
            break;
        }
    }

    printf("header first %u\n", header_first);
    printf("lapic %u, with the ID and the rest as given %u\n", lapic, lapic_ok);
    printf("lapic_regs %u, with the ID register %u\n", regs, regs_ok);
    printf("other records %u\n", other);
    printf("end last %u\n", end_last);
}

int main(int argc, char *argv[])
{
    static const uint32_t ids[NR_VCPUS] = { 0, 1, 4 };
    const char *which = argc > 1 ? argv[1] : "good";
    xc_interface *xch = xc_interface_open(NULL, NULL, 0);
    int rc, err;

    if ( !xch )
    {
        printf("xc_interface_open failed\n");
        return 1;
    }

    make_context(which);
    errno = 0;
    rc = xc_hvm_set_x2apic_ids(xch, 7, NR_VCPUS, ids);
    err = errno;
    printf("rc %d\n", rc);
    if ( rc )
        printf("errno %s\n", err == EINVAL ? "EINVAL" : strerror(err));
    printf("gets %u, sets %u, wrong domid %u\n", get_calls, set_calls,
           bad_domid);
    if ( set_calls )
        judge(ids);

    free(got);
    xc_interface_close(xch);
    return 0;
}
