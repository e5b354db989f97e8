/* owners.h - list lengths and spills by the domain or vCPU that was
 * added to (or moved onto) a blocking list: --by domain|vcpu. */
#ifndef PIS_OWNERS_H
#define PIS_OWNERS_H

#include <stddef.h>
#include <stdint.h>
#include "hist.h"

enum pis_by { PIS_BY_PCPU, PIS_BY_DOMAIN, PIS_BY_VCPU };

struct pis_owner {
    uint32_t key;           /* domid, or domid << 16 | vcpu */
    uint64_t spilled;       /* its PI_LIST_ADDs onto another pCPU's list */
    struct pis_hist len;    /* list lengths after its adds and moves */
};

struct pis_owners {
    struct pis_owner **o;   /* sorted by key */
    size_t n, cap;
    size_t last;            /* the last one found: records come in runs */
};

/* The owner of key, made when missing; NULL when out of memory. */
struct pis_owner *pis_owner_get(struct pis_owners *t, uint32_t key);
void pis_owners_free(struct pis_owners *t);
int pis_owners_merge(struct pis_owners *dst, const struct pis_owners *src);
/* The key of domain dom, vCPU vcpu under by (not PIS_BY_PCPU). */
uint32_t pis_owner_key(enum pis_by by, uint32_t dom, uint32_t vcpu);
/* "d3" or "d3v1". */
void pis_owner_label(char *buf, size_t len, enum pis_by by, uint32_t key);
extern const char *const pis_by_name[3];

#endif
