/* report.h - everything known about one input (or several merged), and
 * the summary statistics the output formats print. */
#ifndef PIS_REPORT_H
#define PIS_REPORT_H

#include <stdio.h>
#include "hist.h"
#include "pi.h"
#include "reader.h"

struct pis_report {
    const char *name;           /* input name, or "(all inputs)" */
    int merged;                 /* 1 for the merged report */
    int ninputs;                /* inputs folded in */
    struct pis_read_stats st;
    struct pis_cpu_stats *cpu;  /* PIS_MAX_CPUS entries */
    struct pis_pi pi;
};

struct pis_summary {
    uint64_t count, min, p50, p90, p99, p999, max;
    uint64_t max_tsc, max_offset;
    int max_has_tsc, max_file;
};

struct pis_out_opts {
    double clock_hz;            /* 0 = unknown: print cycles */
    const char *clock_source;   /* "--cpu-mhz", "--tsc-hz", "xc_physinfo" */
    uint64_t len_step;          /* list_length bucket width */
    const char *cpu_list;       /* --cpu as given, or NULL */
    const char *const *names;   /* input names by index */
    int ninputs;
    enum pis_by by;             /* list_length rows by pCPU, domain, vCPU */
    unsigned top;               /* text tables: the N worst rows, 0 = all */
    int all;                    /* --all: every row however many */
    const uint64_t *tsc_start;  /* by input index: its lowest TSC, where
                                 * times "at" count from; NULL = unknown */
    int compare;                /* --compare: inputs 0 and 1 side by side */
    const char *since, *until;  /* --since/--until as given, or NULL */
    struct pis_range range;     /* what they select */
};

int pis_report_init(struct pis_report *r, const char *name,
                    const unsigned char *cpu_filter);
void pis_report_free(struct pis_report *r);
/* Take the reader's counts (the reader keeps nothing afterwards), and
 * work out the time-weighted lengths; 0, or -1 when out of memory. */
int pis_report_take(struct pis_report *r, struct pis_reader *rd);
int pis_report_merge(struct pis_report *dst, const struct pis_report *src);
unsigned pis_report_npcpus(const struct pis_report *r);

/* Summary of a histogram; unless vc is NULL, *vc receives the sorted
 * values (caller frees), NULL when empty. */
int pis_summarize(const struct pis_hist *h, struct pis_summary *s,
                  struct pis_vc **vc, size_t *nvc);

#endif
