/* tracefmt.h - constants and accessors for the xentrace on-disk format.
 *
 * Facts taken from xen/include/public/trace.h and tools/xentrace/xentrace.c
 * (Xen 4.17.5); no code copied.  The file is a run of windows: a 12-byte
 * CPU_CHANGE record (header, cpu, window_size) followed by window_size bytes
 * of whole records from that pCPU's ring, in host byte order.
 */
#ifndef PIS_TRACEFMT_H
#define PIS_TRACEFMT_H

#include <stdint.h>
#include <string.h>

#define TRC_CPU_CHANGE_HDR   0x2001f003u /* 2 extra words, no TSC        */
#define TRC_CPU_CHANGE_EVT   0x0001f003u
#define TRC_LOST_RECORDS     0x0001f001u
#define TRC_WRAP_BUFFER      0x0001f002u

#define TRC_EVENT_MASK       0x0fffffffu
#define TRC_CLASS_MASK       0x0fff0000u
#define TRC_EXTRA_SHIFT      28
#define TRC_EXTRA_MASK       7u
#define TRC_TSC_FLAG         0x80000000u

/* Posted-interrupt events (class TRC_HW_IRQ 0x00802000). */
#define PI_EVT_LIST_ADD      0x00802009u
#define PI_EVT_WAKEUP        0x0080200au
#define PI_EVT_LIST_MOVE     0x0080200bu
#define PI_EVT_LIST_DEL      0x0080200cu
/* 2017 xen-devel debug patch (raw ids in the HVM handler subclass). */
#define PI_EVT_OLD_BLOCK     0x00082026u
#define PI_EVT_OLD_WSTART    0x00082027u
#define PI_EVT_OLD_WEND      0x00082028u

#define PIS_MAX_CPUS         4096u      /* cpu ids 0..4095 */
/* Largest possible window: Xen's t_info mfn_offset is a u16 page count. */
#define PIS_MAX_WINDOW       (65535u * 4096u)
#define PIS_NCLASS           13         /* 12 class bits + "none" */

/* For code instantiated once per byte order (a constant sw argument). */
#if defined(__GNUC__)
#define PIS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PIS_ALWAYS_INLINE inline
#endif

static inline uint32_t pis_ld32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t pis_ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* A 32-bit word of the input: sw = the input has the other byte order.
 * Callers pass a constant where speed matters (see reader.c). */
static inline uint32_t pis_ld32o(const unsigned char *p, int sw)
{
    uint32_t v = pis_ld32(p);
    return sw ? __builtin_bswap32(v) : v;
}

/* A record's TSC: two 32-bit words, cycles_lo then cycles_hi (struct
 * t_rec), each in the writing host's byte order -- so a big-endian
 * host's TSC is two swapped words, low word first, not one byte-swapped
 * 64-bit value. */
static inline uint64_t pis_ldtsc(const unsigned char *p, int sw)
{
    return pis_ld32o(p, sw) | (uint64_t)pis_ld32o(p + 4, sw) << 32;
}

/* Size in bytes of a record from its header word. */
static inline uint32_t pis_rec_size(uint32_t hdr)
{
    return 4u + ((hdr >> 31) << 3) + (((hdr >> TRC_EXTRA_SHIFT) & TRC_EXTRA_MASK) << 2);
}

/* Class index 0..11 of the lowest set class bit (16..27); 12 when none. */
static inline unsigned pis_class_index(uint32_t evt)
{
    uint32_t c = (evt >> 16) & 0xfffu;
    return c ? (unsigned)__builtin_ctz(c) : 12u;
}

#endif
