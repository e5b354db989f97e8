/* decomp.c - gzip, xz and zstd stream decoders; see decomp.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "decomp.h"

struct pis_decomp {
    enum pis_comp c;
    int in_stream;              /* inside a stream (not at its end) */
    z_stream z;
    lzma_stream x;
    ZSTD_DStream *zs;
};

enum pis_comp pis_comp_of(const unsigned char *p, size_t n)
{
    static const unsigned char gz[] = { 0x1f, 0x8b };
    static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
    static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };

    if (n >= sizeof(gz) && !memcmp(p, gz, sizeof(gz)))
        return PIS_COMP_GZIP;
    if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
        return PIS_COMP_XZ;
    if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
        return PIS_COMP_ZSTD;
    return PIS_COMP_NONE;
}

const char *pis_comp_name(enum pis_comp c)
{
    static const char *const name[] = { "none", "gzip", "xz", "zstd" };
    return name[c];
}

struct pis_decomp *pis_decomp_new(enum pis_comp c)
{
    struct pis_decomp *d = calloc(1, sizeof(*d));
    lzma_stream init = LZMA_STREAM_INIT;
    int ok = 0;

    if (!d)
        return NULL;
    d->c = c;
    d->x = init;
    switch (c) {
    case PIS_COMP_GZIP:         /* 15 + 32: gzip or zlib header */
        ok = inflateInit2(&d->z, 15 + 32) == Z_OK;
        break;
    case PIS_COMP_XZ:
        ok = lzma_stream_decoder(&d->x, UINT64_MAX, LZMA_CONCATENATED) ==
             LZMA_OK;
        break;
    case PIS_COMP_ZSTD:
        ok = (d->zs = ZSTD_createDStream()) != NULL &&
             !ZSTD_isError(ZSTD_initDStream(d->zs));
        break;
    default:
        break;
    }
    if (!ok) {
        pis_decomp_free(d);
        return NULL;
    }
    return d;
}

void pis_decomp_free(struct pis_decomp *d)
{
    if (!d)
        return;
    if (d->c == PIS_COMP_GZIP)
        inflateEnd(&d->z);
    lzma_end(&d->x);
    ZSTD_freeDStream(d->zs);
    free(d);
}

static int gzip_run(struct pis_decomp *d, const unsigned char **in,
                    size_t *inlen, unsigned char *out, size_t cap,
                    size_t *got, char *err, size_t errlen)
{
    int rc;

    if (!d->in_stream && *inlen) {  /* another member follows */
        inflateReset(&d->z);
        d->in_stream = 1;
    }
    d->z.next_in = (unsigned char *)*in;
    d->z.avail_in = (uInt)(*inlen > UINT32_MAX ? UINT32_MAX : *inlen);
    d->z.next_out = out;
    d->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    rc = inflate(&d->z, Z_NO_FLUSH);
    *inlen -= (size_t)(d->z.next_in - *in);
    *in = d->z.next_in;
    *got = cap - d->z.avail_out;
    if (rc == Z_STREAM_END)
        d->in_stream = 0;
    else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        snprintf(err, errlen, "gzip data corrupt: %s",
                 d->z.msg ? d->z.msg : "inflate error");
        return -1;
    }
    return 0;
}

static int xz_run(struct pis_decomp *d, const unsigned char **in,
                  size_t *inlen, int eof, unsigned char *out, size_t cap,
                  size_t *got, char *err, size_t errlen)
{
    lzma_ret rc;

    d->x.next_in = *in;
    d->x.avail_in = *inlen;
    d->x.next_out = out;
    d->x.avail_out = cap;
    rc = lzma_code(&d->x, eof ? LZMA_FINISH : LZMA_RUN);
    *in = d->x.next_in;
    *inlen = d->x.avail_in;
    *got = cap - d->x.avail_out;
    d->in_stream = rc != LZMA_STREAM_END;
    if (rc == LZMA_STREAM_END)
        return 1;
    if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
        snprintf(err, errlen, "xz data corrupt (liblzma error %d)", (int)rc);
        return -1;
    }
    d->in_stream = 1;
    return 0;
}

static int zstd_run(struct pis_decomp *d, const unsigned char **in,
                    size_t *inlen, unsigned char *out, size_t cap,
                    size_t *got, char *err, size_t errlen)
{
    ZSTD_inBuffer ib = { *in, *inlen, 0 };
    ZSTD_outBuffer ob = { out, cap, 0 };
    size_t rc = ZSTD_decompressStream(d->zs, &ob, &ib);

    *in += ib.pos;
    *inlen -= ib.pos;
    *got = ob.pos;
    if (ZSTD_isError(rc)) {
        snprintf(err, errlen, "zstd data corrupt: %s", ZSTD_getErrorName(rc));
        return -1;
    }
    if (ib.pos || ob.pos)       /* 0: a frame ended (and none began) */
        d->in_stream = rc != 0;
    return 0;
}

int pis_decomp_run(struct pis_decomp *d, const unsigned char **in,
                   size_t *inlen, int eof, unsigned char *out, size_t cap,
                   size_t *got, char *err, size_t errlen)
{
    int rc;

    *got = 0;
    switch (d->c) {
    case PIS_COMP_GZIP:
        rc = gzip_run(d, in, inlen, out, cap, got, err, errlen);
        break;
    case PIS_COMP_XZ:
        rc = xz_run(d, in, inlen, eof, out, cap, got, err, errlen);
        break;
    case PIS_COMP_ZSTD:
        rc = zstd_run(d, in, inlen, out, cap, got, err, errlen);
        break;
    default:
        return 1;
    }
    if (rc < 0 || rc == 1)
        return rc;
    if (eof && !*inlen && !*got) {
        if (d->in_stream) {
            snprintf(err, errlen, "%s data ends inside a compressed stream",
                     pis_comp_name(d->c));
            return -1;
        }
        return 1;
    }
    return 0;
}
