/* listtime.h - time-weighted list lengths: how long (in TSC cycles) each
 * posted-interrupt blocking list spent at each length, exact.
 *
 * The series that writes PI_LIST_DEL traces every change of a list's
 * length, each record giving the length before (b) and after (a) it:
 *   PI_LIST_ADD        list_pcpu   b = a - 1, a = length
 *   PI_LIST_DEL        list pCPU   b = a + 1, a = length
 *   PI_LIST_MOVE onto  to_pcpu     b = a - 1, a = length
 *   PI_WAKEUP          record pCPU b = walked, a = walked - woken
 *   PI_LIST_MOVE away  from_pcpu   a = b - 1, b not in the record
 * Records come in per-pCPU windows, not in TSC order; nothing is stored
 * and sorted.  With changes of a list at t_j from b_j to a_j,
 *   time_at[L] = sum_j t_j ([b_j == L] - [a_j == L])
 *                + T_end [final == L] - T_start [initial == L]
 * (initial = b of the lowest-TSC change, final = a of the highest), summed
 * modulo 2^64 as the records arrive: the result, in [0, T_end - T_start],
 * is exact.  A move away from a list gets its b at the end, from the
 * nearest absolute change of the list before it (its a, less the moves
 * away in between) or after it (its b, plus the moves away up to it).
 * Memory: lists x distinct lengths, and the moves away from each list.
 */
#ifndef PIS_LISTTIME_H
#define PIS_LISTTIME_H

#include <stdint.h>
#include "pi.h"
#include "reader.h"

#define PIS_LT_MAX_LEN   (1u << 20)     /* longer: a malformed record */
#define PIS_LT_MAX_MOVES 4096u          /* moves away from one list */

/* Why a list's figures are not exact (bits of pis_lt_list.bad). */
enum {
    PIS_LT_BAD_LEN = 1,         /* a length >= PIS_LT_MAX_LEN, or more
                                 * woken than walked, or below 0 */
    PIS_LT_BAD_NO_TSC = 2,      /* a change without a TSC */
    PIS_LT_BAD_MOVES = 4,       /* too many moves away from it */
    PIS_LT_BAD_STRADDLE = 8,    /* a move away read after changes of the
                                 * list on both sides of it in time */
    PIS_LT_BAD_UNRESOLVED = 16, /* a move away with no change around it */
    PIS_LT_BAD_DISAGREE = 32,   /* the changes before and after a move
                                 * away give it different lengths */
    PIS_LT_BAD_NEGATIVE = 64,   /* a sum out of [0, duration]: records
                                 * out of order or missing */
    PIS_LT_BAD_NOMEM = 128,     /* the memory budget ran out */
    PIS_LT_NBAD = 8
};

struct pis_lt_move {            /* a PI_LIST_MOVE away from a list */
    uint64_t tsc;
    uint64_t pred_tsc, succ_tsc;    /* nearest absolute changes around */
    uint32_t pred_a, succ_b;        /* their length after / before */
    unsigned char has_pred, has_succ;
};

struct pis_lt_list {
    uint64_t *at;               /* at[length]: the sums, cap entries */
    uint32_t cap;
    uint64_t changes;           /* absolute changes (all but moves away) */
    uint64_t lo_tsc, hi_tsc;    /* the lowest and highest of them */
    uint32_t lo_b, hi_a;
    struct pis_lt_move *mv;     /* the moves away, until the end */
    uint32_t nmv, mvcap;
    uint32_t nopred, nosucc;    /* moves without a change before, after */
    uint64_t mv_lo, mv_hi;      /* their lowest and highest TSC */
    uint64_t pred_lo, succ_hi;  /* bounds of the changes they hold */
    uint64_t moves_away;
    unsigned bad;               /* PIS_LT_BAD_* */
    uint64_t duration;          /* cycles covered (after the end) */
};

struct pis_lt {
    struct pis_lt_list *list[PIS_MAX_CPUS];     /* NULL: no change */
    uint64_t del;               /* PI_LIST_DEL records looked at */
    uint64_t entries;           /* at[] entries and moves held: budget */
    int done, available;
    char reason[160];           /* why not available */
    uint64_t t_start, t_end;    /* the window (single input) */
};

extern const char *const pis_lt_bad_name[PIS_LT_NBAD];

/* A PI record (ADD, WAKEUP, MOVE, DEL) in range: its changes.  *ltp is
 * made on the first; lists outside cpu_filter (a bitmap, NULL = all) are
 * left out.  Malformed records are pi.c's to count: ignored here. */
void pis_lt_record(struct pis_lt **ltp, const struct pis_rec *rec,
                   const unsigned char *cpu_filter);
/* pis_lt_record of every record of a group. */
void pis_lt_group(struct pis_lt **ltp, const struct pis_group *g,
                  const unsigned char *cpu_filter);
/* End of the input read into p with reader statistics st: the window,
 * each list's figures, whether they are available and why not.  Makes
 * *ltp when missing (to say why nothing is available); 0 or -1. */
int pis_lt_finish(struct pis_lt **ltp, const struct pis_pi *p,
                  const struct pis_read_stats *st);
/* Fold finished src into dst (made when missing): per list, the sums and
 * durations add up; available only when both are.  0 or -1. */
int pis_lt_merge(struct pis_lt **dst, const struct pis_lt *src);
void pis_lt_free(struct pis_lt *lt);

/* A finished list's figures (bad == 0): time-weighted mean, the lengths
 * at time-weighted percentiles 50 and 99, the maximum length held for any
 * time, and the cycles at it. */
struct pis_lt_summary {
    double mean;
    uint64_t p50, p99, max, at_max;
};
void pis_lt_summarize(const uint64_t *at, uint32_t cap, uint64_t duration,
                      struct pis_lt_summary *s);
/* The sums of the exact lists folded into one (caller frees), NULL with
 * *cap = 0 when there are none; *duration their total. */
uint64_t *pis_lt_total(const struct pis_lt *lt, uint32_t *cap,
                       uint64_t *duration, unsigned *nlists);

#endif
