/* decomp.h - gzip, xz and zstd streams, recognised by their magic bytes
 * (zlib, liblzma, libzstd). */
#ifndef PIS_DECOMP_H
#define PIS_DECOMP_H

#include <stddef.h>

enum pis_comp { PIS_COMP_NONE, PIS_COMP_GZIP, PIS_COMP_XZ, PIS_COMP_ZSTD };

/* Which compression the first n bytes of an input announce. */
enum pis_comp pis_comp_of(const unsigned char *p, size_t n);
const char *pis_comp_name(enum pis_comp c);

struct pis_decomp;
struct pis_decomp *pis_decomp_new(enum pis_comp c);
void pis_decomp_free(struct pis_decomp *d);

/* Decompress from *in (*inlen bytes, both advanced past what was used)
 * into out[0..cap), *got bytes produced.  eof: no input follows *in.
 * Concatenated streams are read one after the other.  Returns 0; 1 when
 * the input ended at the end of a stream (nothing more follows the *got
 * bytes); or -1 with err set (corrupt data, or the input ends inside a
 * stream). */
int pis_decomp_run(struct pis_decomp *d, const unsigned char **in,
                   size_t *inlen, int eof, unsigned char *out, size_t cap,
                   size_t *got, char *err, size_t errlen);

#endif
