/* nomatch.c - warnings for filters that match nothing; see nomatch.h. */
#include <inttypes.h>

#include "nomatch.h"
#include "output.h"

static int any(const struct pis_report *r, const unsigned char *map, int in)
{
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++)
        if ((map[c >> 3] & (1u << (c & 7u))) && (r->cpu[c].windows != 0) == in)
            return 1;
    return 0;
}

static void cpus(FILE *f, const char *name, const struct pis_report *r,
                 const struct pis_out_opts *o, const unsigned char *map)
{
    if (!any(r, map, 0))
        return;
    fprintf(f, "pi-stats: %s: warning: --cpu %s: ", name, o->cpu_list);
    if (any(r, map, 1)) {
        fprintf(f, "pCPUs ");
        pis_print_cpus(f, r, map, 0);
        fprintf(f, " are not in this input\n");
    } else {
        fprintf(f, "none of these pCPUs is in this input (it has ");
        pis_print_cpus(f, r, NULL, 1);
        fprintf(f, ")\n");
    }
}

/* The PI records' span as --since/--until would name it. */
static void span(FILE *f, const struct pis_range *g, double hz)
{
    if (g->relative)
        fprintf(f, "%.6f to %.6f s from the first PI record with a TSC",
                (double)(int64_t)(g->seen_lo - g->base) / hz,
                (double)(int64_t)(g->seen_hi - g->base) / hz);
    else
        fprintf(f, "TSC %" PRIu64 " to %" PRIu64, g->seen_lo, g->seen_hi);
}

static void range(FILE *f, const char *name, const struct pis_report *r,
                  const struct pis_out_opts *o)
{
    const struct pis_range *g = &r->pi.range;

    if (!g->on || !g->seen)
        return;
    if (pis_pi_events(&r->pi) == r->pi.c.out_of_range) {
        fprintf(f, "pi-stats: %s: warning: --since %s --until %s keeps none "
                "of its PI records (", name, o->since ? o->since : "start",
                o->until ? o->until : "end");
        span(f, g, o->clock_hz);
        fprintf(f, ")\n");
    } else if (!g->relative && o->since && g->lo < g->seen_lo) {
        fprintf(f, "pi-stats: %s: warning: --since %s is a TSC value (no "
                "clock given), below every PI record's (", name,
                o->since);
        span(f, g, o->clock_hz);
        fprintf(f, "): it cuts nothing; give --cpu-mhz or --tsc-hz for "
                "seconds\n");
    }
}

void pis_warn_no_match(FILE *f, const char *name, const struct pis_report *r,
                       const struct pis_out_opts *o, const unsigned char *map)
{
    if (o->cpu_list)
        cpus(f, name, r, o, map);
    range(f, name, r, o);
}
