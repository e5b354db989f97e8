/* out_common.c - bucket schemes shared by every output format, so that
 * histograms from different files and hosts merge by adding counts of
 * identical [low, high) buckets; names shared by the formats. */
#include <inttypes.h>
#include <stdio.h>

#include "output.h"

enum pis_scheme pis_metric_scheme(enum pis_metric_id m)
{
    return m == PIS_M_WAKE_CYCLES ? PIS_LOG2 : PIS_LINEAR;
}

uint64_t pis_metric_step(enum pis_metric_id m, const struct pis_out_opts *o)
{
    return m == PIS_M_LIST_LEN && o->len_step ? o->len_step : 1;
}

void pis_fmt_time(char *buf, size_t len, uint64_t v, double hz)
{
    if (hz > 0)
        snprintf(buf, len, "%.3f", (double)v * 1e6 / hz);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

const char *pis_time_unit(double hz)
{
    return hz > 0 ? "us" : "cycles (no clock)";
}

void pis_fmt_at(char *buf, size_t len, const struct pis_summary *s,
                const struct pis_out_opts *o)
{
    if (!s->max_has_tsc)
        snprintf(buf, len, "tsc -");
    else if (o->clock_hz > 0 && o->tsc_start && s->max_file >= 0 &&
             s->max_file < o->ninputs)
        snprintf(buf, len, "%.9f s", (double)(s->max_tsc -
                 o->tsc_start[s->max_file]) / o->clock_hz);
    else
        snprintf(buf, len, "tsc %" PRIu64, s->max_tsc);
}

static int listed(const struct pis_report *r, const unsigned char *map,
                  int in, unsigned c)
{
    int has = r->cpu[c].windows != 0;

    if (!map)
        return has;
    return (map[c >> 3] & (1u << (c & 7u))) && has == in;
}

void pis_print_cpus(FILE *f, const struct pis_report *r,
                    const unsigned char *map, int in)
{
    int first = 1;

    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        unsigned e;
        if (!listed(r, map, in, c))
            continue;
        for (e = c; e + 1 < PIS_MAX_CPUS && listed(r, map, in, e + 1); e++)
            ;
        fprintf(f, "%s%u", first ? "" : ",", c);
        if (e > c)
            fprintf(f, "-%u", e);
        first = 0;
        c = e;
    }
}

const char *pis_byte_order_name(unsigned byte_order)
{
    switch (byte_order) {
    case PIS_BO_LITTLE:
        return "little";
    case PIS_BO_BIG:
        return "big";
    case PIS_BO_LITTLE | PIS_BO_BIG:
        return "mixed";
    default:
        return "unknown";
    }
}

enum pis_scheme pis_fit_rows(const struct pis_vc *vc, size_t nvc,
                             uint64_t count, uint64_t *step, size_t rows)
{
    uint64_t lo, hi, first = 0;

    if (!nvc)
        return PIS_LINEAR;
    lo = vc[0].value / *step;
    hi = vc[nvc - 1].value / *step;
    if (hi - lo + 1 <= rows)
        return PIS_LINEAR;
    while (hi - lo + 1 > rows) {
        *step *= 2;
        lo = vc[0].value / *step;
        hi = vc[nvc - 1].value / *step;
    }
    for (size_t i = 0; i < nvc && vc[i].value / *step == lo; i++)
        first += vc[i].count;
    return first * 2 > count ? PIS_LOG2 : PIS_LINEAR;
}

char *pis_put_u64(char *p, uint64_t v, int width)
{
    char d[20];
    int n = 0;

    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (width-- > n)
        *p++ = ' ';
    while (n)
        *p++ = d[--n];
    return p;
}

char *pis_put_str(char *p, const char *s, int pad)
{
    while (pad-- > 0)
        *p++ = ' ';
    while (*s)
        *p++ = *s++;
    return p;
}
