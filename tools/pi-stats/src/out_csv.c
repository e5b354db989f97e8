/* out_csv.c - long-format CSV: input,metric,cpu,kind,low,high,value,unit.
 *
 * kind "bucket" rows carry [low, high) and the count in value; summary
 * rows (count, min, p50, p90, p99, p999, max, max_tsc, max_offset) and
 * the metric "trace" rows (bytes, windows, records, ...) leave low and
 * high empty.  Empty statistics are empty cells.  unit is that of low,
 * high and the statistics: "entries", "us" (wakeup_cycles with a clock)
 * or "cycles"; "tsc" and "byte" for max_tsc and max_offset; empty for the
 * trace rows.  Histograms merge by summing bucket rows with equal
 * (metric, cpu, low, high, unit).
 *
 * Metric "list_time" (listtime.h): "available" (1 or 0) for the input;
 * per list (cpu: its pCPU) "exact" (1 or 0), "changes", "moves_away" and
 * "duration", and when exact "mean", "p50", "p99", "max", "at_max" (the
 * time at max) and a "time_at" row per length held: the length in low
 * (high: the next), its time in value.  Times are in unit "cycles", or
 * "us" with a clock, as wakeup_cycles; lengths in "entries".  The same
 * for cpu "all": the exact lists, "lists" their number. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "listtime.h"
#include "output.h"

static void cstr(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One row; v in unit (hz > 0: cycles shown as us) unless !has. */
static void line(FILE *f, const char *in, const char *metric,
                 const char *cpu, const char *kind, int has, uint64_t v,
                 double hz, const char *unit)
{
    char b[32];

    cstr(f, in);
    fprintf(f, ",%s,%s,%s,,,", metric, cpu, kind);
    if (has) {
        pis_fmt_time(b, sizeof(b), v, hz);
        fputs(b, f);
    }
    fprintf(f, ",%s\n", unit);
}

static int stats(FILE *f, const char *in, enum pis_metric_id m,
                 const char *cpu, const struct pis_hist *h,
                 const struct pis_out_opts *o)
{
    const char *metric = pis_metric_name[m];
    enum pis_scheme sc = pis_metric_scheme(m);
    uint64_t step = pis_metric_step(m, o);
    double hz = m == PIS_M_WAKE_CYCLES ? o->clock_hz : 0;
    const char *unit = m != PIS_M_WAKE_CYCLES ? "entries" :
        hz > 0 ? "us" : "cycles";
    struct pis_summary s;
    struct pis_vc *vc;
    struct pis_bucket *b;
    size_t nvc, nb;
    int has;

    if (pis_summarize(h, &s, &vc, &nvc))
        return -1;
    has = s.count > 0;
    line(f, in, metric, cpu, "count", 1, s.count, 0, unit);
    line(f, in, metric, cpu, "min", has, s.min, hz, unit);
    line(f, in, metric, cpu, "p50", has, s.p50, hz, unit);
    line(f, in, metric, cpu, "p90", has, s.p90, hz, unit);
    line(f, in, metric, cpu, "p99", has, s.p99, hz, unit);
    line(f, in, metric, cpu, "p999", has, s.p999, hz, unit);
    line(f, in, metric, cpu, "max", has, s.max, hz, unit);
    line(f, in, metric, cpu, "max_tsc", has && s.max_has_tsc, s.max_tsc, 0,
         "tsc");
    line(f, in, metric, cpu, "max_offset", has, s.max_offset, 0, "byte");
    b = pis_buckets(vc, nvc, sc, step, 0, &nb);
    if (nvc && !b) {
        free(vc);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        char lo[32], hi[32];
        pis_fmt_time(lo, sizeof(lo), b[i].low, hz);
        pis_fmt_time(hi, sizeof(hi), b[i].high, hz);
        cstr(f, in);
        fprintf(f, ",%s,%s,bucket,%s,%s,%" PRIu64 ",%s\n", metric, cpu, lo,
                hi, b[i].count, unit);
    }
    free(b);
    free(vc);
    return 0;
}

/* A value with decimals (the time-weighted mean). */
static void fline(FILE *f, const char *in, const char *cpu, const char *kind,
                  double v, const char *unit)
{
    cstr(f, in);
    fprintf(f, ",list_time,%s,%s,,,%.6f,%s\n", cpu, kind, v, unit);
}

/* list_time's figures of sums at[0..cap) over duration dur; times in
 * unit (cycles, or us with clock hz). */
static void lt_figures(FILE *f, const char *in, const char *cpu,
                       const uint64_t *at, uint32_t cap, uint64_t dur,
                       double hz, const char *unit)
{
    struct pis_lt_summary s;

    pis_lt_summarize(at, cap, dur, &s);
    line(f, in, "list_time", cpu, "duration", 1, dur, hz, unit);
    fline(f, in, cpu, "mean", s.mean, "entries");
    line(f, in, "list_time", cpu, "p50", dur != 0, s.p50, 0, "entries");
    line(f, in, "list_time", cpu, "p99", dur != 0, s.p99, 0, "entries");
    line(f, in, "list_time", cpu, "max", dur != 0, s.max, 0, "entries");
    line(f, in, "list_time", cpu, "at_max", dur != 0, s.at_max, hz, unit);
    for (uint32_t i = 0; i < cap; i++) {
        char t[32];
        if (!at[i])
            continue;
        pis_fmt_time(t, sizeof(t), at[i], hz);
        cstr(f, in);
        fprintf(f, ",list_time,%s,time_at,%u,%u,%s,%s\n", cpu, i, i + 1, t,
                unit);
    }
}

/* The list_time rows of r (see the top of this file). */
static void list_time(FILE *f, const struct pis_report *r,
                      const struct pis_out_opts *o)
{
    const struct pis_lt *lt = r->pi.lt;
    double hz = o->clock_hz;
    const char *unit = hz > 0 ? "us" : "cycles";
    uint64_t *at, dur;
    uint32_t cap;
    unsigned n;

    line(f, r->name, "list_time", "all", "available", 1,
         lt && lt->available, 0, "");
    if (!lt || !lt->available)
        return;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        const struct pis_lt_list *l = lt->list[c];
        char cpu[12];
        if (!l)
            continue;
        snprintf(cpu, sizeof(cpu), "%u", c);
        line(f, r->name, "list_time", cpu, "exact", 1, !l->bad, 0, "");
        line(f, r->name, "list_time", cpu, "changes", 1, l->changes, 0, "");
        line(f, r->name, "list_time", cpu, "moves_away", 1, l->moves_away,
             0, "");
        if (l->bad)
            line(f, r->name, "list_time", cpu, "duration", 1, l->duration,
                 hz, unit);
        else
            lt_figures(f, r->name, cpu, l->at, l->cap, l->duration, hz,
                       unit);
    }
    if (!(at = pis_lt_total(lt, &cap, &dur, &n)))
        return;
    line(f, r->name, "list_time", "all", "lists", 1, n, 0, "");
    lt_figures(f, r->name, "all", at, cap, dur, hz, unit);
    free(at);
}

/* --by domain|vcpu: list_length rows per owner (cpu column "d1" or
 * "d1v0"), each with a "spilled" row. */
static int by_owner(FILE *f, const struct pis_report *r,
                    const struct pis_out_opts *o)
{
    const struct pis_owners *t = &r->pi.owners;

    if (r->pi.by == PIS_BY_PCPU)
        return 0;
    for (size_t i = 0; i < t->n; i++) {
        char lbl[24];
        pis_owner_label(lbl, sizeof(lbl), r->pi.by, t->o[i]->key);
        if (stats(f, r->name, PIS_M_LIST_LEN, lbl, &t->o[i]->len, o))
            return -1;
        line(f, r->name, pis_metric_name[PIS_M_LIST_LEN], lbl, "spilled", 1,
             t->o[i]->spilled, 0, "");
    }
    return 0;
}

static int one(FILE *f, const struct pis_report *r,
               const struct pis_out_opts *o)
{
    const struct pis_read_stats *st = &r->st;
    const struct pis_pi_counts *c = &r->pi.c;
    const char *in = r->name;
    const struct { const char *k; uint64_t v; } t[] = {
        { "bytes", st->bytes }, { "windows", st->windows },
        { "records", st->records }, { "records_no_tsc", st->records_no_tsc },
        { "wrap_records", st->wrap_records },
        { "pcpus", pis_report_npcpus(r) },
        { "lost_records", st->lost_records },
        { "lost_markers", st->lost_markers },
        { "corrupt_bytes", st->corrupt_bytes },
        { "corrupt_resyncs", st->corrupt_events },
        { "skipped_at_start", st->lead_bytes },
        { "truncated_bytes", st->truncated_bytes },
        { "truncated_windows", st->truncated_windows },
        { "tsc_backwards", st->tsc_backwards },
        { "list_add", c->list_add }, { "spilled_adds", c->spilled_adds },
        { "over_limit_adds", c->over_limit_adds },
        { "unbounded_adds", c->unbounded_adds },
        { "list_move", c->list_move }, { "list_del", c->list_del },
        { "wakeup", c->wakeup },
        { "woken", c->woken }, { "legacy_pairs", c->legacy_pairs },
        { "legacy_voided_by_lost", c->legacy_voided_by_lost },
        { "pi_malformed", c->malformed },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        line(f, in, "trace", "all", t[i].k, 1, t[i].v, 0, "");
    for (int i = 0; i < PIS_NMETRICS; i++) {
        enum pis_metric_id m = (enum pis_metric_id)i;
        struct pis_hist total;
        for (unsigned cpu = 0; cpu < PIS_MAX_CPUS; cpu++) {
            char lbl[12];
            if (!r->pi.m[m].cpu[cpu])
                continue;
            snprintf(lbl, sizeof(lbl), "%u", cpu);
            if (stats(f, in, m, lbl, r->pi.m[m].cpu[cpu], o))
                return -1;
        }
        if (m == PIS_M_LIST_LEN && by_owner(f, r, o))
            return -1;
        if (pis_pi_total(&r->pi, m, &total) ||
            stats(f, in, m, "all", &total, o)) {
            pis_hist_free(&total);
            return -1;
        }
        pis_hist_free(&total);
        if (m == PIS_M_LIST_LEN)
            list_time(f, r, o);
    }
    return 0;
}

int pis_out_csv(FILE *f, struct pis_report *const *in, int n,
                const struct pis_report *merged,
                const struct pis_out_opts *o)
{
    fprintf(f, "input,metric,cpu,kind,low,high,value,unit\n");
    for (int i = 0; i < n; i++)
        if (one(f, in[i], o))
            return -1;
    if (merged && one(f, merged, o))
        return -1;
    return ferror(f) ? -1 : 0;
}
