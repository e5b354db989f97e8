/* pi.c - posted-interrupt event decoder; see pi.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listtime.h"
#include "pi.h"
#include "tracefmt.h"

const char *const pis_metric_name[PIS_NMETRICS] = {
    "list_length", "wakeup_cycles", "wakeup_walked",
};

int pis_pi_init(struct pis_pi *p, const unsigned char *cpu_filter)
{
    memset(p, 0, sizeof(*p));
    pis_hist_init(&p->limits);
    p->open = calloc(PIS_MAX_CPUS, sizeof(*p->open));
    p->cpu_filter = cpu_filter;
    return p->open ? 0 : -1;
}

void pis_pi_free(struct pis_pi *p)
{
    for (int m = 0; m < PIS_NMETRICS; m++)
        for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
            if (p->m[m].cpu[c]) {
                pis_hist_free(p->m[m].cpu[c]);
                free(p->m[m].cpu[c]);
            }
    pis_hist_free(&p->limits);
    pis_owners_free(&p->owners);
    pis_lt_free(p->lt);
    if (p->iv)
        for (int m = 0; m < PIS_NMETRICS; m++)
            pis_hist_free(&p->iv->h[m]);
    free(p->iv);
    free(p->open);
    memset(p, 0, sizeof(*p));
}

int pis_pi_want(struct pis_reader *r, int grouped)
{
    /* in file order: the legacy pairs and what voids them, and the
     * moves, which list_time places among the changes of their list seen
     * before and after them (a grouped move would come after changes
     * that follow it in the file: see listtime.h) */
    static const uint32_t ordered[] = {
        PI_EVT_OLD_BLOCK, PI_EVT_OLD_WSTART, PI_EVT_OLD_WEND,
        TRC_LOST_RECORDS, PI_EVT_LIST_MOVE,
    };
    /* grouped unless asked not to: nothing depends on their order */
    static const uint32_t later[] = {
        PI_EVT_LIST_ADD, PI_EVT_WAKEUP, PI_EVT_LIST_DEL,
    };
    for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++)
        if (pis_reader_want(r, ordered[i]) != 0)
            return -1;
    for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
        if ((grouped ? pis_reader_want_grouped(r, later[i])
                     : pis_reader_want(r, later[i])) != 0)
            return -1;
    return 0;
}

static const char *event_name(uint32_t ev)
{
    switch (ev) {
    case PI_EVT_LIST_ADD:   return "PI_LIST_ADD";
    case PI_EVT_WAKEUP:     return "PI_WAKEUP";
    case PI_EVT_LIST_MOVE:  return "PI_LIST_MOVE";
    case PI_EVT_LIST_DEL:   return "PI_LIST_DEL";
    case PI_EVT_OLD_BLOCK:  return "BLOCK_LIST";
    default:                return "WAKEUP_START";
    }
}

/* A malformed record at offset: counted, and warned about.  Too few
 * words when nwords < need, else a pCPU id (cpu) out of range. */
static void malformed(struct pis_pi *p, uint64_t offset, uint32_t ev,
                      unsigned nwords, unsigned need, uint32_t cpu)
{
    char msg[128];

    p->c.malformed++;
    if (!p->diag)
        return;
    if (nwords < need)
        snprintf(msg, sizeof(msg), "malformed %s record: %u extra words, "
                 "needs %u", event_name(ev), nwords, need);
    else
        snprintf(msg, sizeof(msg), "malformed %s record: list pCPU %u, "
                 "ids go up to %u", event_name(ev), cpu, PIS_MAX_CPUS - 1);
    p->diag(p->diag_ctx, PIS_DIAG_PI_MALFORMED, offset, msg);
}

static int allowed(const struct pis_pi *p, uint32_t cpu)
{
    return !p->cpu_filter || (p->cpu_filter[cpu >> 3] & (1u << (cpu & 7u)));
}

/* The histogram of metric m on pCPU cpu, made when missing; NULL when out
 * of memory. */
static struct pis_hist *hist_of(struct pis_pi *p, enum pis_metric_id m,
                                uint32_t cpu)
{
    struct pis_hist **h = &p->m[m].cpu[cpu];

    if (!*h && (*h = malloc(sizeof(**h))) != NULL)
        pis_hist_init(*h);
    if (!*h)
        p->oom = 1;
    return *h;
}

/* The sample of sample() for the interval (--interval). */
static void interval_sample(struct pis_pi *p, enum pis_metric_id m,
                            uint32_t cpu, uint64_t v,
                            const struct pis_rec *rec, uint64_t tsc)
{
    struct pis_hist *h = &p->iv->h[m];

    if (pis_hist_add1(h, v, rec->has_tsc, tsc, rec->offset, p->file))
        p->oom = 1;
    else if (h->max_offset == rec->offset && h->max_file == p->file)
        p->iv->max_cpu[m] = cpu;    /* the first maximum: in any order */
}

/* Inlined in each caller, the interval's part not: a call to it took
 * about a fifth of the instructions per PI record, most of them saving
 * and restoring registers for the interval's part. */
static PIS_ALWAYS_INLINE void sample(struct pis_pi *p, enum pis_metric_id m,
                                     uint32_t cpu, uint64_t v,
                                     const struct pis_rec *rec, uint64_t tsc)
{
    struct pis_hist *h = hist_of(p, m, cpu);

    if (h && pis_hist_add1(h, v, rec->has_tsc, tsc, rec->offset, p->file))
        p->oom = 1;
    if (p->iv)
        interval_sample(p, m, cpu, v, rec, tsc);
}

int pis_pi_interval_on(struct pis_pi *p)
{
    if (!(p->iv = calloc(1, sizeof(*p->iv))))
        return -1;
    for (int m = 0; m < PIS_NMETRICS; m++)
        pis_hist_init(&p->iv->h[m]);
    return 0;
}

void pis_pi_interval_reset(struct pis_pi *p)
{
    for (int m = 0; m < PIS_NMETRICS; m++) {
        pis_hist_free(&p->iv->h[m]);
        pis_hist_init(&p->iv->h[m]);
    }
    p->iv->list_add = p->c.list_add;
    p->iv->wakeup = p->c.wakeup;
}

/* The longest list so far, unless this sample (at offset) of list cpu is:
 * the first in the input, whatever the order samples come in. */
static PIS_ALWAYS_INLINE void longest_note(struct pis_pi *p, uint32_t cpu,
                                           uint64_t len, uint32_t dom,
                                           uint32_t vcpu, uint64_t offset)
{
    struct pis_longest *l = &p->longest;

    if (!l->set || len > l->len || (len == l->len && offset < l->offset)) {
        l->set = 1;
        l->len = len;
        l->offset = offset;
        l->file = p->file;
        l->cpu = cpu;
        l->dom = dom;
        l->vcpu = vcpu;
    }
}

/* A list length of list pCPU cpu after domain dom's vCPU vcpu joined it. */
static void list_sample(struct pis_pi *p, uint32_t cpu, uint64_t len,
                        uint32_t dom, uint32_t vcpu, const struct pis_rec *rec)
{
    sample(p, PIS_M_LIST_LEN, cpu, len, rec, rec->tsc);
    longest_note(p, cpu, len, dom, vcpu, rec->offset);
}

/* A list length for the domain/vCPU of --by (not PIS_BY_PCPU). */
static void owner_sample(struct pis_pi *p, uint32_t dom, uint32_t vcpu,
                         uint64_t len, int spilled, const struct pis_rec *rec)
{
    struct pis_owner *w = pis_owner_get(&p->owners,
                                        pis_owner_key(p->by, dom, vcpu));

    if (!w || pis_hist_add1(&w->len, len, rec->has_tsc, rec->tsc,
                            rec->offset, p->file)) {
        p->oom = 1;
        return;
    }
    w->spilled += spilled != 0;
}

/* The list pCPU in word w of rec (masked), or -1 when the record is
 * malformed (fewer than need words, or a pCPU beyond 4095: counted and
 * warned about) or its list is outside --cpu (counted). */
static PIS_ALWAYS_INLINE int rec_list(struct pis_pi *p,
                                      const struct pis_rec *rec, unsigned need,
                                      unsigned w, uint32_t mask)
{
    uint32_t cpu;

    if (rec->nwords < need) {
        malformed(p, rec->offset, rec->event, rec->nwords, need, 0);
        return -1;
    }
    cpu = pis_rec_w(rec, w) & mask;
    if (cpu >= PIS_MAX_CPUS) {
        malformed(p, rec->offset, rec->event, need, need, cpu);
        return -1;
    }
    if (!allowed(p, cpu)) {
        p->c.filtered_out++;
        return -1;
    }
    return (int)cpu;
}

static PIS_ALWAYS_INLINE void list_add(struct pis_pi *p,
                                        const struct pis_rec *rec)
{
    int list = rec_list(p, rec, 4, 1, 0xffffu);
    uint32_t home, len, limit;

    if (list < 0)
        return;
    home = pis_rec_w(rec, 1) >> 16;
    len = pis_rec_w(rec, 2);
    limit = pis_rec_w(rec, 3);
    /* counted without branches: limits of 0 and of N come in any order,
     * a branch on them would be mispredicted half the time */
    p->c.list_add++;
    p->c.spilled_adds += home != (uint32_t)list;
    p->c.unbounded_adds += limit == 0;
    p->c.over_limit_adds += (limit != 0) & (len > limit);
    if (pis_hist_add1(&p->limits, limit, 0, 0, rec->offset, p->file))
        p->oom = 1;
    list_sample(p, list, len, pis_rec_w(rec, 0) >> 16,
                pis_rec_w(rec, 0) & 0xffffu, rec);
    if (p->by != PIS_BY_PCPU)
        owner_sample(p, pis_rec_w(rec, 0) >> 16, pis_rec_w(rec, 0) & 0xffffu,
                     len, home != (uint32_t)list, rec);
}

/* A list length in word 3 for the list of the pCPU in word 2
 * (PI_LIST_MOVE: to_pcpu; legacy BLOCK_LIST: pcpu), counted in *n. */
static void list_in_word2(struct pis_pi *p, const struct pis_rec *rec,
                          uint64_t *n)
{
    int pcpu = rec_list(p, rec, 4, 2, UINT32_MAX);
    uint32_t dom, vcpu;

    if (pcpu < 0)
        return;
    (*n)++;
    if (rec->event == PI_EVT_OLD_BLOCK) {   /* domid, vcpu */
        dom = pis_rec_w(rec, 0);
        vcpu = pis_rec_w(rec, 1);
    } else {                                /* domid << 16 | vcpu */
        dom = pis_rec_w(rec, 0) >> 16;
        vcpu = pis_rec_w(rec, 0) & 0xffffu;
    }
    list_sample(p, pcpu, pis_rec_w(rec, 3), dom, vcpu, rec);
    if (p->by != PIS_BY_PCPU)
        owner_sample(p, dom, vcpu, pis_rec_w(rec, 3), 0, rec);
}

static PIS_ALWAYS_INLINE void wakeup(struct pis_pi *p,
                                      const struct pis_rec *rec)
{
    if (rec->nwords < 3) {
        malformed(p, rec->offset, rec->event, rec->nwords, 3, 0);
        return;
    }
    if (!allowed(p, rec->cpu)) {
        p->c.filtered_out++;
        return;
    }
    p->c.wakeup++;
    p->c.woken += pis_rec_w(rec, 1);
    sample(p, PIS_M_WAKE_WALKED, rec->cpu, pis_rec_w(rec, 0), rec, rec->tsc);
    sample(p, PIS_M_WAKE_CYCLES, rec->cpu, pis_rec_w(rec, 2), rec, rec->tsc);
}

/* PI_LIST_DEL: counted (the lengths are listtime.c's). */
static void list_del(struct pis_pi *p, const struct pis_rec *rec)
{
    if (rec_list(p, rec, 3, 1, UINT32_MAX) >= 0)
        p->c.list_del++;
}

static void old_start(struct pis_pi *p, const struct pis_rec *rec)
{
    struct pis_pi_open *o = &p->open[rec->cpu];

    if (rec->nwords < 1) {
        malformed(p, rec->offset, rec->event, rec->nwords, 1, 0);
        return;
    }
    p->c.legacy_start++;
    if (o->open) {
        p->c.legacy_unmatched_start++;
        o->open = 0;
    }
    if (allowed(p, rec->cpu))
        sample(p, PIS_M_WAKE_WALKED, rec->cpu, pis_rec_w(rec, 0), rec,
               rec->tsc);
    if (!rec->has_tsc) {
        p->c.legacy_untimed++;
        return;
    }
    o->open = 1;
    o->tsc = rec->tsc;
}

static void old_end(struct pis_pi *p, const struct pis_rec *rec)
{
    struct pis_pi_open *o = &p->open[rec->cpu];

    p->c.legacy_end++;
    if (!rec->has_tsc) {
        p->c.legacy_untimed++;
        o->open = 0;
        return;
    }
    if (!o->open) {
        p->c.legacy_unmatched_end++;
        return;
    }
    o->open = 0;
    if (rec->tsc < o->tsc) {
        p->c.legacy_backwards++;
        return;
    }
    p->c.legacy_pairs++;
    if (!allowed(p, rec->cpu)) {
        p->c.filtered_out++;
        return;
    }
    sample(p, PIS_M_WAKE_CYCLES, rec->cpu, rec->tsc - o->tsc, rec, rec->tsc);
}

static int in_range(struct pis_range *r, const struct pis_rec *rec)
{
    int64_t d;

    if (!rec->has_tsc)
        return 0;
    if (!r->seen || rec->tsc < r->seen_lo)
        r->seen_lo = rec->tsc;
    if (!r->seen || rec->tsc > r->seen_hi)
        r->seen_hi = rec->tsc;
    r->seen = 1;
    if (!r->relative)
        return rec->tsc >= r->lo && rec->tsc < r->hi;
    if (!r->have_base) {
        r->base = rec->tsc;
        r->have_base = 1;
    }
    d = (int64_t)(rec->tsc - r->base);
    return d >= r->rlo && d < r->rhi;
}

/* Records of grouped events one event at a time, each in a loop of its
 * own: the branches of one event's decoding are predictable, those of
 * events in the mixed order of a trace are not. */
/* A group of wakeups in the common case (no --since/--until, no
 * --interval, the pCPU not filtered out): they all go to the stores of
 * the group's pCPU, found once, and the counters are summed in
 * registers.  The same results as wakeup() on each. */
static void wakeups(struct pis_pi *p, const struct pis_group *g)
{
    struct pis_hist *walked = NULL, *cycles = NULL;
    uint64_t n = 0, woken = 0, no_tsc = 0;
    struct pis_rec rec;
    int oom = 0;

    for (uint32_t k = 0; k < g->n; k++) {
        pis_group_rec(g, k, &rec);
        no_tsc += !rec.has_tsc;
        if (rec.nwords < 3) {
            malformed(p, rec.offset, rec.event, rec.nwords, 3, 0);
            continue;
        }
        if (!cycles) {          /* the first: the stores made */
            walked = hist_of(p, PIS_M_WAKE_WALKED, g->cpu);
            cycles = walked ? hist_of(p, PIS_M_WAKE_CYCLES, g->cpu) : NULL;
            if (!cycles)
                break;          /* out of memory: said in p->oom */
        }
        n++;
        woken += pis_rec_w(&rec, 1);
        oom |= pis_hist_add1(walked, pis_rec_w(&rec, 0), rec.has_tsc, rec.tsc,
                             rec.offset, p->file);
        oom |= pis_hist_add1(cycles, pis_rec_w(&rec, 2), rec.has_tsc, rec.tsc,
                             rec.offset, p->file);
    }
    p->c.wakeup += n;
    p->c.woken += woken;
    p->c.no_tsc += no_tsc;
    p->oom |= oom != 0;
}

/* A group of adds in the common case (no --since/--until, --interval,
 * --cpu or --by): the same results as list_add() on each, the store of
 * the group's own pCPU found once, the counters summed in registers. */
static void list_adds(struct pis_pi *p, const struct pis_group *g)
{
    struct pis_hist *own = NULL;
    uint64_t n = 0, spilled = 0, unbounded = 0, over = 0, no_tsc = 0;
    struct pis_rec rec;
    int oom = 0;

    for (uint32_t k = 0; k < g->n; k++) {
        uint32_t w0, home, list, len, limit;
        struct pis_hist *lh;

        pis_group_rec(g, k, &rec);
        no_tsc += !rec.has_tsc;
        if (rec.nwords < 4) {
            malformed(p, rec.offset, rec.event, rec.nwords, 4, 0);
            continue;
        }
        w0 = pis_rec_w(&rec, 0);
        home = pis_rec_w(&rec, 1) >> 16;
        list = pis_rec_w(&rec, 1) & 0xffffu;
        len = pis_rec_w(&rec, 2);
        limit = pis_rec_w(&rec, 3);
        if (list >= PIS_MAX_CPUS) {
            malformed(p, rec.offset, rec.event, 4, 4, list);
            continue;
        }
        n++;
        spilled += home != list;
        unbounded += limit == 0;
        over += (limit != 0) & (len > limit);
        oom |= pis_hist_add1(&p->limits, limit, 0, 0, rec.offset, p->file);
        if (list != g->cpu)
            lh = hist_of(p, PIS_M_LIST_LEN, list);
        else if (!own)
            lh = own = hist_of(p, PIS_M_LIST_LEN, list);
        else
            lh = own;
        if (!lh)
            continue;
        oom |= pis_hist_add1(lh, len, rec.has_tsc, rec.tsc, rec.offset,
                             p->file);
        longest_note(p, list, len, w0 >> 16, w0 & 0xffffu, rec.offset);
    }
    p->c.list_add += n;
    p->c.spilled_adds += spilled;
    p->c.unbounded_adds += unbounded;
    p->c.over_limit_adds += over;
    p->c.no_tsc += no_tsc;
    p->oom |= oom != 0;
}

void pis_pi_group(struct pis_pi *p, const struct pis_group *g)
{
    struct pis_rec rec;

#define EACH_REC(body)                                                  \
    for (uint32_t k = 0; k < g->n; k++) {                               \
        pis_group_rec(g, k, &rec);                                      \
        if (p->range.on && !in_range(&p->range, &rec)) {                \
            p->c.out_of_range++;                                        \
            continue;                                                   \
        }                                                               \
        p->c.no_tsc += !rec.has_tsc;                                    \
        body;                                                           \
        pis_lt_record(&p->lt, &rec, p->cpu_filter);                     \
    }
    switch (g->event) {
    case PI_EVT_LIST_ADD:
        if (!p->range.on && !p->iv && !p->cpu_filter &&
            p->by == PIS_BY_PCPU) {
            list_adds(p, g);
            pis_lt_group(&p->lt, g, NULL);
        } else
            EACH_REC(list_add(p, &rec));
        return;
    case PI_EVT_WAKEUP:
        if (!p->range.on && !p->iv && allowed(p, g->cpu)) {
            wakeups(p, g);
            pis_lt_group(&p->lt, g, p->cpu_filter);
        } else
            EACH_REC(wakeup(p, &rec));
        return;
    default:
        for (uint32_t k = 0; k < g->n; k++) {
            pis_group_rec(g, k, &rec);
            pis_pi_record(p, &rec);
        }
        return;
    }
#undef EACH_REC
}

void pis_pi_record(struct pis_pi *p, const struct pis_rec *rec)
{
    if (p->range.on && rec->event != TRC_LOST_RECORDS &&
        !in_range(&p->range, rec)) {
        p->c.out_of_range++;
        return;
    }
    switch (rec->event) {
    case TRC_LOST_RECORDS:
        if (p->open[rec->cpu].open) {
            p->c.legacy_voided_by_lost++;
            p->open[rec->cpu].open = 0;
        }
        return;
    case PI_EVT_LIST_ADD:
        if (!rec->has_tsc)
            p->c.no_tsc++;
        list_add(p, rec);
        pis_lt_record(&p->lt, rec, p->cpu_filter);
        return;
    case PI_EVT_WAKEUP:
        if (!rec->has_tsc)
            p->c.no_tsc++;
        wakeup(p, rec);
        pis_lt_record(&p->lt, rec, p->cpu_filter);
        return;
    case PI_EVT_LIST_MOVE:
        if (!rec->has_tsc)
            p->c.no_tsc++;
        list_in_word2(p, rec, &p->c.list_move);
        pis_lt_record(&p->lt, rec, p->cpu_filter);
        return;
    case PI_EVT_LIST_DEL:
        if (!rec->has_tsc)
            p->c.no_tsc++;
        list_del(p, rec);
        pis_lt_record(&p->lt, rec, p->cpu_filter);
        return;
    case PI_EVT_OLD_BLOCK:
        list_in_word2(p, rec, &p->c.legacy_block);
        return;
    case PI_EVT_OLD_WSTART:
        old_start(p, rec);
        return;
    case PI_EVT_OLD_WEND:
        old_end(p, rec);
        return;
    default:
        return;
    }
}

/* End of an input.  A per-pCPU store that never flushed its buffer (no
 * sorted entries, no wide counters) stays as it is: a buffer of at most a
 * few thousand values and small counters, less room than their sorted
 * entries would take; the report sorts a copy and frees it at once.  With
 * thousands of pCPUs of a few hundred samples each, compacting them all
 * took a third more memory (25 MiB instead of 19 on 4096 pCPUs), all of
 * it new pages. */
void pis_pi_end_input(struct pis_pi *p)
{
    for (int m = 0; m < PIS_NMETRICS; m++)
        for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
            struct pis_hist *h = p->m[m].cpu[c];
            if (h && (h->used || h->wide) && pis_hist_compact(h))
                p->oom = 1;
        }
    if (pis_hist_compact(&p->limits))
        p->oom = 1;
    for (size_t i = 0; i < p->owners.n; i++)
        if (pis_hist_compact(&p->owners.o[i]->len))
            p->oom = 1;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        if (p->open[c].open)
            p->c.legacy_unmatched_start++;
        p->open[c].open = 0;
    }
}

int pis_pi_merge(struct pis_pi *dst, const struct pis_pi *src)
{
    const uint64_t *s = (const uint64_t *)&src->c;
    uint64_t *d = (uint64_t *)&dst->c;

    const struct pis_longest *sl = &src->longest;
    struct pis_longest *dl = &dst->longest;

    for (size_t i = 0; i < sizeof(src->c) / sizeof(uint64_t); i++)
        d[i] += s[i];
    if (sl->set && (!dl->set || sl->len > dl->len ||
                    (sl->len == dl->len && (sl->file < dl->file ||
                     (sl->file == dl->file && sl->offset < dl->offset)))))
        *dl = *sl;
    if (pis_hist_merge(&dst->limits, &src->limits) ||
        pis_owners_merge(&dst->owners, &src->owners))
        return -1;
    for (int m = 0; m < PIS_NMETRICS; m++)
        for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
            struct pis_hist *h;
            if (!src->m[m].cpu[c])
                continue;
            h = hist_of(dst, (enum pis_metric_id)m, c);
            if (!h || pis_hist_merge(h, src->m[m].cpu[c]))
                return -1;
        }
    dst->oom |= src->oom;
    return 0;
}

int pis_pi_total(const struct pis_pi *p, enum pis_metric_id m,
                 struct pis_hist *out)
{
    const struct pis_hist *in[PIS_MAX_CPUS];
    size_t n = 0;

    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (p->m[m].cpu[c])
            in[n++] = p->m[m].cpu[c];
    return pis_hist_sum(out, in, n);
}

uint64_t pis_pi_events(const struct pis_pi *p)
{
    return p->c.list_add + p->c.list_move + p->c.wakeup + p->c.list_del +
           p->c.legacy_block +
           p->c.legacy_start + p->c.legacy_end + p->c.malformed +
           p->c.filtered_out + p->c.out_of_range;
}
