/* nomatch.h - a warning for each filter that keeps nothing or cuts
 * nothing, so that an empty or unchanged report is not taken for a
 * finding. */
#ifndef PIS_NOMATCH_H
#define PIS_NOMATCH_H

#include <stdio.h>
#include "report.h"

/* On f, one line each, for input name read into r: --cpu ids (map) that
 * are not pCPUs of r; --since/--until that keep none of its PI records;
 * without a clock, a --since TSC below all of them (it cuts nothing). */
void pis_warn_no_match(FILE *f, const char *name, const struct pis_report *r,
                       const struct pis_out_opts *o, const unsigned char *map);

#endif
