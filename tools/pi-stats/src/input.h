/* input.h - feed a file, a pipe or stdin ("-") to a reader. */
#ifndef PIS_INPUT_H
#define PIS_INPUT_H

#include <signal.h>
#include <stddef.h>
#include "reader.h"

enum pis_input_status {
    PIS_INPUT_OK = 0,
    PIS_INPUT_IO,           /* cannot open or read: err holds why */
    PIS_INPUT_NOMEM,
    PIS_INPUT_NOT_TRACE,    /* the reader rejected the data */
};

/* Regular files are mapped; pages behind the cursor are dropped every
 * 4 MiB, so resident memory stays bounded whatever the file size.  Pipes,
 * "-" and compressed inputs (gzip, xz, zstd: by magic) are read with
 * read() into a buffer that holds at most one window (grown as needed up
 * to the largest possible window). */
struct pis_input_ctl {
    volatile sig_atomic_t *stop;    /* set: the input ends here */
    volatile sig_atomic_t *tick;    /* set: call on_tick (and clear it) */
    void (*on_tick)(void *ctx);
    void *ctx;
    sigset_t sigs;                  /* the signals that set them */
};

/* ctl may be NULL.  With ctl, a pipe is read with sigs blocked except
 * while waiting for data, so that a signal is never lost between the
 * check of the flags and a read that would block; a set stop flag ends
 * the input as if its data ended there (a window cut short is reported
 * as truncated), also while a regular file is walked. */
enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
                                    const struct pis_input_ctl *ctl,
                                    char *err, size_t errlen);

#endif
