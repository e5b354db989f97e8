/* owners.c - see owners.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "owners.h"

const char *const pis_by_name[3] = { "pcpu", "domain", "vcpu" };

/* Index of the first owner with a key >= key. */
static size_t lower(const struct pis_owners *t, uint32_t key)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->o[mid]->key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct pis_owner *pis_owner_get(struct pis_owners *t, uint32_t key)
{
    struct pis_owner *w;
    size_t i;

    if (t->last < t->n && t->o[t->last]->key == key)
        return t->o[t->last];
    i = lower(t, key);
    if (i < t->n && t->o[i]->key == key) {
        t->last = i;
        return t->o[i];
    }
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        struct pis_owner **no = realloc(t->o, ncap * sizeof(*no));
        if (!no)
            return NULL;
        t->o = no;
        t->cap = ncap;
    }
    if (!(w = calloc(1, sizeof(*w))))
        return NULL;
    w->key = key;
    pis_hist_init(&w->len);
    memmove(t->o + i + 1, t->o + i, (t->n - i) * sizeof(*t->o));
    t->o[i] = w;
    t->n++;
    t->last = i;
    return w;
}

void pis_owners_free(struct pis_owners *t)
{
    for (size_t i = 0; i < t->n; i++) {
        pis_hist_free(&t->o[i]->len);
        free(t->o[i]);
    }
    free(t->o);
    memset(t, 0, sizeof(*t));
}

int pis_owners_merge(struct pis_owners *dst, const struct pis_owners *src)
{
    for (size_t i = 0; i < src->n; i++) {
        struct pis_owner *d = pis_owner_get(dst, src->o[i]->key);
        if (!d || pis_hist_merge(&d->len, &src->o[i]->len))
            return -1;
        d->spilled += src->o[i]->spilled;
    }
    return 0;
}

uint32_t pis_owner_key(enum pis_by by, uint32_t dom, uint32_t vcpu)
{
    return by == PIS_BY_VCPU ? (dom & 0xffffu) << 16 | (vcpu & 0xffffu)
                             : dom & 0xffffu;
}

void pis_owner_label(char *buf, size_t len, enum pis_by by, uint32_t key)
{
    if (by == PIS_BY_VCPU)
        snprintf(buf, len, "d%uv%u", (unsigned)(key >> 16),
                 (unsigned)(key & 0xffffu));
    else
        snprintf(buf, len, "d%u", (unsigned)key);
}
