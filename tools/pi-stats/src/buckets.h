/* buckets.h - fixed bucket schemes so histograms merge across files and
 * hosts: linear [k*step, (k+1)*step) and log2 [0,1), [2^k, 2^(k+1)). */
#ifndef PIS_BUCKETS_H
#define PIS_BUCKETS_H

#include <stddef.h>
#include <stdint.h>
#include "hist.h"

enum pis_scheme { PIS_LINEAR, PIS_LOG2 };

struct pis_bucket {
    uint64_t low;               /* inclusive */
    uint64_t high;              /* exclusive; UINT64_MAX for the last log2 */
    uint64_t count;
};

/* Bucket index of a value. */
uint64_t pis_bucket_index(enum pis_scheme s, uint64_t step, uint64_t v);
void pis_bucket_bounds(enum pis_scheme s, uint64_t step, uint64_t idx,
                       uint64_t *low, uint64_t *high);

/* Non-empty buckets of sorted vc, ascending.  If dense, empty buckets
 * between the first and the last non-empty one are included too (for
 * bar charts).  Caller frees.  Returns NULL with *n = 0 when empty. */
struct pis_bucket *pis_buckets(const struct pis_vc *vc, size_t nvc,
                               enum pis_scheme s, uint64_t step, int dense,
                               size_t *n);

#endif
