/* out_svg.c - both histograms as one standalone SVG bar chart document. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "output.h"

#define W 900
#define PH 320                  /* panel height */
#define ML 80                   /* left margin (count axis) */
#define MR 20
#define MT 56
#define MB 70
#define MAX_BARS 48             /* linear bars at most, as text rows */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A bucket bound in the unit: us with a clock (hz), else 1024-based
 * suffixes on exact multiples. */
static void bound(char *buf, size_t len, uint64_t v, double hz)
{
    if (v == UINT64_MAX)
        snprintf(buf, len, "max");
    else if (hz > 0)
        pis_fmt_time(buf, len, v, hz);
    else if (v >= 1024 && v % 1024 == 0 && v < (1ull << 20))
        snprintf(buf, len, "%" PRIu64 "K", v / 1024);
    else if (v >= (1ull << 20) && v % (1ull << 20) == 0)
        snprintf(buf, len, "%" PRIu64 "M", v >> 20);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

/* Height of a count on the log scale whose top is ymax (a power of 10):
 * log10(1 + c), so that a bucket of one sample still shows. */
static double log_h(uint64_t c, uint64_t ymax, double ph)
{
    return ph * log10(1.0 + (double)c) / log10(1.0 + (double)ymax);
}

/* The x of value v: inside its bucket, in proportion (a bucket of width
 * 1 at its middle). */
static double x_of(const struct pis_bucket *b, size_t nb, uint64_t v,
                   double bw)
{
    for (size_t i = 0; i < nb; i++)
        if (v >= b[i].low && (v < b[i].high || i + 1 == nb)) {
            double w = b[i].high == UINT64_MAX ? 1.0 :
                (double)(b[i].high - b[i].low);
            double in = ((double)(v - b[i].low) + 0.5) / w;
            return ML + bw * ((double)i + (in < 1.0 ? in : 1.0));
        }
    return ML;
}

/* p50, p99 and max of s: a dashed line each at its value, in its colour,
 * and a legend above the plot, right-aligned. */
static void marks(FILE *f, const struct pis_bucket *b, size_t nb, double bw,
                  double ph, const struct pis_summary *s, double hz,
                  const char *unit)
{
    static const char *const name[] = { "p50", "p99", "max" };
    static const char *const colour[] = { "#1e8449", "#d35400", "#c0392b" };
    const uint64_t v[] = { s->p50, s->p99, s->max };
    char t[32];

    for (int k = 0; k < 3; k++) {
        double x = x_of(b, nb, v[k], bw);
        fprintf(f, "<line class=\"mark\" x1=\"%.2f\" y1=\"%d\" "
                "x2=\"%.2f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"5 3\"><title>%s</title></line>\n", x, MT,
                x, MT + ph, colour[k], name[k]);
    }
    fprintf(f, "<text class=\"legend\" x=\"%d\" y=\"%d\" font-size=\"12\" "
            "font-weight=\"bold\" text-anchor=\"end\">", W - MR, MT - 8);
    for (int k = 0; k < 3; k++) {
        pis_fmt_time(t, sizeof(t), v[k], hz);
        fprintf(f, "<tspan dx=\"%d\" fill=\"%s\">%s %s%s%s</tspan>",
                k ? 16 : 0, colour[k], name[k], t, *unit ? " " : "", unit);
    }
    fprintf(f, "</text>\n");
}

static int panel(FILE *f, const struct pis_report *r, enum pis_metric_id m,
                 const struct pis_out_opts *o, int y0, const char *title)
{
    struct pis_hist total;
    struct pis_summary s;
    struct pis_vc *vc;
    struct pis_bucket *b;
    size_t nvc, nb;
    uint64_t top = 0, ymax = 1;
    enum pis_scheme sc = pis_metric_scheme(m);
    uint64_t step = pis_metric_step(m, o);
    double pw = W - ML - MR, ph = PH - MT - MB, bw;
    double hz = m == PIS_M_WAKE_CYCLES ? o->clock_hz : 0;
    const char *unit = m == PIS_M_WAKE_CYCLES ? (hz > 0 ? "us" : "cycles") :
        "";

    if (pis_pi_total(&r->pi, m, &total))
        return -1;
    if (pis_summarize(&total, &s, &vc, &nvc)) {
        pis_hist_free(&total);
        return -1;
    }
    if (sc == PIS_LINEAR)       /* at most MAX_BARS bars */
        sc = pis_fit_rows(vc, nvc, total.count, &step, MAX_BARS);
    fprintf(f, "<g transform=\"translate(0,%d)\">\n", y0);
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"16\" "
            "font-weight=\"bold\">", ML);
    esc(f, title);
    if (sc == PIS_LOG2)
        fprintf(f, " (log2 buckets)");
    else
        fprintf(f, " (linear, step %" PRIu64 ")", step);
    fprintf(f, "</text>\n");
    b = pis_buckets(vc, nvc, sc, step, 1, &nb);
    free(vc);
    pis_hist_free(&total);
    if (nvc && !b)
        return -1;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" "
            "fill=\"none\" stroke=\"#888\"/>\n", ML, MT, pw, ph);
    fprintf(f, "<text class=\"xlabel\" x=\"%.0f\" y=\"%d\" font-size=\"12\" "
            "text-anchor=\"middle\">%s</text>\n", ML + pw / 2, PH - 8,
            m == PIS_M_LIST_LEN ? "list length (entries)" :
            hz > 0 ? "time per wakeup (us)" :
            "time per wakeup (cycles, no clock)");
    fprintf(f, "<text class=\"ylabel\" x=\"16\" y=\"%.0f\" font-size=\"12\" "
            "transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">"
            "samples (log scale)</text>\n", MT + ph / 2, MT + ph / 2);
    if (nb == 0) {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" "
                "fill=\"#666\">no samples</text>\n</g>\n", ML + pw / 2,
                MT + ph / 2);
        return 0;
    }
    for (size_t i = 0; i < nb; i++)
        if (b[i].count > top)
            top = b[i].count;
    while (ymax < top)
        ymax *= 10;
    for (uint64_t t = 1; t <= ymax; t *= 10) {   /* log-scale ticks */
        double y = MT + ph - log_h(t, ymax, ph);
        fprintf(f, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" "
                "stroke=\"#ddd\"/>\n<text class=\"ytick\" x=\"%d\" "
                "y=\"%.2f\" font-size=\"11\" text-anchor=\"end\">%" PRIu64
                "</text>\n", ML, y, ML + pw, y, ML - 6, y + 4, t);
    }
    bw = pw / (double)nb;
    for (size_t i = 0; i < nb; i++) {
        double h = log_h(b[i].count, ymax, ph);
        double x = ML + bw * (double)i;
        char lo[32], hi[32];
        bound(lo, sizeof(lo), b[i].low, hz);
        bound(hi, sizeof(hi), b[i].high, hz);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                "height=\"%.2f\" fill=\"#4a7ebb\" stroke=\"#fff\" "
                "stroke-width=\"0.5\"><title>[%s, %s): %" PRIu64
                "</title></rect>\n", x, MT + ph - h, bw, h, lo, hi,
                b[i].count);
        if (nb <= 40 || i % ((nb + 39) / 40) == 0)
            fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" font-size=\"10\" "
                    "text-anchor=\"end\" transform=\"rotate(-45 %.2f %.0f)\">"
                    "%s</text>\n", x + bw / 2, MT + ph + 14, x + bw / 2,
                    MT + ph + 14, lo);
    }
    marks(f, b, nb, bw, ph, &s, hz, unit);
    free(b);
    fprintf(f, "</g>\n");
    return 0;
}

int pis_out_svg(FILE *f, const struct pis_report *r,
                const struct pis_out_opts *o)
{
    char t1[160], t2[200];

    snprintf(t1, sizeof(t1), "Blocking-list length after add/move - %s",
             r->name);
    snprintf(t2, sizeof(t2), "Time per wakeup interrupt, %s",
             o->clock_hz > 0 ? "us" : "cycles (no clock)");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">"
            "\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, 2 * PH, W, 2 * PH);
    if (panel(f, r, PIS_M_LIST_LEN, o, 0, t1) ||
        panel(f, r, PIS_M_WAKE_CYCLES, o, PH, t2))
        return -1;
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
