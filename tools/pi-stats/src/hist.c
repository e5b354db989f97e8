/* hist.c - exact value/count store (open addressing hash). */
#include <stdlib.h>
#include <string.h>

#include "hist.h"

void pis_hist_init(struct pis_hist *h)
{
    memset(h, 0, sizeof(*h));
}

void pis_hist_free(struct pis_hist *h)
{
    free(h->slot);
    pis_hist_init(h);
}

static inline size_t hash64(uint64_t v, size_t mask)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    return (size_t)v & mask;
}

static void put(struct pis_vc *slot, size_t cap, uint64_t v, uint64_t n,
                size_t *used)
{
    size_t i = hash64(v, cap - 1);
    while (slot[i].count && slot[i].value != v)
        i = (i + 1) & (cap - 1);
    if (!slot[i].count) {
        slot[i].value = v;
        (*used)++;
    }
    slot[i].count += n;
}

static int grow(struct pis_hist *h)
{
    size_t ncap = h->cap ? h->cap * 2 : 64, used = 0;
    struct pis_vc *ns = calloc(ncap, sizeof(*ns));

    if (!ns)
        return -1;
    for (size_t i = 0; i < h->cap; i++)
        if (h->slot[i].count)
            put(ns, ncap, h->slot[i].value, h->slot[i].count, &used);
    free(h->slot);
    h->slot = ns;
    h->cap = ncap;
    return 0;
}

static int later(int f1, uint64_t o1, int f2, uint64_t o2)
{
    return f1 > f2 || (f1 == f2 && o1 > o2);
}

int pis_hist_add(struct pis_hist *h, uint64_t v, uint64_t n, int has_tsc,
                 uint64_t tsc, uint64_t offset, int file)
{
    if (n == 0)
        return 0;
    if ((h->used + 1) * 2 > h->cap && grow(h) != 0)
        return -1;
    put(h->slot, h->cap, v, n, &h->used);
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max ||
        (v == h->max && later(h->max_file, h->max_offset, file, offset))) {
        h->max = v;
        h->max_tsc = tsc;
        h->max_has_tsc = has_tsc;
        h->max_offset = offset;
        h->max_file = file;
    }
    h->count += n;
    return 0;
}

int pis_hist_merge(struct pis_hist *dst, const struct pis_hist *src)
{
    uint64_t min, max, tsc, off;
    int has, file, first = dst->count == 0;

    if (src->count == 0)
        return 0;
    min = dst->min;
    max = dst->max;
    tsc = dst->max_tsc;
    off = dst->max_offset;
    has = dst->max_has_tsc;
    file = dst->max_file;
    for (size_t i = 0; i < src->cap; i++) {
        if (!src->slot[i].count)
            continue;
        if ((dst->used + 1) * 2 > dst->cap && grow(dst) != 0)
            return -1;
        put(dst->slot, dst->cap, src->slot[i].value, src->slot[i].count,
            &dst->used);
    }
    dst->count += src->count;
    if (first || src->min < min)
        min = src->min;
    if (first || src->max > max ||
        (src->max == max && later(file, off, src->max_file,
                                  src->max_offset))) {
        max = src->max;
        tsc = src->max_tsc;
        off = src->max_offset;
        has = src->max_has_tsc;
        file = src->max_file;
    }
    dst->min = min;
    dst->max = max;
    dst->max_tsc = tsc;
    dst->max_offset = off;
    dst->max_has_tsc = has;
    dst->max_file = file;
    return 0;
}

static int cmp_vc(const void *a, const void *b)
{
    const struct pis_vc *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

struct pis_vc *pis_hist_sorted(const struct pis_hist *h, size_t *n)
{
    struct pis_vc *out;
    size_t k = 0;

    *n = 0;
    out = malloc((h->used ? h->used : 1) * sizeof(*out));
    if (!out)
        return NULL;
    for (size_t i = 0; i < h->cap; i++)
        if (h->slot[i].count)
            out[k++] = h->slot[i];
    qsort(out, k, sizeof(*out), cmp_vc);
    *n = k;
    return out;
}
