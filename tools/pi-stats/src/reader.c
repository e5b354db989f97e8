/* reader.c - validate and walk xentrace windows; see reader.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

/* Codes in the event table. */
#define LK_LOOK     0x40u       /* the reader has something to do with it */
#define LK_ORDERED  0x80u       /* pass it to on_rec */

static unsigned lk_index(uint32_t mul, uint32_t ev)
{
    return (ev * mul) >> 24;    /* PIS_LOOKUP == 256 */
}

/* One event the table must hold: 0, or -1 when its slot is taken. */
static int lk_put(struct pis_reader *r, uint32_t ev, unsigned code)
{
    unsigned i = lk_index(r->hash_mul, ev);

    if (r->lk_code[i] && r->lk_evt[i] != ev)
        return -1;
    r->lk_evt[i] = ev;
    r->lk_code[i] |= code;
    return 0;
}

/* The group of event number k (want_evt[k]) in the table. */
static void lk_group(struct pis_reader *r, unsigned k)
{
    unsigned i = lk_index(r->hash_mul, r->want_evt[k]);

    r->lk_code[i] &= (unsigned char)~(LK_LOOK | LK_ORDERED);
    r->lk_group[i] = (unsigned char)(k + 1);
}

/* Fill the event table, trying multipliers until no two events collide
 * (with at most 18 events in 256 slots, a few tries).  0, or -1. */
static int lk_build(struct pis_reader *r)
{
    uint32_t mul = 0x9e3779b1u;

    for (unsigned t = 0; t < 1000; t++, mul += 0x6a09e668u) {
        int bad = 0;
        r->hash_mul = mul | 1u;
        /* no event id (28 bits) matches an unused slot */
        memset(r->lk_evt, 0xff, sizeof(r->lk_evt));
        memset(r->lk_code, 0, sizeof(r->lk_code));
        memset(r->lk_group, 0, sizeof(r->lk_group));
        bad |= lk_put(r, TRC_WRAP_BUFFER, LK_LOOK);
        bad |= lk_put(r, TRC_LOST_RECORDS, LK_LOOK);
        for (unsigned i = 0; i < r->nwant; i++) {
            uint32_t ev = r->want_evt[i];
            if (ev != TRC_WRAP_BUFFER)
                bad |= lk_put(r, ev, LK_LOOK | LK_ORDERED);
        }
        if (bad)
            continue;
        for (unsigned i = 0; i < r->nwant; i++)
            if (r->want_grouped[i] && r->want_evt[i] != TRC_WRAP_BUFFER &&
                r->want_evt[i] != TRC_LOST_RECORDS)
                lk_group(r, i);
        return 0;
    }
    return -1;
}

int pis_reader_init(struct pis_reader *r, pis_rec_fn on_rec,
                    pis_diag_fn on_diag, void *ctx)
{
    memset(r, 0, sizeof(*r));
    r->cpu = calloc(PIS_MAX_CPUS, sizeof(*r->cpu));
    if (!r->cpu)
        return -1;
    r->gq = malloc((PIS_WANT_MAX + 1) * PIS_GROUP * sizeof(*r->gq));
    if (!r->gq) {
        free(r->cpu);
        return -1;
    }
    r->on_rec = on_rec;
    r->on_diag = on_diag;
    r->ctx = ctx;
    for (uint32_t c = 0; c < sizeof(r->class_of); c++)
        r->class_of[c] = (unsigned char)pis_class_index(c << 16);
    return lk_build(r);
}

void pis_reader_free(struct pis_reader *r)
{
    free(r->cpu);
    free(r->gq);
    r->cpu = NULL;
    r->gq = NULL;
}

static int want(struct pis_reader *r, uint32_t event, int grouped)
{
    event &= TRC_EVENT_MASK;
    for (unsigned i = 0; i < r->nwant; i++)
        if (r->want_evt[i] == event) {
            r->want_grouped[i] &= grouped;
            return lk_build(r);
        }
    if (r->nwant >= PIS_WANT_MAX)
        return -1;
    r->want_grouped[r->nwant] = (unsigned char)grouped;
    r->want_evt[r->nwant++] = event;
    if (lk_build(r)) {
        r->nwant--;
        (void)lk_build(r);      /* the table as it was */
        return -1;
    }
    return 0;
}

int pis_reader_want(struct pis_reader *r, uint32_t event)
{
    return want(r, event, 0);
}

int pis_reader_want_grouped(struct pis_reader *r, uint32_t event)
{
    return want(r, event, 1);
}

unsigned pis_reader_npcpus(const struct pis_reader *r)
{
    unsigned n = 0;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        n += r->cpu[c].windows != 0;
    return n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void diag(struct pis_reader *r, enum pis_diag_kind kind,
                 uint64_t off, const char *fmt, ...)
{
    char msg[320];
    va_list ap;

    if (!r->on_diag)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->on_diag(r->ctx, kind, off, msg);
}

/* Whether the 12 bytes at p are a sound window header in byte order sw
 * (*cpu, *size: what it says): the test of header_problem without the
 * message, for the scans that try every byte. */
static int header_ok(const unsigned char *p, int sw, uint32_t *cpu,
                     uint32_t *size)
{
    *cpu = pis_ld32o(p + 4, sw);
    *size = pis_ld32o(p + 8, sw);
    return pis_ld32o(p, sw) == TRC_CPU_CHANGE_HDR && *cpu < PIS_MAX_CPUS &&
           *size != 0 && !(*size & 3u) && *size <= PIS_MAX_WINDOW;
}

/* A window header we would accept: returns NULL, or why not. */
static const char *header_problem(const unsigned char *p, int sw,
                                  uint32_t *cpu, uint32_t *size)
{
    static char why[96];
    uint32_t h = pis_ld32o(p, sw);

    if (header_ok(p, sw, cpu, size))
        return NULL;
    if (h != TRC_CPU_CHANGE_HDR) {
        snprintf(why, sizeof(why), "word 0x%08x where a window header "
                 "(CPU_CHANGE 0x%08x) belongs", h, TRC_CPU_CHANGE_HDR);
        return why;
    }
    if (*cpu >= PIS_MAX_CPUS) {
        snprintf(why, sizeof(why), "window header names cpu %u (> %u)",
                 *cpu, PIS_MAX_CPUS - 1);
        return why;
    }
    if (*size == 0 || (*size & 3u) || *size > PIS_MAX_WINDOW) {
        snprintf(why, sizeof(why), "implausible window size %u", *size);
        return why;
    }
    return NULL;
}

enum walk_end { WALK_OK, WALK_SHORT, WALK_BAD };

struct walk {
    enum walk_end end;
    size_t stop;                /* bytes of whole records walked */
    const char *why;            /* for WALK_BAD */
};

/* Check one record header at q; left = bytes to the window's claimed end,
 * have = bytes present.  Returns record size, or 0 with w filled in. */
static inline uint32_t rec_check(uint32_t h, size_t left, size_t have,
                                 struct walk *w)
{
    uint32_t ev = h & TRC_EVENT_MASK;
    uint32_t sz = pis_rec_size(h);

    if (!(ev & TRC_CLASS_MASK)) {
        w->end = WALK_BAD;
        w->why = "record with no class bits (zeroed or garbage data)";
        return 0;
    }
    if (ev == TRC_CPU_CHANGE_EVT) {
        w->end = WALK_BAD;
        w->why = "window header inside a window (window size too large)";
        return 0;
    }
    if (sz > left) {
        w->end = WALK_BAD;
        w->why = "record runs past the end of its window";
        return 0;
    }
    if (sz > have) {
        w->end = WALK_SHORT;
        return 0;
    }
    return sz;
}

/* Dry walk, no side effects: used for resynchronisation candidates. */
static struct walk walk_check(const unsigned char *p, uint32_t size,
                              size_t avail, int sw)
{
    struct walk w = { WALK_OK, 0, NULL };
    size_t have = avail < size ? avail : size;
    size_t q = 0;

    while (q < have) {
        uint32_t sz;
        if (have - q < 4) {
            w.end = WALK_SHORT;
            break;
        }
        sz = rec_check(pis_ld32o(p + q, sw), size - q, have - q, &w);
        if (!sz)
            break;
        q += sz;
    }
    if (w.end == WALK_OK && have < size)
        w.end = WALK_SHORT;
    w.stop = q;
    return w;
}

#if defined(__GNUC__)
#define PIS_PREFETCH(a) __builtin_prefetch(a)
#else
#define PIS_PREFETCH(a) ((void)0)
#endif
/* Bytes ahead of the record being walked to ask the cache for.  Measured:
 * ~15% less time on the PI-heavy bench trace, where the walk otherwise
 * waits on memory (hardware prefetchers do not cross 4 KiB pages, and
 * page-cache pages need not be contiguous); 256 was the best of 256, 512,
 * 1024 and 2048. */
#define PIS_PREFETCH_AHEAD 256

/* A record the reader itself looks at (lost-record markers, wrap
 * padding) or passes on in order; rare, so kept out of the walk's loop. */
static void look(struct pis_reader *r, const unsigned char *q, uint32_t h,
                 uint64_t tsc, uint32_t cpu, uint64_t off, unsigned code,
                 int sw)
{
    struct pis_rec rec;
    uint32_t ev = h & TRC_EVENT_MASK;
    uint32_t n = (h >> TRC_EXTRA_SHIFT) & TRC_EXTRA_MASK;
    const unsigned char *d = q + (h & TRC_TSC_FLAG ? 12 : 4);

    if (ev == TRC_WRAP_BUFFER) {
        r->st.wrap_records++;
        return;
    }
    if (ev == TRC_LOST_RECORDS) {
        r->st.lost_markers++;
        if (n >= 1)
            r->st.lost_records += pis_ld32o(d, sw);
    }
    if (!(code & LK_ORDERED) || !r->on_rec)
        return;
    rec.offset = off;
    rec.event = ev;
    rec.cpu = cpu;
    rec.nwords = n;
    rec.has_tsc = (h & TRC_TSC_FLAG) != 0;
    rec.tsc = rec.has_tsc ? tsc : 0;
    rec.swapped = sw;
    rec.data = d;
    r->on_rec(r->ctx, &rec);
}

struct walker;
static void group_flush(struct pis_reader *r, const struct walker *wk,
                        int sw);

/* One window being walked. */
struct walker {
    const unsigned char *p;     /* its first record */
    uint64_t base;              /* the input offset of p */
    uint32_t size, cpu;
    size_t q;                   /* the next record */
    struct walk w;
    uint64_t last, tmin, tmax;  /* see walk_one */
    uint64_t nrec, notsc;
    uint64_t by_class[PIS_NCLASS];
};

static void walker_init(struct pis_reader *r, struct walker *wk,
                        const unsigned char *p, uint32_t size, uint32_t cpu,
                        uint64_t base)
{
    memset(wk, 0, sizeof(*wk));
    wk->p = p;
    wk->base = base;
    wk->size = size;
    wk->cpu = cpu;
    wk->w.end = WALK_OK;
    wk->last = r->cpu[cpu].last_tsc;
    wk->tmin = UINT64_MAX;
}

/* The TSC of the first record with one among the whole records in
 * p[0..stop). */
static uint64_t first_tsc(const unsigned char *p, size_t stop, int sw)
{
    for (size_t q = 0; q < stop; q += pis_rec_size(pis_ld32o(p + q, sw)))
        if (pis_ld32o(p + q, sw) & TRC_TSC_FLAG)
            return pis_ldtsc(p + q + 4, sw);
    return 0;
}

/* Walk the record at wk->q: returns 1 when it was taken, 0 when the walk
 * stops there (wk->w says why).  have: bytes present (for a cut window).
 * Instantiated per byte order and whole or cut window (sw and whole
 * constant).
 *
 * A pCPU's last TSC is 0 until its first, so nothing is "backwards" of
 * it.  TSCs rise between the steps back: the least is the first or one
 * right after a step back, the greatest the last or one right before a
 * step back -- no min and max per record. */
static PIS_ALWAYS_INLINE int walk_one(struct pis_reader *r, struct walker *wk,
                                      size_t have, int sw, int whole)
{
    const unsigned char *p = wk->p;
    size_t q = wk->q;
    uint32_t h, sz, ev;
    unsigned code, i, cls, hit, g;
    uint64_t tsc = 0;
    int back = 0;

    if (!whole && have - q < 4) {
        wk->w.end = WALK_SHORT;
        return 0;
    }
    PIS_PREFETCH(p + q + PIS_PREFETCH_AHEAD);
    h = pis_ld32o(p + q, sw);
    ev = h & TRC_EVENT_MASK;
    cls = r->class_of[ev >> 16];
    sz = pis_rec_size(h);
    if (cls == PIS_NCLASS - 1 || ev == TRC_CPU_CHANGE_EVT ||
        sz > wk->size - q || (!whole && sz > have - q)) {
        (void)rec_check(h, wk->size - q, have - q, &wk->w);
        return 0;
    }
    if (h & TRC_TSC_FLAG) {
        tsc = pis_ldtsc(p + q + 4, sw);
        back = tsc < wk->last;
    }
    i = lk_index(r->hash_mul, ev);
    hit = -(unsigned)(r->lk_evt[i] == ev);
    code = r->lk_code[i] & hit;
    g = r->lk_group[i] & hit;
    /* held without a branch: group 0 takes the others, and never grows */
    r->gq[g * PIS_GROUP + r->gn[g]] = (uint32_t)q;
    r->gn[g] += g != 0;
    wk->by_class[cls]++;
    if (h & TRC_TSC_FLAG) {
        if (back) {
            r->st.tsc_backwards++;
            diag(r, PIS_DIAG_TSC_BACK, wk->base + q,
                 "TSC goes backwards on cpu %u (%llu after %llu)", wk->cpu,
                 (unsigned long long)tsc, (unsigned long long)wk->last);
            wk->tmin = tsc < wk->tmin ? tsc : wk->tmin;
            wk->tmax = wk->last > wk->tmax ? wk->last : wk->tmax;
        }
        wk->last = tsc;
    } else {
        wk->notsc++;
    }
    wk->nrec++;
    if (code & LK_LOOK)
        look(r, p + q, h, tsc, wk->cpu, wk->base + q, code, sw);
    wk->q = q + sz;
    if (!(wk->nrec & (PIS_GROUP - 1)))     /* at most PIS_GROUP held */
        group_flush(r, wk, sw);
    return 1;
}

/* Pass the records of grouped events held (see pis_reader_want_grouped)
 * on, event by event. */
static void group_flush(struct pis_reader *r, const struct walker *wk,
                        int sw)
{
    struct pis_group g = { wk->p, NULL, wk->base, 0, 0, wk->cpu, sw };
    struct pis_rec rec;

    for (unsigned k = 0; k < r->nwant; k++) {
        g.q = r->gq + (size_t)(k + 1) * PIS_GROUP;
        g.n = r->gn[k + 1];
        g.event = r->want_evt[k];
        if (!g.n)
            continue;
        if (r->on_group)
            r->on_group(r->ctx, &g);
        else
            for (uint32_t i = 0; r->on_rec && i < g.n; i++) {
                pis_group_rec(&g, i, &rec);
                r->on_rec(r->ctx, &rec);
            }
    }
    memset(r->gn, 0, sizeof(r->gn));
}

/* Walk the rest of a window. */
static PIS_ALWAYS_INLINE void walk_rest(struct pis_reader *r,
                                        struct walker *wk, size_t have,
                                        int sw, int whole)
{
    if (whole)
        have = wk->size;
    while (wk->q < have && walk_one(r, wk, have, sw, whole))
        ;
    group_flush(r, wk, sw);
    if (wk->w.end == WALK_OK && have < wk->size)
        wk->w.end = WALK_SHORT;
    wk->w.stop = wk->q;
}

/* Account a walked window in the pCPU's and the input's statistics. */
static void walker_end(struct pis_reader *r, const struct walker *wk, int sw)
{
    struct pis_cpu_stats *cs = &r->cpu[wk->cpu];

    for (unsigned k = 0; k < PIS_NCLASS; k++)
        cs->by_class[k] += wk->by_class[k];
    cs->last_tsc = wk->last;
    cs->records += wk->nrec;
    cs->no_tsc += wk->notsc;
    r->st.records += wk->nrec;
    r->st.records_no_tsc += wk->notsc;
    if (wk->nrec > wk->notsc) {
        uint64_t first = first_tsc(wk->p, wk->q, sw);
        uint64_t tmin = first < wk->tmin ? first : wk->tmin;
        uint64_t tmax = wk->last > wk->tmax ? wk->last : wk->tmax;
        if (!r->st.have_tsc || tmin < r->st.tsc_min)
            r->st.tsc_min = tmin;
        if (!r->st.have_tsc || tmax > r->st.tsc_max)
            r->st.tsc_max = tmax;
        r->st.have_tsc = 1;
    }
}

/* Walk one window: instantiated per byte order and for whole or cut
 * windows, so the native walk tests nothing per word, and the walk of a
 * whole window does not test whether a header is there to read: records
 * are whole words and so is the window (see header_problem). */
static struct walk walk_window(struct pis_reader *r, const unsigned char *p,
                               uint32_t size, size_t avail, uint32_t cpu,
                               uint64_t base)
{
    struct walker wk;

    walker_init(r, &wk, p, size, cpu, base);
    if (r->swapped && avail >= size)
        walk_rest(r, &wk, avail, 1, 1);
    else if (r->swapped)
        walk_rest(r, &wk, avail, 1, 0);
    else if (avail >= size)
        walk_rest(r, &wk, avail, 0, 1);
    else
        walk_rest(r, &wk, avail, 0, 0);
    walker_end(r, &wk, r->swapped);
    return wk.w;
}

/* The host's byte order, as PIS_BO_*. */
static unsigned host_order(void)
{
    const uint32_t one = 1;
    unsigned char b;

    memcpy(&b, &one, 1);
    return b ? PIS_BO_LITTLE : PIS_BO_BIG;
}

static size_t consume(struct pis_reader *r, size_t n)
{
    r->pos += n;
    r->st.bytes += n;
    return n;
}

static void start_resync(struct pis_reader *r, uint64_t at, const char *why)
{
    r->resync = 1;
    r->resync_start = at;
    r->st.corrupt_events++;
    snprintf(r->resync_why, sizeof(r->resync_why), "%s", why);
}

static size_t step_window(struct pis_reader *r, const unsigned char *buf,
                          size_t len, int eof, uint32_t cpu, uint32_t size);

/* Look for the next window header that is followed by records tiling it. */
static size_t step_resync(struct pis_reader *r, const unsigned char *buf,
                          size_t len, int eof)
{
    size_t k = 0;
    uint32_t hw = r->swapped ? __builtin_bswap32(TRC_CPU_CHANGE_HDR)
                             : TRC_CPU_CHANGE_HDR;
    unsigned char first;

    memcpy(&first, &hw, 1);     /* the header's first byte in the input */
    while (len >= 12 && k + 12 <= len) {
        const unsigned char *hit;
        uint32_t cpu, size;

        hit = memchr(buf + k, first, len - 11 - k);
        if (!hit)
            break;
        k = (size_t)(hit - buf);
        if (header_ok(buf + k, r->swapped, &cpu, &size)) {
            struct walk w;
            if (k > 0) {            /* skip up to the candidate first */
                r->st.corrupt_bytes += k;
                r->st.lead_bytes += r->lead ? k : 0;
                return consume(r, k);
            }
            if (len - 12 < size && !eof)
                return 0;           /* need the whole candidate window */
            w = walk_check(buf + 12, size, len - 12, r->swapped);
            if (w.end != WALK_BAD) {
                uint64_t skipped = r->pos - r->resync_start;
                diag(r, PIS_DIAG_CORRUPT, r->resync_start,
                     "%s; skipped %llu bytes, resynchronised at byte %llu",
                     r->resync_why, (unsigned long long)skipped,
                     (unsigned long long)r->pos);
                r->resync = 0;
                r->lead = 0;
                return step_window(r, buf, len, eof, cpu, size);
            }
        }
        k++;
    }
    if (eof) {
        uint64_t skipped = r->pos + len - r->resync_start;
        r->st.corrupt_bytes += len;
        r->st.lead_bytes += r->lead ? len : 0;
        diag(r, PIS_DIAG_CORRUPT, r->resync_start,
             "%s; skipped %llu bytes to the end of input (no later window)",
             r->resync_why, (unsigned long long)skipped);
        r->resync = 0;
        r->done = 1;
        return consume(r, len);
    }
    if (len < 12)
        return 0;
    k = len - 11;
    r->st.corrupt_bytes += k;
    r->st.lead_bytes += r->lead ? k : 0;
    return consume(r, k);
}

/* What is left to do once the window at r->pos (cpu, size; avail bytes
 * of it present) was walked: returns the bytes consumed. */
static size_t window_done(struct pis_reader *r, size_t len, uint32_t cpu,
                          uint32_t size, size_t avail, struct walk w)
{
    switch (w.end) {
    case WALK_OK:
        return consume(r, 12 + (size_t)size);
    case WALK_SHORT: {
        size_t partial = avail - w.stop;
        r->st.truncated_windows++;
        r->st.missing_bytes += size - avail;
        r->st.truncated_bytes += partial;
        diag(r, PIS_DIAG_TRUNCATED, r->pos + 12 + w.stop,
             "input ends inside the window that starts at byte %llu "
             "(cpu %u, %zu of %u bytes present%s)",
             (unsigned long long)r->pos, cpu, avail, size,
             partial ? ", last record incomplete" : "");
        r->done = 1;
        return consume(r, len);
    }
    case WALK_BAD:
    default:
        start_resync(r, r->pos + 12 + w.stop, w.why);
        return consume(r, 12 + w.stop);
    }
}

static size_t step_window(struct pis_reader *r, const unsigned char *buf,
                          size_t len, int eof, uint32_t cpu, uint32_t size)
{
    size_t avail = len - 12;

    if (avail < size && !eof)
        return 0;
    r->st.windows++;
    r->cpu[cpu].windows++;
    return window_done(r, len, cpu, size, avail,
                       walk_window(r, buf + 12, size, avail, cpu,
                                   r->pos + 12));
}

/* Offset of the first window header without a problem in buf's first
 * PIS_LEAD_MAX + 12 bytes, in either byte order (*sw says which), or len;
 * none starts before from. */
static size_t first_header(const unsigned char *buf, size_t len,
                           size_t from, int *sw)
{
    size_t end = len < PIS_LEAD_MAX + 12 ? len : PIS_LEAD_MAX + 12;
    uint32_t cpu, size;

    for (size_t k = from; k + 12 <= end; k++)
        for (int o = 0; o < 2; o++)
            if (header_ok(buf + k, o, &cpu, &size)) {
                *sw = o;
                return k;
            }
    return len;
}

size_t pis_reader_step(struct pis_reader *r, const unsigned char *buf,
                       size_t len, int eof)
{
    uint32_t cpu, size;
    const char *why;

    if (r->fatal || r->done)
        return 0;
    if (r->pos == 0 && r->st.windows == 0 && !r->resync) {
        uint32_t w0;
        if (len < 4) {
            if (!eof)
                return 0;
            r->fatal = 1;
            if (len == 0)
                diag(r, PIS_DIAG_NOT_TRACE, 0, "empty input, not a trace");
            else
                diag(r, PIS_DIAG_NOT_TRACE, 0, "only %zu bytes, not a trace",
                     len);
            return 0;
        }
        /* The first word fixes the byte order of the whole input: a
         * window in the other order later on is corruption. */
        w0 = pis_ld32(buf);
        if (w0 == TRC_CPU_CHANGE_HDR) {
            r->swapped = 0;
        } else if (__builtin_bswap32(w0) == TRC_CPU_CHANGE_HDR) {
            r->swapped = 1;
        } else {
            /* cut mid-record: the first sound window header in either
             * byte order decides it, and the resync walks from there */
            size_t k = first_header(buf, len, r->lead_from, &r->swapped);
            if (k == len && !eof && len < PIS_LEAD_MAX + 12) {
                r->lead_from = len > 11 ? len - 11 : 0;
                return 0;       /* searched: every start up to there */
            }
            if (k == len) {
                r->fatal = 1;
                diag(r, PIS_DIAG_NOT_TRACE, 0, "not a xentrace file: first "
                     "word 0x%08x is not a CPU_CHANGE header (0x%08x), nor "
                     "is there one in the first %zu bytes", w0,
                     TRC_CPU_CHANGE_HDR, len < PIS_LEAD_MAX + 12 ? len :
                     (size_t)PIS_LEAD_MAX + 12);
                return 0;
            }
            r->lead = 1;
            start_resync(r, 0, "input starts inside a record (no window "
                         "header at byte 0)");
        }
        r->st.byte_order = r->swapped ? PIS_BO_LITTLE + PIS_BO_BIG -
                                        host_order() : host_order();
    }
    if (r->resync)
        return step_resync(r, buf, len, eof);
    if (len < 12) {
        if (!eof)
            return 0;
        if (len == 0) {
            r->done = 1;
            return 0;
        }
        if (len >= 4 && pis_ld32o(buf, r->swapped) != TRC_CPU_CHANGE_HDR) {
            start_resync(r, r->pos, "garbage at the end of input");
            return step_resync(r, buf, len, eof);
        }
        r->st.truncated_bytes += len;
        r->st.truncated_windows++;
        diag(r, PIS_DIAG_TRUNCATED, r->pos,
             "input ends inside a window header (%zu of 12 bytes)", len);
        r->done = 1;
        return consume(r, len);
    }
    why = header_problem(buf, r->swapped, &cpu, &size);
    if (why) {
        start_resync(r, r->pos, why);
        return step_resync(r, buf, len, eof);
    }
    return step_window(r, buf, len, eof, cpu, size);
}

void pis_reader_finish(struct pis_reader *r)
{
    if (r->resync) {
        diag(r, PIS_DIAG_CORRUPT, r->resync_start,
             "%s; skipped %llu bytes to the end of input", r->resync_why,
             (unsigned long long)(r->pos - r->resync_start));
        r->resync = 0;
    }
    if (!r->fatal && r->st.windows == 0 && r->st.truncated_bytes == 0 &&
        r->st.bytes > 0) {
        r->fatal = 1;
        diag(r, PIS_DIAG_NOT_TRACE, 0, "no valid window in %llu bytes, "
             "not a trace", (unsigned long long)r->st.bytes);
    }
}
