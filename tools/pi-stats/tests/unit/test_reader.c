/* test_reader.c - the reader on every truncation of a real trace prefix,
 * and fed in small chunks (the streaming path), checked against an
 * independent walk of the same bytes; the same prefix after a lead of
 * bytes that hold no window header, whole and in chunks.
 * Usage: test_reader TRACE [BYTES] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "tap.h"

struct diags {
    unsigned n[PIS_DIAG_NKINDS];
    uint64_t last_off[PIS_DIAG_NKINDS];
};

static void on_diag(void *ctx, enum pis_diag_kind k, uint64_t off,
                    const char *msg)
{
    struct diags *d = ctx;
    (void)msg;
    d->n[k]++;
    d->last_off[k] = off;
}

/* Independent walk: records whose last byte is below len, complete
 * windows, and the offset where a truncated window's last whole record
 * ends. */
struct expect {
    uint64_t records, windows, trunc_bytes, missing;
    int cut;                    /* input ends inside a window or header */
    uint64_t cut_at;            /* offset of the first byte not decoded */
};

static struct expect expect_for(const unsigned char *d, size_t len)
{
    struct expect e = { 0, 0, 0, 0, 0, 0 };
    size_t off = 0;

    while (off < len) {
        uint32_t size, h;
        size_t p, end;
        if (len - off < 12) {
            e.cut = 1;
            e.trunc_bytes = len - off;
            e.cut_at = off;
            return e;
        }
        memcpy(&size, d + off + 8, 4);
        e.windows++;
        p = off + 12;
        end = p + size;
        while (p < end) {
            size_t rs;
            if (p + 4 > len)
                break;
            memcpy(&h, d + p, 4);
            rs = pis_rec_size(h);
            if (p + rs > len)
                break;
            e.records++;
            p += rs;
        }
        if (p < end) {
            e.cut = 1;
            e.trunc_bytes = len - p;
            e.missing = end - len;
            e.cut_at = p;
            return e;
        }
        off = end;
    }
    return e;
}

static int run(const unsigned char *src, size_t len, size_t chunk,
               struct pis_read_stats *st, struct diags *dg, int *fatal)
{
    struct pis_reader r;
    unsigned char *buf = malloc(len ? len : 1);   /* exact size for ASan */
    size_t fed = 0, start = 0;

    memcpy(buf, src, len);
    memset(dg, 0, sizeof(*dg));
    if (pis_reader_init(&r, NULL, on_diag, dg))
        return -1;
    if (!chunk) {
        size_t off = 0, n;
        while ((n = pis_reader_step(&r, buf + off, len - off, 1)) > 0)
            off += n;
    } else {
        /* present the input chunk by chunk, like the read() path */
        for (;;) {
            size_t n;
            int eof;
            fed = fed + chunk > len ? len : fed + chunk;
            eof = fed == len;
            while ((n = pis_reader_step(&r, buf + start, fed - start, eof)))
                start += n;
            if (eof || r.fatal || r.done)
                break;
        }
    }
    pis_reader_finish(&r);
    *st = r.st;
    *fatal = r.fatal;
    pis_reader_free(&r);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    static unsigned char data[1 << 20];
    size_t len, limit = argc > 2 ? (size_t)atol(argv[2]) : 24000, prefix = 0;
    FILE *f;

    if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
        printf("# usage: test_reader TRACE [BYTES]\n");
        return 2;
    }
    len = fread(data, 1, sizeof(data), f);
    fclose(f);
    /* the longest prefix of whole windows not longer than limit */
    while (prefix + 12 <= len) {
        uint32_t size;
        memcpy(&size, data + prefix + 8, 4);
        if (prefix + 12 + size > limit && prefix > 0)
            break;
        prefix += 12 + size;
    }
    printf("# prefix of %zu bytes\n", prefix);

    for (size_t l = 0; l <= prefix; l++) {
        struct pis_read_stats st;
        struct diags dg;
        struct expect e = expect_for(data, l);
        int fatal;

        run(data, l, 0, &st, &dg, &fatal);
        if (l < 4) {
            CHECK(fatal && dg.n[PIS_DIAG_NOT_TRACE] == 1,
                  "len %zu must be rejected", l);
            continue;
        }
        CHECK(!fatal, "len %zu rejected", l);
        CHECK(st.records == e.records, "len %zu: records %llu want %llu", l,
              (unsigned long long)st.records,
              (unsigned long long)e.records);
        CHECK(st.bytes == l, "len %zu: consumed %llu", l,
              (unsigned long long)st.bytes);
        CHECK(st.corrupt_bytes == 0 && st.corrupt_events == 0,
              "len %zu: corrupt %llu", l,
              (unsigned long long)st.corrupt_bytes);
        CHECK(st.truncated_bytes == e.trunc_bytes,
              "len %zu: truncated %llu want %llu", l,
              (unsigned long long)st.truncated_bytes,
              (unsigned long long)e.trunc_bytes);
        CHECK(st.truncated_windows == (uint64_t)e.cut,
              "len %zu: truncated windows %llu", l,
              (unsigned long long)st.truncated_windows);
        CHECK(dg.n[PIS_DIAG_TRUNCATED] == (unsigned)e.cut &&
              (!e.cut || dg.last_off[PIS_DIAG_TRUNCATED] == e.cut_at),
              "len %zu: truncation reported %u times at %llu, want at %llu",
              l, dg.n[PIS_DIAG_TRUNCATED],
              (unsigned long long)dg.last_off[PIS_DIAG_TRUNCATED],
              (unsigned long long)e.cut_at);
        if (e.cut && e.trunc_bytes == 0)
            CHECK(st.missing_bytes == e.missing, "len %zu: missing", l);
    }

    /* streaming: any chunking gives the same result as one buffer */
    {
        static const size_t chunks[] = { 1, 3, 7, 12, 13, 4096, 65536 };
        struct pis_read_stats ref, st;
        struct diags dg;
        int fatal;
        run(data, len, 0, &ref, &dg, &fatal);
        for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
            run(data, len, chunks[i], &st, &dg, &fatal);
            CHECK(!fatal && memcmp(&st, &ref, sizeof(st)) == 0,
                  "chunk %zu: records %llu vs %llu", chunks[i],
                  (unsigned long long)st.records,
                  (unsigned long long)ref.records);
        }
        /* and truncated somewhere in the middle, in chunks of 7 */
        run(data, prefix - 5, 0, &ref, &dg, &fatal);
        run(data, prefix - 5, 7, &st, &dg, &fatal);
        CHECK(memcmp(&st, &ref, sizeof(st)) == 0, "chunked truncation");
    }

    /* an input cut inside a record: 256 KiB with no window header in
     * either byte order, then the trace, read in chunks of 7 bytes.  The
     * reader looks for the first header in the bytes that came since it
     * last looked, not from byte 0 again each time (then this took hours:
     * each look tried every byte of what had come). */
    {
        size_t lead = 256u << 10, n = lead + prefix;
        unsigned char *cut = calloc(n, 1);
        struct pis_read_stats ref, st;
        struct diags dg;
        int fatal, fatal_ref;

        if (!cut)
            return 1;
        memcpy(cut + lead, data, prefix);
        run(cut, n, 0, &ref, &dg, &fatal_ref);
        run(cut, n, 7, &st, &dg, &fatal);
        CHECK(!fatal_ref && ref.lead_bytes == lead && ref.bytes == n,
              "cut input read whole: lead %llu of %zu",
              (unsigned long long)ref.lead_bytes, lead);
        CHECK(!fatal && memcmp(&st, &ref, sizeof(st)) == 0,
              "cut input in chunks of 7: as whole (records %llu vs %llu)",
              (unsigned long long)st.records,
              (unsigned long long)ref.records);
        free(cut);
    }
    return TAP_DONE();
}
