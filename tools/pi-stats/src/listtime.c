/* listtime.c - time-weighted list lengths; see listtime.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listtime.h"
#include "pct.h"
#include "tracefmt.h"

/* Memory budget of all lists: at[] entries (8 bytes), a move away counted
 * as 5 of them; 32 MiB, against a few KiB for real lists. */
#define LT_BUDGET (1u << 22)
#define MOVE_COST 5u

const char *const pis_lt_bad_name[PIS_LT_NBAD] = {
    "a length out of range (malformed record, or more woken than walked)",
    "a change without a TSC",
    "more than 4096 moves away from the list",
    "a move away from the list read after its changes on both sides",
    "a move away from the list with no change of it before or after",
    "the changes before and after a move away disagree",
    "records out of order or missing",
    "out of its memory budget",
};

static int allowed(const unsigned char *filter, uint32_t cpu)
{
    return !filter || (filter[cpu >> 3] & (1u << (cpu & 7u)));
}

static struct pis_lt_list *list_of(struct pis_lt *lt, uint32_t cpu)
{
    if (!lt->list[cpu])
        lt->list[cpu] = calloc(1, sizeof(*lt->list[cpu]));
    return lt->list[cpu];
}

/* Room for lengths 0..len in l->at; 0, or -1 (l marked) when not. */
static int reach(struct pis_lt *lt, struct pis_lt_list *l, uint64_t len)
{
    uint32_t cap;
    uint64_t *at;

    if (len >= PIS_LT_MAX_LEN) {
        l->bad |= PIS_LT_BAD_LEN;
        return -1;
    }
    if (len < l->cap)
        return 0;
    cap = l->cap ? l->cap : 16;
    while (cap <= len)
        cap *= 2;
    if (lt->entries + (cap - l->cap) > LT_BUDGET ||
        !(at = realloc(l->at, cap * sizeof(*at)))) {
        l->bad |= PIS_LT_BAD_NOMEM;
        return -1;
    }
    memset(at + l->cap, 0, (cap - l->cap) * sizeof(*at));
    lt->entries += cap - l->cap;
    l->at = at;
    l->cap = cap;
    return 0;
}

/* Whether a change at tsc can be nearer to any move away of l than the
 * changes they hold: not when it is after all of them and after every
 * change they hold after them (records in order), nor the mirror case. */
static int moves_care(const struct pis_lt_list *l, uint64_t tsc)
{
    if (tsc > l->mv_hi && !l->nosucc && tsc > l->succ_hi)
        return 0;
    if (tsc < l->mv_lo && !l->nopred && tsc < l->pred_lo)
        return 0;
    return 1;
}

static void set_pred(struct pis_lt_list *l, struct pis_lt_move *m,
                     uint64_t tsc, uint32_t a)
{
    l->nopred -= !m->has_pred;
    m->pred_tsc = tsc;
    m->pred_a = a;
    m->has_pred = 1;
    if (tsc < l->pred_lo)
        l->pred_lo = tsc;
}

static void set_succ(struct pis_lt_list *l, struct pis_lt_move *m,
                     uint64_t tsc, uint32_t b)
{
    l->nosucc -= !m->has_succ;
    m->succ_tsc = tsc;
    m->succ_b = b;
    m->has_succ = 1;
    if (tsc > l->succ_hi)
        l->succ_hi = tsc;
}

/* An absolute change at tsc: the moves away waiting for their nearest
 * changes before and after them learn of it. */
static void moves_see(struct pis_lt_list *l, uint64_t tsc, uint32_t b,
                      uint32_t a)
{
    if (!moves_care(l, tsc))
        return;
    for (uint32_t i = 0; i < l->nmv; i++) {
        struct pis_lt_move *m = &l->mv[i];
        if (tsc < m->tsc && (!m->has_pred || tsc > m->pred_tsc))
            set_pred(l, m, tsc, a);
        else if (tsc > m->tsc && (!m->has_succ || tsc < m->succ_tsc))
            set_succ(l, m, tsc, b);
    }
}

/* A change of list cpu at tsc from length b to a. */
static PIS_ALWAYS_INLINE void change_in(struct pis_lt *lt,
                                         struct pis_lt_list *l, int has_tsc,
                                         uint64_t t, uint64_t b, uint64_t a)
{
    if (!l || l->bad)
        return;
    if (!has_tsc) {
        l->bad |= PIS_LT_BAD_NO_TSC;
        return;
    }
    if ((b > a ? b : a) >= l->cap && reach(lt, l, b > a ? b : a))
        return;
    l->at[b] += t;
    l->at[a] -= t;
    if (!l->changes || t < l->lo_tsc) {
        l->lo_tsc = t;
        l->lo_b = (uint32_t)b;
    }
    if (!l->changes || t >= l->hi_tsc) {
        l->hi_tsc = t;
        l->hi_a = (uint32_t)a;
    }
    l->changes++;
    if (l->nmv)
        moves_see(l, t, (uint32_t)b, (uint32_t)a);
}

static void change(struct pis_lt *lt, uint32_t cpu, const struct pis_rec *rec,
                   uint64_t b, uint64_t a)
{
    change_in(lt, list_of(lt, cpu), rec->has_tsc, rec->tsc, b, a);
}

/* A move away from list cpu at the record's TSC: kept for the end, with
 * the nearest changes of the list around it seen so far.  Those are exact
 * only when every change seen so far is on one side of it. */
static void move_away(struct pis_lt *lt, uint32_t cpu,
                      const struct pis_rec *rec)
{
    struct pis_lt_list *l = list_of(lt, cpu);
    struct pis_lt_move *m;

    if (!l || l->bad)
        return;
    if (!rec->has_tsc) {
        l->bad |= PIS_LT_BAD_NO_TSC;
        return;
    }
    if (l->nmv == PIS_LT_MAX_MOVES) {
        l->bad |= PIS_LT_BAD_MOVES;
        return;
    }
    if (l->nmv == l->mvcap) {
        uint32_t cap = l->mvcap ? 2 * l->mvcap : 8;
        if (lt->entries + MOVE_COST * (cap - l->mvcap) > LT_BUDGET ||
            !(m = realloc(l->mv, cap * sizeof(*m)))) {
            l->bad |= PIS_LT_BAD_NOMEM;
            return;
        }
        lt->entries += MOVE_COST * (cap - l->mvcap);
        l->mv = m;
        l->mvcap = cap;
    }
    m = &l->mv[l->nmv++];
    memset(m, 0, sizeof(*m));
    m->tsc = rec->tsc;
    if (l->nmv == 1)
        l->pred_lo = UINT64_MAX;
    if (l->nmv == 1 || m->tsc < l->mv_lo)
        l->mv_lo = m->tsc;
    if (l->nmv == 1 || m->tsc > l->mv_hi)
        l->mv_hi = m->tsc;
    l->nopred++;
    l->nosucc++;
    l->moves_away++;
    if (!l->changes)
        return;
    if (l->hi_tsc < m->tsc)
        set_pred(l, m, l->hi_tsc, l->hi_a);
    else if (l->lo_tsc > m->tsc)
        set_succ(l, m, l->lo_tsc, l->lo_b);
    else
        l->bad |= PIS_LT_BAD_STRADDLE;
}

void pis_lt_record(struct pis_lt **ltp, const struct pis_rec *rec,
                   const unsigned char *cpu_filter)
{
    struct pis_lt *lt = *ltp;
    uint32_t cpu, len;

    if (!lt && !(lt = *ltp = calloc(1, sizeof(*lt))))
        return;
    switch (rec->event) {
    case PI_EVT_LIST_ADD:       /* list_pcpu in word 1, length after */
        if (rec->nwords < 4)
            return;
        cpu = pis_rec_w(rec, 1) & 0xffffu;
        len = pis_rec_w(rec, 2);
        if (cpu < PIS_MAX_CPUS && allowed(cpu_filter, cpu))
            change(lt, cpu, rec, (uint64_t)len - 1, len);
        return;
    case PI_EVT_LIST_DEL:       /* list pCPU in word 1, length after */
        if (rec->nwords < 3)
            return;
        lt->del++;
        cpu = pis_rec_w(rec, 1);
        len = pis_rec_w(rec, 2);
        if (cpu < PIS_MAX_CPUS && allowed(cpu_filter, cpu))
            change(lt, cpu, rec, (uint64_t)len + 1, len);
        return;
    case PI_EVT_LIST_MOVE:      /* from_pcpu, to_pcpu, to-list length */
        if (rec->nwords < 4)
            return;
        cpu = pis_rec_w(rec, 1);
        if (cpu < PIS_MAX_CPUS && allowed(cpu_filter, cpu))
            move_away(lt, cpu, rec);
        cpu = pis_rec_w(rec, 2);
        len = pis_rec_w(rec, 3);
        if (cpu < PIS_MAX_CPUS && allowed(cpu_filter, cpu))
            change(lt, cpu, rec, (uint64_t)len - 1, len);
        return;
    case PI_EVT_WAKEUP:         /* walked, woken: the record's pCPU */
        if (rec->nwords < 3 || !allowed(cpu_filter, rec->cpu))
            return;
        len = pis_rec_w(rec, 0);
        change(lt, rec->cpu, rec, len,
               (uint64_t)len - pis_rec_w(rec, 1));
        return;
    default:
        return;
    }
}

/* The adds, removals and wakeups of a group in loops of their own: the
 * same as pis_lt_record on each, the list of a group's wakeups found
 * once. */
void pis_lt_group(struct pis_lt **ltp, const struct pis_group *g,
                  const unsigned char *cpu_filter)
{
    struct pis_lt *lt = *ltp;
    struct pis_lt_list *own = NULL;
    struct pis_rec rec;

    if (!lt && !(lt = *ltp = calloc(1, sizeof(*lt))))
        return;
    if (g->event == PI_EVT_WAKEUP &&
        (!allowed(cpu_filter, g->cpu) || !(own = list_of(lt, g->cpu))))
        return;
    for (uint32_t k = 0; k < g->n; k++) {
        uint64_t len;
        uint32_t cpu;

        pis_group_rec(g, k, &rec);
        switch (g->event) {
        case PI_EVT_WAKEUP:     /* walked, woken */
            if (rec.nwords < 3)
                break;
            len = pis_rec_w(&rec, 0);
            change_in(lt, own, rec.has_tsc, rec.tsc, len,
                      len - pis_rec_w(&rec, 1));
            break;
        case PI_EVT_LIST_ADD:   /* list_pcpu in word 1, length after */
            if (rec.nwords < 4)
                break;
            cpu = pis_rec_w(&rec, 1) & 0xffffu;
            len = pis_rec_w(&rec, 2);
            if (cpu < PIS_MAX_CPUS && allowed(cpu_filter, cpu))
                change_in(lt, list_of(lt, cpu), rec.has_tsc, rec.tsc,
                          len - 1, len);
            break;
        default:
            pis_lt_record(ltp, &rec, cpu_filter);
            break;
        }
    }
}

static int by_tsc(const void *x, const void *y)
{
    const struct pis_lt_move *a = x, *b = y;

    return a->tsc < b->tsc ? -1 : a->tsc > b->tsc;
}

/* Index of the first of the n sorted moves with a TSC above t (strict)
 * or at least t (!strict). */
static uint32_t first_after(const struct pis_lt_move *mv, uint32_t n,
                            uint64_t t, int strict)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strict ? mv[mid].tsc <= t : mv[mid].tsc < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The length before sorted move i: from the change before it, less the
 * moves away since; from the change after it, plus the moves away up to
 * it.  Both when both are known, and they must agree.  0 or -1. */
static int move_before(struct pis_lt_list *l, uint32_t i, uint64_t *b)
{
    const struct pis_lt_move *m = &l->mv[i];
    uint64_t from_pred = 0, from_succ = 0;

    if (m->has_pred) {
        uint32_t k = i - first_after(l->mv, l->nmv, m->pred_tsc, 1);
        from_pred = (uint64_t)m->pred_a - k;    /* wraps when negative */
    }
    if (m->has_succ)
        from_succ = (uint64_t)m->succ_b +
                    (first_after(l->mv, l->nmv, m->succ_tsc, 0) - i);
    if (!m->has_pred && !m->has_succ) {
        l->bad |= PIS_LT_BAD_UNRESOLVED;
        return -1;
    }
    if (m->has_pred && m->has_succ && from_pred != from_succ) {
        l->bad |= PIS_LT_BAD_DISAGREE;
        return -1;
    }
    *b = m->has_pred ? from_pred : from_succ;
    if (*b == 0 || *b >= PIS_LT_MAX_LEN) {
        l->bad |= PIS_LT_BAD_LEN;
        return -1;
    }
    return 0;
}

/* The moves away of l into its sums, and into the lengths at the ends
 * (ini, fin) when one of them is the list's first or last change. */
static void moves_finish(struct pis_lt *lt, struct pis_lt_list *l,
                         uint64_t *ini_tsc, uint64_t *ini,
                         uint64_t *fin_tsc, uint64_t *fin)
{
    qsort(l->mv, l->nmv, sizeof(*l->mv), by_tsc);
    for (uint32_t i = 0; i < l->nmv && !l->bad; i++) {
        uint64_t b, t = l->mv[i].tsc;
        if (move_before(l, i, &b) || reach(lt, l, b))
            return;
        l->at[b] += t;
        l->at[b - 1] -= t;
        if (t < *ini_tsc) {
            *ini_tsc = t;
            *ini = b;
        }
        if (t > *fin_tsc) {
            *fin_tsc = t;
            *fin = b - 1;
        }
    }
}

static void list_finish(struct pis_lt *lt, struct pis_lt_list *l)
{
    uint64_t t0 = lt->t_start, t1 = lt->t_end;
    uint64_t ini_tsc = l->lo_tsc, ini = l->lo_b;
    uint64_t fin_tsc = l->hi_tsc, fin = l->hi_a;

    l->duration = t1 - t0;
    if (!l->bad && !l->changes)
        l->bad |= PIS_LT_BAD_UNRESOLVED;    /* only moves away */
    if (!l->bad && l->nmv)
        moves_finish(lt, l, &ini_tsc, &ini, &fin_tsc, &fin);
    free(l->mv);
    l->mv = NULL;
    lt->entries -= MOVE_COST * l->mvcap;
    l->nmv = l->mvcap = 0;
    if (l->bad)
        return;
    if (ini_tsc < t0 || fin_tsc > t1) {
        l->bad |= PIS_LT_BAD_NEGATIVE;
        return;
    }
    l->at[fin] += t1;
    l->at[ini] -= t0;
    for (uint32_t i = 0; i < l->cap; i++)
        if (l->at[i] > l->duration)
            l->bad |= PIS_LT_BAD_NEGATIVE;
}

/* The window [T_start, T_end]: the input's lowest and highest TSC, within
 * --since/--until when given (the changes kept are all inside). */
static void window(struct pis_lt *lt, const struct pis_range *r,
                   const struct pis_read_stats *st)
{
    uint64_t lo = 0, hi = UINT64_MAX;

    lt->t_start = st->tsc_min;
    lt->t_end = st->tsc_max;
    if (!r->on)
        return;
    if (!r->relative) {
        lo = r->lo;
        hi = r->hi;
    } else if (r->have_base) {
        if (r->rlo != INT64_MIN)    /* >= 0: seconds from the base */
            lo = r->base + (uint64_t)r->rlo;
        if (r->rhi != INT64_MAX && (uint64_t)r->rhi <= UINT64_MAX - r->base)
            hi = r->base + (uint64_t)r->rhi;
    }
    if (lo > lt->t_start)
        lt->t_start = lo;
    if (hi < lt->t_end)
        lt->t_end = hi;
    if (lt->t_end < lt->t_start)
        lt->t_end = lt->t_start;
}

/* Why the input's figures cannot be exact, or "" when they can. */
static void why_not(struct pis_lt *lt, const struct pis_pi *p,
                    const struct pis_read_stats *st)
{
    char *w = lt->reason;
    size_t n = sizeof(lt->reason);

    if (!lt->del)
        snprintf(w, n, "the trace has no PI_LIST_DEL records%s",
                 p->range.on ? " in --since/--until" : "");
    else if (st->lost_markers)
        snprintf(w, n, "records were lost: %" PRIu64 " in %" PRIu64
                 " TRC_LOST_RECORDS markers", st->lost_records,
                 st->lost_markers);
    else if (st->corrupt_events || st->truncated_windows ||
             st->truncated_bytes)
        snprintf(w, n, "the trace is damaged: corrupt or truncated");
    else if (p->c.malformed)
        snprintf(w, n, "%" PRIu64 " malformed PI records", p->c.malformed);
    else if (p->c.no_tsc)
        snprintf(w, n, "%" PRIu64 " PI records without a TSC", p->c.no_tsc);
    else
        w[0] = '\0';
}

static void lists_free(struct pis_lt *lt)
{
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (lt->list[c]) {
            free(lt->list[c]->at);
            free(lt->list[c]->mv);
            free(lt->list[c]);
            lt->list[c] = NULL;
        }
    lt->entries = 0;
}

int pis_lt_finish(struct pis_lt **ltp, const struct pis_pi *p,
                  const struct pis_read_stats *st)
{
    struct pis_lt *lt = *ltp;

    if (!lt && !(lt = *ltp = calloc(1, sizeof(*lt))))
        return -1;
    lt->done = 1;
    why_not(lt, p, st);
    lt->available = lt->reason[0] == '\0';
    if (!lt->available) {
        lists_free(lt);
        return 0;
    }
    window(lt, &p->range, st);
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (lt->list[c])
            list_finish(lt, lt->list[c]);
    return 0;
}

static int list_merge(struct pis_lt *dst, unsigned c,
                      const struct pis_lt_list *s)
{
    struct pis_lt_list *d = list_of(dst, c);

    if (!d)
        return -1;
    d->bad |= s->bad;
    d->changes += s->changes;
    d->moves_away += s->moves_away;
    d->duration += s->duration;
    if (d->bad)
        return 0;
    if (s->cap && reach(dst, d, s->cap - 1))
        return 0;               /* marked */
    for (uint32_t i = 0; i < s->cap; i++)
        d->at[i] += s->at[i];
    return 0;
}

int pis_lt_merge(struct pis_lt **dstp, const struct pis_lt *src)
{
    struct pis_lt *dst = *dstp;
    int first = !dst;

    if (!src)
        return 0;
    if (!dst && !(dst = *dstp = calloc(1, sizeof(*dst))))
        return -1;
    if (first) {
        dst->done = 1;
        dst->available = 1;
    }
    dst->del += src->del;
    if (dst->available && !src->available) {
        dst->available = 0;
        snprintf(dst->reason, sizeof(dst->reason), "an input: %.140s",
                 src->reason);
        lists_free(dst);
    }
    if (!dst->available)
        return 0;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (src->list[c] && list_merge(dst, c, src->list[c]))
            return -1;
    return 0;
}

void pis_lt_free(struct pis_lt *lt)
{
    if (!lt)
        return;
    lists_free(lt);
    free(lt);
}

void pis_lt_summarize(const uint64_t *at, uint32_t cap, uint64_t duration,
                      struct pis_lt_summary *s)
{
    uint64_t r50, r99, cum = 0;
    double sum = 0;

    memset(s, 0, sizeof(*s));
    if (!duration)
        return;
    r50 = pis_rank(duration, 5000);
    r99 = pis_rank(duration, 9900);
    s->p50 = s->p99 = UINT64_MAX;
    for (uint32_t i = 0; i < cap; i++) {
        if (!at[i])
            continue;
        sum += (double)i * (double)at[i];
        cum += at[i];
        if (s->p50 == UINT64_MAX && cum >= r50)
            s->p50 = i;
        if (s->p99 == UINT64_MAX && cum >= r99)
            s->p99 = i;
        s->max = i;
        s->at_max = at[i];
    }
    s->mean = sum / (double)duration;
}

uint64_t *pis_lt_total(const struct pis_lt *lt, uint32_t *cap,
                       uint64_t *duration, unsigned *nlists)
{
    uint64_t *at;

    *cap = 0;
    *duration = 0;
    *nlists = 0;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (lt->list[c] && !lt->list[c]->bad && lt->list[c]->cap > *cap)
            *cap = lt->list[c]->cap;
    if (!*cap || !(at = calloc(*cap, sizeof(*at)))) {
        *cap = 0;
        return NULL;
    }
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        const struct pis_lt_list *l = lt->list[c];
        if (!l || l->bad)
            continue;
        for (uint32_t i = 0; i < l->cap; i++)
            at[i] += l->at[i];
        *duration += l->duration;
        (*nlists)++;
    }
    return at;
}
