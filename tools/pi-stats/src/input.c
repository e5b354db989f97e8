/* input.c - mmap or streaming read() driver for the reader. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

#define DROP_EVERY (4u << 20)     /* pages behind the cursor dropped */

static enum pis_input_status run_mapped(struct pis_reader *r, int fd,
                                        size_t size)
{
    const unsigned char *base;
    size_t off = 0, dropped = 0, page = (size_t)sysconf(_SC_PAGESIZE);

    base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        return PIS_INPUT_NOMEM; /* caller falls back to read() */
    (void)madvise((void *)base, size, MADV_SEQUENTIAL);
    while (off < size) {
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

static enum pis_input_status run_stream(struct pis_reader *r, int fd,
                                        char *err, size_t errlen)
{
    size_t cap = 1u << 20, have = 0, start = 0;
    unsigned char *buf = malloc(cap);
    int eof = 0;

    if (!buf)
        return PIS_INPUT_NOMEM;
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
                free(buf);
                snprintf(err, errlen, "window larger than %u bytes",
                         PIS_MAX_WINDOW);
                return PIS_INPUT_IO;
            }
            nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return PIS_INPUT_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        {
            ssize_t got = read(fd, buf + have, cap - have);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                snprintf(err, errlen, "read error at byte %llu: %s",
                         (unsigned long long)(r->pos + have),
                         strerror(errno));
                free(buf);
                return PIS_INPUT_IO;
            }
            if (got == 0)
                eof = 1;
            have += (size_t)got;
        }
    }
    free(buf);
    return PIS_INPUT_OK;
}

enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
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
        st = run_mapped(r, fd, (size_t)sb.st_size);
    if (st == PIS_INPUT_NOMEM)      /* not mappable: stream it */
        st = run_stream(r, fd, err, errlen);
    if (!is_stdin)
        close(fd);
    if (st == PIS_INPUT_OK) {
        pis_reader_finish(r);
        if (r->fatal)
            st = PIS_INPUT_NOT_TRACE;
    }
    return st;
}
