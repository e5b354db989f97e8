/* hist.h - exact sample store: every distinct value with its count.
 *
 * Four tiers, all exact:
 *  - values below PIS_HIST_SMALL are counted in place in one array of
 *    64-bit counters, which never fill (list lengths, entries walked:
 *    dense and cache resident); it grows in powers of two as values and
 *    samples come, so a store of a few samples stays small (until then
 *    such values are buffered like the others);
 *  - other 32-bit values are appended to a buffer; when it fills it is
 *    radix sorted, run-length compressed and merged into a sorted array of
 *    distinct (value, count) -- sequential memory traffic only, which is
 *    what keeps per-pCPU cycle histograms fast when they do not fit in the
 *    cache;
 *  - when the distinct buffered values are dense (their span is at most
 *    eight slots per distinct value, so 1-byte counters take half the room
 *    of the 16-byte sorted entries), they move to one array of counters
 *    over that span, grown at later flushes; values inside it are then
 *    counted in place, like the small ones (cycle histograms: no more
 *    sorting or merging per sample).  A value counted more often than a
 *    counter holds goes on through the buffer to the sorted array;
 *  - wider values are merged into the sorted array directly (rare).
 * Memory grows with the number of distinct values, not with the number of
 * samples.  Percentiles are exact (no sampling); the minimum is the
 * sample of rank 1.  Also keeps where the maximum happened.
 */
#ifndef PIS_HIST_H
#define PIS_HIST_H

#include <stddef.h>
#include <stdint.h>

#define PIS_HIST_SMALL 1024u

/* A wide counter: 1 byte, so that the counters of one pCPU's cycle
 * histogram take few cache lines when a flush counts into them, and those
 * of many pCPUs little memory.  Counts past 255 of one value go on to the
 * sorted array. */
typedef uint8_t pis_wide_t;
#define PIS_WIDE_MAX UINT8_MAX

struct pis_vc {                 /* one distinct value */
    uint64_t value;
    uint64_t count;
};

struct pis_hist {
    struct pis_vc *vc;          /* sorted by value, distinct */
    size_t used, cap;
    uint64_t *small;            /* nsmall counters, or NULL */
    uint32_t nsmall;            /* grown on demand up to PIS_HIST_SMALL */
    pis_wide_t *wide;           /* counters for [wbase, wbase + wlen), or NULL */
    uint64_t wbase;
    size_t wlen, wnz;           /* wnz: counters that are not zero */
    uint32_t *buf;              /* pending 32-bit samples, unsorted */
    size_t nbuf, bufcap;
    uint64_t count;             /* samples */
    uint64_t max;
    uint64_t max_tsc;           /* TSC of the first sample equal to max */
    uint64_t max_offset;        /* its byte offset */
    int max_has_tsc;
    int max_file;               /* index of the input it came from */
};

void pis_hist_init(struct pis_hist *h);
void pis_hist_free(struct pis_hist *h);
/* Add n samples of value v.  Returns 0, or -1 when out of memory (the
 * sample is then lost). */
int pis_hist_add(struct pis_hist *h, uint64_t v, uint64_t n, int has_tsc,
                 uint64_t tsc, uint64_t offset, int file);
/* pis_hist_add of one sample, the common case inline: a value up to the
 * maximum that does not move where the maximum happened (not equal to it,
 * or from a later place), and fits a small counter or the buffer.
 * Anything else goes to pis_hist_add. */
static inline int pis_hist_add1(struct pis_hist *h, uint64_t v, int has_tsc,
                                uint64_t tsc, uint64_t offset, int file)
{
    /* & and |, not && and ||: one test, not a branch per term, which
     * values that are and are not the maximum in turn would mispredict */
    if ((h->count != 0) &
        ((v < h->max) | ((v == h->max) &
                         ((file > h->max_file) |
                          ((file == h->max_file) &
                           (offset >= h->max_offset)))))) {
        if (v < h->nsmall) {
            h->small[v]++;
            h->count++;
            return 0;
        } else if (v >= PIS_HIST_SMALL && v <= UINT32_MAX &&
                   h->nbuf < h->bufcap) {
            h->buf[h->nbuf++] = (uint32_t)v;
            h->count++;
            return 0;
        }
    }
    return pis_hist_add(h, v, 1, has_tsc, tsc, offset, file);
}

/* Fold the small counters and the buffer into the wide counters and the
 * sorted array, and release them (end of an input); the wide counters
 * stay (they take no more room than sorted entries would).  0 or -1 (out
 * of memory). */
int pis_hist_compact(struct pis_hist *h);
/* dst += src. Ties on the maximum keep the earlier (file, offset). */
int pis_hist_merge(struct pis_hist *dst, const struct pis_hist *src);
/* out = the sum of in[0..n) (out is initialised here; only sorted
 * entries): built in one pass, not by n merges into a growing array.
 * Ties on the maximum keep the earlier (file, offset).  0, or -1 when
 * out of memory. */
int pis_hist_sum(struct pis_hist *out, const struct pis_hist *const *in,
                 size_t n);
/* Distinct values sorted ascending, pending samples included; caller
 * frees.  *n = number of distinct values.  NULL only when out of memory. */
struct pis_vc *pis_hist_sorted(const struct pis_hist *h, size_t *n);
/* out[i] = the value of rank rank[i] (1-based, ascending, at most
 * h->count) among the samples sorted by value, for i < nr.  A compacted store is read where
 * it lies, without the sorted copy pis_hist_sorted makes.  0, or -1 when
 * out of memory. */
int pis_hist_at_ranks(const struct pis_hist *h, const uint64_t *rank,
                      size_t nr, uint64_t *out);

#endif
