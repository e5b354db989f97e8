/* hist.h - exact sample store: every distinct value with its count.
 *
 * Memory grows with the number of distinct values, not with the number of
 * samples, so percentiles are exact (no sampling) and histograms can be
 * bucketed any way afterwards.  Also keeps where the maximum happened.
 */
#ifndef PIS_HIST_H
#define PIS_HIST_H

#include <stddef.h>
#include <stdint.h>

struct pis_vc {                 /* one distinct value */
    uint64_t value;
    uint64_t count;
};

struct pis_hist {
    struct pis_vc *slot;        /* open addressing, count 0 = empty */
    size_t cap;                 /* power of two, or 0 */
    size_t used;                /* distinct values */
    uint64_t count;             /* samples */
    uint64_t min, max;
    uint64_t max_tsc;           /* TSC of the first sample equal to max */
    uint64_t max_offset;        /* its byte offset */
    int max_has_tsc;
    int max_file;               /* index of the input it came from */
};

void pis_hist_init(struct pis_hist *h);
void pis_hist_free(struct pis_hist *h);
/* Returns 0, or -1 when out of memory (the sample is then lost). */
int pis_hist_add(struct pis_hist *h, uint64_t v, uint64_t n, int has_tsc,
                 uint64_t tsc, uint64_t offset, int file);
/* dst += src. Ties on the maximum keep the earlier (file, offset). */
int pis_hist_merge(struct pis_hist *dst, const struct pis_hist *src);
/* Distinct values sorted ascending; caller frees.  *n = h->used. */
struct pis_vc *pis_hist_sorted(const struct pis_hist *h, size_t *n);

#endif
