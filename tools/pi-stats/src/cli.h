/* cli.h - the pi-stats command line. */
#ifndef PIS_CLI_H
#define PIS_CLI_H

#include "cpulist.h"
#include "report.h"

enum pis_fmt { PIS_FMT_TEXT, PIS_FMT_JSON, PIS_FMT_CSV };

struct pis_cli {
    enum pis_fmt fmt;
    const char *out;            /* -o FILE, or NULL for stdout */
    const char *svg;            /* --svg FILE, or NULL */
    int strict, quiet;
    double interval;            /* --interval seconds, 0 = none */
    struct pis_out_opts o;      /* what the output formats need */
    unsigned char cpumap[PIS_CPUMAP_BYTES];  /* --cpu, valid if o.cpu_list */
    char **inputs;              /* the FILE operands */
    int ninputs;
};

/* Parse argv into c.  Returns -1 to go on, or an exit status: 0 after
 * --help or --version, PIS_EXIT_USAGE after printing a one-line error. */
int pis_cli_parse(struct pis_cli *c, int argc, char **argv);

#endif
