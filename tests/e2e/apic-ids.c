/*
 * dom0 side of the e2e "domctl-apic-ids" case: give a domain's vCPUs APIC
 * IDs through libxenctrl (XEN_DOMCTL_set_vcpu_apic_ids) and print what
 * Xen answered, "rc 0" or "rc -1 errno NAME".
 *
 * usage: apic-ids DOMID ID...
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xenctrl.h>

int main(int argc, char **argv)
{
    uint8_t ids[256];
    unsigned int i, nr = argc - 2;
    xc_interface *xch;
    int rc;

    if ( argc < 3 || nr > sizeof(ids) )
    {
        fprintf(stderr, "usage: %s DOMID ID...\n", argv[0]);
        return 2;
    }
    for ( i = 0; i < nr; i++ )
        ids[i] = strtoul(argv[i + 2], NULL, 0);

    xch = xc_interface_open(NULL, NULL, 0);
    if ( !xch )
    {
        fprintf(stderr, "%s: xc_interface_open: %s\n", argv[0],
                strerror(errno));
        return 1;
    }

    rc = xc_domain_set_vcpu_apic_ids(xch, strtoul(argv[1], NULL, 0), nr, ids);
    if ( rc )
        printf("rc %d errno %s\n", rc,
               errno == EEXIST ? "EEXIST" : errno == EINVAL ? "EINVAL" :
               strerror(errno));
    else
        printf("rc 0\n");

    xc_interface_close(xch);
    return 0;
}
