/* cpulist.h - parse "0-3,8,4000" into a bitmap of cpu ids 0..4095. */
#ifndef PIS_CPULIST_H
#define PIS_CPULIST_H

#include "tracefmt.h"

#define PIS_CPUMAP_BYTES (PIS_MAX_CPUS / 8)

/* Returns 0, or -1 with a reason in err. */
int pis_cpulist_parse(const char *s, unsigned char map[PIS_CPUMAP_BYTES],
                      char *err, size_t errlen);

#endif
