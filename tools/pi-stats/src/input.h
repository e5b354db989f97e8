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

/* Regular files are mapped (pages behind the cursor are dropped every
 * 64 MiB so resident memory stays bounded); pipes and "-" are read with
 * read() into a buffer that holds at most one window. */
enum pis_input_status pis_input_run(struct pis_reader *r, const char *path,
                                    char *err, size_t errlen);

#endif
