/*
 * dom0 side of the e2e move cases: print the vNUMA layout Xen holds for a
 * domain (XENMEM_get_vnumainfo, through libxenctrl): its vnodes and vCPUs,
 * each memory range with its vnode, the distances and each vCPU's vnode.
 *
 * usage: vnuma-info DOMID
 *
 * Prints "none" for a domain without vNUMA.  Exit status 0; 1 with one line
 * on stderr when Xen refuses; 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xenctrl.h>

int main(int argc, char **argv)
{
    uint32_t nodes = 0, ranges = 0, vcpus = 0, i, j;
    xen_vmemrange_t *range;
    unsigned int *dist, *vnode;
    xc_interface *xch;
    char *end;
    unsigned long domid;

    if ( argc != 2 || !(domid = strtoul(argv[1], &end, 10), *argv[1]) || *end )
    {
        fprintf(stderr, "usage: vnuma-info DOMID\n");
        return 2;
    }

    xch = xc_interface_open(NULL, NULL, 0);
    if ( !xch )
    {
        fprintf(stderr, "vnuma-info: xc_interface_open: %s\n", strerror(errno));
        return 1;
    }

    /* Sizes first: ENOBUFS with them, EOPNOTSUPP without vNUMA. */
    if ( !xc_domain_getvnuma(xch, domid, &nodes, &ranges, &vcpus,
                             NULL, NULL, NULL) || errno != ENOBUFS )
    {
        if ( errno == EOPNOTSUPP )
        {
            printf("none\n");
            return 0;
        }
        fprintf(stderr, "vnuma-info: domain %lu: %s\n", domid, strerror(errno));
        return 1;
    }

    range = calloc(ranges, sizeof(*range));
    dist = calloc((size_t)nodes * nodes, sizeof(*dist));
    vnode = calloc(vcpus, sizeof(*vnode));
    if ( !range || !dist || !vnode ||
         xc_domain_getvnuma(xch, domid, &nodes, &ranges, &vcpus,
                            range, dist, vnode) )
    {
        fprintf(stderr, "vnuma-info: domain %lu: %s\n", domid, strerror(errno));
        return 1;
    }

    printf("vnodes %u vcpus %u\n", nodes, vcpus);
    for ( i = 0; i < ranges; i++ )
        printf("range %#"PRIx64"-%#"PRIx64" flags %u vnode %u\n",
               range[i].start, range[i].end, range[i].flags, range[i].nid);
    for ( i = 0; i < nodes; i++ )
    {
        printf("distances %u:", i);
        for ( j = 0; j < nodes; j++ )
            printf(" %u", dist[i * nodes + j]);
        printf("\n");
    }
    printf("vcpu vnodes:");
    for ( i = 0; i < vcpus; i++ )
        printf(" %u", vnode[i]);
    printf("\n");

    xc_interface_close(xch);
    return 0;
}
