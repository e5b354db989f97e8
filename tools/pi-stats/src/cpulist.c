/* cpulist.c - cpu list parser. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"

static int num(const char **p, unsigned long *v)
{
    char *end;

    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    *v = strtoul(*p, &end, 10);
    if (errno || *v >= PIS_MAX_CPUS)
        return -1;
    *p = end;
    return 0;
}

int pis_cpulist_parse(const char *s, unsigned char map[PIS_CPUMAP_BYTES],
                      char *err, size_t errlen)
{
    const char *p = s;

    memset(map, 0, PIS_CPUMAP_BYTES);
    if (!*p) {
        snprintf(err, errlen, "empty cpu list");
        return -1;
    }
    for (;;) {
        unsigned long a, b;
        const char *at = p;
        if (num(&p, &a)) {
            snprintf(err, errlen, "bad cpu list \"%s\" at \"%s\" (want ids "
                     "0-%u like 0-3,8)", s, at, PIS_MAX_CPUS - 1);
            return -1;
        }
        b = a;
        if (*p == '-') {
            p++;
            if (num(&p, &b) || b < a) {
                snprintf(err, errlen, "bad cpu range in \"%s\" at \"%s\"", s,
                         at);
                return -1;
            }
        }
        for (unsigned long c = a; c <= b; c++)
            map[c >> 3] |= (unsigned char)(1u << (c & 7u));
        if (*p == '\0')
            return 0;
        if (*p != ',') {
            snprintf(err, errlen, "bad cpu list \"%s\" at \"%s\"", s, p);
            return -1;
        }
        p++;
    }
}
