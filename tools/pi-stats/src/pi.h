/* pi.h - decode posted-interrupt events into per-pCPU exact histograms.
 *
 * Events (class TRC_HW_IRQ, see tracefmt.h):
 *   PI_LIST_ADD  domid<<16|vcpu, home<<16|list_pcpu, length, limit
 *   PI_WAKEUP    entries walked, vCPUs woken, cycles in the handler
 *   PI_LIST_MOVE domid<<16|vcpu, from_pcpu, to_pcpu, length
 *   PI_LIST_DEL  domid<<16|vcpu, list_pcpu, length (counted; its use is
 *                listtime.h's, with every change of the lists' lengths)
 * and the 2017 debug patch: BLOCK_LIST (domid, vcpu, pcpu, #entry),
 * WAKEUP_START (list_len) / WAKEUP_END paired per pCPU by TSC.
 *
 * Metrics and which pCPU a sample belongs to:
 *   list_length    PI_LIST_ADD length (list_pcpu), PI_LIST_MOVE length
 *                  (to_pcpu), legacy BLOCK_LIST #entry (its pcpu field)
 *   wakeup_cycles  PI_WAKEUP cycles, legacy END.tsc - START.tsc (record pCPU)
 *   wakeup_walked  PI_WAKEUP entries walked, legacy START list_len
 */
#ifndef PIS_PI_H
#define PIS_PI_H

#include <stdint.h>
#include "hist.h"
#include "owners.h"
#include "reader.h"

enum pis_metric_id { PIS_M_LIST_LEN, PIS_M_WAKE_CYCLES, PIS_M_WAKE_WALKED,
                     PIS_NMETRICS };

struct pis_metric {
    struct pis_hist *cpu[PIS_MAX_CPUS];   /* NULL until the first sample */
};

struct pis_pi_counts {
    uint64_t list_add, spilled_adds, list_move, wakeup, woken, list_del;
    uint64_t unbounded_adds, over_limit_adds;
    uint64_t legacy_block, legacy_start, legacy_end, legacy_pairs;
    uint64_t legacy_unmatched_start, legacy_unmatched_end;
    uint64_t legacy_voided_by_lost, legacy_untimed, legacy_backwards;
    uint64_t no_tsc;            /* new-style PI records without a TSC */
    uint64_t malformed;         /* too few words, or a cpu id > 4095 */
    uint64_t filtered_out;      /* samples outside --cpu */
    uint64_t out_of_range;      /* records outside --since/--until */
};

/* --since/--until: records kept when their TSC is in [lo, hi), counted
 * from base (the TSC of the input's first PI record that has one) when
 * relative, else absolute TSC values. */
struct pis_range {
    int on, relative, have_base;
    uint64_t base;
    int64_t rlo, rhi;           /* relative: cycles from base */
    uint64_t lo, hi;            /* absolute */
    int seen;                   /* PI records with a TSC looked at: */
    uint64_t seen_lo, seen_hi;  /* their lowest and highest TSC */
};

/* The longest list (the first sample of the maximum length, as in the
 * store) and the domain and vCPU that was added to or moved onto it. */
struct pis_longest {
    uint64_t len, offset;
    int set, file;
    uint32_t cpu, dom, vcpu;
};

/* --interval: the samples since the last interval report. */
struct pis_pi_interval {
    struct pis_hist h[PIS_NMETRICS];
    uint32_t max_cpu[PIS_NMETRICS];     /* pCPU of the first maximum */
    uint64_t list_add, wakeup;          /* the counters at the last report */
};

struct pis_pi_open {            /* legacy WAKEUP_START waiting for END */
    uint64_t tsc;
    int open;
};

struct pis_pi {
    struct pis_metric m[PIS_NMETRICS];
    struct pis_hist limits;     /* value = limit in force, count = adds */
    struct pis_pi_counts c;
    struct pis_longest longest;
    struct pis_pi_interval *iv; /* NULL without --interval */
    struct pis_pi_open *open;   /* PIS_MAX_CPUS entries */
    const unsigned char *cpu_filter;  /* bitmap, NULL = all */
    enum pis_by by;             /* list lengths also by domain or vCPU */
    struct pis_owners owners;   /* filled when by != PIS_BY_PCPU */
    struct pis_range range;
    struct pis_lt *lt;          /* time-weighted lengths (listtime.h) */
    int file;                   /* input index stamped on samples */
    int oom;
    pis_diag_fn diag;           /* PIS_DIAG_PI_MALFORMED warnings, or NULL */
    void *diag_ctx;
};

extern const char *const pis_metric_name[PIS_NMETRICS];

int pis_pi_init(struct pis_pi *p, const unsigned char *cpu_filter);
void pis_pi_free(struct pis_pi *p);
/* Register the events this decoder needs with a reader; grouped: those
 * whose order among the others does not matter for pis_pi_group (the
 * results are the same either way).  Not grouped with a relative
 * --since/--until: it counts from the first PI record in file order. */
int pis_pi_want(struct pis_reader *r, int grouped);
void pis_pi_record(struct pis_pi *p, const struct pis_rec *rec);
/* The same for the records of a group (pis_pi_want asks for grouped
 * delivery of the events whose order among others does not matter). */
void pis_pi_group(struct pis_pi *p, const struct pis_group *g);
/* Keep the samples of each interval too (--interval); 0 or -1. */
int pis_pi_interval_on(struct pis_pi *p);
/* Start a new interval. */
void pis_pi_interval_reset(struct pis_pi *p);
/* End of one input: open legacy pairs are unmatched; state is reset. */
void pis_pi_end_input(struct pis_pi *p);
int pis_pi_merge(struct pis_pi *dst, const struct pis_pi *src);
/* All pCPUs of a metric folded into one histogram (caller frees). */
int pis_pi_total(const struct pis_pi *p, enum pis_metric_id m,
                 struct pis_hist *out);
uint64_t pis_pi_events(const struct pis_pi *p);

#endif
