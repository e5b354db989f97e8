/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pi-harness: the trace writer.  pi.c's TRACE_xD records go to per-pCPU
 * buffers, flushed as xentrace windows (TRC_TRACE_CPU_CHANGE + records,
 * each with its TSC); the harness also learns list lengths from them, and
 * checks every field of PI_LIST_ADD, PI_LIST_MOVE and PI_WAKEUP against
 * its own state at the moment the record is written.
 */
#define _GNU_SOURCE
#include "harness.h"

/* ---- tracing: per-pCPU buffers flushed as xentrace windows ---- */
#define TBUF_WINDOW 32768
struct tbuf {
    pthread_mutex_t lock;
    unsigned char data[TBUF_WINDOW];
    size_t used;
};
static struct tbuf tbuf[NR_CPUS];
FILE *trace_file;
static pthread_mutex_t trace_file_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t trace_bytes;
uint64_t trace_records;

static void tbuf_flush(unsigned int cpu)
{
    struct tbuf *b = &tbuf[cpu];
    uint32_t hdr[3] = { TRC_TRACE_CPU_CHANGE | (2u << TRACE_EXTRA_SHIFT),
                        cpu, b->used };

    if ( !b->used )
        return;
    pthread_mutex_lock(&trace_file_lock);
    if ( fwrite(hdr, sizeof(hdr), 1, trace_file) != 1 ||
         fwrite(b->data, b->used, 1, trace_file) != 1 )
    {
        perror("trace");
        exit(2);
    }
    trace_bytes += sizeof(hdr) + b->used;
    pthread_mutex_unlock(&trace_file_lock);
    b->used = 0;
}

__thread struct vcpu *blocking_vcpu;

/* The first word of PI_LIST_ADD and PI_LIST_MOVE: domain << 16 | vCPU. */
static uint32_t vcpu_word(const struct vcpu *v)
{
    return ((uint32_t)v->domain->domain_id << 16) | (v->vcpu_id & 0xffff);
}

/* The vCPU a record's first word names, or NULL. */
static struct vcpu *word_vcpu(uint32_t w)
{
    unsigned int i = w & 0xffff;

    return i < nr_vcpus && vcpu_word(&hv[i]->v) == w ? &hv[i]->v : NULL;
}

/*
 * Single-threaded: the pCPU whose list each vCPU went on by its last
 * PI_LIST_ADD or PI_LIST_MOVE (-1: not traced), where a move starts.
 */
static int traced_list[MAX_VCPUS] = { [0 ... MAX_VCPUS - 1] = -1 };

/* PI_LIST_ADD: dom:vCPU, home << 16 | list pCPU, length, home's limit. */
static void check_add(const uint32_t *d)
{
    const struct vcpu *v = blocking_vcpu;
    unsigned int home = d[1] >> 16, lc = d[1] & 0xffff;

    if ( !v )
    {
        violation("PI_LIST_ADD outside a block", d[0], d[1]);
        return;
    }
    if ( d[0] != vcpu_word(v) )
        violation("PI_LIST_ADD: domain:vCPU is not the blocking vCPU's",
                  d[0], vcpu_word(v));
    /* The vCPU's own steps are held off: its pCPU stays. */
    if ( home != v->processor )
        violation("PI_LIST_ADD: home pCPU is not the vCPU's", home,
                  v->processor);
    if ( threaded )
        return;
    /* Single-threaded, nothing changed since the block looked. */
    if ( (int)lc != list_cpu_of(v) )
        violation("PI_LIST_ADD: list pCPU is not the vCPU's list", lc,
                  list_cpu_of(v));
    if ( home < nr_cpu_ids && d[3] != harness_limit_of(home) )
        violation("PI_LIST_ADD: limit is not its pCPU's", d[3],
                  harness_limit_of(home));
    traced_list[v->vcpu_id] = lc;
}

/*
 * Once every list of the domain's pool is full, a move (single-threaded)
 * must spread what is left round the pool: between two entries it puts
 * above the limit of the same list, it goes to each other online list of
 * the pool (but the one the entries leave) in turn.  A turn is an entry
 * put above the limit, or one woken instead of moved (ON set: a target
 * was picked, and nothing recorded).  turn_after[c]: the turn after the
 * last entry put above list c's limit in this move, plus 1 (0: none).
 */
static uint64_t turn, turn_after[NR_CPUS], unblocks_seen;

void trace_moves_begin(void)
{
    memset(turn_after, 0, sizeof(turn_after));
}

static void check_move_spread(const uint32_t *d)
{
    unsigned int c, to = d[2], others = 0, limit;

    turn += vcpu_unblocks - unblocks_seen;
    unblocks_seen = vcpu_unblocks;
    if ( to >= nr_cpu_ids || !in_pool(to) ||
         !(limit = harness_limit_of(to)) || d[3] <= limit )
        return;
    for ( c = 0; c < nr_cpu_ids; c++ )
        others += c != to && c != d[1] && cpu_online(c) && in_pool(c);
    if ( turn_after[to] && turn - (turn_after[to] - 1) < others )
        violation("move above the limit back to a list before going round "
                  "the pool", to, others);
    turn_after[to] = ++turn + 1;
}

/* PI_LIST_MOVE: dom:vCPU, old list pCPU, new list pCPU, new length. */
static void check_move(const uint32_t *d)
{
    struct vcpu *v = word_vcpu(d[0]);

    if ( !v )
    {
        violation("PI_LIST_MOVE: domain:vCPU names no vCPU", d[0], 0);
        return;
    }
    if ( d[1] == d[2] )
        violation("PI_LIST_MOVE: to the list it left", d[1], d[2]);
    if ( threaded )
        return;
    /* Single-threaded, the lists are as the move left them. */
    if ( traced_list[v->vcpu_id] >= 0 &&
         d[1] != (unsigned int)traced_list[v->vcpu_id] )
        violation("PI_LIST_MOVE: old pCPU is not the vCPU's list", d[1],
                  traced_list[v->vcpu_id]);
    if ( (int)d[2] != list_cpu_of(v) )
        violation("PI_LIST_MOVE: new pCPU is not the vCPU's list", d[2],
                  list_cpu_of(v));
    else if ( d[3] != count_list(d[2]) )
        violation("PI_LIST_MOVE: length is not the new list's", d[3],
                  count_list(d[2]));
    traced_list[v->vcpu_id] = d[2];
    check_move_spread(d);
}

/*
 * Each list's length as the records tell it, once one gave it: every
 * change of a length must be recorded, so that a reader of the trace can
 * rebuild it.  Single-threaded runs only, where records come out in the
 * order of the changes: each record must follow from the length before it,
 * and give the list's real length.
 */
static unsigned int traced_len[NR_CPUS];
static bool traced_known[NR_CPUS];

static void traced(unsigned int c, unsigned int before, unsigned int after)
{
    if ( threaded || c >= nr_cpu_ids )
        return;
    if ( traced_known[c] && traced_len[c] != before )
        violation("trace: a change of this list's length was not recorded",
                  c, traced_len[c]);
    if ( after != count_list(c) )
        violation("trace: record gives a length the list does not have", c,
                  after);
    traced_len[c] = after;
    traced_known[c] = true;
}

/* What the harness itself learns from the records pi.c emits. */
static void trace_observe(uint32_t event, const uint32_t *d)
{
    switch ( event )
    {
    case TRC_HW_IRQ_PI_LIST_DEL:
        traced(d[1], d[2] + 1, d[2]);
        break;
    case TRC_HW_IRQ_PI_LIST_ADD:
        check_add(d);
        /* single-threaded, the list cannot change meanwhile: cross-check */
        if ( !threaded && d[2] != count_list(d[1] & 0xffff) )
            st_trace_mismatch++;
        traced(d[1] & 0xffff, d[2] - 1, d[2]);
        st_adds++;
        if ( (d[1] >> 16) != (d[1] & 0xffff) )
            st_spilled++;
        if ( limit_off && ((d[1] >> 16) != (d[1] & 0xffff) || d[3]) )
            violation("the bound off, but PI_LIST_ADD spilled or has a limit",
                      d[1], d[3]);
        if ( d[3] && d[2] > d[3] )
        {
            /*
             * pi.c spills only to a list it found below the limit, locked.
             * The record carries the limit the block read on its own list,
             * so this holds only while limits cannot change (a fixed one).
             */
            if ( !limit_auto && (d[1] >> 16) != (d[1] & 0xffff) )
                violation("spilled to a list above the limit", d[1] & 0xffff,
                          d[2]);
            st_over_limit++;
            over_excused[d[1] & 0xffff] = true;
        }
        note_max(&st_max_len, d[2]);
        break;
    case TRC_HW_IRQ_PI_LIST_MOVE:
        if ( d[1] >= nr_cpu_ids || d[2] >= nr_cpu_ids )
        {
            violation("PI_LIST_MOVE: names no pCPU", d[1], d[2]);
            break;
        }
        check_move(d);
        if ( traced_known[d[1]] )
            traced(d[1], traced_len[d[1]], traced_len[d[1]] - 1);
        traced(d[2], d[3] - 1, d[3]);
        st_moves++;
        if ( harness_limit_of(d[2]) && d[3] > harness_limit_of(d[2]) )
        {
            unsigned int c;

            st_over_limit++;
            over_excused[d[2]] = true;
            /*
             * The docs promise that a move (the CPU-dead fixup, a cpupool
             * change) only goes above the limit when no online list of the
             * pool is below it.  Single-threaded, the lists are as the move
             * left them.
             */
            for ( c = 0; !threaded && c < nr_cpu_ids; c++ )
                if ( cpu_online(c) && in_pool(c) &&
                     count_list(c) < harness_limit_of(c) )
                {
                    violation("fixup moved above the limit, a list below it "
                              "existed", d[2], c);
                    break;
                }
        }
        note_max(&st_max_len, d[3]);
        break;
    case TRC_HW_IRQ_PI_WAKEUP:
        traced(smp_processor_id(), d[0], d[0] - d[1]);
        /* PI_WAKEUP: entries walked, vCPUs woken, cycles. */
        if ( !in_walk )
            violation("PI_WAKEUP outside a wakeup walk", d[0], d[1]);
        else if ( walk_counted && d[0] != walk_len )
            violation("PI_WAKEUP: entries walked are not the list's length",
                      d[0], walk_len);
        else if ( walk_counted && d[1] != walk_woken )
            violation("PI_WAKEUP: vCPUs woken are not the walk's", d[1],
                      walk_woken);
        /* The cycles cannot be more than the whole walk took so far. */
        if ( !threaded && in_walk &&
             d[2] > (uint32_t)(rdtsc_ordered() - walk_start) )
            violation("PI_WAKEUP cycles longer than the walk", d[0], d[2]);
        break;
    }
}

void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *data)
{
    unsigned int cpu = smp_processor_id(), n = extra / 4;
    struct tbuf *b = &tbuf[cpu];
    uint32_t hdr = event | (n << TRACE_EXTRA_SHIFT) | (cycles ? 1u << 31 : 0);
    size_t size = 4 + (cycles ? 8 : 0) + extra;
    uint64_t tsc;
    bool seen_on;

    HARNESS_CHECK(extra % 4 == 0 && n <= 7);
    /* The checks' own per-CPU reads are not the block's. */
    seen_on = harness_seen_on;
    harness_seen_on = false;
    trace_observe(event, data);
    harness_seen_on = seen_on;
    if ( !trace_file )
        return;

    pthread_mutex_lock(&b->lock);
    if ( b->used + size > TBUF_WINDOW )
        tbuf_flush(cpu);
    tsc = __rdtsc();    /* under the lock: ordered within this pCPU */
    memcpy(b->data + b->used, &hdr, 4);
    b->used += 4;
    if ( cycles )
    {
        memcpy(b->data + b->used, &tsc, 8);
        b->used += 8;
    }
    memcpy(b->data + b->used, data, extra);
    b->used += extra;
    pthread_mutex_unlock(&b->lock);
    __atomic_fetch_add(&trace_records, 1, __ATOMIC_RELAXED);
}

void trace_close(void)
{
    unsigned int c;

    if ( !trace_file )
        return;
    for ( c = 0; c < nr_cpu_ids; c++ )
    {
        pthread_mutex_lock(&tbuf[c].lock);
        tbuf_flush(c);
        pthread_mutex_unlock(&tbuf[c].lock);
    }
    fclose(trace_file);
    trace_file = NULL;
}

void trace_cpu_init(unsigned int cpu)
{
    pthread_mutex_init(&tbuf[cpu].lock, NULL);
}
