/*
 * The ACPI tables libxl builds for a PVH guest with vNUMA, without Xen.
 *
 * The tree's libxl_x86_acpi.c is compiled into this program and its
 * libxl__dom_load_acpi() called the way libxl builds a PVH domain; the rest
 * of libxl (the gc, logging, libacpi's table builder) comes from the tree's
 * libxenlight.a, libxenctrl/libxenguest are the tree's shared libraries.
 * Only the hypercall layer is replaced: fake-xencall.c, plus the
 * xencallN() below, which keep one domain's vNUMA layout and answer
 * XEN_DOMCTL_setvnumainfo, XEN_DOMCTL_getdomaininfo and
 * XENMEM_get_vnumainfo as Xen does (the counts checked, ENOBUFS with the
 * domain's counts filled in when the caller's are too small, then the
 * vmemranges, the nr_vnodes * nr_vnodes distances and the vCPU map).
 *
 * Usage: libxl-acpi NR_VNODES VCPU_TO_VNODE DISTANCES [APIC_IDS]
 *   VCPU_TO_VNODE: the vnode of each vCPU, comma separated;
 *   DISTANCES: NR_VNODES * NR_VNODES distances, row by row, comma separated;
 *   APIC_IDS: the vCPUs' APIC IDs cpu_topology chose, comma separated, as
 *   libxl__build_pre() leaves them in the build state (default: none).
 * Vnode k gets the memory range [k * 256 MiB, (k + 1) * 256 MiB).
 *
 * The layout goes to the fake Xen through libxenctrl's
 * xc_domain_setvnuma(), as libxl's set_vnuma_info() does.  The tables are
 * then read as a guest reads them (RSDP, XSDT, checksums, by the offsets of
 * the ACPI specification) and printed, one "key value" line each, for the
 * .t file to judge.
 */
#include "libxl_internal.h"
#include "libxl_arch.h"

#include <xencall.h>

#define DOMID       7
#define VNODE_BYTES (256ULL << 20)
#define MAX_VNODES  8
#define MAX_VCPUS   64
#define NR_PNODES   64 /* Xen's MAX_NUMNODES on x86 */

/* What Xen keeps of the domain. */
static struct {
    unsigned int max_vcpus;
    unsigned int nr_vnodes, nr_vmemranges; /* 0 until setvnumainfo */
    unsigned int vdistance[MAX_VNODES * MAX_VNODES];
    unsigned int vcpu_to_vnode[MAX_VCPUS];
    xen_vmemrange_t vmemrange[MAX_VNODES];
} xen;

static int setvnumainfo(const struct xen_domctl_vnuma *v)
{
    const unsigned int *pnode = v->vnode_to_pnode.p;
    unsigned int i;

    if ( v->nr_vcpus != xen.max_vcpus || v->pad )
        return -EINVAL;
    /* Xen's limits are a page per array; the table here is smaller. */
    if ( v->nr_vnodes == 0 || v->nr_vnodes > MAX_VNODES ||
         v->nr_vmemranges > MAX_VNODES )
        return -EINVAL;
    for ( i = 0; i < xen.max_vcpus; i++ )
        if ( v->vcpu_to_vnode.p[i] >= v->nr_vnodes )
            return -E2BIG;
    for ( i = 0; i < v->nr_vnodes; i++ )
        if ( pnode[i] >= NR_PNODES )
            return -E2BIG;
    for ( i = 0; i < v->nr_vmemranges; i++ )
        if ( v->vmemrange.p[i].flags )
            return -EINVAL;

    memcpy(xen.vdistance, v->vdistance.p,
           sizeof(*xen.vdistance) * v->nr_vnodes * v->nr_vnodes);
    memcpy(xen.vcpu_to_vnode, v->vcpu_to_vnode.p,
           sizeof(*xen.vcpu_to_vnode) * xen.max_vcpus);
    memcpy(xen.vmemrange, v->vmemrange.p,
           sizeof(*xen.vmemrange) * v->nr_vmemranges);
    xen.nr_vnodes = v->nr_vnodes;
    xen.nr_vmemranges = v->nr_vmemranges;
    return 0;
}

static int getdomaininfo(struct xen_domctl *d)
{
    struct xen_domctl_getdomaininfo *info = &d->u.getdomaininfo;

    /* Xen reports the first domain from the one asked for. */
    if ( d->domain > DOMID )
        return -ESRCH;
    d->domain = DOMID;
    memset(info, 0, sizeof(*info));
    info->domain = DOMID;
    info->flags = XEN_DOMINF_hvm_guest | XEN_DOMINF_hap | XEN_DOMINF_paused;
    info->max_vcpu_id = xen.max_vcpus - 1;
    info->nr_online_vcpus = xen.max_vcpus;
    return 0;
}

int xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1)
{
    struct xen_domctl *d = (void *)(uintptr_t)arg1;
    int rc;

    if ( op != __HYPERVISOR_domctl ||
         d->interface_version != XEN_DOMCTL_INTERFACE_VERSION )
        rc = -ENOSYS;
    else if ( d->domain != DOMID && d->cmd != XEN_DOMCTL_getdomaininfo )
        rc = -ESRCH;
    else if ( d->cmd == XEN_DOMCTL_setvnumainfo )
        rc = setvnumainfo(&d->u.vnuma);
    else if ( d->cmd == XEN_DOMCTL_getdomaininfo )
        rc = getdomaininfo(d);
    else
        rc = -ENOSYS;

    if ( rc == -ENOSYS )
        printf("unexpected hypercall %u/%u\n", op, op == __HYPERVISOR_domctl ?
               d->cmd : 0);
    if ( rc )
    {
        errno = -rc;
        return -1;
    }
    return 0;
}

static const char *errname(int rc)
{
    switch ( rc )
    {
    case 0:        return "0";
    case -ENOBUFS: return "ENOBUFS";
    default:       return "error";
    }
}

static int get_vnumainfo(struct xen_vnuma_topology_info *t)
{
    int rc = 0;

    printf("get_vnumainfo in %u %u %u", t->nr_vnodes, t->nr_vmemranges,
           t->nr_vcpus);

    if ( t->pad )
        rc = -EINVAL;
    else if ( t->domid != DOMID )
        rc = -ESRCH;
    else if ( !xen.nr_vnodes )
        rc = -EOPNOTSUPP;
    else if ( t->nr_vnodes < xen.nr_vnodes ||
              t->nr_vmemranges < xen.nr_vmemranges ||
              t->nr_vcpus < xen.max_vcpus )
        rc = -ENOBUFS;
    else
    {
        /* Xen copies its own counts' worth into the caller's buffers. */
        memcpy(t->vmemrange.h.p, xen.vmemrange,
               sizeof(*xen.vmemrange) * xen.nr_vmemranges);
        memcpy(t->vdistance.h.p, xen.vdistance,
               sizeof(*xen.vdistance) * xen.nr_vnodes * xen.nr_vnodes);
        memcpy(t->vcpu_to_vnode.h.p, xen.vcpu_to_vnode,
               sizeof(*xen.vcpu_to_vnode) * xen.max_vcpus);
    }

    if ( rc == 0 || rc == -ENOBUFS )
    {
        t->nr_vnodes = xen.nr_vnodes;
        t->nr_vmemranges = xen.nr_vmemranges;
        t->nr_vcpus = xen.max_vcpus;
    }
    printf(" -> %s\n", errname(rc));
    return rc;
}

/* libxenctrl sends memory_op as a one-entry multicall. */
int xencall2(xencall_handle *xcall, unsigned int op,
             uint64_t arg1, uint64_t arg2)
{
    multicall_entry_t *call = (void *)(uintptr_t)arg1;
    unsigned int i;

    if ( op != __HYPERVISOR_multicall )
    {
        printf("unexpected hypercall %u\n", op);
        errno = ENOSYS;
        return -1;
    }
    for ( i = 0; i < arg2; i++ )
    {
        long rc = -ENOSYS;

        if ( call[i].op == __HYPERVISOR_memory_op &&
             call[i].args[0] == XENMEM_get_vnumainfo )
            rc = get_vnumainfo((void *)(uintptr_t)call[i].args[1]);
        else
            printf("unexpected multicall entry %lu\n",
                   (unsigned long)call[i].op);
        call[i].result = rc;
    }
    return 0;
}

/* Reading the tables as a guest does. */
static const uint8_t *tables;
static uint64_t tables_gpa, tables_len;

static uint32_t get32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int sums_to_zero(const uint8_t *p, uint32_t len)
{
    uint8_t sum = 0;

    while ( len-- )
        sum += *p++;
    return sum == 0;
}

/* The table at guest address GPA, whole and with a good checksum. */
static const uint8_t *table_at(uint64_t gpa)
{
    const uint8_t *t;
    uint32_t len;

    if ( gpa < tables_gpa || gpa - tables_gpa > tables_len - 36 )
        return NULL;
    t = tables + (gpa - tables_gpa);
    len = get32(t + 4);
    if ( len < 36 || len > tables_len - (gpa - tables_gpa) ||
         !sums_to_zero(t, len) )
    {
        printf("bad table %.4s\n", (const char *)t);
        return NULL;
    }
    return t;
}

static const uint8_t *find_table(const uint8_t *xsdt, const char *sig)
{
    uint32_t off;

    for ( off = 36; off + 8 <= get32(xsdt + 4); off += 8 )
    {
        const uint8_t *t = table_at(get64(xsdt + off));

        if ( t && !memcmp(t, sig, 4) )
            return t;
    }
    return NULL;
}

static void print_slit(const uint8_t *slit)
{
    uint64_t n = get64(slit + 36), i;

    printf("slit %" PRIu64 ":", n);
    if ( 44 + n * n != get32(slit + 4) )
    {
        printf(" length %u\n", get32(slit + 4));
        return;
    }
    for ( i = 0; i < n * n; i++ )
        printf("%s%u", i ? "," : " ", slit[44 + i]);
    printf("\n");
}

static void print_srat(const uint8_t *srat)
{
    uint32_t len = get32(srat + 4), off;

    printf("srat cpus");
    for ( off = 48; off + 16 <= len && srat[off] == 0; off += srat[off + 1] )
        printf(" %u:%u", srat[off + 3],
               srat[off + 2] | (get32(srat + off + 8) & ~0xffU));
    printf("\nsrat memory");
    for ( ; off + 40 <= len && srat[off] == 1; off += srat[off + 1] )
        printf(" %u:%#" PRIx64 "-%#" PRIx64, get32(srat + off + 2),
               get64(srat + off + 8),
               get64(srat + off + 8) + get64(srat + off + 16));
    printf("\nsrat %s\n", off == len ? "whole" : "cut");
}

static void read_tables(const struct xc_dom_image *dom)
{
    const uint8_t *rsdp = dom->acpi_modules[0].data, *xsdt, *t;

    tables = dom->acpi_modules[2].data;
    tables_gpa = dom->acpi_modules[2].guest_addr_out;
    tables_len = dom->acpi_modules[2].length;

    if ( !rsdp || memcmp(rsdp, "RSD PTR ", 8) || !sums_to_zero(rsdp, 20) ||
         !sums_to_zero(rsdp, get32(rsdp + 20)) ||
         !(xsdt = table_at(get64(rsdp + 24))) || memcmp(xsdt, "XSDT", 4) )
    {
        printf("no RSDP/XSDT\n");
        return;
    }
    if ( (t = find_table(xsdt, "SLIT")) )
        print_slit(t);
    if ( (t = find_table(xsdt, "SRAT")) )
        print_srat(t);
}

/* "a,b,c" into at most MAX numbers; the count, or -1. */
static int parse_list(const char *s, unsigned int *out, unsigned int max)
{
    unsigned int n = 0;
    char *end;

    do {
        if ( n == max )
            return -1;
        out[n++] = strtoul(s, &end, 10);
        if ( end == s || (*end && *end != ',') )
            return -1;
        s = end + 1;
    } while ( *end );
    return n;
}

int main(int argc, char **argv)
{
    unsigned int vdistance[MAX_VNODES * MAX_VNODES], ids[MAX_VCPUS];
    uint8_t apic_id[MAX_VCPUS];
    unsigned int vcpu_to_vnode[MAX_VCPUS], vnode_to_pnode[MAX_VNODES];
    xen_vmemrange_t vmemrange[MAX_VNODES];
    unsigned int nr_vnodes, i;
    int nr_vcpus, nr_dist, rc;
    xentoollog_logger_stdiostream *logger;
    xc_interface *xch;
    struct xc_dom_image *dom;
    libxl_domain_build_info b_info;
    libxl_ctx ctx = { 0 };
    libxl__gc gc[1];

    if ( argc < 4 || argc > 5 ||
         (nr_vnodes = strtoul(argv[1], NULL, 10)) == 0 ||
         nr_vnodes > MAX_VNODES ||
         (nr_vcpus = parse_list(argv[2], vcpu_to_vnode, MAX_VCPUS)) < 0 ||
         (nr_dist = parse_list(argv[3], vdistance, MAX_VNODES * MAX_VNODES))
         != nr_vnodes * nr_vnodes ||
         (argc == 5 && parse_list(argv[4], ids, MAX_VCPUS) != nr_vcpus) )
    {
        fprintf(stderr, "usage: libxl-acpi NR_VNODES VCPU_TO_VNODE DISTANCES"
                " [APIC_IDS]\n");
        return 2;
    }
    for ( i = 0; argc == 5 && i < nr_vcpus; i++ )
        apic_id[i] = ids[i];
    for ( i = 0; i < nr_vnodes; i++ )
    {
        vnode_to_pnode[i] = 0;
        vmemrange[i] = (xen_vmemrange_t){
            .start = i * VNODE_BYTES, .end = (i + 1) * VNODE_BYTES, .nid = i,
        };
    }

    /* What was printed stays printed if the program dies. */
    setvbuf(stdout, NULL, _IOLBF, 0);

    logger = xtl_createlogger_stdiostream(stderr, XTL_WARN, 0);
    xch = xc_interface_open((xentoollog_logger *)logger,
                            (xentoollog_logger *)logger, 0);
    if ( !logger || !xch )
    {
        printf("xc_interface_open failed\n");
        return 1;
    }
    xen.max_vcpus = nr_vcpus;

    /* What libxl's set_vnuma_info() gives Xen. */
    rc = xc_domain_setvnuma(xch, DOMID, nr_vnodes, nr_vnodes, nr_vcpus,
                            vmemrange, vdistance, vcpu_to_vnode,
                            vnode_to_pnode);
    printf("setvnuma %d\n", rc);

    /*
     * Of a libxl context, what libxl_ctx_alloc() sets up for the gc and
     * its logging; nothing here uses the rest (xenstore, events).
     */
    ctx.lg = (xentoollog_logger *)logger;
    ctx.xch = xch;
    ctx.nogc_gc.alloc_maxsize = -1;
    ctx.nogc_gc.owner = &ctx;
    LIBXL_INIT_GC(gc[0], &ctx);

    libxl_domain_build_info_init(&b_info);
    libxl_domain_build_info_init_type(&b_info, LIBXL_DOMAIN_TYPE_PVH);
    libxl_defbool_set(&b_info.apic, true);
    b_info.max_vcpus = nr_vcpus;
    if ( libxl_bitmap_alloc(&ctx, &b_info.avail_vcpus, nr_vcpus) )
        return 1;
    for ( i = 0; i < nr_vcpus; i++ )
        libxl_bitmap_set(&b_info.avail_vcpus, i);

    /* The xc_dom_image of a PVH build (libxl__build_hvm) at that point. */
    dom = xc_dom_allocate(xch, NULL, NULL);
    if ( !dom )
        return 1;
    dom->container_type = XC_DOM_HVM_CONTAINER;
    dom->guest_type = "hvm-3.0-x86_32";
    dom->guest_domid = DOMID;
    dom->max_vcpus = nr_vcpus;
    dom->nr_vnodes = nr_vnodes;
    dom->nr_vmemranges = nr_vnodes;
    if ( xc_dom_set_arch_hooks(dom) )
        return 1;

    rc = libxl__dom_load_acpi(gc, &b_info, argc == 5 ? apic_id : NULL, dom);
    printf("load_acpi %d\n", rc);
    if ( !rc )
        read_tables(dom);

    xc_dom_release(dom);
    libxl_domain_build_info_dispose(&b_info);
    libxl__free_all(gc);
    xc_interface_close(xch);
    xtl_logger_destroy((xentoollog_logger *)logger);
    return 0;
}
