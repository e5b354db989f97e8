/* tracesplice.c - concatenate copies of real xentrace files until the
 * output reaches a size, shifting each copy's TSCs (record TSCs and the
 * first_tsc of TRC_LOST_RECORDS) past the largest TSC written so far, so
 * every pCPU's time keeps going forward.
 * Usage: tracesplice OUT MIN_MB IN... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;

    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET))
        return NULL;
    buf = malloc((size_t)n ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        return NULL;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Walk d, add shift to every TSC (if apply), return min and max TSC. */
static int walk(unsigned char *d, size_t len, uint64_t shift, int apply,
                uint64_t *mn, uint64_t *mx)
{
    size_t off = 0;

    *mn = UINT64_MAX;
    *mx = 0;
    while (off < len) {
        uint32_t size;
        size_t q, end;
        if (len - off < 12 || pis_ld32(d + off) != TRC_CPU_CHANGE_HDR)
            return -1;
        size = pis_ld32(d + off + 8);
        q = off + 12;
        end = q + size;
        if (end > len)
            return -1;
        while (q < end) {
            uint32_t h = pis_ld32(d + q);
            uint32_t sz = pis_rec_size(h);
            if (q + sz > end)
                return -1;
            if (h & TRC_TSC_FLAG) {
                uint64_t t = pis_ld64(d + q + 4) + (apply ? shift : 0);
                if (apply)
                    memcpy(d + q + 4, &t, 8);
                if (t < *mn)
                    *mn = t;
                if (t > *mx)
                    *mx = t;
                if (apply && (h & TRC_EVENT_MASK) == TRC_LOST_RECORDS &&
                    ((h >> 28) & 7) >= 4) {
                    /* hdr, tsc, count, dom/vcpu, first_tsc (u64) */
                    uint64_t ft = pis_ld64(d + q + 20) + shift;
                    memcpy(d + q + 20, &ft, 8);
                }
            }
            q += sz;
        }
        off = end;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t target, written = 0, top = 0;
    int copies = 0;
    FILE *out;

    if (argc < 4) {
        fprintf(stderr, "usage: tracesplice OUT MIN_MB IN...\n");
        return 2;
    }
    target = strtoull(argv[2], NULL, 10) << 20;
    out = fopen(argv[1], "wb");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    while (written < target) {
        for (int i = 3; i < argc && written < target; i++) {
            size_t len;
            uint64_t mn, mx, shift;
            unsigned char *d = slurp(argv[i], &len);
            if (!d || walk(d, len, 0, 0, &mn, &mx)) {
                fprintf(stderr, "%s: unreadable or not a clean trace\n",
                        argv[i]);
                return 1;
            }
            shift = copies ? top - mn + 1000000 : 0;
            walk(d, len, shift, 1, &mn, &mx);
            top = mx;
            if (fwrite(d, 1, len, out) != len) {
                perror("write");
                return 1;
            }
            written += len;
            copies++;
            free(d);
        }
    }
    if (fclose(out)) {
        perror("close");
        return 1;
    }
    printf("%s: %d copies, %llu bytes, last TSC %llu\n", argv[1], copies,
           (unsigned long long)written, (unsigned long long)top);
    return 0;
}
