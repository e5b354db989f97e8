/* atomic.c - output targets: temporary + rename, or straight into. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"

enum kind { K_NEW, K_REG, K_DIRECT, K_STDOUT };

/* What name is; for K_REG and K_NEW *path is the file to replace or
 * create (a symlink resolved), for K_REG *st its status. */
static int classify(const char *name, enum kind *k, char **path,
                    struct stat *st, char *err, size_t n)
{
    *path = NULL;
    if (strcmp(name, "-") == 0) {
        *k = K_STDOUT;
        return 0;
    }
    if (stat(name, st) != 0) {
        struct stat l;
        if (errno != ENOENT) {
            snprintf(err, n, "%s", strerror(errno));
            return -1;
        }
        if (lstat(name, &l) == 0) {
            snprintf(err, n, "a dangling symbolic link; not writing "
                     "through it");
            return -1;
        }
        *k = K_NEW;
    } else if (S_ISREG(st->st_mode)) {
        *k = K_REG;
    } else if (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode)) {
        *k = K_DIRECT;
        return 0;
    } else {
        snprintf(err, n, "%s", S_ISDIR(st->st_mode) ? "is a directory" :
                 "not a regular file, FIFO or character device");
        return -1;
    }
    /* a regular file through symlinks: replace the file, keep the links */
    *path = *k == K_REG ? realpath(name, NULL) : strdup(name);
    if (!*path) {
        snprintf(err, n, "%s", strerror(errno));
        return -1;
    }
    return 0;
}

int pis_atomic_check(const char *name, char *err, size_t n)
{
    enum kind k;
    char *path;
    struct stat st;

    if (classify(name, &k, &path, &st, err, n))
        return -1;
    if (path) {                 /* the temporary's directory */
        char *slash = strrchr(path, '/');
        const char *dir = slash ? path : ".";
        if (slash == path)
            dir = "/";
        else if (slash)
            *slash = 0;
        if (access(dir, W_OK | X_OK) != 0) {
            snprintf(err, n, "cannot create: %s", strerror(errno));
            free(path);
            return -1;
        }
    }
    free(path);
    return 0;
}

static int fail(struct pis_atomic *a, char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s: %s", what, strerror(errno));
    pis_atomic_abort(a);
    return -1;
}

int pis_atomic_open(struct pis_atomic *a, const char *name, char *err,
                    size_t n)
{
    enum kind k;
    struct stat st;
    size_t len;
    mode_t um;
    int fd;

    memset(a, 0, sizeof(*a));
    if (classify(name, &k, &a->path, &st, err, n))
        return -1;
    if (k == K_STDOUT) {
        a->f = stdout;
        return 0;
    }
    if (k == K_DIRECT) {
        fd = open(name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
            if (fd >= 0)
                close(fd);
            return fail(a, err, n, "cannot open");
        }
        return 0;
    }
    len = strlen(a->path) + 16;
    if (!(a->tmp = malloc(len)))
        return fail(a, err, n, "cannot create");
    snprintf(a->tmp, len, "%s.tmp.XXXXXX", a->path);
    fd = mkostemp(a->tmp, O_CLOEXEC);
    if (fd < 0) {
        free(a->tmp);
        a->tmp = NULL;
        return fail(a, err, n, "cannot create");
    }
    if (k == K_REG) {
        if (fchown(fd, st.st_uid, st.st_gid) != 0 ||
            fchmod(fd, st.st_mode & 07777) != 0) {
            close(fd);
            return fail(a, err, n, "cannot keep owner and mode");
        }
    } else {
        um = umask(0);
        umask(um);
        (void)fchmod(fd, 0666 & ~um);
    }
    if (!(a->f = fdopen(fd, "w"))) {
        close(fd);
        return fail(a, err, n, "cannot create");
    }
    return 0;
}

void pis_atomic_abort(struct pis_atomic *a)
{
    if (a->f && a->f != stdout)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    free(a->tmp);
    free(a->path);
    memset(a, 0, sizeof(*a));
}

int pis_atomic_commit(struct pis_atomic *a, char *err, size_t n)
{
    int bad = ferror(a->f);

    if (a->f == stdout ? fflush(a->f) != 0 : fclose(a->f) != 0)
        bad = 1;
    a->f = NULL;
    if (bad) {
        if (!errno)
            errno = EIO;
        return fail(a, err, n, "cannot write");
    }
    if (a->tmp && rename(a->tmp, a->path) != 0)
        return fail(a, err, n, "cannot write");
    free(a->tmp);
    a->tmp = NULL;
    pis_atomic_abort(a);
    return 0;
}
