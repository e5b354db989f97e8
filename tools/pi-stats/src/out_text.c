/* out_text.c - terminal output: data-quality header, bpftrace-style
 * histograms, perf-sched-style per-pCPU tables, HdrHistogram-style
 * percentile table. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "output.h"
#include "pct.h"

#define BAR 52
#define MAX_ROWS 48
#define MANY_ROWS 16            /* more table rows than this: ... */
#define WORST_ROWS 8            /* ... only the worst, unless --all */

static const char *const metric_title[PIS_NMETRICS] = {
    "blocking-list length after each add/move",
    "time per wakeup interrupt (handler, or legacy END-START)",
    "entries walked per wakeup interrupt",
};

/* bpftrace-style bound: 1024-based suffixes on exact multiples; in us
 * with a clock (hz). */
static void fmt_bound(char *buf, size_t len, uint64_t v, int log2, double hz)
{
    static const char sfx[] = "KMGTPE";
    int k = 0;

    if (v == UINT64_MAX) {
        snprintf(buf, len, "max");
        return;
    }
    if (hz > 0) {
        pis_fmt_time(buf, len, v, hz);
        return;
    }
    if (log2) {
        while (v >= 1024 && v % 1024 == 0 && k < 6) {
            v /= 1024;
            k++;
        }
    }
    if (k)
        snprintf(buf, len, "%" PRIu64 "%c", v, sfx[k - 1]);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

static void print_hist(FILE *f, const struct pis_vc *vc, size_t nvc,
                       enum pis_scheme s, uint64_t step, double hz)
{
    size_t nb;
    uint64_t top = 0;
    struct pis_bucket *b = pis_buckets(vc, nvc, s, step, 1, &nb);

    if (!b)
        return;
    for (size_t i = 0; i < nb; i++)
        if (b[i].count > top)
            top = b[i].count;
    for (size_t i = 0; i < nb; i++) {
        char lo[24], hi[24], label[56];
        int bars = top ? (int)((b[i].count * BAR + top - 1) / top) : 0;
        if (b[i].count == 0)
            bars = 0;
        fmt_bound(lo, sizeof(lo), b[i].low, s == PIS_LOG2, hz);
        fmt_bound(hi, sizeof(hi), b[i].high, s == PIS_LOG2, hz);
        if (s == PIS_LINEAR && step == 1)
            snprintf(label, sizeof(label), "[%s]", lo);
        else
            snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
        fprintf(f, "%-*s %8" PRIu64 " |%.*s%*s|\n", hz > 0 ? 20 : 16,
                label, b[i].count,
                bars, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
                BAR - bars, "");
    }
    free(b);
}

/* One row of a per-pCPU (or per-domain, per-vCPU) table. */
struct trow {
    char label[24];
    struct pis_summary s;
    uint64_t spilled;
    size_t idx;                 /* position in id order */
};

/* What the summary line worked out for one metric of a report, kept for
 * that report's section: the total of every pCPU and the per-pCPU
 * summaries, each one a sort of the pCPU's store, not made twice (with
 * thousands of pCPUs they were most of the report's time). */
struct worked {
    const struct pis_report *r; /* NULL: nothing kept */
    struct pis_hist total;
    struct trow *t;             /* per-pCPU rows, in any order */
    size_t n;
};

static void worked_free(struct worked *w)
{
    for (int m = 0; m < PIS_NMETRICS; m++) {
        if (w[m].r)
            pis_hist_free(&w[m].total);
        free(w[m].t);
        w[m].r = NULL;
        w[m].t = NULL;
    }
}

/* One row, formatted here and written at once (not a printf call per
 * field: thousands of pCPUs make thousands of rows a metric).  A time
 * takes at most 27 characters (the clock is at least 1 kHz). */
static void row(FILE *f, const struct trow *t, int width, int spills,
                double hz, const struct pis_out_opts *o, int merged)
{
    const uint64_t v[] = { t->s.min, t->s.p50, t->s.p90, t->s.p99,
                           t->s.p999, t->s.max };
    char line[64 + 8 * 32], at[48], *p = line;
    int len = (int)strlen(t->label);

    p = pis_put_str(p, "  ", 0);
    p = pis_put_str(p, t->label, width - len);
    p = pis_put_u64(pis_put_str(p, " ", 0), t->s.count, 10);
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (hz > 0)
            p += snprintf(p, 32, " %10.3f", (double)v[i] * 1e6 / hz);
        else
            p = pis_put_u64(pis_put_str(p, " ", 0), v[i], 10);
    if (spills)
        p = pis_put_u64(pis_put_str(p, " ", 0), t->spilled, 10);
    pis_fmt_at(at, sizeof(at), &t->s, o);
    p = pis_put_str(pis_put_str(p, "  ", 0), at, 0);
    p = pis_put_u64(pis_put_str(p, " byte ", 0), t->s.max_offset, 0);
    fwrite(line, 1, (size_t)(p - line), f);
    if (merged && o->names && t->s.max_file >= 0 &&
        t->s.max_file < o->ninputs)
        fprintf(f, " in %s", o->names[t->s.max_file]);
    fputc('\n', f);
}

/* Worst first: by max, then p99, then in label order. */
static int worse(const void *a, const void *b)
{
    const struct trow *x = a, *y = b;

    if (x->s.max != y->s.max)
        return x->s.max < y->s.max ? 1 : -1;
    if (x->s.p99 != y->s.p99)
        return x->s.p99 < y->s.p99 ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Worst first by p99, then max, then in label order. */
static int worse_p99(const void *a, const void *b)
{
    const struct trow *x = a, *y = b;

    if (x->s.p99 != y->s.p99)
        return x->s.p99 < y->s.p99 ? 1 : -1;
    return worse(a, b);
}

/* The k worst rows of t[0..n) by cmp first, in that order, the others
 * after them in any order: with thousands of rows, of which a table shows
 * a few, one pass that keeps the worst k so far, not a sort. */
static void worst_first(struct trow *t, size_t n, size_t k,
                        int (*cmp)(const void *, const void *))
{
    if (k > n / 8) {
        qsort(t, n, sizeof(*t), cmp);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i < k ? i : k;   /* t[0..j): the worst so far, sorted */
        struct trow x = t[i];

        if (j == k) {
            if (!k || cmp(&x, &t[k - 1]) >= 0)
                continue;
            t[i] = t[--j];          /* the k-th worst drops out */
        }
        for (; j > 0 && cmp(&x, &t[j - 1]) < 0; j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

/* The rows of metric m's table, in id order; NULL when out of memory
 * (or *n = 0 and a non-NULL pointer when there are none). */
static struct trow *table_rows(const struct pis_report *r,
                               enum pis_metric_id m, int by_owner, size_t *n)
{
    size_t cap = by_owner ? r->pi.owners.n : PIS_MAX_CPUS;
    struct trow *t = calloc(cap + 1, sizeof(*t));

    *n = 0;
    if (!t)
        return NULL;
    for (size_t i = 0; i < cap; i++) {
        const struct pis_hist *h;
        struct trow *x = &t[*n];
        if (by_owner) {
            h = &r->pi.owners.o[i]->len;
            x->spilled = r->pi.owners.o[i]->spilled;
            pis_owner_label(x->label, sizeof(x->label), r->pi.by,
                            r->pi.owners.o[i]->key);
        } else {
            if (!(h = r->pi.m[m].cpu[i]))
                continue;
            *pis_put_u64(x->label, i, 0) = '\0';
        }
        if (pis_summarize(h, &x->s, NULL, NULL)) {
            free(t);
            return NULL;
        }
        x->idx = (*n)++;
    }
    return t;
}

/* The per-pCPU (or per-domain, per-vCPU) table and the total row; --top
 * keeps the worst rows. */
static int table(FILE *f, const struct pis_report *r, enum pis_metric_id m,
                 const struct pis_hist *total, double hz,
                 const struct pis_out_opts *o, struct worked *w)
{
    int by_owner = m == PIS_M_LIST_LEN && r->pi.by != PIS_BY_PCPU;
    size_t n, shown;
    struct trow all;
    struct trow *t;

    if (!by_owner && w->r == r && w->t) {   /* the summary line's rows */
        t = w->t;
        n = w->n;
        w->t = NULL;
    } else {
        t = table_rows(r, m, by_owner, &n);
    }
    const char *head = by_owner ? pis_by_name[r->pi.by] : "cpu";
    int width = 5;

    if (!t || pis_summarize(total, &all.s, NULL, NULL)) {
        free(t);
        return -1;
    }
    snprintf(all.label, sizeof(all.label), "all");
    all.spilled = r->pi.c.spilled_adds;
    if ((int)strlen(head) > width)
        width = (int)strlen(head);
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(t[i].label) > width)
            width = (int)strlen(t[i].label);
    shown = n;
    if (o->top && o->top < n)
        shown = o->top;
    else if (!o->top && !o->all && n > MANY_ROWS)
        shown = WORST_ROWS;
    worst_first(t, n, shown, worse);
    fprintf(f, "\n  %*s %10s %10s %10s %10s %10s %10s %10s%s  max at%s\n",
            width, head, "n", "min",
            "p50", "p90", "p99", "p99.9", "max",
            by_owner ? "    spilled" : "", m != PIS_M_WAKE_CYCLES ? "" :
            hz > 0 ? "  (times in us)" : "  (times in cycles, no clock)");
    for (size_t i = 0; i < shown; i++)
        row(f, &t[i], width, by_owner, hz, o, r->merged);
    if (shown < n)
        fprintf(f, "  (%zu more rows not shown: the %zu worst by max, then "
                "p99; --all shows every one)\n", n - shown, shown);
    row(f, &all, width, by_owner, hz, o, r->merged);
    free(t);
    return 0;
}

/* HdrHistogram-style table at percentiles 1 - 2^-k (0, 50, 75, 87.5,
 * ...): the nearest rank of p = 1 - 2^-k is exactly n - floor(n / 2^k). */
static void hdr_table(FILE *f, const struct pis_vc *vc, size_t nvc,
                      uint64_t n, double hz)
{
    char v[32];

    fprintf(f, "  %12s %12s %12s %18s\n", "Value", "Percentile",
            "TotalCount", "1/(1-Percentile)");
    for (unsigned k = 0; k < 63; k++) {
        uint64_t rank = k ? n - (n >> k) : 1, at = 0, cum = 0;
        double p = k ? 1.0 - 1.0 / (double)(1ull << k) : 0.0;
        if (k && (n >> k) == 0)
            break;              /* the rank would be n: the last row */
        for (size_t i = 0; i < nvc; i++) {
            cum += vc[i].count;
            if (cum >= rank) {
                at = vc[i].value;
                break;
            }
        }
        pis_fmt_time(v, sizeof(v), at, hz);
        fprintf(f, "  %12s %12.6f %12" PRIu64 " %18.2f\n", v, p, cum,
                1.0 / (1.0 - p));
    }
    pis_fmt_time(v, sizeof(v), vc[nvc - 1].value, hz);
    fprintf(f, "  %12s %12.6f %12" PRIu64 " %18s\n", v, 1.0, n, "inf");
}

static int metric(FILE *f, const struct pis_report *r,
                  enum pis_metric_id m, const struct pis_out_opts *o,
                  struct worked *w)
{
    struct pis_hist own, *total = &own;
    int kept = w->r == r;       /* the summary line's total */
    struct pis_summary s;
    struct pis_vc *vc;
    size_t nvc;
    enum pis_scheme sc = pis_metric_scheme(m);
    uint64_t step = pis_metric_step(m, o);
    double hz = m == PIS_M_WAKE_CYCLES ? o->clock_hz : 0;

    if (kept)
        total = &w->total;
    if ((!kept && pis_pi_total(&r->pi, m, &own)) ||
        pis_summarize(total, &s, &vc, &nvc)) {
        if (!kept)
            pis_hist_free(&own);
        return -1;
    }
    fprintf(f, "\n@%s: %s", pis_metric_name[m], metric_title[m]);
    if (m == PIS_M_WAKE_CYCLES)
        fprintf(f, ", in %s", pis_time_unit(hz));
    else if (m == PIS_M_LIST_LEN)
        fprintf(f, ", by %s", r->pi.by == PIS_BY_PCPU ? "the list's pCPU" :
                r->pi.by == PIS_BY_DOMAIN ? "the domain added or moved" :
                "the vCPU added or moved");
    fputc('\n', f);
    if (s.count == 0) {
        fprintf(f, "  (no samples)\n");
        if (!kept)
            pis_hist_free(&own);
        return 0;
    }
    if (sc == PIS_LINEAR) {
        /* a terminal shows at most MAX_ROWS rows: widen the buckets, or
         * log2 ones for a long tail (text and SVG only; JSON and CSV keep
         * --len-step) */
        sc = pis_fit_rows(vc, nvc, s.count, &step, MAX_ROWS);
        if (sc == PIS_LOG2)
            fprintf(f, "  log2 buckets (long tail: linear ones of %" PRIu64
                    " would put over half the samples in the first)\n",
                    step);
        else if (step > 1)
            fprintf(f, "  linear buckets of %" PRIu64 "\n", step);
    }
    print_hist(f, vc, nvc, sc, step, hz);
    if (table(f, r, m, total, hz, o, w))
        goto fail;
    if (m == PIS_M_WAKE_CYCLES) {
        fprintf(f, "\n  percentile distribution, all pCPUs (%s):\n",
                pis_time_unit(hz));
        hdr_table(f, vc, nvc, s.count, hz);
    }
    free(vc);
    if (!kept)
        pis_hist_free(&own);
    return 0;
fail:
    free(vc);
    if (!kept)
        pis_hist_free(&own);
    return -1;
}

static void header(FILE *f, const struct pis_report *r,
                   const struct pis_out_opts *o)
{
    const struct pis_read_stats *st = &r->st;
    const struct pis_pi_counts *c = &r->pi.c;

    if (r->merged)
        fprintf(f, "\n=== all %d inputs merged ===\n", r->ninputs);
    else
        fprintf(f, "=== %s ===\n", r->name);
    fprintf(f, "  input      %" PRIu64 " bytes, %" PRIu64 " windows, %"
            PRIu64 " records (%" PRIu64 " without TSC, %" PRIu64
            " wrap padding)\n", st->bytes, st->windows, st->records,
            st->records_no_tsc, st->wrap_records);
    if (st->byte_order == (PIS_BO_LITTLE | PIS_BO_BIG))
        fprintf(f, "  byte order mixed: little- and big-endian inputs\n");
    else
        fprintf(f, "  byte order %s-endian\n",
                pis_byte_order_name(st->byte_order));
    fprintf(f, "  pCPUs      %u (", pis_report_npcpus(r));
    pis_print_cpus(f, r, NULL, 1);
    fprintf(f, ")\n");
    if (o->clock_hz > 0)
        fprintf(f, "  clock      %.0f Hz = %.3f MHz (%s)\n", o->clock_hz,
                o->clock_hz / 1e6, o->clock_source);
    else
        fprintf(f, "  clock      unknown: values are TSC cycles "
                "(give --cpu-mhz or --tsc-hz)\n");
    if (o->range.on) {
        fprintf(f, "  range      [%s, %s) %s", o->since ? o->since : "start",
                o->until ? o->until : "end", o->range.relative ?
                "s from the first PI record with a TSC" : "TSC");
        if (o->range.relative && r->pi.range.have_base)
            fprintf(f, " (tsc %" PRIu64 ")", r->pi.range.base);
        fprintf(f, ", %" PRIu64 " PI records outside\n", c->out_of_range);
    }
    if (!r->merged && st->have_tsc) {
        uint64_t span = st->tsc_max - st->tsc_min;
        fprintf(f, "  TSC span   %" PRIu64 " cycles (%" PRIu64 "..%" PRIu64
                ")", span, st->tsc_min, st->tsc_max);
        if (o->clock_hz > 0)
            fprintf(f, " = %.6f s", (double)span / o->clock_hz);
        fputc('\n', f);
    }
    fprintf(f, "  lost       %" PRIu64 " records (%" PRIu64
            " TRC_LOST_RECORDS markers)\n", st->lost_records,
            st->lost_markers);
    fprintf(f, "  damage     truncated %" PRIu64 " bytes (%" PRIu64
            " windows cut short, %" PRIu64 " bytes missing), corrupt %"
            PRIu64 " bytes (%" PRIu64 " resyncs), TSC backwards %" PRIu64
            "\n", st->truncated_bytes, st->truncated_windows,
            st->missing_bytes, st->corrupt_bytes, st->corrupt_events,
            st->tsc_backwards);
    if (st->lead_bytes)
        fprintf(f, "  cut start  %" PRIu64 " bytes skipped before the first "
                "window (input starts inside a record)\n", st->lead_bytes);
    fprintf(f, "  PI events  %" PRIu64 " PI_LIST_ADD, %" PRIu64
            " PI_WAKEUP (%" PRIu64 " vCPUs woken), %" PRIu64
            " PI_LIST_MOVE, %" PRIu64 " PI_LIST_DEL; legacy %" PRIu64
            " BLOCK_LIST, %" PRIu64 " WAKEUP_START, %" PRIu64
            " WAKEUP_END\n", c->list_add, c->wakeup, c->woken,
            c->list_move, c->list_del, c->legacy_block,
            c->legacy_start, c->legacy_end);
    if (c->legacy_start || c->legacy_end)
        fprintf(f, "  legacy     %" PRIu64 " pairs; unpaired: %" PRIu64
                " START, %" PRIu64 " END, %" PRIu64 " voided by lost "
                "records, %" PRIu64 " without TSC, %" PRIu64
                " END before START\n", c->legacy_pairs,
                c->legacy_unmatched_start, c->legacy_unmatched_end,
                c->legacy_voided_by_lost, c->legacy_untimed,
                c->legacy_backwards);
    if (c->no_tsc || c->malformed || c->filtered_out)
        fprintf(f, "  PI issues  %" PRIu64 " without TSC, %" PRIu64
                " malformed, %" PRIu64 " outside --cpu %s\n", c->no_tsc,
                c->malformed, c->filtered_out,
                o->cpu_list ? o->cpu_list : "");
}

static int limits(FILE *f, const struct pis_report *r)
{
    const struct pis_pi_counts *c = &r->pi.c;
    struct pis_vc *vc;
    size_t nvc;

    if (!c->list_add)
        return 0;
    fprintf(f, "\n  adds %" PRIu64 ": spilled to another pCPU's list %"
            PRIu64 " (%.2f%%), over their limit %" PRIu64 "\n", c->list_add,
            c->spilled_adds, 100.0 * (double)c->spilled_adds /
            (double)c->list_add, c->over_limit_adds);
    vc = pis_hist_sorted(&r->pi.limits, &nvc);
    if (!vc)
        return -1;
    fprintf(f, "  limit in force:");
    for (size_t i = 0; i < nvc; i++) {
        if (vc[i].value == 0)
            fprintf(f, " unbounded x%" PRIu64, vc[i].count);
        else
            fprintf(f, " %" PRIu64 " x%" PRIu64, vc[i].value, vc[i].count);
    }
    fputc('\n', f);
    free(vc);
    return 0;
}

static int one(FILE *f, const struct pis_report *r,
               const struct pis_out_opts *o, struct worked *w)
{
    header(f, r, o);
    if (pis_pi_events(&r->pi) == 0) {
        fprintf(f, "  no posted-interrupt events in this input "
                "(ids 0x%08x-0x%08x, legacy 0x%08x-0x%08x)\n",
                PI_EVT_LIST_ADD, PI_EVT_LIST_DEL, PI_EVT_OLD_BLOCK,
                PI_EVT_OLD_WEND);
        return pis_lt_text(f, r, o);
    }
    for (int m = 0; m < PIS_NMETRICS; m++) {
        if (metric(f, r, (enum pis_metric_id)m, o, &w[m]))
            return -1;
        if (m == PIS_M_LIST_LEN && (limits(f, r) || pis_lt_text(f, r, o)))
            return -1;
    }
    return 0;
}

/* Where metric m of r is worst: *all its total, *by_max the pCPU where
 * the total's maximum is (the first sample of it), *by_p99 the pCPU with
 * the highest p99 (then max, then id).  1, 0 without samples, -1 when out
 * of memory.  The total and the rows stay in *w for r's section. */
static int worst(const struct pis_report *r, enum pis_metric_id m,
                 struct pis_summary *all, struct trow *by_max,
                 struct trow *by_p99, struct worked *w)
{
    struct trow *t;
    size_t n, mx = 0, p99 = 0;
    int rc;

    if (pis_pi_total(&r->pi, m, &w->total) ||
        pis_summarize(&w->total, all, NULL, NULL)) {
        pis_hist_free(&w->total);
        return -1;
    }
    w->r = r;
    if (!all->count)
        return 0;
    if (!(t = table_rows(r, m, 0, &n)))
        return -1;
    rc = n ? 1 : 0;
    for (size_t i = 1; i < n; i++) {
        if (worse(&t[i], &t[mx]) < 0)
            mx = i;
        if (worse_p99(&t[i], &t[p99]) < 0)
            p99 = i;
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].s.max == all->max && t[i].s.max_file == all->max_file &&
            t[i].s.max_offset == all->max_offset)
            mx = i;
    if (n) {
        *by_max = t[mx];
        *by_p99 = t[p99];
    }
    w->t = t;
    w->n = n;
    return rc;
}

/* " at" where the maximum of s happened (pis_fmt_at), the byte offset
 * without a TSC; " in NAME" when merged. */
static void when(FILE *f, const struct pis_summary *s, int merged,
                 const struct pis_out_opts *o)
{
    char at[48];

    pis_fmt_at(at, sizeof(at), s, o);
    if (s->max_has_tsc)
        fprintf(f, " at %s", at);
    else
        fprintf(f, " at byte %" PRIu64, s->max_offset);
    if (merged && o->names && s->max_file >= 0 && s->max_file < o->ninputs)
        fprintf(f, " in %s", o->names[s->max_file]);
}

/* The first line: where the longest list and the slowest wakeup were,
 * and the pCPUs with the worst p99 of each. */
static int answer(FILE *f, const struct pis_report *r,
                  const struct pis_out_opts *o, struct worked *wk)
{
    struct pis_summary all;
    struct trow mx, p99;
    char owner[24];
    int rc, any = 0;

    fprintf(f, "summary:");
    rc = worst(r, PIS_M_LIST_LEN, &all, &mx, &p99, &wk[PIS_M_LIST_LEN]);
    if (rc < 0)
        return -1;
    if (rc) {
        const struct pis_longest *l = &r->pi.longest;
        pis_owner_label(owner, sizeof(owner), PIS_BY_VCPU,
                        pis_owner_key(PIS_BY_VCPU, l->dom, l->vcpu));
        fprintf(f, " longest list %" PRIu64 " on pCPU %s (%s)", all.max,
                mx.label, owner);
        when(f, &all, r->merged, o);
        fprintf(f, ", worst p99 %" PRIu64 " on pCPU %s", p99.s.p99,
                p99.label);
        any = 1;
    }
    rc = worst(r, PIS_M_WAKE_CYCLES, &all, &mx, &p99,
               &wk[PIS_M_WAKE_CYCLES]);
    if (rc < 0)
        return -1;
    if (rc) {
        char v[32], w[32];
        pis_fmt_time(v, sizeof(v), all.max, o->clock_hz);
        pis_fmt_time(w, sizeof(w), p99.s.p99, o->clock_hz);
        fprintf(f, "%s slowest wakeup %s %s on pCPU %s", any ? ";" : "", v,
                pis_time_unit(o->clock_hz), mx.label);
        when(f, &all, r->merged, o);
        fprintf(f, ", worst p99 %s %s on pCPU %s", w,
                o->clock_hz > 0 ? "us" : "cycles", p99.label);
        any = 1;
    }
    if (!any)
        fprintf(f, " no posted-interrupt samples");
    fputc('\n', f);
    return 0;
}

int pis_out_text(FILE *f, struct pis_report *const *in, int n,
                 const struct pis_report *merged,
                 const struct pis_out_opts *o)
{
    struct worked w[PIS_NMETRICS];
    int rc = -1;

    memset(w, 0, sizeof(w));
    if (answer(f, merged ? merged : in[0], o, w))
        goto out;
    for (int i = 0; i < n; i++) {
        if (i)
            fputc('\n', f);
        if (one(f, in[i], o, w))
            goto out;
    }
    if (merged && one(f, merged, o, w))
        goto out;
    rc = ferror(f) ? -1 : 0;
out:
    worked_free(w);
    return rc;
}
