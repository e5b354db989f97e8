/*
 * dom0 side of the e2e "domctl-apic-ids" case: give a domain's vCPUs APIC
 * IDs through libxenctrl (XEN_DOMCTL_set_vcpu_apic_ids), or change leaf 1's
 * logical processor count (lppp) of its CPU policy through libxenguest
 * (XEN_DOMCTL_set_cpu_policy), and print what Xen answered, "rc 0" or
 * "rc -1 errno NAME".
 *
 * usage: apic-ids DOMID ID...
 *        apic-ids DOMID lppp N
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xenctrl.h>
#include <xenguest.h>

/* Set leaf 1 EBX[23:16] of the domain's policy to @lppp. */
static int set_lppp(xc_interface *xch, uint32_t domid, unsigned int lppp)
{
    xen_cpuid_leaf_t leaves[512];
    uint32_t nr = 512, nr_msrs = 0, el, es, em, i;
    xc_cpu_policy_t *p = xc_cpu_policy_init();
    int rc = -1;

    if ( p && !xc_cpu_policy_get_domain(xch, domid, p) &&
         !xc_cpu_policy_serialise(xch, p, leaves, &nr, NULL, &nr_msrs) )
        for ( i = 0; i < nr; i++ )
            if ( leaves[i].leaf == 1 )
            {
                leaves[i].b = (leaves[i].b & ~0x00ff0000u) | (lppp << 16);
                rc = xc_set_domain_cpu_policy(xch, domid, 1, &leaves[i],
                                              0, NULL, &el, &es, &em);
                break;
            }
    xc_cpu_policy_destroy(p);

    return rc;
}

int main(int argc, char **argv)
{
    uint8_t ids[256];
    unsigned int i, nr = argc - 2;
    uint32_t domid;
    xc_interface *xch;
    int rc;

    if ( argc < 3 || nr > sizeof(ids) )
    {
        fprintf(stderr, "usage: %s DOMID ID...\n"
                "       %s DOMID lppp N\n", argv[0], argv[0]);
        return 2;
    }
    domid = strtoul(argv[1], NULL, 0);
    for ( i = 0; i < nr; i++ )
        ids[i] = strtoul(argv[i + 2], NULL, 0);

    xch = xc_interface_open(NULL, NULL, 0);
    if ( !xch )
    {
        fprintf(stderr, "%s: xc_interface_open: %s\n", argv[0],
                strerror(errno));
        return 1;
    }

    if ( argc == 4 && !strcmp(argv[2], "lppp") )
        rc = set_lppp(xch, domid, strtoul(argv[3], NULL, 0));
    else
        rc = xc_domain_set_vcpu_apic_ids(xch, domid, nr, ids);
    if ( rc )
        printf("rc %d errno %s\n", rc,
               errno == EEXIST ? "EEXIST" : errno == EINVAL ? "EINVAL" :
               strerror(errno));
    else
        printf("rc 0\n");

    xc_interface_close(xch);
    return 0;
}
