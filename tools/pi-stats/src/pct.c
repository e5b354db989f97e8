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

uint64_t pis_percentile(const struct pis_vc *vc, size_t nvc, uint64_t n,
                        unsigned p_x100)
{
    uint64_t rank = pis_rank(n, p_x100), seen = 0;

    for (size_t i = 0; i < nvc; i++) {
        seen += vc[i].count;
        if (seen >= rank)
            return vc[i].value;
    }
    return nvc ? vc[nvc - 1].value : 0;
}
