/* live.c - signals and interval reports while reading; see live.h. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "live.h"
#include "output.h"
#include "report.h"

static volatile sig_atomic_t stop_flag, tick_flag;
static struct timespec started;
static unsigned long ticks;

static void on_stop(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void on_alarm(int sig)
{
    (void)sig;
    tick_flag = 1;
}

static int handle(int sig, void (*fn)(int), int flags)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fn;
    sa.sa_flags = flags;        /* no SA_RESTART: a blocked read returns */
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}

int pis_live_start(struct pis_input_ctl *ctl, double interval_s,
                   struct pis_live_src *src)
{
    memset(ctl, 0, sizeof(*ctl));
    ctl->stop = &stop_flag;
    ctl->tick = &tick_flag;
    ctl->on_tick = pis_live_report;
    ctl->ctx = src;
    sigemptyset(&ctl->sigs);
    sigaddset(&ctl->sigs, SIGINT);
    sigaddset(&ctl->sigs, SIGTERM);
    if (handle(SIGINT, on_stop, SA_RESETHAND) ||
        handle(SIGTERM, on_stop, SA_RESETHAND))
        return -1;
    if (interval_s > 0) {
        struct itimerval it;
        double whole = floor(interval_s);
        it.it_interval.tv_sec = (time_t)whole;
        it.it_interval.tv_usec = (suseconds_t)((interval_s - whole) * 1e6);
        it.it_value = it.it_interval;
        sigaddset(&ctl->sigs, SIGALRM);
        clock_gettime(CLOCK_MONOTONIC, &started);
        if (handle(SIGALRM, on_alarm, 0) || setitimer(ITIMER_REAL, &it, NULL))
            return -1;
    }
    return 0;
}

void pis_live_stop_timer(void)
{
    struct itimerval off;

    memset(&off, 0, sizeof(off));
    (void)setitimer(ITIMER_REAL, &off, NULL);
}

int pis_live_stopped(void)
{
    return stop_flag != 0;
}

/* p50, p99 and max of a metric over all pCPUs; count 0 when empty. */
static int totals(const struct pis_pi *pi, enum pis_metric_id m,
                  struct pis_summary *s)
{
    struct pis_hist all;
    int rc = pis_pi_total(pi, m, &all) || pis_summarize(&all, s, NULL, NULL);

    pis_hist_free(&all);
    return rc ? -1 : 0;
}

/* One metric: count, p50 (running totals only), p99, max in the unit
 * (wakeup_cycles: us with a clock), and for an interval the pCPU of the
 * maximum (cpu >= 0). */
static void text_metric(FILE *f, const char *name, const struct pis_summary *s,
                        double hz, int cpu)
{
    char v[3][32];

    fprintf(f, "; %s", name);
    if (!s->count) {
        fprintf(f, " -");
        return;
    }
    pis_fmt_time(v[0], sizeof(v[0]), s->p50, hz);
    pis_fmt_time(v[1], sizeof(v[1]), s->p99, hz);
    pis_fmt_time(v[2], sizeof(v[2]), s->max, hz);
    fprintf(f, " n %" PRIu64, s->count);
    if (cpu < 0)
        fprintf(f, " p50 %s", v[0]);
    fprintf(f, " p99 %s max %s", v[1], v[2]);
    if (cpu >= 0)
        fprintf(f, " (pCPU %d)", cpu);
}

static void json_metric(FILE *f, const char *name, const struct pis_summary *s,
                        int cpu)
{
    fprintf(f, ",\"%s\":{\"count\":%" PRIu64, name, s->count);
    if (cpu < 0 && s->count)
        fprintf(f, ",\"p50\":%" PRIu64, s->p50);
    else if (cpu < 0)
        fprintf(f, ",\"p50\":null");
    if (s->count)
        fprintf(f, ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64, s->p99, s->max);
    else
        fprintf(f, ",\"p99\":null,\"max\":null");
    if (cpu >= 0 && s->count)
        fprintf(f, ",\"max_cpu\":%d", cpu);
    else if (cpu >= 0)
        fprintf(f, ",\"max_cpu\":null");
    fputc('}', f);
}

/* The samples since the last report: one interval. */
static int interval(const struct pis_pi *pi, enum pis_metric_id m,
                    struct pis_summary *s)
{
    return pis_summarize(&pi->iv->h[m], s, NULL, NULL);
}

void pis_live_report(void *ctx)
{
    const struct pis_live_src *src = ctx;
    const struct pis_read_stats *st = &src->rd->st;
    struct pis_pi *pi = src->pi;
    const struct pis_pi_counts *c = &pi->c;
    const struct pis_pi_interval *iv = pi->iv;
    struct pis_summary ll, wc, ill, iwc;
    struct timespec now;
    double t, hz = src->hz;
    int lc, wcpu;

    if (!iv)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    t = (double)(now.tv_sec - started.tv_sec) +
        (double)(now.tv_nsec - started.tv_nsec) / 1e9;
    ticks++;
    if (totals(pi, PIS_M_LIST_LEN, &ll) ||
        totals(pi, PIS_M_WAKE_CYCLES, &wc) ||
        interval(pi, PIS_M_LIST_LEN, &ill) ||
        interval(pi, PIS_M_WAKE_CYCLES, &iwc))
        return;                 /* out of memory: skip this one */
    lc = (int)iv->max_cpu[PIS_M_LIST_LEN];
    wcpu = (int)iv->max_cpu[PIS_M_WAKE_CYCLES];
    if (src->json) {
        fprintf(stdout, "{\"interval\":%lu,\"elapsed_s\":%.3f,"
                "\"this_interval\":{\"list_add\":%" PRIu64 ",\"wakeup\":%"
                PRIu64, ticks, t, c->list_add - iv->list_add,
                c->wakeup - iv->wakeup);
        json_metric(stdout, "list_length", &ill, lc);
        json_metric(stdout, "wakeup_cycles", &iwc, wcpu);
        fprintf(stdout, "},\"bytes\":%" PRIu64 ",\"records\":%" PRIu64
                ",\"list_add\":%" PRIu64 ",\"wakeup\":%" PRIu64
                ",\"spilled_adds\":%" PRIu64, st->bytes, st->records,
                c->list_add, c->wakeup, c->spilled_adds);
        json_metric(stdout, "list_length", &ll, -1);
        json_metric(stdout, "wakeup_cycles", &wc, -1);
        fprintf(stdout, "}\n");
    } else {
        const char *wname = hz > 0 ? "wakeup us" : "wakeup cycles (no clock)";
        fprintf(stdout, "[%.1f s] %s: interval %" PRIu64 " adds, %" PRIu64
                " wakeups", t, src->name, c->list_add - iv->list_add,
                c->wakeup - iv->wakeup);
        text_metric(stdout, "list_length", &ill, 0, lc);
        text_metric(stdout, wname, &iwc, hz, wcpu);
        fprintf(stdout, " | total %" PRIu64 " bytes, %" PRIu64
                " records, %" PRIu64 " adds (%" PRIu64 " spilled), %" PRIu64
                " wakeups", st->bytes, st->records, c->list_add,
                c->spilled_adds, c->wakeup);
        text_metric(stdout, "list_length", &ll, 0, -1);
        text_metric(stdout, wname, &wc, hz, -1);
        fputc('\n', stdout);
    }
    fflush(stdout);
    pis_pi_interval_reset(pi);
}
