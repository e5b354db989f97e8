/* live.h - reading a live pipe: SIGINT/SIGTERM end the input and the
 * report of what was read is printed; --interval prints a short report
 * every N seconds of wall time while a pipe is read. */
#ifndef PIS_LIVE_H
#define PIS_LIVE_H

#include <stdio.h>
#include "input.h"
#include "pi.h"
#include "reader.h"

/* What an interval report looks at (the input being read). */
struct pis_live_src {
    const struct pis_reader *rd;
    struct pis_pi *pi;          /* with interval samples (pis_pi_interval_on) */
    const char *name;
    int json;
    double hz;                  /* the clock, 0 = unknown */
};

/* Install the handlers of SIGINT and SIGTERM (and, when interval_s > 0,
 * a timer of that period and its SIGALRM handler) and fill ctl; after a
 * first SIGINT or SIGTERM the next one has its default action.  Returns 0
 * or -1 (errno set). */
int pis_live_start(struct pis_input_ctl *ctl, double interval_s,
                   struct pis_live_src *src);
/* Stop the timer (the reports end with the reading). */
void pis_live_stop_timer(void);
/* 1 once SIGINT or SIGTERM came: read no further input. */
int pis_live_stopped(void);
/* One interval report of src on f (on_tick of the input control). */
void pis_live_report(void *src);

#endif
