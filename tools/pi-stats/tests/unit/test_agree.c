/* test_agree.c - usage: test_agree FILE...  Each file is decoded whole
 * by the batched PI decoder, whole by the per-record one, and in chunks
 * of 4093 bytes by the per-record one; all results must be equal (read
 * statistics, PI counters, summaries of every metric over all pCPUs and
 * per pCPU, limits). */
#include <stdio.h>

#include "decode_both.h"
#include "tap.h"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0;

    *n = 0;
    if (!f)
        return NULL;
    for (;;) {
        size_t got;
        if (*n == cap) {
            uint8_t *nb = realloc(buf, cap ? 2 * cap : 65536);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = cap ? 2 * cap : 65536;
        }
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct db_result a, b, c;
        size_t n;
        uint8_t *data = slurp(argv[i], &n);
        CHECK(data != NULL, "%s: cannot read", argv[i]);
        if (!data)
            continue;
        CHECK(db_decode(data, n, 0, 1, &a) == 0, "%s: batched", argv[i]);
        CHECK(db_decode(data, n, 0, 0, &b) == 0, "%s: per record", argv[i]);
        CHECK(db_decode(data, n, 4093, 0, &c) == 0, "%s: chunked", argv[i]);
        CHECK(!memcmp(&a, &b, sizeof(a)),
              "%s: batched and per-record decoders disagree", argv[i]);
        CHECK(!memcmp(&b, &c, sizeof(b)),
              "%s: whole and chunked reads disagree", argv[i]);
        free(data);
    }
    return TAP_DONE();
}
