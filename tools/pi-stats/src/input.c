/* input.c - mmap or streaming read() driver for the reader. */
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

#include "input.h"

#define DROP_EVERY (4u << 20)
/* Pages behind the cursor are dropped up to a multiple of this (of the
 * page size too): a file's page cache in large folios may be mapped 2 MiB
 * at a time, and dropping part of such a mapping splits it (about 100
 * splits a run on the 256 MB bench trace, none so). */
#define DROP_ALIGN (2u << 20)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#endif

/* Map the page tables of [*done, to) in one call instead of one fault per
 * folio (harmless EINVAL on older kernels); *done is where the pages
 * mapped so far end, so each page is populated once. */
static void populate(const unsigned char *base, size_t *done, size_t to,
                     size_t size)
{
    if (to > size)
        to = size;
    if (to <= *done)
        return;
    (void)madvise((void *)(base + *done), to - *done, MADV_POPULATE_READ);
    *done = to;
}

static int stopped(const struct pis_input_ctl *ctl)
{
    return ctl && *ctl->stop;
}

static enum pis_input_status run_mapped(struct pis_reader *r, int fd,
                                        size_t size,
                                        const struct pis_input_ctl *ctl)
{
    const unsigned char *base;
    size_t off = 0, dropped = 0, mapped = 0;

    base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        return PIS_INPUT_NOMEM; /* caller falls back to read() */
    (void)madvise((void *)base, size, MADV_SEQUENTIAL);
    populate(base, &mapped, 2 * (size_t)DROP_EVERY, size);
    while (off < size && !stopped(ctl)) {
        size_t n = pis_reader_step(r, base + off, size - off, 1);
        if (n == 0)
            break;
        off += n;
        if (off - dropped >= DROP_EVERY) {
            size_t upto = off & ~((size_t)DROP_ALIGN - 1);
            (void)madvise((void *)(base + dropped), upto - dropped,
                          MADV_DONTNEED);
            dropped = upto;
            populate(base, &mapped, upto + 2 * (size_t)DROP_EVERY, size);
        }
    }
    if (off == size)
        (void)pis_reader_step(r, base + off, 0, 1);
    munmap((void *)base, size);
    return PIS_INPUT_OK;
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

static enum pis_input_status run_stream(struct pis_reader *r, int fd,
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
        if (ctl && wait_data(fd, ctl, &old)) {
            eof = 1;
            continue;
        }
        {
            ssize_t got = read(fd, buf + have, cap - have);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                snprintf(err, errlen, "read error at byte %llu: %s",
                         (unsigned long long)(r->pos + have),
                         strerror(errno));
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

enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
                                    const struct pis_input_ctl *ctl,
                                    char *err, size_t errlen)
{
    enum pis_input_status st;
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
    st = PIS_INPUT_NOMEM;
    if (S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (unsigned long long)sb.st_size <= (size_t)-1)
        st = run_mapped(r, fd, (size_t)sb.st_size, ctl);
    if (st == PIS_INPUT_NOMEM)      /* not mappable: stream it */
        st = run_stream(r, fd, ctl, err, errlen);
    if (!is_stdin)
        close(fd);
    if (st == PIS_INPUT_OK) {
        pis_reader_finish(r);
        if (r->fatal)
            st = PIS_INPUT_NOT_TRACE;
    }
    return st;
}
