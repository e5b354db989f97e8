/* pct.h - exact nearest-rank percentiles: the rank of a percentile. */
#ifndef PIS_PCT_H
#define PIS_PCT_H

#include <stdint.h>

/* Rank (1-based) of percentile p given in hundredths of a percent
 * (p99.9 = 9990): ceil(p * n / 10000), at least 1.  n > 0. */
uint64_t pis_rank(uint64_t n, unsigned p_x100);

#endif
