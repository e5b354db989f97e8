/* tap.h - minimal TAP-style checks for the C unit tests. */
#ifndef PIS_TAP_H
#define PIS_TAP_H
#include <stdio.h>

static int tap_failed, tap_n;

#define CHECK(cond, ...) do {                                           \
        tap_n++;                                                        \
        if (!(cond)) {                                                  \
            tap_failed++;                                               \
            printf("# FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            printf(__VA_ARGS__);                                        \
            printf("\n");                                               \
        }                                                               \
    } while (0)

#define TAP_DONE() (printf("# %d checks, %d failed\n", tap_n, tap_failed), \
                    tap_failed ? 1 : 0)
#endif
