/* buckets.c - map exact values onto linear or log2 buckets. */
#include <stdlib.h>

#include "buckets.h"

uint64_t pis_bucket_index(enum pis_scheme s, uint64_t step, uint64_t v)
{
    if (s == PIS_LINEAR)
        return v / (step ? step : 1);
    return v ? 64u - (uint64_t)__builtin_clzll(v) : 0; /* 0 -> [0,1) */
}

void pis_bucket_bounds(enum pis_scheme s, uint64_t step, uint64_t idx,
                       uint64_t *low, uint64_t *high)
{
    if (s == PIS_LINEAR) {
        if (!step)
            step = 1;
        *low = idx * step;
        *high = idx >= UINT64_MAX / step ? UINT64_MAX : (idx + 1) * step;
        return;
    }
    if (idx == 0) {
        *low = 0;
        *high = 1;
        return;
    }
    *low = 1ull << (idx - 1);
    *high = idx >= 64 ? UINT64_MAX : 1ull << idx;
}

struct pis_bucket *pis_buckets(const struct pis_vc *vc, size_t nvc,
                               enum pis_scheme s, uint64_t step, int dense,
                               size_t *n)
{
    struct pis_bucket *out;
    uint64_t first, last;
    size_t cap, k = 0;

    *n = 0;
    if (nvc == 0)
        return NULL;
    first = pis_bucket_index(s, step, vc[0].value);
    last = pis_bucket_index(s, step, vc[nvc - 1].value);
    if (dense) {
        if (last - first >= 100000)     /* guard a runaway bar chart */
            dense = 0;
    }
    cap = dense ? (size_t)(last - first + 1) : nvc;
    out = calloc(cap, sizeof(*out));
    if (!out)
        return NULL;
    if (dense) {
        for (size_t i = 0; i < cap; i++)
            pis_bucket_bounds(s, step, first + i, &out[i].low, &out[i].high);
        for (size_t i = 0; i < nvc; i++)
            out[pis_bucket_index(s, step, vc[i].value) - first].count +=
                vc[i].count;
        *n = cap;
        return out;
    }
    for (size_t i = 0; i < nvc; i++) {
        uint64_t idx = pis_bucket_index(s, step, vc[i].value);
        if (k == 0 || pis_bucket_index(s, step, out[k - 1].low) != idx) {
            pis_bucket_bounds(s, step, idx, &out[k].low, &out[k].high);
            k++;
        }
        out[k - 1].count += vc[i].count;
    }
    *n = k;
    return out;
}
