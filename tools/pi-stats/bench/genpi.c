/* genpi.c - a PI-heavy xentrace file in the real format, for benchmarks:
 * NCPU pCPUs, windows of ~32 KB written round-robin, records drawn from a
 * fixed-seed xorshift: 35% PI_LIST_ADD, 35% PI_WAKEUP, 2% PI_LIST_MOVE,
 * 28% scheduler events.  Usage: genpi [--del] OUT MB [NCPU [WINDOW_BYTES]]
 * (windows of about WINDOW_BYTES, default 32768, at most 32768).
 *
 * The lengths of the default trace are random, not those of any list.
 * --del writes a consistent one instead, as the series that traces
 * PI_LIST_DEL does: one clock for all pCPUs, each list's length kept and
 * every change of it recorded: 30% PI_LIST_ADD (1 in 16 onto another
 * pCPU's list), 30% PI_WAKEUP of the window's pCPU's list (walked = its
 * length, some woken), 10% PI_LIST_DEL of a random list, 1 in 10000 a
 * PI_LIST_MOVE away from the window's pCPU's list, the rest scheduler
 * events; a list at 64 gets no more adds. */
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

static uint32_t len[4096];     /* --del: each list's length */
static uint64_t clock_now;      /* --del: the one clock */

/* One record of the --del trace on pCPU cpu's window at p; its size. */
static size_t put_del(unsigned char *p, unsigned cpu, unsigned ncpu)
{
    uint64_t r = rnd();
    unsigned k = (unsigned)(r % 100), list;
    uint32_t w[4];

    clock_now += 200 + (r >> 40) % 5000;
    w[0] = (uint32_t)(((r >> 16) % 64) << 16 | ((r >> 24) % 128));
    if ((r >> 44) % 10000 == 0 && len[cpu] && ncpu > 1) {
        w[1] = cpu;
        w[2] = (cpu + 1) % ncpu;
        len[cpu]--;
        w[3] = ++len[w[2]];
        return put(p, PI_EVT_LIST_MOVE, clock_now, 4, w);
    }
    if (k < 30) {
        list = (r >> 8) % 16 ? cpu : (unsigned)((r >> 12) % ncpu);
        if (len[list] < 64) {
            w[1] = cpu << 16 | list;
            w[2] = ++len[list];
            w[3] = 0;
            return put(p, PI_EVT_LIST_ADD, clock_now, 4, w);
        }
    } else if (k < 60) {
        w[0] = len[cpu];
        w[1] = w[0] ? (uint32_t)((r >> 8) % (w[0] + 1)) : 0;
        w[2] = 800 + (uint32_t)((r >> 16) % (1000 + 900u * w[0]));
        len[cpu] -= w[1];
        return put(p, PI_EVT_WAKEUP, clock_now, 3, w);
    } else if (k < 70) {
        list = (unsigned)((r >> 12) % ncpu);
        if (len[list]) {
            w[1] = list;
            w[2] = --len[list];
            return put(p, PI_EVT_LIST_DEL, clock_now, 3, w);
        }
    }
    w[0] = (uint32_t)(r >> 8);
    w[1] = (uint32_t)(r >> 32);
    return put(p, 0x0002800e, clock_now, 2, w);
}

int main(int argc, char **argv)
{
    static unsigned char win[40000];
    uint64_t target, written = 0, tsc[4096];
    int del = argc > 1 && strcmp(argv[1], "--del") == 0;
    unsigned ncpu, cpu = 0;
    size_t wbytes;
    FILE *out;

    argc -= del;
    argv += del;
    ncpu = argc > 3 ? (unsigned)atoi(argv[3]) : 64;
    wbytes = argc > 4 ? (size_t)atoi(argv[4]) : 32768;
    if (argc < 3 || ncpu == 0 || ncpu > 4096 || wbytes < 64 ||
        wbytes > 32768) {
        fprintf(stderr, "usage: genpi [--del] OUT MB [NCPU "
                "[WINDOW_BYTES]]\n");
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
    clock_now = 1000000;
    while (written < target) {
        size_t q = 12;
        uint32_t hdr[3] = { TRC_CPU_CHANGE_HDR, cpu, 0 };
        while (del && q < wbytes)
            q += put_del(win + q, cpu, ncpu);
        while (!del && q < wbytes) {
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
