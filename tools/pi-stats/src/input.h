/* input.h - feed a file, a pipe or stdin ("-") to a reader. */
#ifndef PIS_INPUT_H
#define PIS_INPUT_H

#include <stddef.h>
#include "reader.h"

enum pis_input_status {
    PIS_INPUT_OK = 0,
    PIS_INPUT_IO,           /* cannot open or read: err holds why */
    PIS_INPUT_NOMEM,
    PIS_INPUT_NOT_TRACE,    /* the reader rejected the data */
};

/* Regular files are mapped; page tables are populated 8 MiB ahead of the
 * cursor and pages behind it are dropped every 4 MiB, so resident memory
 * stays bounded whatever the file size.  Pipes and "-" are read with
 * read() into a buffer that holds at most one window (grown as needed up
 * to the largest possible window). */
enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
                                    char *err, size_t errlen);

#endif
