/* output.h - the output formats.  Each prints the per-input reports and,
 * when there are several inputs, the merged one.  Return 0, or -1 on an
 * allocation or write error. */
#ifndef PIS_OUTPUT_H
#define PIS_OUTPUT_H

#include <stdio.h>
#include "report.h"

int pis_out_text(FILE *f, struct pis_report *const *in, int n,
                 const struct pis_report *merged,
                 const struct pis_out_opts *o);
int pis_out_json(FILE *f, struct pis_report *const *in, int n,
                 const struct pis_report *merged,
                 const struct pis_out_opts *o);
int pis_out_csv(FILE *f, struct pis_report *const *in, int n,
                const struct pis_report *merged,
                const struct pis_out_opts *o);
/* One SVG document with the list-length and wakeup-cycles histograms of
 * report r (the merged one when there are several inputs). */
int pis_out_svg(FILE *f, const struct pis_report *r,
                const struct pis_out_opts *o);

/* --compare: the totals of two reports side by side, with ratios. */
int pis_out_compare(FILE *f, const struct pis_report *before,
                    const struct pis_report *after, int as_json,
                    const struct pis_out_opts *o);
/* The time-weighted list lengths of r (out_listtime.c): a text section,
 * or the JSON member "list_time" (after a comma). */
int pis_lt_text(FILE *f, const struct pis_report *r,
                const struct pis_out_opts *o);
int pis_lt_json(FILE *f, const struct pis_report *r);
/* A JSON string, escaped. */
void pis_json_str(FILE *f, const char *s);

/* Bucket scheme of each metric (shared by all formats). */
#include "buckets.h"
enum pis_scheme pis_metric_scheme(enum pis_metric_id m);
uint64_t pis_metric_step(enum pis_metric_id m, const struct pis_out_opts *o);
/* How to draw a linear metric's sorted values vc (count samples) in at
 * most rows buckets: *step is doubled until they fit; but when the first
 * of those buckets would then hold more than half the samples (a long
 * tail squashing the body into one row), log2 buckets instead. */
enum pis_scheme pis_fit_rows(const struct pis_vc *vc, size_t nvc,
                             uint64_t count, uint64_t *step, size_t rows);
/* Row formatting without a printf call per field (rows of thousands of
 * pCPUs): v in decimal, right-aligned in width columns ("%*" PRIu64), and
 * s after pad spaces; each writes at p and returns the end (no NUL; p
 * needs room for max(width, 20) or pad + strlen(s) characters). */
char *pis_put_u64(char *p, uint64_t v, int width);
char *pis_put_str(char *p, const char *s, int pad);
/* A time of v cycles in the report's unit: microseconds with 3 decimals
 * when the clock (hz) is known, else cycles; and the name of that unit:
 * "us" or "cycles (no clock)". */
void pis_fmt_time(char *buf, size_t len, uint64_t v, double hz);
const char *pis_time_unit(double hz);
/* Where the maximum of s happened: with a clock, seconds from the lowest
 * TSC of its input ("0.001234567 s"), else "tsc T"; "tsc -" without one. */
void pis_fmt_at(char *buf, size_t len, const struct pis_summary *s,
                const struct pis_out_opts *o);
/* The ids of r's pCPUs (with windows) as "0-3,8", or with map (a --cpu
 * bitmap) those of map that are (in = 1) or are not (in = 0) r's. */
void pis_print_cpus(FILE *f, const struct pis_report *r,
                    const unsigned char *map, int in);
/* "little", "big", "mixed" (merged inputs of both orders) or "unknown". */
const char *pis_byte_order_name(unsigned byte_order);

#endif
