/* decode_both.h - an input decoded whole and in chunks, with the records
 * of the PI events grouped (as pi-stats reads) and in file order, to check
 * that they agree (the fuzzer, test_order).  Header-only: each program
 * includes it once. */
#ifndef PIS_DECODE_BOTH_H
#define PIS_DECODE_BOTH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "pi.h"
#include "reader.h"
#include "report.h"

struct db_ctx {
    struct pis_pi pi;
};

static void db_on_rec(void *c, const struct pis_rec *r)
{
    pis_pi_record(&((struct db_ctx *)c)->pi, r);
}

static void db_on_group(void *c, const struct pis_group *g)
{
    pis_pi_group(&((struct db_ctx *)c)->pi, g);
}

/* What both must agree on: read statistics, PI counters, the summary of
 * each metric over all pCPUs and of the limits, and a digest of every
 * pCPU's summaries. */
struct db_result {
    struct pis_read_stats st;
    struct pis_pi_counts c;
    struct pis_summary s[PIS_NMETRICS], limits;
    struct pis_longest longest;
    uint64_t cpu_digest;
    int fatal;
};

static void db_digest(uint64_t *d, uint64_t v)
{
    *d = (*d ^ v) * 0x100000001b3ull;   /* FNV-1a, a word at a time */
}

/* Decode data[0..size): fed whole when chunk is 0, else chunk bytes at a
 * time; grouped: the PI events' records in groups, else in file order.
 * 0, or -1 when the results are not sound (percentiles out of order) or
 * out of memory. */
static int db_decode(const uint8_t *data, size_t size, size_t chunk,
                     int grouped, struct db_result *res)
{
    struct pis_reader r;
    struct db_ctx c;
    size_t start = 0, fed = 0;
    int rc = 0;

    memset(res, 0, sizeof(*res));
    res->cpu_digest = 0xcbf29ce484222325ull;
    if (pis_pi_init(&c.pi, NULL) ||
        pis_reader_init(&r, db_on_rec, NULL, &c) ||
        pis_pi_want(&r, grouped))
        return -1;
    if (grouped)
        r.on_group = db_on_group;
    for (;;) {
        size_t n;
        int eof;
        fed = chunk ? (fed + chunk > size ? size : fed + chunk) : size;
        eof = fed == size;
        while ((n = pis_reader_step(&r, data + start, fed - start, eof)))
            start += n;
        if (eof || r.fatal || r.done)
            break;
    }
    pis_reader_finish(&r);
    pis_pi_end_input(&c.pi);
    res->st = r.st;
    res->c = c.pi.c;
    res->fatal = r.fatal;
    res->longest = c.pi.longest;
    for (int m = 0; m < PIS_NMETRICS && !rc; m++) {
        struct pis_hist total;
        struct pis_summary *s = &res->s[m];
        if (pis_pi_total(&c.pi, (enum pis_metric_id)m, &total) ||
            pis_summarize(&total, s, NULL, NULL))
            rc = -1;
        else if (s->count && (s->min > s->p50 || s->p50 > s->p90 ||
                              s->p90 > s->p99 || s->p99 > s->p999 ||
                              s->p999 > s->max))
            rc = -1;                    /* percentiles out of order */
        pis_hist_free(&total);
        for (unsigned cpu = 0; cpu < PIS_MAX_CPUS && !rc; cpu++) {
            struct pis_summary cs;
            const struct pis_hist *h = c.pi.m[m].cpu[cpu];
            if (!h)
                continue;
            if (pis_summarize(h, &cs, NULL, NULL)) {
                rc = -1;
                break;
            }
            db_digest(&res->cpu_digest, cpu << 4 | (unsigned)m);
            db_digest(&res->cpu_digest, cs.count);
            db_digest(&res->cpu_digest, cs.min);
            db_digest(&res->cpu_digest, cs.p50);
            db_digest(&res->cpu_digest, cs.p90);
            db_digest(&res->cpu_digest, cs.p99);
            db_digest(&res->cpu_digest, cs.p999);
            db_digest(&res->cpu_digest, cs.max);
            db_digest(&res->cpu_digest, cs.max_offset);
            db_digest(&res->cpu_digest, cs.max_tsc);
        }
    }
    if (!rc && pis_summarize(&c.pi.limits, &res->limits, NULL, NULL))
        rc = -1;
    rc |= -(c.pi.oom != 0);
    pis_reader_free(&r);
    pis_pi_free(&c.pi);
    return rc;
}

#endif
