/* fuzz_reader.c - libFuzzer target for the reader and the PI decoder.
 * Each input is parsed twice, in one buffer (the mmap path) with the PI
 * events' records grouped (as pi-stats reads) and in chunks whose size
 * comes from the first byte (the read() path) in file order; the two must
 * agree.  Build and run with `make fuzz FUZZ_SECONDS=N`. */
#include "../tests/unit/decode_both.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct db_result a, b;
    /* exact-size copy so any over-read is caught */
    uint8_t *copy = malloc(size ? size : 1);

    memcpy(copy, data, size);
    if (db_decode(copy, size, 0, 1, &a) ||
        db_decode(copy, size, size ? (size_t)copy[0] % 61 + 1 : 1, 0, &b))
        abort();        /* unsound results, or out of memory */
    if (memcmp(&a, &b, sizeof(a)))
        abort();        /* the chunked, ordered read disagrees */
    if (a.st.bytes > size)
        abort();
    free(copy);
    return 0;
}
