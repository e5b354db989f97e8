/* hist.c - exact value/count store; see hist.h for the three tiers. */
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define BUF_MIN 256
/* The buffer may grow to half the number of distinct values (at least
 * BUF_FLOOR, at most BUF_CEIL): a merge then costs O(1) per sample (about
 * two array entries moved) and the buffer needs at most an eighth of the
 * memory of the sorted array. */
#define BUF_FLOOR 8192
#define BUF_CEIL (1u << 22)
/* Dense counters when the span is at most this many slots per distinct
 * value (1 byte a slot against 16 bytes a sorted entry). */
#define WIDE_SLOTS 8

void pis_hist_init(struct pis_hist *h)
{
    memset(h, 0, sizeof(*h));
}

void pis_hist_free(struct pis_hist *h)
{
    free(h->vc);
    free(h->small);
    free(h->wide);
    free(h->buf);
    pis_hist_init(h);
}

/* LSD radix sort of a[0..n) on the bytes that differ between elements;
 * tmp holds n elements.  Result in a. */
static void radix_sort(uint32_t *a, uint32_t *tmp, size_t n)
{
    size_t cnt[256];
    uint32_t *src = a, *dst = tmp, diff = 0;

    if (n <= 32) {              /* a pass's 256 counters cost more */
        for (size_t i = 1; i < n; i++) {
            uint32_t v = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > v; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        diff |= a[i] ^ a[0];
    for (unsigned sh = 0; sh < 32; sh += 8) {
        size_t sum = 0;
        uint32_t *t;
        if (!((diff >> sh) & 0xff))
            continue;           /* this byte is the same everywhere */
        memset(cnt, 0, sizeof(cnt));
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> sh) & 0xff]++;
        for (unsigned k = 0; k < 256; k++) {
            size_t c = cnt[k];
            cnt[k] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
        t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof(*a));
}

/* out = a + b (both sorted, distinct); out holds na + nb.  Returns the
 * number of distinct values. */
static size_t merge_vc(const struct pis_vc *a, size_t na,
                       const struct pis_vc *b, size_t nb, struct pis_vc *out)
{
    size_t i = 0, j = 0, k = 0;

    while (i < na || j < nb) {
        if (j >= nb || (i < na && a[i].value < b[j].value))
            out[k++] = a[i++];
        else if (i >= na || b[j].value < a[i].value)
            out[k++] = b[j++];
        else {
            out[k] = a[i++];
            out[k++].count += b[j++].count;
        }
    }
    return k;
}

/* Runs of the small counters, the wide counters (wide may be NULL) and of
 * the sorted buffer, ascending (small values are below the wide ones, and
 * both below the buffered ones only if the buffer holds none of them, which
 * it does while the small counters are not grown to cover them: so merge
 * the two).
 * Caller frees.  buf is sorted as a side effect. */
static struct pis_vc *pending_runs(uint32_t *buf, size_t nbuf,
                                   const uint64_t *small, size_t nsmall,
                                   const struct pis_hist *wide, size_t *n)
{
    struct pis_vc *a, *b, *out;
    uint32_t *tmp;
    size_t na = 0, nb = 0, nw = 0;

    *n = 0;
    for (size_t v = 0; small && v < nsmall; v++)
        nw += small[v] != 0;
    for (size_t x = 0; wide && wide->wide && x < wide->wlen; x++)
        nw += wide->wide[x] != 0;
    a = malloc((nw + 1) * sizeof(*a));
    b = malloc((nbuf + 1) * sizeof(*b));
    tmp = malloc((nbuf + 1) * sizeof(*tmp));
    if (!a || !b || !tmp) {
        free(a);
        free(b);
        free(tmp);
        return NULL;
    }
    if (small)
        for (unsigned v = 0; v < nsmall; v++)
            if (small[v]) {
                a[na].value = v;
                a[na++].count = small[v];
            }
    for (size_t x = 0; wide && wide->wide && x < wide->wlen; x++)
        if (wide->wide[x]) {
            a[na].value = wide->wbase + x;
            a[na++].count = wide->wide[x];
        }
    if (nbuf)
        radix_sort(buf, tmp, nbuf);
    for (size_t x = 0; x < nbuf; x++) {
        if (nb && b[nb - 1].value == buf[x]) {
            b[nb - 1].count++;
        } else {
            b[nb].value = buf[x];
            b[nb++].count = 1;
        }
    }
    free(tmp);
    if (!na || !nb) {           /* one kind of runs: nothing to merge */
        free(na ? b : a);
        *n = na + nb;
        return na ? a : b;
    }
    out = malloc((na + nb) * sizeof(*out));
    if (out)
        *n = merge_vc(a, na, b, nb, out);
    free(a);
    free(b);
    return out;
}

/* vc += r[0..nr) (sorted, distinct), merging backwards in place. */
static int merge_in_place(struct pis_hist *h, const struct pis_vc *r,
                          size_t nr)
{
    size_t total = h->used + nr;
    ptrdiff_t i, j, k;

    if (total > h->cap) {
        size_t nc = h->cap + h->cap / 4;
        struct pis_vc *nv;
        if (nc < total + 16)
            nc = total + 16;
        nv = realloc(h->vc, nc * sizeof(*nv));
        if (!nv)
            return -1;
        h->vc = nv;
        h->cap = nc;
    }
    /* k never overtakes i: k - i >= j + 1 */
    i = (ptrdiff_t)h->used - 1;
    j = (ptrdiff_t)nr - 1;
    k = (ptrdiff_t)total - 1;
    while (j >= 0) {
        if (i >= 0 && h->vc[i].value > r[j].value) {
            h->vc[k--] = h->vc[i--];
        } else if (i >= 0 && h->vc[i].value == r[j].value) {
            h->vc[k] = h->vc[i--];
            h->vc[k--].count += r[j--].count;
        } else {
            h->vc[k--] = r[j--];
        }
    }
    /* vc[0..i] stayed; the merged tail is vc[k+1..total) */
    if (k > i)
        memmove(h->vc + i + 1, h->vc + k + 1,
                (size_t)((ptrdiff_t)total - k - 1) * sizeof(*h->vc));
    h->used = total - (size_t)(k - i);
    return 0;
}

/* vc += r[0..nr), r freed: it becomes vc when vc is empty (no copy).
 * r NULL (out of memory) or a failed merge: -1. */
static int merge_owned(struct pis_hist *h, struct pis_vc *r, size_t nr)
{
    int rc = 0;

    if (r && !h->used) {
        free(h->vc);
        h->vc = r;
        h->used = h->cap = nr;
        return 0;
    }
    if (!r || merge_in_place(h, r, nr))
        rc = -1;
    free(r);
    return rc;
}

/* Make h's wide counters cover [lo, hi] (a span that contains the current
 * one), keeping their counts.  0, or -1 when out of memory (nothing
 * changed). */
static int wide_cover(struct pis_hist *h, uint64_t lo, uint64_t hi)
{
    size_t len = (size_t)(hi - lo + 1);
    pis_wide_t *w = calloc(len, sizeof(*w));

    if (!w)
        return -1;
    if (h->wide)
        memcpy(w + (h->wbase - lo), h->wide, h->wlen * sizeof(*w));
    free(h->wide);
    h->wide = w;
    h->wbase = lo;
    h->wlen = len;
    return 0;
}

/* Move the sorted entries with 32-bit values >= PIS_HIST_SMALL into the
 * wide counters when, together with those already there, they span at most
 * WIDE_SLOTS slots per distinct value; the counters grow to the new span.
 * Entries whose count would not fit a counter stay sorted.  Optional: out
 * of memory leaves everything as it was. */
static void densify(struct pis_hist *h)
{
    size_t i = 0, j = h->used, k, nd;
    uint64_t lo, hi, old_hi = h->wbase + h->wlen - 1;

    while (i < j && h->vc[i].value < PIS_HIST_SMALL)
        i++;
    while (j > i && h->vc[j - 1].value > UINT32_MAX)
        j--;
    if (i == j)
        return;
    lo = h->vc[i].value;
    hi = h->vc[j - 1].value;
    if (h->wide) {
        if (lo >= h->wbase && hi <= old_hi)
            return;             /* only full counters' overflow */
        lo = lo < h->wbase ? lo : h->wbase;
        hi = hi > old_hi ? hi : old_hi;
    }
    nd = j - i + h->wnz;
    if (hi - lo >= (uint64_t)WIDE_SLOTS * nd)
        return;
    if (wide_cover(h, lo, hi))
        return;
    for (k = i; i < j; i++) {
        pis_wide_t *c = &h->wide[h->vc[i].value - lo];
        if (h->vc[i].count <= (uint64_t)(PIS_WIDE_MAX - *c)) {
            h->wnz += *c == 0;
            *c += (pis_wide_t)h->vc[i].count;
        } else {
            h->vc[k++] = h->vc[i];
        }
    }
    memmove(h->vc + k, h->vc + j, (h->used - j) * sizeof(*h->vc));
    h->used -= j - k;
    if (!h->used) {             /* the usual case: give the room back */
        free(h->vc);
        h->vc = NULL;
        h->cap = 0;
    }
}

/* Count the buffered values that fall inside the wide counters there, in
 * one tight loop (the misses overlap, unlike one increment per sample
 * between decoding work); the others stay in the buffer.  Returns how
 * many stayed. */
static size_t scatter_wide(struct pis_hist *h)
{
    pis_wide_t *w = h->wide;
    uint64_t base = h->wbase;
    size_t len = h->wlen, k = 0, nz = 0;

    for (size_t i = 0; i < h->nbuf; i++) {
        uint64_t d = h->buf[i] - base;
        if (d < len && w[d] != PIS_WIDE_MAX) {
            nz += w[d] == 0;
            w[d]++;
        } else {
            h->buf[k++] = h->buf[i];
        }
    }
    h->wnz += nz;
    h->nbuf = k;
    return k;
}

/* Fold the buffer (not the small counters) into the wide counters and vc;
 * a merge into vc only once what the wide counters cannot take fills half
 * the buffer. */
static int flush_buf(struct pis_hist *h)
{
    struct pis_vc *r;
    size_t n;
    int rc;

    if (!h->nbuf)
        return 0;
    if (h->wide && scatter_wide(h) < h->bufcap / 2)
        return 0;
    r = pending_runs(h->buf, h->nbuf, NULL, 0, NULL, &n);
    rc = merge_owned(h, r, n);
    if (!rc) {
        h->nbuf = 0;
        densify(h);
    }
    return rc;
}

int pis_hist_compact(struct pis_hist *h)
{
    struct pis_vc *r;
    size_t n;

    if (h->wide)
        (void)scatter_wide(h);
    if (!h->nbuf && !h->small) {
        free(h->buf);
        h->buf = NULL;
        h->bufcap = 0;
        return 0;
    }
    r = pending_runs(h->buf, h->nbuf, h->small, h->nsmall, NULL, &n);
    if (merge_owned(h, r, n))
        return -1;
    free(h->small);
    free(h->buf);
    h->small = NULL;
    h->nsmall = 0;
    h->buf = NULL;
    h->nbuf = h->bufcap = 0;
    return 0;
}

static int later(int f1, uint64_t o1, int f2, uint64_t o2)
{
    return f1 > f2 || (f1 == f2 && o1 > o2);
}

/* v, taken at (file, offset), becomes h's maximum when it is greater, or
 * equal and earlier, or h has no samples yet: the one rule for samples,
 * merges and sums. */
static void note(struct pis_hist *h, uint64_t v, int has_tsc, uint64_t tsc,
                 uint64_t offset, int file)
{
    if (h->count == 0 || v > h->max ||
        (v == h->max && later(h->max_file, h->max_offset, file, offset))) {
        h->max = v;
        h->max_tsc = tsc;
        h->max_has_tsc = has_tsc;
        h->max_offset = offset;
        h->max_file = file;
    }
}

/* Count v (< PIS_HIST_SMALL) in the small counters, grown in powers of
 * two to cover it, unless they would then be more than four per sample
 * the store holds (a store of a few samples takes a few cache lines, not
 * PIS_HIST_SMALL counters: thousands of pCPUs' stores); such a value is
 * buffered instead.  1 when counted, 0 when not. */
static int small_take(struct pis_hist *h, uint32_t v)
{
    uint32_t n = h->nsmall ? h->nsmall : 64;
    uint64_t *s;

    while (n <= v)
        n *= 2;
    if (n > h->nsmall) {
        if (n > 64 && n > 4 * (h->count + h->nbuf))
            return 0;
        s = realloc(h->small, n * sizeof(*s));
        if (!s)
            return 0;
        memset(s + h->nsmall, 0, (n - h->nsmall) * sizeof(*s));
        h->small = s;
        h->nsmall = n;
    }
    h->small[v]++;
    return 1;
}

static int add_buf(struct pis_hist *h, uint32_t v)
{
    if (h->nbuf == h->bufcap) {
        size_t lim = h->used / 2 > BUF_FLOOR ? h->used / 2 : BUF_FLOOR;
        if (lim > BUF_CEIL)
            lim = BUF_CEIL;
        if (h->bufcap >= lim) {
            if (flush_buf(h))
                return -1;
        } else {
            size_t nc = h->bufcap ? h->bufcap * 2 : BUF_MIN;
            uint32_t *nb = realloc(h->buf, nc * sizeof(*nb));
            if (!nb)
                return -1;
            h->buf = nb;
            h->bufcap = nc;
        }
    }
    h->buf[h->nbuf++] = v;
    return 0;
}

int pis_hist_add(struct pis_hist *h, uint64_t v, uint64_t n, int has_tsc,
                 uint64_t tsc, uint64_t offset, int file)
{
    if (n == 0)
        return 0;
    if (n == 1 && v < PIS_HIST_SMALL && small_take(h, (uint32_t)v)) {
        /* counted */
    } else if (n == 1 && v <= UINT32_MAX) {
        if (add_buf(h, (uint32_t)v))
            return -1;
    } else {
        struct pis_vc one = { v, n };
        if (merge_in_place(h, &one, 1))
            return -1;
    }
    note(h, v, has_tsc, tsc, offset, file);
    h->count += n;
    return 0;
}

/* Sorted view of everything (h unchanged); caller frees. */
static struct pis_vc *combine(const struct pis_hist *h, int with_wide,
                              size_t *n)
{
    struct pis_vc *r, *out;
    uint32_t *copy = NULL;
    size_t nr;

    *n = 0;
    if (h->nbuf) {
        copy = malloc(h->nbuf * sizeof(*copy));
        if (!copy)
            return NULL;
        memcpy(copy, h->buf, h->nbuf * sizeof(*copy));
    }
    r = pending_runs(copy, h->nbuf, h->small, h->nsmall,
                     with_wide ? h : NULL, &nr);
    free(copy);
    if (!r || !h->used) {
        *n = nr;
        return r;
    }
    out = malloc((h->used + nr + 1) * sizeof(*out));
    if (out)
        *n = merge_vc(h->vc, h->used, r, nr, out);
    free(r);
    return out;
}

/* dst's wide counters += src's, in one pass: dst's grow to the union of
 * the two spans when that stays dense (or dst has nothing yet).  What a
 * counter cannot hold goes to the sorted array.  Returns 0 when done, 1
 * when dst cannot take them (nothing changed), -1 when out of memory. */
static int wide_merge(struct pis_hist *dst, const struct pis_hist *src)
{
    uint64_t lo = src->wbase, hi = src->wbase + src->wlen - 1;
    struct pis_vc *over = NULL;
    size_t nover = 0;
    int rc = 0;

    if (dst->wide) {
        uint64_t dhi = dst->wbase + dst->wlen - 1;
        lo = lo < dst->wbase ? lo : dst->wbase;
        hi = hi > dhi ? hi : dhi;
    }
    if (dst->count && hi - lo >= (uint64_t)WIDE_SLOTS *
        (dst->wnz + src->wnz + dst->used))
        return 1;
    if ((!dst->wide || lo < dst->wbase || hi > dst->wbase + dst->wlen - 1) &&
        wide_cover(dst, lo, hi))
        return -1;
    {
        pis_wide_t *d = dst->wide + (src->wbase - dst->wbase);
        size_t nz = 0;
        for (size_t x = 0; x < src->wlen; x++) {
            uint64_t sum = (uint64_t)d[x] + src->wide[x];
            nz += d[x] == 0 && sum != 0;
            if (sum > PIS_WIDE_MAX) {
                /* at most one entry per counter */
                if (!over && !(over = malloc(src->wlen * sizeof(*over)))) {
                    rc = -1;
                    break;
                }
                over[nover].value = src->wbase + x;
                over[nover++].count = sum - PIS_WIDE_MAX;
                sum = PIS_WIDE_MAX;
            }
            d[x] = (pis_wide_t)sum;
        }
        dst->wnz += nz;
    }
    if (!rc && nover)
        rc = merge_in_place(dst, over, nover);
    free(over);
    return rc;
}

int pis_hist_merge(struct pis_hist *dst, const struct pis_hist *src)
{
    struct pis_vc *sv;
    size_t n;
    int rc, took = 1;

    if (src->count == 0)
        return 0;
    rc = pis_hist_compact(dst);
    if (!rc && src->wide) {
        rc = wide_merge(dst, src);
        took = rc;              /* 0: src's wide counters are in dst */
    }
    if (rc < 0)
        return -1;
    sv = combine(src, took != 0, &n);
    if (merge_owned(dst, sv, n))
        return -1;
    note(dst, src->max, src->max_has_tsc, src->max_tsc, src->max_offset,
         src->max_file);
    dst->count += src->count;
    return 0;
}

/* The sum of n sorted arrays a[i][0..na[i]), pairwise (log2 n passes of
 * sequential merges), returned as a[0]; the others are freed and NULL.
 * NULL when out of memory. */
static struct pis_vc *merge_tree(struct pis_vc **a, size_t *na, size_t n,
                                 size_t *nout)
{
    for (size_t step = 1; step < n; step *= 2)
        for (size_t i = 0; i + step < n; i += 2 * step) {
            struct pis_vc *m = malloc((na[i] + na[i + step] + 1) * sizeof(*m));
            if (!m)
                return NULL;
            na[i] = merge_vc(a[i], na[i], a[i + step], na[i + step], m);
            free(a[i]);
            free(a[i + step]);
            a[i] = m;
            a[i + step] = NULL;
        }
    *nout = na[0];
    return a[0];
}

/* Fold every sample of h into cnt[value - lo] (all values in range). */
static void count_into(const struct pis_hist *h, uint64_t *cnt, uint64_t lo)
{
    for (size_t j = 0; j < h->used; j++)
        cnt[h->vc[j].value - lo] += h->vc[j].count;
    for (size_t x = 0; h->wide && x < h->wlen; x++)
        cnt[h->wbase + x - lo] += h->wide[x];
    for (size_t v = 0; v < h->nsmall; v++)
        cnt[v - lo] += h->small[v];
    for (size_t j = 0; j < h->nbuf; j++)
        cnt[h->buf[j] - lo]++;
}

/* A span [*lo, *hi] that holds the values and the counters of h (widened
 * to take them in), without reading its samples: the maximum bounds the
 * values, the ends of the small and wide counters those, and the least is
 * that of the sorted entries or the wide counters unless values are
 * pending (then 0: buffered ones may be anywhere below the maximum).
 * Returns its distinct entries (an upper bound). */
static size_t span_of(const struct pis_hist *h, uint64_t *lo, uint64_t *hi)
{
    size_t d = h->used + h->wnz + h->nbuf + h->nsmall;
    uint64_t l = UINT64_MAX, u = h->max;

    if (h->used)
        l = h->vc[0].value;
    if (h->wide && h->wlen) {
        l = h->wbase < l ? h->wbase : l;
        u = h->wbase + h->wlen - 1 > u ? h->wbase + h->wlen - 1 : u;
    }
    if (h->nsmall) {
        l = 0;
        u = h->nsmall - 1 > u ? h->nsmall - 1 : u;
    }
    if (h->nbuf)
        l = 0;
    *lo = l < *lo ? l : *lo;
    *hi = u > *hi ? u : *hi;
    return d;
}

/* The sum of in[0..n) as sorted entries: counters over the values' span
 * when that is dense for their distinct entries (at most WIDE_SLOTS slots
 * per entry: one pass over each store, no sorted copy), else sorted views
 * summed by a merge tree.  NULL when out of memory. */
static struct pis_vc *sum_all(const struct pis_hist *const *in, size_t n,
                              size_t *nout)
{
    uint64_t lo = UINT64_MAX, hi = 0, *cnt = NULL;
    size_t d = 0, k = 0, *nv;
    struct pis_vc *out = NULL, **v;

    for (size_t i = 0; i < n; i++)
        d += span_of(in[i], &lo, &hi);
    if (hi - lo < (uint64_t)WIDE_SLOTS * d + PIS_HIST_SMALL &&
        (cnt = calloc((size_t)(hi - lo + 1), sizeof(*cnt))) != NULL) {
        for (size_t i = 0; i < n; i++)
            count_into(in[i], cnt, lo);
        for (uint64_t x = 0; x <= hi - lo; x++)
            k += cnt[x] != 0;
        if ((out = malloc((k + 1) * sizeof(*out))) != NULL) {
            k = 0;
            for (uint64_t x = 0; x <= hi - lo; x++)
                if (cnt[x]) {
                    out[k].value = lo + x;
                    out[k++].count = cnt[x];
                }
            *nout = k;
        }
        free(cnt);
        return out;
    }
    v = calloc(n, sizeof(*v));
    nv = calloc(n, sizeof(*nv));
    if (v && nv) {
        size_t i = 0;
        while (i < n && (v[i] = pis_hist_sorted(in[i], &nv[i])) != NULL)
            i++;
        if (i == n)
            out = merge_tree(v, nv, n, nout);
        for (i = out ? 1 : 0; i < n; i++)
            free(v[i]);
    }
    free(v);
    free(nv);
    return out;
}

int pis_hist_sum(struct pis_hist *out, const struct pis_hist *const *in,
                 size_t n)
{
    pis_hist_init(out);
    for (size_t i = 0; i < n; i++) {
        const struct pis_hist *h = in[i];
        if (!h->count)
            continue;
        note(out, h->max, h->max_has_tsc, h->max_tsc, h->max_offset,
             h->max_file);
        out->count += h->count;
    }
    if (!out->count)
        return 0;
    if (!(out->vc = sum_all(in, n, &out->used))) {
        pis_hist_init(out);
        return -1;
    }
    out->cap = out->used;
    return 0;
}

struct pis_vc *pis_hist_sorted(const struct pis_hist *h, size_t *n)
{
    return combine(h, 1, n);
}

/* pis_hist_at_ranks of a store that holds nothing but small counters and
 * at most RANK_STACK buffered values (thousands of pCPUs' stores of a few
 * hundred samples each): the buffer sorted on the stack and walked with
 * the counters, no sorted copy of the whole store. */
#define RANK_STACK 1024
static void small_at_ranks(const struct pis_hist *h, const uint64_t *rank,
                           size_t nr, uint64_t *out)
{
    uint32_t sb[RANK_STACK], tmp[RANK_STACK];
    size_t v = 0, j = 0, k = 0, n = h->nbuf;
    uint64_t seen = 0;

    if (n)
        memcpy(sb, h->buf, n * sizeof(*sb));
    radix_sort(sb, tmp, n);
    while (k < nr) {
        uint64_t val;
        while (v < h->nsmall && !h->small[v])
            v++;
        if (v < h->nsmall && (j == n || v <= sb[j])) {
            val = v;
            seen += h->small[v++];
        } else if (j < n) {
            val = sb[j++];
            seen++;
        } else {
            break;
        }
        while (k < nr && seen >= rank[k])
            out[k++] = val;
    }
    while (k < nr)              /* ranks past the count */
        out[k++] = h->max;
}

int pis_hist_at_ranks(const struct pis_hist *h, const uint64_t *rank,
                      size_t nr, uint64_t *out)
{
    struct pis_vc *all = NULL;
    const struct pis_vc *vc = h->vc;
    const pis_wide_t *w = h->wide;
    size_t used = h->used, i = 0, x = 0, k = 0;
    uint64_t seen = 0;

    if (!h->used && !h->wide && h->nbuf <= RANK_STACK) {
        small_at_ranks(h, rank, nr, out);
        return 0;
    }
    if (h->nbuf || h->small) {  /* pending samples: sort them in */
        all = pis_hist_sorted(h, &used);
        if (!all)
            return -1;
        vc = all;
        w = NULL;
    }
    /* the sorted entries and the wide counters, merged by value (a value
     * in both, a full counter's overflow, is just seen twice); the wide
     * counters a block at a time while the next rank is further on */
    while (k < nr) {
        uint64_t vnext = i < used ? vc[i].value : UINT64_MAX;
        if (w && x < h->wlen && h->wbase + x < vnext) {
            size_t end = vnext - h->wbase < h->wlen ?
                         (size_t)(vnext - h->wbase) : h->wlen;
            while (end - x >= 64) {
                uint64_t sum = 0;
                for (unsigned j = 0; j < 64; j++)
                    sum += w[x + j];
                if (seen + sum >= rank[k])
                    break;
                seen += sum;
                x += 64;
            }
            for (; x < end; x++) {
                seen += w[x];
                if (w[x] && seen >= rank[k]) {
                    while (k < nr && seen >= rank[k])
                        out[k++] = h->wbase + x;
                    x++;
                    break;
                }
            }
            continue;
        }
        if (i == used)
            break;
        seen += vc[i].count;
        while (k < nr && seen >= rank[k])
            out[k++] = vc[i].value;
        i++;
    }
    while (k < nr)              /* ranks past the count */
        out[k++] = h->max;
    free(all);
    return 0;
}
