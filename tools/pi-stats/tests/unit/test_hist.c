/* test_hist.c - exact histogram store, nearest-rank percentiles, bucket
 * schemes and the cpu list parser, checked against hand-computed values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "cpulist.h"
#include "hist.h"
#include "pct.h"
#include "report.h"
#include "tap.h"

static void test_ranks(void)
{
    /* nearest rank: ceil(p/100 * n) */
    CHECK(pis_rank(1, 5000) == 1, "n=1");
    CHECK(pis_rank(3, 5000) == 2, "ceil(1.5)");
    CHECK(pis_rank(3, 9000) == 3, "ceil(2.7)");
    CHECK(pis_rank(10, 9000) == 9, "ceil(9.0)");
    CHECK(pis_rank(1000, 9990) == 999, "p99.9 of 1000");
    CHECK(pis_rank(1001, 9990) == 1000, "ceil(999.999)");
    CHECK(pis_rank(UINT64_MAX, 10000) == UINT64_MAX, "no overflow");
    CHECK(pis_rank(UINT64_MAX, 5000) == UINT64_MAX / 2 + 1, "half of max %llu",
          (unsigned long long)pis_rank(UINT64_MAX, 5000));
}

static void test_uniform(void)
{
    struct pis_hist h;
    struct pis_summary s;
    struct pis_vc *vc;
    size_t n;

    pis_hist_init(&h);
    /* 1..1000 inserted in a scrambled order, each once */
    for (uint64_t i = 0; i < 1000; i++)
        CHECK(pis_hist_add(&h, (i * 7919) % 1000 + 1, 1, 1, i, i * 4, 0) == 0,
              "add");
    CHECK(pis_hist_compact(&h) == 0, "compact");
    CHECK(h.used == 1000 && h.count == 1000, "used %zu", h.used);
    CHECK(pis_summarize(&h, &s, &vc, &n) == 0, "summarize");
    CHECK(s.min == 1 && s.max == 1000, "min %llu max %llu",
          (unsigned long long)s.min, (unsigned long long)s.max);
    CHECK(s.p50 == 500 && s.p90 == 900 && s.p99 == 990 && s.p999 == 999,
          "p50 %llu p90 %llu p99 %llu p999 %llu", (unsigned long long)s.p50,
          (unsigned long long)s.p90, (unsigned long long)s.p99,
          (unsigned long long)s.p999);
    /* max 1000 was added at i with (i*7919)%1000 == 999 -> i = 1 (7919%1000=919)... find it */
    {
        uint64_t want = 0;
        for (uint64_t i = 0; i < 1000; i++)
            if ((i * 7919) % 1000 + 1 == 1000)
                want = i;
        CHECK(s.max_tsc == want && s.max_offset == want * 4,
              "max at tsc %llu", (unsigned long long)s.max_tsc);
    }
    for (size_t i = 1; i < n; i++)
        CHECK(vc[i - 1].value < vc[i].value, "sorted");
    free(vc);
    pis_hist_free(&h);
}

static void test_merge_and_ties(void)
{
    struct pis_hist a, b;

    pis_hist_init(&a);
    pis_hist_init(&b);
    pis_hist_add(&a, 5, 1, 1, 100, 40, 1);
    pis_hist_add(&a, 7, 2, 1, 200, 80, 1);
    pis_hist_add(&b, 7, 1, 1, 300, 12, 0);  /* same max, earlier input */
    pis_hist_add(&b, 1, 3, 0, 0, 8, 0);
    CHECK(pis_hist_merge(&a, &b) == 0, "merge");
    CHECK(pis_hist_compact(&a) == 0, "compact");
    CHECK(a.count == 7 && a.used == 3 && a.vc[0].value == 1 && a.max == 7,
          "count %llu used %zu", (unsigned long long)a.count, a.used);
    CHECK(a.max_file == 0 && a.max_offset == 12 && a.max_tsc == 300,
          "tie keeps the earlier input: file %d off %llu", a.max_file,
          (unsigned long long)a.max_offset);
    pis_hist_free(&a);
    pis_hist_free(&b);
}

/* Many samples (buffer flushes many times), wide 64-bit values. */
static void test_many(void)
{
    struct pis_hist h;
    struct pis_summary s;
    struct pis_vc *vc;
    size_t n;
    uint64_t big = 0x0123456789abcdefull;

    pis_hist_init(&h);
    for (uint64_t i = 0; i < 200000; i++)     /* 0..4999, 40 of each */
        pis_hist_add(&h, (i * 2654435761u) % 5000, 1, 0, 0, i, 0);
    pis_hist_add(&h, big, 1, 1, 77, 1, 0);
    pis_hist_add(&h, big - 256, 3, 1, 78, 2, 0);   /* n > 1 path */
    CHECK(pis_summarize(&h, &s, &vc, &n) == 0, "summarize");
    CHECK(n == 5002 && s.count == 200004, "n %zu count %llu", n,
          (unsigned long long)s.count);
    {
        int ok = 1;
        for (size_t i = 0; i < 5000; i++)
            ok &= vc[i].value == i && vc[i].count == 40;
        CHECK(ok, "each of 0..4999 counted 40 times");
    }
    CHECK(vc[5000].value == big - 256 && vc[5000].count == 3 &&
          vc[5001].value == big, "64-bit values sorted");
    /* rank ceil(.5*200004)=100002 -> value 2500 (ranks 100001..100040) */
    CHECK(s.p50 == 2500 && s.p99 == 4950 && s.max == big &&
          s.max_tsc == 77, "p50 %llu p99 %llu", (unsigned long long)s.p50,
          (unsigned long long)s.p99);
    /* p99.9: rank ceil(199804.0) = 199804 -> 4995 (199801..199840) */
    CHECK(s.p999 == 4995, "p999 %llu", (unsigned long long)s.p999);
    free(vc);
    CHECK(pis_hist_compact(&h) == 0 && h.buf == NULL && h.used + h.wnz == 5002,
          "compact");
    pis_hist_free(&h);
}

/* Sample i of test_store. */
static uint32_t store_value(uint64_t i)
{
    if (i % 3 == 0)
        return 2500;            /* 70000 times */
    if (i % 3 == 1)
        return (uint32_t)((i * 7919) % 1000);
    return 2000 + (uint32_t)((i * 2654435761u) % 1000);
}

/* The sorted values of h equal times the counts of ref[0..3000). */
static int same_as(const struct pis_hist *h, const uint64_t *ref,
                   uint64_t times)
{
    size_t n, k = 0;
    struct pis_vc *vc = pis_hist_sorted(h, &n);
    int ok = vc != NULL;

    for (uint64_t v = 0; ok && v < 3000; v++) {
        if (!ref[v])
            continue;
        ok = k < n && vc[k].value == v && vc[k].count == ref[v] * times;
        k++;
    }
    free(vc);
    return ok && k == n;
}

/* Samples one at a time through many buffer flushes, against counts kept
 * here; ranks against the sorted copy; merges and sums add counts. */
static void test_store(void)
{
    enum { N = 210000 };
    static uint64_t ref[3000];
    struct pis_hist one, twice, sum;
    const struct pis_hist *three[3] = { &one, &one, &one };
    struct pis_summary s;
    struct pis_vc *vc;
    uint64_t rank[64], got[64];
    size_t nvc;

    pis_hist_init(&one);
    pis_hist_init(&twice);
    for (uint64_t i = 0; i < N; i++) {
        uint32_t v = store_value(i);
        ref[v]++;
        CHECK(pis_hist_add1(&one, v, 1, i * 10, i * 4, 0) == 0, "add1");
    }
    CHECK(one.count == N && same_as(&one, ref, 1), "counts as kept here");
    CHECK(pis_summarize(&one, &s, NULL, NULL) == 0 && s.max == 2999 &&
          s.min == 0, "min %llu max %llu", (unsigned long long)s.min,
          (unsigned long long)s.max);
    CHECK(pis_hist_compact(&one) == 0 && one.buf == NULL &&
          same_as(&one, ref, 1), "compacted");
    rank[0] = 1;
    for (int k = 1; k < 63; k++)
        rank[k] = (uint64_t)N * k / 63 + k % 3;
    rank[63] = N;
    vc = pis_hist_sorted(&one, &nvc);
    CHECK(vc && pis_hist_at_ranks(&one, rank, 64, got) == 0, "at_ranks");
    for (int k = 0; vc && k < 64; k++) {
        uint64_t seen = 0, want = 0;
        for (size_t i = 0; i < nvc; i++) {
            seen += vc[i].count;
            if (seen >= rank[k]) {
                want = vc[i].value;
                break;
            }
        }
        CHECK(got[k] == want, "rank %llu: %llu, sorted says %llu",
              (unsigned long long)rank[k], (unsigned long long)got[k],
              (unsigned long long)want);
    }
    free(vc);
    CHECK(pis_hist_merge(&twice, &one) == 0 &&
          pis_hist_merge(&twice, &one) == 0 && twice.count == 2 * N &&
          same_as(&twice, ref, 2), "merged twice: every count doubled");
    CHECK(pis_hist_sum(&sum, three, 3) == 0 && sum.count == 3 * N &&
          same_as(&sum, ref, 3) && sum.max == 2999 &&
          sum.max_offset == one.max_offset, "the sum of three copies");
    pis_hist_free(&one);
    pis_hist_free(&twice);
    pis_hist_free(&sum);
}

static void test_buckets(void)
{
    struct pis_vc vc[] = { { 0, 1 }, { 1, 2 }, { 3, 4 }, { 4, 8 },
                           { 1000, 1 }, { 1024, 5 } };
    struct pis_bucket *b;
    size_t n;
    uint64_t lo, hi;

    b = pis_buckets(vc, 6, PIS_LOG2, 0, 0, &n);
    /* [0,1):1 [1,2):2 [2,4):4 [4,8):8 [512,1024):1 [1024,2048):5 */
    CHECK(n == 6, "n %zu", n);
    CHECK(b[0].low == 0 && b[0].high == 1 && b[0].count == 1, "b0");
    CHECK(b[1].low == 1 && b[1].high == 2 && b[1].count == 2, "b1");
    CHECK(b[2].low == 2 && b[2].high == 4 && b[2].count == 4, "b2");
    CHECK(b[3].low == 4 && b[3].high == 8 && b[3].count == 8, "b3");
    CHECK(b[4].low == 512 && b[4].high == 1024 && b[4].count == 1, "b4");
    CHECK(b[5].low == 1024 && b[5].high == 2048 && b[5].count == 5, "b5");
    free(b);
    b = pis_buckets(vc, 6, PIS_LOG2, 0, 1, &n);
    CHECK(n == 12, "dense log2 has every bucket from [0,1) to [1K,2K): %zu",
          n);
    free(b);
    b = pis_buckets(vc, 4, PIS_LINEAR, 2, 0, &n);
    /* step 2: [0,2):3 [2,4):4 [4,6):8 */
    CHECK(n == 3 && b[0].count == 3 && b[1].count == 4 && b[2].count == 8 &&
          b[2].low == 4 && b[2].high == 6, "linear step 2");
    free(b);
    pis_bucket_bounds(PIS_LOG2, 0, 64, &lo, &hi);
    CHECK(lo == 1ull << 63 && hi == UINT64_MAX, "top log2 bucket");
    CHECK(pis_bucket_index(PIS_LOG2, 0, UINT64_MAX) == 64, "index of max");
}

static void test_cpulist(void)
{
    unsigned char m[PIS_CPUMAP_BYTES];
    char err[128];

    CHECK(pis_cpulist_parse("0-3,8,4000", m, err, sizeof(err)) == 0, "%s",
          err);
    CHECK(m[0] == 0x0f && m[1] == 0x01 && (m[500] & 1), "bits");
    CHECK(pis_cpulist_parse("4095", m, err, sizeof(err)) == 0, "4095");
    CHECK(pis_cpulist_parse("4096", m, err, sizeof(err)) == -1, "4096");
    CHECK(pis_cpulist_parse("3-1", m, err, sizeof(err)) == -1, "3-1");
    CHECK(pis_cpulist_parse("1,,2", m, err, sizeof(err)) == -1, "1,,2");
    CHECK(pis_cpulist_parse("", m, err, sizeof(err)) == -1, "empty");
    CHECK(pis_cpulist_parse("-1", m, err, sizeof(err)) == -1, "-1");
    CHECK(pis_cpulist_parse("1x", m, err, sizeof(err)) == -1, "1x");
}

/* Ranks of small stores (a few hundred samples, as each of thousands of
 * pCPUs holds): small counters and buffered values, some below
 * PIS_HIST_SMALL (buffered before the counters grew to them), read where
 * they lie; every rank against the sorted copy. */
static void test_small_ranks(void)
{
    static const unsigned sizes[] = { 1, 2, 5, 31, 32, 33, 100, 700, 1024 };

    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        struct pis_hist h;
        struct pis_vc *vc;
        uint64_t rank[1100], got[1100];
        size_t nvc, bad = 0;
        uint64_t x = 0x9e3779b97f4a7c15ull;

        pis_hist_init(&h);
        for (unsigned i = 0; i < sizes[z]; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* small values first far above the counters' first 64 */
            uint64_t v = i % 3 ? 800 + x % 60000 : (i < 40 ? 500 + x % 8
                                                             : x % 70);
            CHECK(pis_hist_add1(&h, v, 1, i, i, 0) == 0, "add");
        }
        vc = pis_hist_sorted(&h, &nvc);
        for (uint64_t k = 0; k < h.count; k++)
            rank[k] = k + 1;
        CHECK(vc && pis_hist_at_ranks(&h, rank, h.count, got) == 0,
              "%u samples: at_ranks", sizes[z]);
        for (size_t i = 0, k = 0, seen = 0; vc && i < nvc; i++)
            for (seen += vc[i].count; k < seen; k++)
                bad += got[k] != vc[i].value;
        CHECK(h.used == 0 && h.wide == NULL && bad == 0,
              "%u samples held in small counters and buffer: every rank "
              "as the sorted copy says (%zu differ)", sizes[z], bad);
        free(vc);
        pis_hist_free(&h);
    }
}

int main(void)
{
    test_ranks();
    test_uniform();
    test_merge_and_ties();
    test_many();
    test_store();
    test_small_ranks();
    test_buckets();
    test_cpulist();
    return TAP_DONE();
}
