/* exitcodes.h - documented exit status of pi-stats (see pi-stats.1). */
#ifndef PIS_EXITCODES_H
#define PIS_EXITCODES_H

#define PIS_EXIT_OK         0   /* analysed (data problems only warned) */
#define PIS_EXIT_INTERNAL   1   /* out of memory, cannot write output */
#define PIS_EXIT_USAGE      2   /* bad command line */
#define PIS_EXIT_IO         3   /* an input cannot be opened or read */
#define PIS_EXIT_NOT_TRACE  4   /* an input is not a xentrace dump */
#define PIS_EXIT_DATA       5   /* --strict and corrupt, truncated or
                                   disordered data or malformed PI records */

#endif
