/* atomic.h - open an output target without clobbering what it is.
 *
 * A regular file (also the file a symlink names) or a new path is written
 * through a temporary in the same directory and rename()d over it, with
 * the old file's mode and owner, so a failed run leaves the old file; a
 * FIFO, a character device or "-" (standard output) is written straight
 * into.  Anything else (a directory, a dangling symlink, a block device,
 * a socket) is refused before anything is written. */
#ifndef PIS_ATOMIC_H
#define PIS_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

struct pis_atomic {
    FILE *f;
    char *tmp;          /* NULL when written straight into */
    char *path;         /* what tmp is renamed to */
};

/* Whether name is a usable target; 0, or -1 with a message in err. */
int pis_atomic_check(const char *name, char *err, size_t n);
/* 0, or -1 with a message in err (nothing created). */
int pis_atomic_open(struct pis_atomic *a, const char *name, char *err,
                    size_t n);
/* Flush and close (rename a temporary); on any error a temporary is
 * removed.  Returns 0 or -1 with a message in err. */
int pis_atomic_commit(struct pis_atomic *a, char *err, size_t n);
void pis_atomic_abort(struct pis_atomic *a);

#endif
