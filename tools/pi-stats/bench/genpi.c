/* genpi.c - a PI-heavy xentrace file in the real format, for benchmarks:
 * NCPU pCPUs, windows of ~32 KB written round-robin, records drawn from a
 * fixed-seed xorshift: 35% PI_LIST_ADD, 35% PI_WAKEUP, 2% PI_LIST_MOVE,
 * 28% scheduler events.  Usage: genpi OUT MB [NCPU [WINDOW_BYTES]]
 * (windows of about WINDOW_BYTES, default 32768, at most 32768). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static size_t put(unsigned char *p, uint32_t ev, uint64_t tsc, int n,
                  const uint32_t *w)
{
    uint32_t h = ev | ((uint32_t)n << 28) | TRC_TSC_FLAG;
    memcpy(p, &h, 4);
    memcpy(p + 4, &tsc, 8);
    memcpy(p + 12, w, 4u * (unsigned)n);
    return 12 + 4u * (unsigned)n;
}

int main(int argc, char **argv)
{
    static unsigned char win[40000];
    uint64_t target, written = 0, tsc[4096];
    unsigned ncpu = argc > 3 ? (unsigned)atoi(argv[3]) : 64, cpu = 0;
    size_t wbytes = argc > 4 ? (size_t)atoi(argv[4]) : 32768;
    FILE *out;

    if (argc < 3 || ncpu == 0 || ncpu > 4096 || wbytes < 64 ||
        wbytes > 32768) {
        fprintf(stderr, "usage: genpi OUT MB [NCPU [WINDOW_BYTES]]\n");
        return 2;
    }
    target = strtoull(argv[2], NULL, 10) << 20;
    out = fopen(argv[1], "wb");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    for (unsigned c = 0; c < ncpu; c++)
        tsc[c] = 1000000 + c;
    while (written < target) {
        size_t q = 12;
        uint32_t hdr[3] = { TRC_CPU_CHANGE_HDR, cpu, 0 };
        while (q < wbytes) {
            uint64_t r = rnd();
            unsigned k = (unsigned)(r % 100);
            uint32_t w[4];
            tsc[cpu] += 200 + (r >> 40) % 5000;
            if (k < 35) {
                unsigned list = (r >> 8) % 16 ? cpu : (unsigned)((r >> 12) % ncpu);
                w[0] = (uint32_t)(((r >> 16) % 64) << 16 | ((r >> 24) % 128));
                w[1] = cpu << 16 | list;
                w[2] = 1 + (uint32_t)((r >> 32) % 40);
                w[3] = (r >> 20) % 2 ? 32 : 0;
                q += put(win + q, PI_EVT_LIST_ADD, tsc[cpu], 4, w);
            } else if (k < 70) {
                w[0] = (uint32_t)((r >> 32) % 40);
                w[1] = w[0] ? 1 + (uint32_t)((r >> 8) % w[0]) : 0;
                w[2] = 800 + (uint32_t)((r >> 16) % (1000 + 900u * w[0]));
                q += put(win + q, PI_EVT_WAKEUP, tsc[cpu], 3, w);
            } else if (k < 72) {
                w[0] = 1;
                w[1] = cpu;
                w[2] = (cpu + 1) % ncpu;
                w[3] = 1 + (uint32_t)((r >> 32) % 40);
                q += put(win + q, PI_EVT_LIST_MOVE, tsc[cpu], 4, w);
            } else {
                w[0] = (uint32_t)(r >> 8);
                w[1] = (uint32_t)(r >> 32);
                q += put(win + q, 0x0002800e, tsc[cpu], 2, w);
            }
        }
        hdr[2] = (uint32_t)(q - 12);
        memcpy(win, hdr, 12);
        if (fwrite(win, 1, q, out) != q) {
            perror("write");
            return 1;
        }
        written += q;
        cpu = (cpu + 1) % ncpu;
    }
    if (fclose(out)) {
        perror("close");
        return 1;
    }
    printf("%s: %llu bytes, %u pCPUs\n", argv[1], (unsigned long long)written,
           ncpu);
    return 0;
}
