/* out_listtime.c - the time-weighted list lengths (listtime.h) in the text
 * and JSON reports: one line per list, the histogram of all lists. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "listtime.h"
#include "output.h"

#define BAR 52
#define MAX_ROWS 48             /* histogram rows: wider buckets beyond */
#define MANY_LISTS 16           /* more lists than this: ... */
#define WORST_LISTS 8           /* ... only the worst, unless --all */

/* One list's line. */
struct lrow {
    unsigned cpu;
    const struct pis_lt_list *l;
    struct pis_lt_summary s;
};

static void reasons(FILE *f, unsigned bad, const char *sep)
{
    const char *s = "";

    for (int i = 0; i < PIS_LT_NBAD; i++)
        if (bad & (1u << i)) {
            fprintf(f, "%s%s", s, pis_lt_bad_name[i]);
            s = sep;
        }
}

/* The lists not exact first, then the highest mean, then the longest. */
static int worse(const void *x, const void *y)
{
    const struct lrow *a = x, *b = y;

    if (!a->l->bad != !b->l->bad)
        return a->l->bad ? -1 : 1;
    if (a->s.mean != b->s.mean)
        return a->s.mean < b->s.mean ? 1 : -1;
    if (a->s.max != b->s.max)
        return a->s.max < b->s.max ? 1 : -1;
    return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

static int by_cpu(const void *x, const void *y)
{
    const struct lrow *a = x, *b = y;

    return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

static void row(FILE *f, const struct lrow *t, double hz)
{
    char d[40];

    if (t->l->bad) {
        fprintf(f, "  %5u  not exact: ", t->cpu);
        reasons(f, t->l->bad, "; ");
        fputc('\n', f);
        return;
    }
    pis_fmt_time(d, sizeof(d), t->l->duration, hz);
    fprintf(f, "  %5u %10.3f %8" PRIu64 " %8" PRIu64 " %8" PRIu64
            " %8.3f%% %18s\n", t->cpu, t->s.mean, t->s.p50, t->s.p99,
            t->s.max, t->l->duration ? 100.0 * (double)t->s.at_max /
            (double)t->l->duration : 0.0, d);
}

/* The rows of every list that changed, in pCPU order; NULL when out of
 * memory. */
static struct lrow *rows(const struct pis_lt *lt, size_t *n)
{
    struct lrow *t = calloc(PIS_MAX_CPUS, sizeof(*t));

    *n = 0;
    if (!t)
        return NULL;
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        const struct pis_lt_list *l = lt->list[c];
        if (!l)
            continue;
        t[*n].cpu = c;
        t[*n].l = l;
        if (!l->bad)
            pis_lt_summarize(l->at, l->cap, l->duration, &t[*n].s);
        (*n)++;
    }
    return t;
}

/* The longest list of the samples (list_length), where and whose. */
static void longest(FILE *f, const struct pis_report *r,
                    const struct pis_out_opts *o)
{
    const struct pis_longest *l = &r->pi.longest;
    const struct pis_hist *h;
    char owner[24];

    if (!l->set)
        return;
    h = r->pi.m[PIS_M_LIST_LEN].cpu[l->cpu];
    pis_owner_label(owner, sizeof(owner), PIS_BY_VCPU,
                    pis_owner_key(PIS_BY_VCPU, l->dom, l->vcpu));
    fprintf(f, "  longest    %" PRIu64 " on pCPU %u (%s added or moved onto "
            "it)", l->len, l->cpu, owner);
    if (h && h->max_has_tsc)
        fprintf(f, " at tsc %" PRIu64, h->max_tsc);
    fprintf(f, ", byte %" PRIu64, l->offset);
    if (r->merged && o->names && l->file >= 0 && l->file < o->ninputs)
        fprintf(f, " in %s", o->names[l->file]);
    fputc('\n', f);
}

/* The time of all exact lists at each length, in at most MAX_ROWS rows. */
static int total_hist(FILE *f, const struct pis_lt *lt, double hz)
{
    uint32_t cap, max = 0;
    uint64_t dur, step = 1, top = 0, *at;
    unsigned n;
    char d[40];

    at = pis_lt_total(lt, &cap, &dur, &n);
    if (!at)
        return 0;
    for (uint32_t i = 0; i < cap; i++)
        if (at[i])
            max = i;
    while ((max / step) + 1 > MAX_ROWS)
        step *= 2;
    for (uint64_t k = 0; k <= max / step; k++) {
        uint64_t sum = 0;
        for (uint64_t i = k * step; i < (k + 1) * step && i < cap; i++)
            sum += at[i];
        if (sum > top)
            top = sum;
    }
    pis_fmt_time(d, sizeof(d), dur, hz);
    fprintf(f, "\n  all %u exact lists, %s %s of list time:\n", n, d,
            pis_time_unit(hz));
    for (uint64_t k = 0; k <= max / step; k++) {
        uint64_t sum = 0;
        char label[48];
        int bars;
        for (uint64_t i = k * step; i < (k + 1) * step && i < cap; i++)
            sum += at[i];
        bars = top && sum ? (int)((sum * BAR + top - 1) / top) : 0;
        if (step == 1)
            snprintf(label, sizeof(label), "[%" PRIu64 "]", k);
        else
            snprintf(label, sizeof(label), "[%" PRIu64 ", %" PRIu64 ")",
                     k * step, (k + 1) * step);
        fprintf(f, "  %-16s %8.3f%% |%.*s%*s|\n", label,
                dur ? 100.0 * (double)sum / (double)dur : 0.0, bars,
                "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
                BAR - bars, "");
    }
    free(at);
    return 0;
}

int pis_lt_text(FILE *f, const struct pis_report *r,
                const struct pis_out_opts *o)
{
    const struct pis_lt *lt = r->pi.lt;
    double hz = o->clock_hz;
    struct lrow *t;
    size_t n, shown;

    if (!lt || !lt->available) {
        fprintf(f, "\n  time at each list length: not available (%s)\n",
                lt ? lt->reason : "the trace has no PI_LIST_DEL records");
        return 0;
    }
    if (!(t = rows(lt, &n)))
        return -1;
    fprintf(f, "\n@list_time: time at each blocking-list length "
            "(time-weighted, exact), by the list's pCPU\n");
    if (r->merged)
        fprintf(f, "  each list over the inputs where its length changed\n");
    else
        fprintf(f, "  window     tsc %" PRIu64 "..%" PRIu64 " (%" PRIu64
                " cycles)\n", lt->t_start, lt->t_end,
                lt->t_end - lt->t_start);
    if (!n) {
        fprintf(f, "  (no list changed length)\n");
        free(t);
        return 0;
    }
    shown = n;
    if (o->top && o->top < n)
        shown = o->top;
    else if (!o->top && !o->all && n > MANY_LISTS)
        shown = WORST_LISTS;
    if (shown < n)
        qsort(t, n, sizeof(*t), worse);
    qsort(t, shown, sizeof(*t), by_cpu);
    fprintf(f, "\n  %5s %10s %8s %8s %8s %9s %18s\n", "cpu", "mean", "p50",
            "p99", "max", "at max", hz > 0 ? "time (us)" : "time (cycles)");
    for (size_t i = 0; i < shown; i++)
        row(f, &t[i], hz);
    if (shown < n)
        fprintf(f, "  (%zu more lists not shown: the %zu worst by mean "
                "length; --all shows every one)\n", n - shown, shown);
    free(t);
    longest(f, r, o);
    return total_hist(f, lt, hz);
}

/* "mean", "p50", "p99", "max" and "time_at_length" of sums at[]. */
static void figures(FILE *f, const uint64_t *at, uint32_t cap, uint64_t dur)
{
    struct pis_lt_summary s;
    const char *sep = "";

    pis_lt_summarize(at, cap, dur, &s);
    fprintf(f, ",\"mean\":%.6f,\"p50\":%" PRIu64 ",\"p99\":%" PRIu64
            ",\"max\":%" PRIu64 ",\"time_at_length\":{", s.mean, s.p50,
            s.p99, s.max);
    for (uint32_t i = 0; i < cap; i++)
        if (at[i]) {
            fprintf(f, "%s\"%u\":%" PRIu64, sep, i, at[i]);
            sep = ",";
        }
    fputc('}', f);
}

/* One list's object. */
static void list_json(FILE *f, const struct pis_lt_list *l)
{
    const char *sep = "";

    fprintf(f, "{\"exact\":%s,\"reasons\":[", l->bad ? "false" : "true");
    for (int i = 0; i < PIS_LT_NBAD; i++)
        if (l->bad & (1u << i)) {
            fputs(sep, f);
            pis_json_str(f, pis_lt_bad_name[i]);
            sep = ",";
        }
    fprintf(f, "],\"changes\":%" PRIu64 ",\"moves_away\":%" PRIu64
            ",\"duration_cycles\":%" PRIu64, l->changes, l->moves_away,
            l->duration);
    if (l->bad)
        fputs(",\"mean\":null,\"p50\":null,\"p99\":null,\"max\":null"
              ",\"time_at_length\":null", f);
    else
        figures(f, l->at, l->cap, l->duration);
    fputc('}', f);
}

int pis_lt_json(FILE *f, const struct pis_report *r)
{
    const struct pis_lt *lt = r->pi.lt;
    const char *sep = "";
    uint64_t *at, dur;
    uint32_t cap;
    unsigned n;

    fprintf(f, ",\"list_time\":{\"available\":%s,\"reason\":",
            lt && lt->available ? "true" : "false");
    if (!lt || !lt->available) {
        pis_json_str(f, lt ? lt->reason :
                     "the trace has no PI_LIST_DEL records");
        fputs(",\"lists\":null,\"total\":null}", f);
        return 0;
    }
    fputs("null", f);
    if (r->merged)
        fputs(",\"start_tsc\":null,\"end_tsc\":null", f);
    else
        fprintf(f, ",\"start_tsc\":%" PRIu64 ",\"end_tsc\":%" PRIu64,
                lt->t_start, lt->t_end);
    fputs(",\"lists\":{", f);
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if (lt->list[c]) {
            fprintf(f, "%s\"%u\":", sep, c);
            list_json(f, lt->list[c]);
            sep = ",";
        }
    fputs("},\"total\":", f);
    at = pis_lt_total(lt, &cap, &dur, &n);
    if (!at) {
        fputs("null}", f);
        return 0;
    }
    fprintf(f, "{\"lists\":%u,\"duration_cycles\":%" PRIu64, n, dur);
    figures(f, at, cap, dur);
    fputs("}}", f);
    free(at);
    return 0;
}
