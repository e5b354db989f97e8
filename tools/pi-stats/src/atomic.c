/* atomic.c - temp file + rename. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"

int pis_atomic_open(struct pis_atomic *a, const char *path)
{
    size_t n = strlen(path);
    int fd;

    memset(a, 0, sizeof(*a));
    a->path = path;
    a->tmp = malloc(n + 16);
    if (!a->tmp)
        return -1;
    snprintf(a->tmp, n + 16, "%s.tmp.XXXXXX", path);
    fd = mkstemp(a->tmp);
    if (fd < 0) {
        free(a->tmp);
        a->tmp = NULL;
        return -1;
    }
    (void)fchmod(fd, 0644);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

void pis_atomic_abort(struct pis_atomic *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp) {
        unlink(a->tmp);
        free(a->tmp);
    }
    memset(a, 0, sizeof(*a));
}

int pis_atomic_commit(struct pis_atomic *a)
{
    int bad = ferror(a->f);
    int e;

    if (fclose(a->f) != 0)
        bad = 1;
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path) == 0) {
        free(a->tmp);
        a->tmp = NULL;
        return 0;
    }
    e = errno ? errno : EIO;
    pis_atomic_abort(a);
    errno = e;
    return -1;
}
