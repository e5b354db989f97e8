/* pct.c - nearest-rank percentiles (exact). */
#include "pct.h"

uint64_t pis_rank(uint64_t n, unsigned p_x100)
{
    /* ceil(p*n/10000) without overflow for any n */
    uint64_t q = n / 10000u, r = n % 10000u;
    uint64_t rank = q * p_x100 + (r * p_x100 + 9999u) / 10000u;
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return rank;
}
