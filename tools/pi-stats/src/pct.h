/* pct.h - exact nearest-rank percentiles over sorted (value, count). */
#ifndef PIS_PCT_H
#define PIS_PCT_H

#include <stddef.h>
#include <stdint.h>
#include "hist.h"

/* Rank (1-based) of percentile p given in hundredths of a percent
 * (p99.9 = 9990): ceil(p * n / 10000), at least 1.  n > 0. */
uint64_t pis_rank(uint64_t n, unsigned p_x100);

/* Value at percentile p over vc[0..nvc) sorted ascending, total samples n.
 * n must be > 0. */
uint64_t pis_percentile(const struct pis_vc *vc, size_t nvc, uint64_t n,
                        unsigned p_x100);

#endif
