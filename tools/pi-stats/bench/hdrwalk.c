/* hdrwalk.c - the practical ceiling for one pass over a xentrace file:
 * mmap it (page tables filled in one call: about 10% faster here than a
 * fault per folio) and walk window and record headers, counting records,
 * with no validation beyond staying inside the mapping.
 * Usage: hdrwalk FILE... */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t ld32(const unsigned char *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return v;
}

/* The next record after the one at q. */
static size_t next(const unsigned char *p, size_t q)
{
    uint32_t h = ld32(p + q);

    return q + 4 + ((h >> 31) << 3) + (((h >> 28) & 7) << 2);
}

/* The window whose header is at off: its records start at off + 12 and
 * end at *end (clamped to size); returns where the next header is. */
static size_t window(const unsigned char *p, size_t off, size_t size,
                     size_t *end)
{
    size_t e = off + 12 + ld32(p + off + 8);

    *end = e > size ? size : e;
    return e;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        const unsigned char *p;
        size_t off = 0, size;
        uint64_t windows = 0, records = 0;
        int fd = open(argv[i], O_RDONLY);

        if (fd < 0 || fstat(fd, &sb) || sb.st_size < 12) {
            perror(argv[i]);
            return 1;
        }
        size = (size_t)sb.st_size;
        p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        while (off + 12 <= size) {
            size_t end, q = off + 12;

            off = window(p, off, size, &end);
            windows++;
            for (; q + 4 <= end; records++)
                q = next(p, q);
        }
        printf("%s: %llu windows, %llu records\n", argv[i],
               (unsigned long long)windows, (unsigned long long)records);
        munmap((void *)p, size);
        close(fd);
    }
    return 0;
}
