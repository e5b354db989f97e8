/* clock.c - clock sources. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

#ifdef PIS_HAVE_XENCTRL
#include <xenctrl.h>
#endif

int pis_clock_parse(const char *s, double scale, double *hz)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 ||
        v * scale < 1e3 || v * scale > 1e12)
        return -1;
    *hz = v * scale;
    return 0;
}

int pis_clock_host(double *hz, char *err, size_t errlen)
{
#ifdef PIS_HAVE_XENCTRL
    xc_interface *xch = xc_interface_open(NULL, NULL, 0);
    xc_physinfo_t info = { 0 };

    if (!xch) {
        snprintf(err, errlen, "--cpu-mhz host: cannot open the hypervisor "
                 "interface (not running in a Xen dom0?)");
        return -1;
    }
    if (xc_physinfo(xch, &info) != 0 || info.cpu_khz == 0) {
        snprintf(err, errlen, "--cpu-mhz host: xc_physinfo failed");
        xc_interface_close(xch);
        return -1;
    }
    xc_interface_close(xch);
    *hz = (double)info.cpu_khz * 1e3;
    return 0;
#else
    (void)hz;
    snprintf(err, errlen, "--cpu-mhz host needs pi-stats built with "
             "libxenctrl (make XENCTRL=1); give --cpu-mhz N or --tsc-hz N");
    return -1;
#endif
}
