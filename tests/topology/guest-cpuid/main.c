/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest-cpuid: what guest_cpuid() of the tree answers in leaf 0xb, for
 * policies whose topology x86_topo_from_packages() (the tree's, as the
 * toolstack runs it) describes and for policies that describe none.
 *
 * Prints "cases N", then one line per case: "ok: NAME" when it held,
 * "not ok: NAME: ..." with what was got and wanted otherwise.  Exit status
 * 0 when every case held, 1 otherwise.
 */
#include "emul.h"

struct cpuinfo_x86 boot_cpu_data = { .x86_vendor = X86_VENDOR_INTEL };
struct cpu_policy raw_cpu_policy;
unsigned long host_cr4 = X86_CR4_PAE | X86_CR4_OSXSAVE;
struct vcpu *current;

/* guest_cpuid() of the tag "base", the unpatched Xen (cpuid-base.c). */
void base_guest_cpuid(const struct vcpu *v, uint32_t leaf,
                      uint32_t subleaf, struct cpuid_leaf *res);

void cpuid_hypervisor_leaves(const struct vcpu *v, uint32_t leaf,
                             uint32_t subleaf, struct cpuid_leaf *res)
{
    fprintf(stderr, "guest-cpuid: leaf %#x is not part of this test\n", leaf);
    abort();
}

void cpuid_viridian_leaves(const struct vcpu *v, uint32_t leaf,
                           uint32_t subleaf, struct cpuid_leaf *res)
{
    cpuid_hypervisor_leaves(v, leaf, subleaf, res);
}

#define NR_VCPUS 4
#define NR_CASES 154

static unsigned int nr_cases, nr_failed;

static void result(bool held, const char *name, const char *why)
{
    nr_cases++;
    if ( held )
        printf("ok: %s\n", name);
    else
    {
        nr_failed++;
        printf("not ok: %s: %s\n", name, why);
    }
}

static void check_leaf(const char *name, struct cpuid_leaf got,
                       struct cpuid_leaf want)
{
    char why[160];

    snprintf(why, sizeof(why),
             "got %08x %08x %08x %08x, want %08x %08x %08x %08x",
             got.a, got.b, got.c, got.d, want.a, want.b, want.c, want.d);
    result(!memcmp(&got, &want, sizeof(got)), name, why);
}

/* CPUID as the vCPU itself runs it: guest_cpuid()'s dynamic pass with it. */
static struct cpuid_leaf query(struct vcpu *v, uint32_t leaf,
                               uint32_t subleaf)
{
    struct cpuid_leaf res;

    current = v;
    guest_cpuid(v, leaf, subleaf, &res);
    current = NULL;

    return res;
}

/*
 * An Intel policy as Xen gives a guest after recalculate_misc(): leaf 0xb
 * wiped, leaf 4 with L1d, L1i, L2 and an L3.
 */
static void intel_policy(struct cpu_policy *p, bool x2apic)
{
    static const uint8_t type[] = { 1, 2, 3, 3 }, level[] = { 1, 1, 2, 3 };
    unsigned int i;

    memset(p, 0, sizeof(*p));
    p->x86_vendor = X86_VENDOR_INTEL;
    p->basic.max_leaf = 0xd;
    p->basic.vendor_ebx = X86_VENDOR_INTEL_EBX;
    p->basic.vendor_ecx = X86_VENDOR_INTEL_ECX;
    p->basic.vendor_edx = X86_VENDOR_INTEL_EDX;
    p->basic.raw[1].d = cpufeat_mask(X86_FEATURE_APIC);
    p->basic.x2apic = x2apic;
    for ( i = 0; i < ARRAY_SIZE(type); i++ )
    {
        p->cache.subleaf[i].type = type[i];
        p->cache.subleaf[i].level = level[i];
    }
    p->extd.max_leaf = 0x80000008;
}

enum kind { HVM, PVH, PV };
static const char *const kind_name[] = { "HVM", "PVH", "PV" };

/*
 * A domain of NR_VCPUS vCPUs, each as it runs 64-bit code: HVM with shadow
 * paging, PVH with HAP, PV in its kernel asking through the forced
 * emulation prefix (#UD).
 */
static struct vcpu_msrs no_xss;

static void make_domain(struct domain *d, struct vcpu v[], enum kind kind,
                        struct cpu_policy *p, uint8_t *apic_id)
{
    unsigned int i;

    memset(d, 0, sizeof(*d));
    d->hvm = kind != PV;
    d->hap = kind == PVH;
    d->arch.cpu_policy = p;
    /* PV IDs come by domctl, HVM and PVH ones in the LAPIC records. */
    d->arch.vcpu_apic_id = kind == PV ? apic_id : NULL;

    for ( i = 0; i < NR_VCPUS; i++ )
    {
        memset(&v[i], 0, sizeof(v[i]));
        v[i].vcpu_id = i;
        v[i].domain = d;
        v[i].arch.xcr0 = 3;                 /* x87 and SSE state. */
        v[i].arch.msrs = &no_xss;
        if ( kind == PV )
        {
            v[i].kernel_mode = true;
            v[i].regs.entry_vector = TRAP_invalid_op;
            v[i].arch.pv.ctrlreg[4] = X86_CR4_PAE;
        }
        else
        {
            v[i].arch.hvm.guest_cr[4] = X86_CR4_PAE;
            v[i].arch.hvm.guest_efer = EFER_LMA;
            v[i].arch.hvm.vlapic.hw.x2apic_id = apic_id ? apic_id[i] : 2 * i;
        }
    }
}

/* Leaf 0xb subleaf @sub as a described SMT (0) / core (1) level gives it. */
static struct cpuid_leaf topo_leaf(unsigned int sub, unsigned int shift,
                                   unsigned int nr_logical, uint32_t id)
{
    return (struct cpuid_leaf){
        .a = shift, .b = nr_logical, .c = ((sub + 1) << 8) | sub, .d = id,
    };
}

/*
 * 4 vCPUs in 2 vnodes of 2 ({0,1} {2,3}), HVM/PVH: APIC IDs 2 * vcpu_id, so
 * an SMT level of shift 1 (the unused odd IDs) and packages of 4 IDs.
 * Leaf 0xb EDX must be the vCPU's APIC ID with x2APIC on and off.
 */
static void test_hvm_described(void)
{
    static const unsigned int map[NR_VCPUS] = { 0, 0, 1, 1 };
    struct cpu_policy p;
    struct domain d;
    struct vcpu v[NR_VCPUS];
    char name[128];
    unsigned int i, sub, x2apic;
    enum kind kind;
    int rc;

    for ( x2apic = 0; x2apic < 2; x2apic++ )
    {
        intel_policy(&p, x2apic);
        rc = x86_topo_from_packages(&p, map, NR_VCPUS, X86_TOPO_HVM_IDS,
                                    NULL, NULL);
        snprintf(name, sizeof(name),
                 "x2apic=%s: x86_topo_from_packages() describes HVM 2x2 in leaf 0xb",
                 x2apic ? "on" : "off");
        result(!rc && p.topo.subleaf[0].type == 1 &&
               p.topo.subleaf[1].nr_logical == 2 && p.basic.lppp == 4,
               name, "no such policy");

        for ( kind = HVM; kind <= PVH; kind++ )
        {
            make_domain(&d, v, kind, &p, NULL);
            for ( i = 0; i < NR_VCPUS; i++ )
                for ( sub = 0; sub < 2; sub++ )
                {
                    snprintf(name, sizeof(name),
                             "described: %s x2apic=%s vCPU %u leaf 0xb:%u: "
                             "ECX[7:0] = %u, EDX = %u",
                             kind_name[kind], x2apic ? "on" : "off", i, sub,
                             sub, 2 * i);
                    check_leaf(name, query(&v[i], 0xb, sub),
                               topo_leaf(sub, sub ? 2 : 1, sub ? 2 : 1, 2 * i));
                }
        }
    }
}

/*
 * 4 vCPUs in 2 vnodes of 2 which aren't contiguous ({0,2} {1,3}, as
 * cpu_topology="vnuma_apicid" takes them for PV, and libxl for PVH): the
 * toolstack chooses APIC IDs 0, 2, 1, 3 (package << 1 | rank), neither
 * vcpu_id nor 2 * vcpu_id.  Leaf 0xb EDX and leaf 1 EBX[31:24] must be the
 * chosen ID; PV without x2APIC, HVM and PVH with it.
 */
static void test_chosen_apic_ids(enum kind kind)
{
    static const unsigned int map[NR_VCPUS] = { 0, 1, 0, 1 };
    static const uint8_t want_ids[NR_VCPUS] = { 0, 2, 1, 3 };
    uint8_t ids[NR_VCPUS];
    struct cpu_policy p;
    struct domain d;
    struct vcpu v[NR_VCPUS];
    char name[128];
    unsigned int i, sub, chosen;
    int rc;

    intel_policy(&p, kind != PV);
    rc = x86_topo_from_packages(&p, map, NR_VCPUS, 0, ids, NULL);
    snprintf(name, sizeof(name), "x86_topo_from_packages() describes %s"
             " {0,2} {1,3}: APIC IDs 0 2 1 3", kind_name[kind]);
    result(!rc && !memcmp(ids, want_ids, sizeof(ids)) &&
           p.topo.subleaf[0].type == 1, name, "no such policy");
    snprintf(name, sizeof(name), "the %s APIC IDs pass"
             " XEN_DOMCTL_set_vcpu_apic_ids' check", kind_name[kind]);
    result(!rc && !x86_topo_check_apic_ids(&p, ids, NR_VCPUS), name,
           "refused");

    /*
     * With the IDs, and for PV with the same policy but no IDs chosen (the
     * domctl never made): then a vCPU reads what upstream gives a PV vCPU,
     * 0 in leaf 1 and 2 * vcpu_id in leaf 0xb.
     */
    for ( chosen = kind != PV; chosen < 2; chosen++ )
    {
        make_domain(&d, v, kind, &p, chosen ? ids : NULL);
        for ( i = 0; i < NR_VCPUS; i++ )
        {
            unsigned int want = chosen ? want_ids[i] : 2 * i;
            unsigned int want1 = chosen ? want_ids[i] : 0;

            for ( sub = 0; sub < 2; sub++ )
            {
                snprintf(name, sizeof(name),
                         "described: %s %s vCPU %u leaf 0xb:%u: "
                         "ECX[7:0] = %u, EDX = %u", kind_name[kind],
                         chosen ? "chosen IDs" : "no IDs", i, sub, sub, want);
                check_leaf(name, query(&v[i], 0xb, sub),
                           topo_leaf(sub, sub, sub ? 2 : 1, want));
            }

            snprintf(name, sizeof(name),
                     "described: %s %s vCPU %u leaf 1 EBX[31:24] = %u",
                     kind_name[kind], chosen ? "chosen IDs" : "no IDs", i,
                     want1);
            result(query(&v[i], 1, 0).b >> 24 == want1, name, "another ID");
        }
    }
}

/*
 * Chosen APIC IDs at the top of their 8 bits (128 and more shift into bit
 * 31 of leaf 1 EBX): each vCPU reads its own in leaf 1 EBX[31:24].
 */
static void test_high_apic_ids(enum kind kind)
{
    static uint8_t ids[NR_VCPUS] = { 128, 129, 254, 255 };
    struct cpu_policy p;
    struct domain d;
    struct vcpu v[NR_VCPUS];
    char name[128];
    unsigned int i;

    intel_policy(&p, false);
    make_domain(&d, v, kind, &p, ids);
    for ( i = 0; i < NR_VCPUS; i++ )
    {
        snprintf(name, sizeof(name),
                 "%s chosen APIC ID %u: leaf 1 EBX[31:24] = %u",
                 kind_name[kind], ids[i], ids[i]);
        result(query(&v[i], 1, 0).b >> 24 == ids[i], name, "another ID");
    }
}

/*
 * A leaf 0xb nobody described (subleaf 0 type 0, as recalculate_misc()
 * leaves it): zeroes without x2APIC, upstream's subleaf and 2 * vcpu_id
 * with it, PV included (a PV guest started before x2APIC was hidden from
 * PV, or given it with cpuid=); and every leaf as the unpatched
 * guest_cpuid() answers it.
 */
static void test_undescribed(void)
{
    static const struct { enum kind kind; bool x2apic; } cfg[] = {
        { HVM, false }, { HVM, true }, { PVH, false }, { PVH, true },
        { PV, false }, { PV, true },
    };
    struct cpu_policy p;
    struct domain d;
    struct vcpu v[NR_VCPUS];
    char name[128], why[160];
    unsigned int c, i, sub, leaf, diffs;

    for ( c = 0; c < ARRAY_SIZE(cfg); c++ )
    {
        const char *x2apic = cfg[c].x2apic ? "on" : "off";

        intel_policy(&p, cfg[c].x2apic);
        make_domain(&d, v, cfg[c].kind, &p, NULL);

        for ( i = 0; i < NR_VCPUS; i++ )
            for ( sub = 0; sub < 2; sub++ )
            {
                struct cpuid_leaf want = {};

                if ( cfg[c].x2apic )
                {
                    want.c = sub;
                    want.d = 2 * i;
                }
                snprintf(name, sizeof(name),
                         "undescribed: %s x2apic=%s vCPU %u leaf 0xb:%u: "
                         "%08x %08x %08x %08x", kind_name[cfg[c].kind],
                         x2apic, i, sub, want.a, want.b, want.c, want.d);
                check_leaf(name, query(&v[i], 0xb, sub), want);
            }

        /* Basic leaves 0-0xd, subleaves 0-3, and extended leaves. */
        diffs = 0;
        why[0] = '\0';
        for ( i = 0; i < NR_VCPUS; i++ )
            for ( leaf = 0; leaf <= 0x8000000d; leaf++ )
            {
                struct cpuid_leaf got, want;

                if ( leaf == 0xe )
                    leaf = 0x80000000;
                for ( sub = 0; sub < 4; sub++ )
                {
                    got = query(&v[i], leaf, sub);
                    current = &v[i];
                    base_guest_cpuid(&v[i], leaf, sub, &want);
                    current = NULL;
                    if ( !memcmp(&got, &want, sizeof(got)) )
                        continue;
                    if ( !diffs++ )
                        snprintf(why, sizeof(why),
                                 "vCPU %u leaf %#x:%u got %08x %08x %08x %08x,"
                                 " base %08x %08x %08x %08x", i, leaf, sub,
                                 got.a, got.b, got.c, got.d,
                                 want.a, want.b, want.c, want.d);
                }
            }
        snprintf(name, sizeof(name),
                 "undescribed: %s x2apic=%s: leaves 0-0xd, 0x80000000-0x8000000d"
                 " as the base's guest_cpuid()", kind_name[cfg[c].kind], x2apic);
        result(!diffs, name, why);
    }
}

int main(void)
{
    enum kind kind;

    printf("cases %u\n", NR_CASES);

    test_hvm_described();
    for ( kind = HVM; kind <= PV; kind++ )
    {
        test_chosen_apic_ids(kind);
        test_high_apic_ids(kind);
    }
    test_undescribed();

    if ( nr_cases != NR_CASES )
    {
        printf("not ok: ran %u cases, announced %u\n", nr_cases, NR_CASES);
        return 1;
    }

    return nr_failed ? 1 : 0;
}
