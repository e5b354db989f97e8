/* report.c - per-input results and their merge. */
#include <stdlib.h>
#include <string.h>

#include "listtime.h"
#include "pct.h"
#include "report.h"

int pis_report_init(struct pis_report *r, const char *name,
                    const unsigned char *cpu_filter)
{
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->cpu = calloc(PIS_MAX_CPUS, sizeof(*r->cpu));
    if (!r->cpu)
        return -1;
    return pis_pi_init(&r->pi, cpu_filter);
}

void pis_report_free(struct pis_report *r)
{
    free(r->cpu);
    pis_pi_free(&r->pi);
    memset(r, 0, sizeof(*r));
}

int pis_report_take(struct pis_report *r, struct pis_reader *rd)
{
    r->st = rd->st;
    free(r->cpu);
    r->cpu = rd->cpu;
    rd->cpu = NULL;
    r->ninputs = 1;
    return pis_lt_finish(&r->pi.lt, &r->pi, &r->st);
}

int pis_report_merge(struct pis_report *dst, const struct pis_report *src)
{
    struct pis_read_stats *d = &dst->st;
    const struct pis_read_stats *s = &src->st;

    d->bytes += s->bytes;
    d->windows += s->windows;
    d->records += s->records;
    d->records_no_tsc += s->records_no_tsc;
    d->wrap_records += s->wrap_records;
    d->lost_markers += s->lost_markers;
    d->lost_records += s->lost_records;
    d->corrupt_bytes += s->corrupt_bytes;
    d->corrupt_events += s->corrupt_events;
    d->lead_bytes += s->lead_bytes;
    d->truncated_bytes += s->truncated_bytes;
    d->truncated_windows += s->truncated_windows;
    d->missing_bytes += s->missing_bytes;
    d->tsc_backwards += s->tsc_backwards;
    d->byte_order |= s->byte_order;
    if (s->have_tsc) {
        /* TSCs of different hosts are not comparable: this is only the
         * envelope, the text output does not print it for merged data */
        if (!d->have_tsc || s->tsc_min < d->tsc_min)
            d->tsc_min = s->tsc_min;
        if (!d->have_tsc || s->tsc_max > d->tsc_max)
            d->tsc_max = s->tsc_max;
        d->have_tsc = 1;
    }
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        struct pis_cpu_stats *dc = &dst->cpu[c];
        const struct pis_cpu_stats *sc = &src->cpu[c];
        if (!sc->windows)
            continue;
        dc->records += sc->records;
        dc->windows += sc->windows;
        dc->no_tsc += sc->no_tsc;
        for (unsigned k = 0; k < PIS_NCLASS; k++)
            dc->by_class[k] += sc->by_class[k];
    }
    dst->ninputs += src->ninputs;
    if (pis_lt_merge(&dst->pi.lt, src->pi.lt))
        return -1;
    return pis_pi_merge(&dst->pi, &src->pi);
}

unsigned pis_report_npcpus(const struct pis_report *r)
{
    unsigned n = 0;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        n += r->cpu[c].windows != 0;
    return n;
}

/* out[k] = the value of rank rank[k] (ascending, at most the count) among
 * the samples of vc[0..n) (sorted, distinct values). */
static void vc_at_ranks(const struct pis_vc *vc, size_t n,
                        const uint64_t *rank, size_t nr, uint64_t *out)
{
    uint64_t seen = 0;
    size_t k = 0;

    for (size_t i = 0; i < n && k < nr; i++) {
        seen += vc[i].count;
        while (k < nr && seen >= rank[k])
            out[k++] = vc[i].value;
    }
}

int pis_summarize(const struct pis_hist *h, struct pis_summary *s,
                  struct pis_vc **vc, size_t *nvc)
{
    static const unsigned pct[] = { 5000, 9000, 9900, 9990 };
    uint64_t rank[5] = { 1 }, at[5];

    memset(s, 0, sizeof(*s));
    if (vc) {
        *vc = NULL;
        *nvc = 0;
    }
    if (h->count == 0)
        return 0;
    if (vc && !(*vc = pis_hist_sorted(h, nvc)))
        return -1;
    for (unsigned i = 0; i < 4; i++)
        rank[i + 1] = pis_rank(h->count, pct[i]);
    if (vc)                     /* the sorted copy: no second sort */
        vc_at_ranks(*vc, *nvc, rank, 5, at);
    else if (pis_hist_at_ranks(h, rank, 5, at))
        return -1;
    s->count = h->count;
    s->min = at[0];
    s->max = h->max;
    s->max_tsc = h->max_tsc;
    s->max_offset = h->max_offset;
    s->max_has_tsc = h->max_has_tsc;
    s->max_file = h->max_file;
    s->p50 = at[1];
    s->p90 = at[2];
    s->p99 = at[3];
    s->p999 = at[4];
    return 0;
}
