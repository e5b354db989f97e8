/* out_compare.c - --compare BEFORE AFTER: per metric, both sides'
 * count, p50, p90, p99, p99.9 and max and the ratio after/before; the
 * time-weighted list lengths of the exact lists (list_time); and the
 * spilled and over-limit adds.  Text and JSON. */
#include <inttypes.h>
#include <stdlib.h>

#include "listtime.h"
#include "output.h"
#include "version.h"

#define NSTAT 6

static const char *const stat_name[NSTAT] = {
    "count", "p50", "p90", "p99", "p999", "max",
};

static void stats_of(const struct pis_summary *s, uint64_t v[NSTAT])
{
    v[0] = s->count;
    v[1] = s->p50;
    v[2] = s->p90;
    v[3] = s->p99;
    v[4] = s->p999;
    v[5] = s->max;
}

/* Summary of metric m over all pCPUs of r. */
static int total(const struct pis_report *r, enum pis_metric_id m,
                 uint64_t v[NSTAT])
{
    struct pis_hist all;
    struct pis_summary s;
    int rc = pis_pi_total(&r->pi, m, &all) ||
             pis_summarize(&all, &s, NULL, NULL);

    pis_hist_free(&all);
    if (rc)
        return -1;
    stats_of(&s, v);
    return 0;
}

/* The counters compared besides the metrics. */
struct counter {
    const char *name;
    uint64_t v[2];
};

static void counters(const struct pis_report *const r[2],
                     struct counter c[3])
{
    c[0].name = "list_add";
    c[1].name = "spilled_adds";
    c[2].name = "over_limit_adds";
    for (int i = 0; i < 2; i++) {
        c[0].v[i] = r[i]->pi.c.list_add;
        c[1].v[i] = r[i]->pi.c.spilled_adds;
        c[2].v[i] = r[i]->pi.c.over_limit_adds;
    }
}

/* list_time's columns: lists, mean, p50, p99, max. */
#define NLT 5
static const char *const lt_name[NLT] = {
    "lists", "mean", "p50", "p99", "max",
};

/* v[] of all exact lists of r: 1, or 0 when list_time is not available
 * or no list is exact. */
static int lt_cols(const struct pis_report *r, double v[NLT])
{
    const struct pis_lt *lt = r->pi.lt;
    struct pis_lt_summary s;
    uint64_t *at, dur;
    uint32_t cap;
    unsigned n;

    if (!lt || !lt->available || !(at = pis_lt_total(lt, &cap, &dur, &n)))
        return 0;
    pis_lt_summarize(at, cap, dur, &s);
    free(at);
    v[0] = n;
    v[1] = s.mean;
    v[2] = (double)s.p50;
    v[3] = (double)s.p99;
    v[4] = (double)s.max;
    return 1;
}

static void text_val(FILE *f, uint64_t v, double hz)
{
    if (hz > 0)
        fprintf(f, " %11.3f", (double)v * 1e6 / hz);
    else
        fprintf(f, " %11" PRIu64, v);
}

/* after / before; "-" (JSON null) when before is 0, or when a statistic
 * is missing on either side (the callers pass before = 0 then). */
static void text_ratio(FILE *f, uint64_t before, uint64_t after)
{
    if (before)
        fprintf(f, " %11.3f", (double)after / (double)before);
    else
        fprintf(f, " %11s", "-");
}

/* The list_time table: both sides and the ratio, "-" where a side has
 * no exact list (or list_time is not available). */
static void lt_text(FILE *f, const struct pis_report *const r[2])
{
    double v[2][NLT];
    int has[2];

    fprintf(f, "\n  %-14s %-7s", "list_time", "");
    for (int k = 0; k < NLT; k++)
        fprintf(f, " %11s", lt_name[k]);
    fputc('\n', f);
    for (int i = 0; i < 2; i++) {
        has[i] = lt_cols(r[i], v[i]);
        fprintf(f, "  %-14s %-7s", i ? "(exact lists)" : "",
                i ? "after" : "before");
        for (int k = 0; k < NLT; k++)
            if (!has[i])
                fprintf(f, " %11s", "-");
            else if (k == 1)
                fprintf(f, " %11.3f", v[i][k]);
            else
                fprintf(f, " %11.0f", v[i][k]);
        fputc('\n', f);
    }
    fprintf(f, "  %-14s %-7s", "", "ratio");
    for (int k = 0; k < NLT; k++)
        if (has[0] && has[1] && v[0][k] > 0)
            fprintf(f, " %11.3f", v[1][k] / v[0][k]);
        else
            fprintf(f, " %11s", "-");
    fputc('\n', f);
}

static int text(FILE *f, const struct pis_report *const r[2],
                const struct pis_out_opts *o)
{
    struct counter c[3];

    fprintf(f, "=== compare ===\n  before  %s\n  after   %s\n", r[0]->name,
            r[1]->name);
    if (o->clock_hz > 0)
        fprintf(f, "  clock   %.0f Hz (%s): wakeup_cycles in us\n",
                o->clock_hz, o->clock_source);
    fprintf(f, "\n  %-14s %-7s %11s %11s %11s %11s %11s %11s\n", "metric",
            "", "n", "p50", "p90", "p99", "p99.9", "max");
    for (int m = 0; m < PIS_NMETRICS; m++) {
        uint64_t v[2][NSTAT];
        double hz = m == PIS_M_WAKE_CYCLES ? o->clock_hz : 0;
        int both;
        for (int i = 0; i < 2; i++)
            if (total(r[i], (enum pis_metric_id)m, v[i]))
                return -1;
        both = v[0][0] && v[1][0];      /* statistics on both sides */
        for (int i = 0; i < 2; i++) {
            fprintf(f, "  %-14s %-7s", i ? "" : pis_metric_name[m],
                    i ? "after" : "before");
            fprintf(f, " %11" PRIu64, v[i][0]);
            for (int k = 1; k < NSTAT; k++)
                if (v[i][0])
                    text_val(f, v[i][k], hz);
                else
                    fprintf(f, " %11s", "-");
            fputc('\n', f);
        }
        fprintf(f, "  %-14s %-7s", "", "ratio");
        for (int k = 0; k < NSTAT; k++)
            text_ratio(f, both || !k ? v[0][k] : 0, v[1][k]);
        fputc('\n', f);
    }
    lt_text(f, r);
    counters(r, c);
    fprintf(f, "\n  %-16s %11s %11s %11s\n", "adds", "before", "after",
            "ratio");
    for (int k = 0; k < 3; k++) {
        fprintf(f, "  %-16s %11" PRIu64 " %11" PRIu64, c[k].name, c[k].v[0],
                c[k].v[1]);
        text_ratio(f, c[k].v[0], c[k].v[1]);
        fputc('\n', f);
    }
    return 0;
}

static void json_ratio(FILE *f, uint64_t before, uint64_t after)
{
    if (before)
        fprintf(f, "%.6g", (double)after / (double)before);
    else
        fprintf(f, "null");
}

/* "list_time": {"before": {lists, mean, p50, p99, max} or null, "after":
 * the same, "ratio": each after / before, or null}. */
static void lt_json(FILE *f, const struct pis_report *const r[2])
{
    double v[2][NLT];
    int has[2];

    fprintf(f, ",\"list_time\":{");
    for (int i = 0; i < 2; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", i ? "after" : "before");
        if (!(has[i] = lt_cols(r[i], v[i]))) {
            fprintf(f, "null");
            continue;
        }
        for (int k = 0; k < NLT; k++)
            fprintf(f, k == 1 ? "%s\"%s\":%.6f" : "%s\"%s\":%.0f",
                    k ? "," : "{", lt_name[k], v[i][k]);
        fputc('}', f);
    }
    fprintf(f, ",\"ratio\":");
    for (int k = 0; k < NLT; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "{", lt_name[k]);
        if (has[0] && has[1] && v[0][k] > 0)
            fprintf(f, "%.6g", v[1][k] / v[0][k]);
        else
            fprintf(f, "null");
    }
    fprintf(f, "}}");
}

static int json(FILE *f, const struct pis_report *const r[2],
                const struct pis_out_opts *o)
{
    struct counter c[3];

    fprintf(f, "{\"tool\":\"pi-stats\",\"version\":\"%s\",\"schema\":1,"
            "\"compare\":{\"before\":", PIS_VERSION);
    pis_json_str(f, r[0]->name);
    fprintf(f, ",\"after\":");
    pis_json_str(f, r[1]->name);
    fputc('}', f);
    if (o->clock_hz > 0)
        fprintf(f, ",\"clock_hz\":%.0f", o->clock_hz);
    else
        fprintf(f, ",\"clock_hz\":null");
    for (int m = 0; m < PIS_NMETRICS; m++) {
        uint64_t v[2][NSTAT];
        int both;
        for (int i = 0; i < 2; i++)
            if (total(r[i], (enum pis_metric_id)m, v[i]))
                return -1;
        both = v[0][0] && v[1][0];      /* statistics on both sides */
        fprintf(f, ",\"%s\":{", pis_metric_name[m]);
        for (int i = 0; i < 2; i++) {
            fprintf(f, "%s\"%s\":{", i ? "," : "", i ? "after" : "before");
            for (int k = 0; k < NSTAT; k++) {
                fprintf(f, "%s\"%s\":", k ? "," : "", stat_name[k]);
                if (k && !v[i][0])
                    fprintf(f, "null");
                else
                    fprintf(f, "%" PRIu64, v[i][k]);
            }
            fputc('}', f);
        }
        fprintf(f, ",\"ratio\":{");
        for (int k = 0; k < NSTAT; k++) {
            fprintf(f, "%s\"%s\":", k ? "," : "", stat_name[k]);
            json_ratio(f, both || !k ? v[0][k] : 0, v[1][k]);
        }
        fprintf(f, "}}");
    }
    lt_json(f, r);
    counters(r, c);
    for (int k = 0; k < 3; k++) {
        fprintf(f, ",\"%s\":{\"before\":%" PRIu64 ",\"after\":%" PRIu64
                ",\"ratio\":", c[k].name, c[k].v[0], c[k].v[1]);
        json_ratio(f, c[k].v[0], c[k].v[1]);
        fputc('}', f);
    }
    fprintf(f, "}\n");
    return 0;
}

int pis_out_compare(FILE *f, const struct pis_report *before,
                    const struct pis_report *after, int as_json,
                    const struct pis_out_opts *o)
{
    const struct pis_report *const r[2] = { before, after };

    if (as_json ? json(f, r, o) : text(f, r, o))
        return -1;
    return ferror(f) ? -1 : 0;
}
