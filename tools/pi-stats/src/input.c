/* input.c - mmap or streaming read() driver for the reader; compressed
 * inputs are streamed through their decoder. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decomp.h"
#include "input.h"

#define DROP_EVERY (4u << 20)     /* pages behind the cursor dropped */

static int stopped(const struct pis_input_ctl *ctl)
{
    return ctl && *ctl->stop;
}

static enum pis_input_status run_mapped(struct pis_reader *r, int fd,
                                        size_t size,
                                        const struct pis_input_ctl *ctl)
{
    const unsigned char *base;
    size_t off = 0, dropped = 0, page = (size_t)sysconf(_SC_PAGESIZE);

    base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        return PIS_INPUT_NOMEM; /* caller falls back to read() */
    (void)madvise((void *)base, size, MADV_SEQUENTIAL);
    while (off < size && !stopped(ctl)) {
        size_t n = pis_reader_step(r, base + off, size - off, 1);
        if (n == 0)
            break;
        off += n;
        if (off - dropped >= DROP_EVERY) {
            size_t upto = off & ~(page - 1);
            (void)madvise((void *)(base + dropped), upto - dropped,
                          MADV_DONTNEED);
            dropped = upto;
        }
    }
    if (off == size)
        (void)pis_reader_step(r, base + off, 0, 1);
    munmap((void *)base, size);
    return PIS_INPUT_OK;
}

/* What run_stream reads from: a descriptor, the bytes already read from
 * it to look at its magic, and a decoder when it is compressed. */
struct source {
    int fd;
    struct pis_decomp *d;       /* NULL: the bytes are the trace */
    unsigned char *in;          /* bytes read ahead */
    size_t inpos, inlen, incap;
    uint64_t in_off;            /* bytes read from fd */
    int in_eof, done;
    volatile sig_atomic_t *stop;  /* a read interrupted with it set ends */
    int stopped;                /* the input here */
};

#define SRC_IN (1u << 16)

/* read() with EINTR retried unless the stop flag is set (then 0); -1
 * with err set. */
static ssize_t read_fd(struct source *s, unsigned char *buf, size_t cap,
                       char *err, size_t errlen)
{
    for (;;) {
        ssize_t got = read(s->fd, buf, cap);
        if (got >= 0) {
            s->in_off += (uint64_t)got;
            return got;
        }
        if (errno == EINTR && s->stop && *s->stop) {
            s->stopped = 1;
            return 0;
        }
        if (errno != EINTR) {
            snprintf(err, errlen, "read error at byte %llu%s: %s",
                     (unsigned long long)s->in_off,
                     s->d ? " of the compressed input" : "",
                     strerror(errno));
            return -1;
        }
    }
}

/* Up to cap bytes of the trace into buf: the count, 0 at its end, -1 with
 * err set. */
static ssize_t src_read(struct source *s, unsigned char *buf, size_t cap,
                        char *err, size_t errlen)
{
    if (s->done || s->stopped)
        return 0;
    if (!s->d) {
        size_t n = s->inlen - s->inpos;
        if (!n)
            return read_fd(s, buf, cap, err, errlen);
        n = n < cap ? n : cap;
        memcpy(buf, s->in + s->inpos, n);
        s->inpos += n;
        return (ssize_t)n;
    }
    for (;;) {
        const unsigned char *p;
        size_t left, got;
        int rc;
        if (s->inpos == s->inlen && !s->in_eof) {
            ssize_t g = read_fd(s, s->in, s->incap, err, errlen);
            if (g < 0)
                return -1;
            if (s->stopped)     /* not the end of the compressed data */
                return 0;
            s->in_eof = g == 0;
            s->inpos = 0;
            s->inlen = (size_t)g;
        }
        p = s->in + s->inpos;
        left = s->inlen - s->inpos;
        rc = pis_decomp_run(s->d, &p, &left, s->in_eof, buf, cap, &got,
                            err, errlen);
        s->inpos = s->inlen - left;
        if (rc < 0) {
            size_t k = strlen(err);
            snprintf(err + k, errlen - k, " (near byte %llu of the "
                     "compressed input)",
                     (unsigned long long)(s->in_off - left));
            return -1;
        }
        s->done = rc == 1;
        if (got || s->done)
            return (ssize_t)got;
    }
}

/* With ctl: wait until fd has data or one of ctl's signals came, and
 * act on the flags.  Returns 1 when the input is to end here. */
static int wait_data(int fd, const struct pis_input_ctl *ctl,
                     const sigset_t *unblocked)
{
    struct pollfd pfd = { fd, POLLIN, 0 };

    for (;;) {
        if (*ctl->tick && ctl->on_tick) {
            *ctl->tick = 0;
            ctl->on_tick(ctl->ctx);
        }
        if (*ctl->stop)
            return 1;
        if (ppoll(&pfd, 1, NULL, unblocked) >= 0 || errno != EINTR)
            return 0;           /* data, end or error: read() tells */
    }
}

static enum pis_input_status run_stream(struct pis_reader *r,
                                        struct source *src,
                                        const struct pis_input_ctl *ctl,
                                        char *err, size_t errlen)
{
    enum pis_input_status st = PIS_INPUT_OK;
    sigset_t old;
    size_t cap = 1u << 20, have = 0, start = 0;
    unsigned char *buf = malloc(cap);
    int eof = 0;

    if (!buf)
        return PIS_INPUT_NOMEM;
    if (ctl)
        sigprocmask(SIG_BLOCK, &ctl->sigs, &old);
    for (;;) {
        size_t n;
        while ((n = pis_reader_step(r, buf + start, have - start, eof)) > 0)
            start += n;
        if (eof || r->fatal || r->done)
            break;
        /* Need more: compact, grow if the pending window does not fit. */
        if (start > 0) {
            memmove(buf, buf + start, have - start);
            have -= start;
            start = 0;
        }
        if (have == cap) {
            size_t ncap = cap * 2;
            unsigned char *nb;
            if (cap >= (size_t)PIS_MAX_WINDOW + 12) {
                /* cannot happen: the reader never asks for more */
                snprintf(err, errlen, "window larger than %u bytes",
                         PIS_MAX_WINDOW);
                st = PIS_INPUT_IO;
                break;
            }
            nb = realloc(buf, ncap);
            if (!nb) {
                st = PIS_INPUT_NOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        /* (bytes the source holds already need no wait) */
        if (ctl && src->inpos == src->inlen && wait_data(src->fd, ctl, &old)) {
            eof = 1;
            continue;
        }
        {
            ssize_t got = src_read(src, buf + have, cap - have, err, errlen);
            if (got < 0) {
                st = PIS_INPUT_IO;
                break;
            }
            if (got == 0)
                eof = 1;
            have += (size_t)got;
        }
    }
    if (ctl)
        sigprocmask(SIG_SETMASK, &old, NULL);
    free(buf);
    return st;
}

/* Look at the first bytes of fd: a regular file where they lie, a pipe
 * by reading them ahead into src->in.  A compressed input gets a
 * decoder. */
static enum pis_input_status open_source(struct source *src, int fd,
                                         const struct stat *sb, char *err,
                                         size_t errlen)
{
    unsigned char magic[8];
    enum pis_comp c;
    ssize_t n = 0;

    src->fd = fd;
    src->incap = SRC_IN;
    if (!(src->in = malloc(src->incap)))
        return PIS_INPUT_NOMEM;
    if (S_ISREG(sb->st_mode)) {
        n = pread(fd, magic, sizeof(magic), 0);
        if (n < 0)
            n = 0;              /* not seekable: read() will tell */
        c = pis_comp_of(magic, (size_t)n);
    } else {
        while (src->inlen < sizeof(magic)) {
            n = read_fd(src, src->in + src->inlen, src->incap - src->inlen,
                        err, errlen);
            if (n < 0)
                return PIS_INPUT_IO;
            if (n == 0)
                break;
            src->inlen += (size_t)n;
        }
        c = pis_comp_of(src->in, src->inlen);
    }
    if (c != PIS_COMP_NONE && !(src->d = pis_decomp_new(c)))
        return PIS_INPUT_NOMEM;
    return PIS_INPUT_OK;
}

enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
                                    const struct pis_input_ctl *ctl,
                                    char *err, size_t errlen)
{
    enum pis_input_status st;
    struct source src;
    struct stat sb;
    int fd, is_stdin = strcmp(path, "-") == 0;

    err[0] = '\0';
    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return PIS_INPUT_IO;
    }
    if (fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "cannot stat: %s", strerror(errno));
        if (!is_stdin)
            close(fd);
        return PIS_INPUT_IO;
    }
    if (S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "is a directory");
        if (!is_stdin)
            close(fd);
        return PIS_INPUT_IO;
    }
    memset(&src, 0, sizeof(src));
    src.stop = ctl ? ctl->stop : NULL;
    st = open_source(&src, fd, &sb, err, errlen);
    if (st == PIS_INPUT_OK) {
        st = PIS_INPUT_NOMEM;
        if (!src.d && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
            (unsigned long long)sb.st_size <= (size_t)-1)
            st = run_mapped(r, fd, (size_t)sb.st_size, ctl);
        if (st == PIS_INPUT_NOMEM)  /* not mappable, or compressed */
            st = run_stream(r, &src, ctl, err, errlen);
    }
    pis_decomp_free(src.d);
    free(src.in);
    if (!is_stdin)
        close(fd);
    if (st == PIS_INPUT_OK) {
        pis_reader_finish(r);
        if (r->fatal)
            st = PIS_INPUT_NOT_TRACE;
    }
    return st;
}
