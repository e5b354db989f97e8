/* reader.h - one sequential pass over xentrace windows and records.
 *
 * The reader knows the file format only: it validates windows, walks
 * records, keeps per-pCPU counts and TSC order, resynchronises after
 * corruption and hands the records a client asked for to a callback.
 * It does not read files itself (see input.h): it is fed bytes.
 */
#ifndef PIS_READER_H
#define PIS_READER_H

#include <stddef.h>
#include <stdint.h>
#include "tracefmt.h"

struct pis_rec {
    uint64_t offset;        /* byte offset of the record header */
    uint64_t tsc;           /* valid when has_tsc */
    uint32_t event;         /* header & 0x0fffffff */
    uint32_t cpu;           /* pCPU of the window */
    uint32_t nwords;        /* extra words, 0..7 */
    int has_tsc;
    int swapped;            /* words are in the other byte order */
    const unsigned char *data;  /* the extra words, valid during on_rec */
};

/* Extra word i (< nwords) of a record, in host byte order: read from the
 * input where it lies, not copied (most records need two or three). */
static inline uint32_t pis_rec_w(const struct pis_rec *rec, unsigned i)
{
    return pis_ld32o(rec->data + 4 * i, rec->swapped);
}

enum pis_diag_kind {
    PIS_DIAG_CORRUPT,       /* bytes skipped to resynchronise */
    PIS_DIAG_TRUNCATED,     /* input ends inside a window or record */
    PIS_DIAG_TSC_BACK,      /* TSC went backwards on one pCPU */
    PIS_DIAG_PI_MALFORMED,  /* a PI record too short or out of range */
    PIS_DIAG_NOT_TRACE,     /* fatal: input is not a xentrace dump */
    PIS_DIAG_NKINDS
};

struct pis_cpu_stats {
    uint64_t records;
    uint64_t windows;
    uint64_t no_tsc;
    uint64_t last_tsc;          /* 0 before the first TSC */
    uint64_t by_class[PIS_NCLASS];
};

struct pis_read_stats {
    uint64_t bytes;             /* bytes consumed */
    uint64_t windows;           /* CPU_CHANGE headers accepted */
    uint64_t records;           /* records inside windows */
    uint64_t records_no_tsc;
    uint64_t wrap_records;
    uint64_t lost_markers;
    uint64_t lost_records;      /* sum of the counts the markers carry */
    uint64_t corrupt_bytes;
    uint64_t corrupt_events;    /* number of resynchronisations */
    uint64_t lead_bytes;        /* of corrupt_bytes: before the first
                                 * window (input cut mid-record) */
    uint64_t truncated_bytes;   /* partial record / header at the end */
    uint64_t truncated_windows; /* windows cut short by the end of input */
    uint64_t missing_bytes;     /* bytes those windows claim but lack */
    uint64_t tsc_backwards;
    uint64_t tsc_min, tsc_max;  /* valid when have_tsc */
    int have_tsc;
    unsigned byte_order;        /* PIS_BO_* bits: the input's byte order
                                 * (both for merged inputs that differ) */
};

#define PIS_BO_LITTLE 1u
#define PIS_BO_BIG    2u

typedef void (*pis_rec_fn)(void *ctx, const struct pis_rec *rec);

/* Records of one grouped event (pis_reader_want_grouped) from one window,
 * in file order. */
struct pis_group {
    const unsigned char *p;     /* the window's first record */
    const uint32_t *q;          /* offsets in p of the n records */
    uint64_t base;              /* input offset of p */
    uint32_t n, event, cpu;
    int swapped;
};
typedef void (*pis_group_fn)(void *ctx, const struct pis_group *g);

/* Record k of a group. */
static inline void pis_group_rec(const struct pis_group *g, uint32_t k,
                                 struct pis_rec *rec)
{
    const unsigned char *at = g->p + g->q[k];
    uint32_t h = pis_ld32o(at, g->swapped);

    rec->offset = g->base + g->q[k];
    rec->event = g->event;
    rec->cpu = g->cpu;
    rec->nwords = (h >> TRC_EXTRA_SHIFT) & TRC_EXTRA_MASK;
    rec->has_tsc = (h & TRC_TSC_FLAG) != 0;
    rec->tsc = rec->has_tsc ? pis_ldtsc(at + 4, g->swapped) : 0;
    rec->swapped = g->swapped;
    rec->data = at + (rec->has_tsc ? 12 : 4);
}
typedef void (*pis_diag_fn)(void *ctx, enum pis_diag_kind kind,
                            uint64_t offset, const char *msg);

/* Events a reader looks up per record: the wanted ones and its own. */
#define PIS_WANT_MAX   16
#define PIS_LOOKUP     256      /* slots of the event table (hashed) */
/* An input cut mid-record: its first window header must start in the
 * first PIS_LEAD_MAX bytes. */
#define PIS_LEAD_MAX   (1u << 20)
/* Records of grouped events held at most before they are passed on. */
#define PIS_GROUP      512

struct pis_reader {
    pis_rec_fn on_rec;
    pis_group_fn on_group;      /* grouped events' records, or NULL: then
                                 * each goes to on_rec */
    pis_diag_fn on_diag;
    void *ctx;
    /* Wanted events, and WRAP_BUFFER and LOST_RECORDS, in a table hashed
     * by a multiplier chosen so that none of them share a slot: one load
     * and compare per record, no branch. */
    uint32_t want_evt[PIS_WANT_MAX];
    unsigned char want_grouped[PIS_WANT_MAX];
    unsigned nwant;
    /* Records of grouped events not yet passed on: group s (1..nwant,
     * the want_evt index + 1) holds gn[s] offsets in the window being
     * walked at gq + s * PIS_GROUP. */
    uint32_t *gq;
    uint32_t gn[PIS_WANT_MAX + 1];
    uint32_t hash_mul;
    uint32_t lk_evt[PIS_LOOKUP];
    unsigned char lk_code[PIS_LOOKUP];
    unsigned char lk_group[PIS_LOOKUP];     /* group of the event, or 0 */
    /* The class index (pis_class_index) of each value of the class bits. */
    unsigned char class_of[1u << 12];
    struct pis_cpu_stats *cpu;  /* PIS_MAX_CPUS entries */
    struct pis_read_stats st;
    uint64_t pos;               /* absolute offset of the next byte */
    int fatal;                  /* input rejected (not a trace) */
    int swapped;                /* input in the other byte order than the
                                 * host's: every 32-bit word is swapped */
    int done;
    /* resynchronisation state */
    int resync;
    int lead;                   /* resync from byte 0: no window yet */
    size_t lead_from;           /* no window header starts before this
                                 * byte of an input that does not start
                                 * with one (searched while it came) */
    uint64_t resync_start;
    char resync_why[160];
};

/* Returns 0, or -1 when out of memory. */
int pis_reader_init(struct pis_reader *r, pis_rec_fn on_rec,
                    pis_diag_fn on_diag, void *ctx);
void pis_reader_free(struct pis_reader *r);
/* Ask for the records with this exact event id: each is passed to on_rec
 * as it is walked, in file order.  LOST_RECORDS is always tracked by the
 * reader; ask for it too if the client keeps pairing state.
 * Returns -1 when the table is full. */
int pis_reader_want(struct pis_reader *r, uint32_t event);
/* The same, for an event whose records may reach on_rec grouped: those of
 * up to PIS_GROUP records of one window are passed on together, event by
 * event (each event's in file order), after that part of the window was
 * walked, not in file order among other events.  For a client that needs
 * no order between events: the event sequence of a window with many
 * kinds is not predictable, one call per event in turn is. */
int pis_reader_want_grouped(struct pis_reader *r, uint32_t event);

/* Process the bytes at absolute offset r->pos.  buf holds len bytes;
 * eof says no more bytes follow.  Handles at most one window (or one
 * resynchronisation scan).  Returns the number of bytes consumed; 0 means
 * more input is needed (never returned when eof, except at the end). */
size_t pis_reader_step(struct pis_reader *r, const unsigned char *buf,
                       size_t len, int eof);

/* Call after the last step: reports an unfinished resynchronisation. */
void pis_reader_finish(struct pis_reader *r);

/* Number of distinct cpu ids seen. */
unsigned pis_reader_npcpus(const struct pis_reader *r);

#endif
