/* clock.h - the TSC frequency, from the command line or the hypervisor. */
#ifndef PIS_CLOCK_H
#define PIS_CLOCK_H

#include <stddef.h>

/* Parse a positive decimal number (MHz or Hz); returns 0 or -1. */
int pis_clock_parse(const char *s, double scale, double *hz);
/* xc_physinfo's cpu_khz when built with libxenctrl (PIS_HAVE_XENCTRL);
 * otherwise fails with a reason. Returns 0 or -1. */
int pis_clock_host(double *hz, char *err, size_t errlen);

#endif
