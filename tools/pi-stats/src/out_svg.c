/* out_svg.c - both histograms as one standalone SVG bar chart document. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "output.h"

#define W 900
#define PH 320                  /* panel height */
#define ML 80                   /* left margin (count axis) */
#define MR 20
#define MT 40
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

static void bound(char *buf, size_t len, uint64_t v)
{
    if (v == UINT64_MAX)
        snprintf(buf, len, "max");
    else if (v >= 1024 && v % 1024 == 0 && v < (1ull << 20))
        snprintf(buf, len, "%" PRIu64 "K", v / 1024);
    else if (v >= (1ull << 20) && v % (1ull << 20) == 0)
        snprintf(buf, len, "%" PRIu64 "M", v >> 20);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

static int panel(FILE *f, const struct pis_report *r, enum pis_metric_id m,
                 const struct pis_out_opts *o, int y0, const char *title)
{
    struct pis_hist total;
    struct pis_vc *vc;
    struct pis_bucket *b;
    size_t nvc, nb;
    uint64_t top = 0;
    enum pis_scheme sc = pis_metric_scheme(m);
    uint64_t step = pis_metric_step(m, o);
    double pw = W - ML - MR, ph = PH - MT - MB;

    if (pis_pi_total(&r->pi, m, &total))
        return -1;
    vc = pis_hist_sorted(&total, &nvc);
    if (!vc) {
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
    if (nb == 0) {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" "
                "fill=\"#666\">no samples</text>\n</g>\n", ML + pw / 2,
                MT + ph / 2);
        return 0;
    }
    for (size_t i = 0; i < nb; i++)
        if (b[i].count > top)
            top = b[i].count;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
            "text-anchor=\"end\">%" PRIu64 "</text>\n", ML - 6, MT + 4, top);
    fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\" "
            "text-anchor=\"end\">0</text>\n", ML - 6, MT + ph);
    fprintf(f, "<text x=\"16\" y=\"%.0f\" font-size=\"12\" transform=\""
            "rotate(-90 16 %.0f)\" text-anchor=\"middle\">count</text>\n",
            MT + ph / 2, MT + ph / 2);
    for (size_t i = 0; i < nb; i++) {
        double bw = pw / (double)nb;
        double h = top ? ph * (double)b[i].count / (double)top : 0;
        double x = ML + bw * (double)i;
        char lo[24], hi[24];
        bound(lo, sizeof(lo), b[i].low);
        bound(hi, sizeof(hi), b[i].high);
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
    snprintf(t2, sizeof(t2), "Wakeup interrupt cost, TSC cycles%s",
             o->clock_hz > 0 ? "" : " - no clock given");
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
