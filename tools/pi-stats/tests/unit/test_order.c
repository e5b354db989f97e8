/* test_order.c - the PI events' records passed on grouped, as pi-stats
 * reads them, give the same results as in file order: counters, every
 * metric's summary over all pCPUs and per pCPU, the limits and the longest
 * list.  Usage: test_order TRACE... */
#include <stdio.h>

#include "decode_both.h"
#include "tap.h"

static void same(const char *name, const struct db_result *a,
                 const struct db_result *b, const char *how)
{
    CHECK(memcmp(&a->c, &b->c, sizeof(a->c)) == 0,
          "%s: %s: the same counters", name, how);
    CHECK(memcmp(a->s, b->s, sizeof(a->s)) == 0 &&
          memcmp(&a->limits, &b->limits, sizeof(a->limits)) == 0,
          "%s: %s: the same summaries", name, how);
    CHECK(a->cpu_digest == b->cpu_digest,
          "%s: %s: the same summary of every pCPU", name, how);
    CHECK(memcmp(&a->longest, &b->longest, sizeof(a->longest)) == 0,
          "%s: %s: the same longest list (%llu at byte %llu against %llu "
          "at byte %llu)", name, how, (unsigned long long)a->longest.len,
          (unsigned long long)a->longest.offset,
          (unsigned long long)b->longest.len,
          (unsigned long long)b->longest.offset);
    CHECK(memcmp(a, b, sizeof(*a)) == 0, "%s: %s: the same in all",
          name, how);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("# usage: test_order TRACE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct db_result ordered, grouped, chunked;
        uint8_t *data;
        long size;
        FILE *f = fopen(argv[i], "rb");

        if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) || !(data = malloc((size_t)size + 1)) ||
            fread(data, 1, (size_t)size, f) != (size_t)size) {
            printf("# %s: cannot read\n", argv[i]);
            return 2;
        }
        fclose(f);
        CHECK(db_decode(data, (size_t)size, 0, 0, &ordered) == 0 &&
              db_decode(data, (size_t)size, 0, 1, &grouped) == 0 &&
              db_decode(data, (size_t)size, 4093, 1, &chunked) == 0,
              "%s: decoded three ways", argv[i]);
        printf("# %s: %llu PI_LIST_ADD, %llu PI_WAKEUP, %llu PI_LIST_MOVE\n",
               argv[i], (unsigned long long)ordered.c.list_add,
               (unsigned long long)ordered.c.wakeup,
               (unsigned long long)ordered.c.list_move);
        same(argv[i], &grouped, &ordered, "grouped against file order");
        same(argv[i], &chunked, &ordered,
             "grouped in chunks of 4093 bytes against file order");
        free(data);
    }
    return TAP_DONE();
}
