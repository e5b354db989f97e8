/* fuzz_reader.c - libFuzzer target for the reader and the PI decoder.
 * Each input is parsed twice, in one buffer (the mmap path) with records
 * handed over in batches, and in chunks whose size comes from the first
 * byte (the read() path) with every record handed over in file order; the
 * two must agree.  Build and run with `make fuzz FUZZ_SECONDS=N`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "pi.h"
#include "reader.h"
#include "report.h"

struct ctx {
    struct pis_pi pi;
};

static void on_rec(void *c, const struct pis_rec *r)
{
    pis_pi_record(&((struct ctx *)c)->pi, r);
}

static void on_batch(void *c, const struct pis_batch *b)
{
    pis_pi_batch(&((struct ctx *)c)->pi, b);
}

struct result {
    struct pis_read_stats st;
    struct pis_pi_counts c;
    struct pis_summary s[PIS_NMETRICS];
};

static void parse(const uint8_t *data, size_t size, size_t chunk,
                  struct result *res)
{
    struct pis_reader r;
    struct ctx c;
    size_t start = 0, fed = 0;

    memset(res, 0, sizeof(*res));
    if (pis_pi_init(&c.pi, NULL) ||
        pis_reader_init(&r, on_rec, on_batch, NULL, &c) ||
        pis_pi_want(&r, chunk == 0))
        abort();
    for (;;) {
        size_t n;
        int eof;
        fed = chunk ? (fed + chunk > size ? size : fed + chunk) : size;
        eof = fed == size;
        while ((n = pis_reader_step(&r, data + start, fed - start, eof)))
            start += n;
        if (eof || r.fatal || r.done)
            break;
    }
    pis_reader_finish(&r);
    pis_pi_end_input(&c.pi);
    res->st = r.st;
    res->c = c.pi.c;
    for (int m = 0; m < PIS_NMETRICS; m++) {
        struct pis_hist total;
        struct pis_summary *s = &res->s[m];
        struct pis_vc *vc;
        size_t nvc;
        if (pis_pi_total(&c.pi, (enum pis_metric_id)m, &total) ||
            pis_summarize(&total, s, &vc, &nvc))
            abort();
        if (s->count && (s->min > s->p50 || s->p50 > s->p90 ||
                         s->p90 > s->p99 || s->p99 > s->p999 ||
                         s->p999 > s->max))
            abort();                    /* percentiles out of order */
        free(vc);
        pis_hist_free(&total);
    }
    pis_reader_free(&r);
    pis_pi_free(&c.pi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct result a, b;
    /* exact-size copy so any over-read is caught */
    uint8_t *copy = malloc(size ? size : 1);

    memcpy(copy, data, size);
    parse(copy, size, 0, &a);
    parse(copy, size, size ? (size_t)copy[0] % 61 + 1 : 1, &b);
    if (memcmp(&a, &b, sizeof(a)))
        abort();        /* chunked read or ordered delivery disagrees */
    if (a.st.bytes > size)
        abort();
    free(copy);
    return 0;
}
