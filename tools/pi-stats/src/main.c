/* main.c - pi-stats command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "atomic.h"
#include "cli.h"
#include "exitcodes.h"
#include "input.h"
#include "live.h"
#include "nomatch.h"
#include "output.h"
#include "report.h"

#define MAX_SHOWN 5             /* warnings of one kind shown per input */

struct input_ctx {
    const char *name;
    struct pis_pi *pi;
    int quiet;
    unsigned shown[PIS_DIAG_NKINDS];
    unsigned hidden[PIS_DIAG_NKINDS];
};

static void on_diag(void *ctx, enum pis_diag_kind kind, uint64_t off,
                    const char *msg)
{
    struct input_ctx *ic = ctx;

    if (kind != PIS_DIAG_NOT_TRACE) {
        if (ic->quiet)
            return;
        if (ic->shown[kind] >= MAX_SHOWN) {
            ic->hidden[kind]++;
            return;
        }
        ic->shown[kind]++;
        fprintf(stderr, "pi-stats: %s: byte %" PRIu64 ": warning: %s\n",
                ic->name, off, msg);
        return;
    }
    fprintf(stderr, "pi-stats: %s: byte %" PRIu64 ": %s\n", ic->name, off,
            msg);
}

/* The histogram store allocates and frees arrays of a few hundred KiB per
 * pCPU at every flush and report: keep them in the heap instead of a fresh
 * mmap (zeroed pages, one fault each) every time.  The counters of many
 * pCPUs are then touched at random: grow the heap in one step and ask for
 * huge pages there (one fault and one TLB entry per 2 MiB instead of 512;
 * measured: about 15% less time on the PI-heavy bench trace). */
static void heap_setup(void)
{
#ifdef __GLIBC__
    const uintptr_t huge = 2u << 20;
    uintptr_t from, to;
    void *first;

    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#ifdef MADV_HUGEPAGE
    mallopt(M_TOP_PAD, 64 << 20);
    first = malloc(1);          /* the heap grows by the pad */
    from = ((uintptr_t)first + huge - 1) & ~(huge - 1);
    to = (uintptr_t)sbrk(0) & ~(huge - 1);
    if (first && to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
    free(first);
#endif
#endif
}

static void on_rec(void *ctx, const struct pis_rec *rec)
{
    struct input_ctx *ic = ctx;
    pis_pi_record(ic->pi, rec);
}

static void on_group(void *ctx, const struct pis_group *g)
{
    struct input_ctx *ic = ctx;
    pis_pi_group(ic->pi, g);
}

static int data_problems(const struct pis_report *r)
{
    return r->st.corrupt_events || r->st.corrupt_bytes ||
           r->st.truncated_windows || r->st.truncated_bytes ||
           r->st.tsc_backwards || r->pi.c.malformed;
}

/* Read one input into rep.  Returns an exit code. */
static int analyse(struct pis_report *rep, const char *name, int index,
                   int quiet, const struct pis_input_ctl *ctl,
                   struct pis_live_src *live)
{
    struct pis_reader rd;
    struct input_ctx ic;
    enum pis_input_status st;
    char err[256];

    memset(&ic, 0, sizeof(ic));
    ic.name = name;
    ic.pi = &rep->pi;
    ic.quiet = quiet;
    rep->pi.file = index;
    rep->pi.diag = on_diag;
    rep->pi.diag_ctx = &ic;
    if (pis_reader_init(&rd, on_rec, on_diag, &ic) ||
        pis_pi_want(&rd, !(rep->pi.range.on && rep->pi.range.relative))) {
        fprintf(stderr, "pi-stats: out of memory\n");
        pis_reader_free(&rd);
        return PIS_EXIT_INTERNAL;
    }
    rd.on_group = on_group;
    live->rd = &rd;
    live->pi = &rep->pi;
    live->name = name;
    st = pis_input_run(&rd, name, ctl, err, sizeof(err));
    pis_pi_end_input(&rep->pi);
    rep->pi.diag = NULL;        /* ic ends here */
    if (pis_report_take(rep, &rd))
        rep->pi.oom = 1;
    pis_reader_free(&rd);
    for (int k = 0; k < PIS_DIAG_NKINDS; k++)
        if (ic.hidden[k])
            fprintf(stderr, "pi-stats: %s: %u more warnings like the "
                    "above not shown\n", name, ic.hidden[k]);
    switch (st) {
    case PIS_INPUT_OK:
        break;
    case PIS_INPUT_IO:
        fprintf(stderr, "pi-stats: %s: %s\n", name, err);
        return PIS_EXIT_IO;
    case PIS_INPUT_NOT_TRACE:
        return PIS_EXIT_NOT_TRACE;
    case PIS_INPUT_NOMEM:
    default:
        fprintf(stderr, "pi-stats: %s: out of memory\n", name);
        return PIS_EXIT_INTERNAL;
    }
    if (rep->pi.oom) {
        fprintf(stderr, "pi-stats: %s: out of memory, samples lost\n", name);
        return PIS_EXIT_INTERNAL;
    }
    return PIS_EXIT_OK;
}

static int emit(enum pis_fmt fmt, FILE *f, struct pis_report *const *ok, int nok,
                const struct pis_report *merged, const struct pis_out_opts *o)
{
    if (o->compare)
        return pis_out_compare(f, ok[0], ok[1], fmt == PIS_FMT_JSON, o);
    switch (fmt) {
    case PIS_FMT_JSON:
        return pis_out_json(f, ok, nok, merged, o);
    case PIS_FMT_CSV:
        return pis_out_csv(f, ok, nok, merged, o);
    case PIS_FMT_TEXT:
    default:
        return pis_out_text(f, ok, nok, merged, o);
    }
}

static int open_target(struct pis_atomic *a, const char *path)
{
    char err[256];

    if (pis_atomic_open(a, path, err, sizeof(err))) {
        fprintf(stderr, "pi-stats: %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

static int commit_target(struct pis_atomic *a, const char *path)
{
    char err[256];

    if (pis_atomic_commit(a, err, sizeof(err))) {
        fprintf(stderr, "pi-stats: %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

/* All inputs read into reps[0..n), the good ones listed in ok[0..*nok).
 * Returns PIS_EXIT_OK, the lowest input error (unreadable 3 before
 * not-a-trace 4), or PIS_EXIT_INTERNAL to stop; *any_data says whether
 * a good input had data problems. */
static int read_inputs(const struct pis_cli *c, struct pis_report *reps,
                       struct pis_report **ok, int *nok, int *any_data)
{
    static struct pis_live_src live;
    struct pis_input_ctl ctl;
    int worst = PIS_EXIT_OK;

    *nok = 0;
    *any_data = 0;
    live.json = c->fmt == PIS_FMT_JSON;
    live.hz = c->o.clock_hz;
    if (pis_live_start(&ctl, c->interval, &live)) {
        fprintf(stderr, "pi-stats: cannot set up signals or the timer: "
                "%s\n", strerror(errno));
        return PIS_EXIT_INTERNAL;
    }
    for (int i = 0; i < c->ninputs && !pis_live_stopped(); i++) {
        const char *name = c->inputs[i];
        int r;
        if (pis_report_init(&reps[i], name,
                            c->o.cpu_list ? c->cpumap : NULL)) {
            fprintf(stderr, "pi-stats: out of memory\n");
            return PIS_EXIT_INTERNAL;
        }
        reps[i].pi.by = c->o.by;
        reps[i].pi.range = c->o.range;
        if (c->interval > 0 && pis_pi_interval_on(&reps[i].pi)) {
            fprintf(stderr, "pi-stats: out of memory\n");
            return PIS_EXIT_INTERNAL;
        }
        r = analyse(&reps[i], name, i, c->quiet, &ctl, &live);
        if (r == PIS_EXIT_INTERNAL)
            return r;
        if (r != PIS_EXIT_OK) {
            if (worst == PIS_EXIT_OK || r < worst)
                worst = r;
            continue;
        }
        if (!c->quiet)
            pis_warn_no_match(stderr, name, &reps[i], &c->o, c->cpumap);
        *any_data |= data_problems(&reps[i]);
        ok[(*nok)++] = &reps[i];
    }
    pis_live_stop_timer();
    return worst;
}

/* The merge of several good inputs into *m; returns 0 or -1. */
static int merge_all(struct pis_report *m, struct pis_report *const *ok,
                     int nok)
{
    if (pis_report_init(m, "(all inputs)", NULL))
        return -1;
    m->pi.by = ok[0]->pi.by;
    m->merged = 1;
    m->ninputs = 0;
    for (int i = 0; i < nok; i++)
        if (pis_report_merge(m, ok[i]))
            return -1;
    return 0;
}

/* Whether the -o and --svg targets are usable, before any input is read. */
static int check_targets(const struct pis_cli *c)
{
    const char *t[2] = { c->out, c->svg };
    char err[256];

    for (int i = 0; i < 2; i++)
        if (t[i] && pis_atomic_check(t[i], err, sizeof(err))) {
            fprintf(stderr, "pi-stats: %s: %s\n", t[i], err);
            return -1;
        }
    return 0;
}

/* Report, SVG: returns PIS_EXIT_OK or PIS_EXIT_INTERNAL.  Both are
 * written before either replaces a file, so a failure changes neither. */
static int output(const struct pis_cli *c, struct pis_report *const *ok,
                  int nok, const struct pis_report *m)
{
    struct pis_atomic out, svg;
    const char *name = c->out ? c->out : "-";
    int bad;

    memset(&svg, 0, sizeof(svg));
    if (open_target(&out, name))
        return PIS_EXIT_INTERNAL;
    if (c->svg && open_target(&svg, c->svg)) {
        pis_atomic_abort(&out);
        return PIS_EXIT_INTERNAL;
    }
    if (emit(c->fmt, out.f, ok, nok, m, &c->o))
        bad = 1;
    else if (c->svg && pis_out_svg(svg.f, m ? m : ok[0], &c->o))
        bad = 2;
    else
        bad = 0;
    if (bad) {
        fprintf(stderr, "pi-stats: %s: cannot write output\n",
                bad == 1 ? name : c->svg);
        pis_atomic_abort(&out);
        pis_atomic_abort(&svg);
        return PIS_EXIT_INTERNAL;
    }
    bad = commit_target(&out, name);
    if (c->svg) {
        if (bad)
            pis_atomic_abort(&svg);
        else
            bad = commit_target(&svg, c->svg);
    }
    return bad ? PIS_EXIT_INTERNAL : PIS_EXIT_OK;
}

int main(int argc, char **argv)
{
    static struct pis_cli c;
    struct pis_report *reps, **ok, merged;
    uint64_t *tsc_start;
    int rc, nok, any_data, have_merged = 0;

    if ((rc = pis_cli_parse(&c, argc, argv)) >= 0)
        return rc;
    if (check_targets(&c))
        return PIS_EXIT_INTERNAL;
    heap_setup();
    reps = calloc((size_t)c.ninputs, sizeof(*reps));
    ok = calloc((size_t)c.ninputs, sizeof(*ok));
    tsc_start = calloc((size_t)c.ninputs, sizeof(*tsc_start));
    if (!reps || !ok || !tsc_start) {
        fprintf(stderr, "pi-stats: out of memory\n");
        return PIS_EXIT_INTERNAL;
    }
    rc = read_inputs(&c, reps, ok, &nok, &any_data);
    if (rc == PIS_EXIT_INTERNAL)
        return rc;
    for (int i = 0; i < c.ninputs; i++)
        tsc_start[i] = reps[i].st.tsc_min;
    c.o.tsc_start = tsc_start;
    if (c.o.compare && nok < 2)
        nok = 0;                /* nothing to compare: the errors say why */
    if (nok > 1 && !c.o.compare) {
        if (merge_all(&merged, ok, nok)) {
            fprintf(stderr, "pi-stats: out of memory\n");
            return PIS_EXIT_INTERNAL;
        }
        have_merged = 1;
    }
    if (nok > 0 && output(&c, ok, nok, have_merged ? &merged : NULL))
        rc = PIS_EXIT_INTERNAL;
    else if (rc == PIS_EXIT_OK && c.strict && any_data) {
        fprintf(stderr, "pi-stats: --strict: data problems found (see "
                "warnings above)\n");
        rc = PIS_EXIT_DATA;
    }
    for (int i = 0; i < c.ninputs; i++)
        pis_report_free(&reps[i]);
    if (have_merged)
        pis_report_free(&merged);
    free(reps);
    free(ok);
    free(tsc_start);
    return rc;
}
