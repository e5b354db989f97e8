/* atomic.h - write an output file through a temporary and rename(), so a
 * failed run never leaves a half-written file behind. */
#ifndef PIS_ATOMIC_H
#define PIS_ATOMIC_H

#include <stdio.h>

struct pis_atomic {
    FILE *f;
    char *tmp;
    const char *path;
};

int pis_atomic_open(struct pis_atomic *a, const char *path);
/* Flush, fsync-free close and rename; on any error the temp is removed.
 * Returns 0 or -1 (errno set). */
int pis_atomic_commit(struct pis_atomic *a);
void pis_atomic_abort(struct pis_atomic *a);

#endif
