/*
 * The harness's reference codecs: a plain, independent encoder and decoder
 * for every format, written from the specifications and used as the oracle
 * of the benchmark (they are never timed). The encoders produce the input
 * of the Tree and Incremental tests; the decoders verify what the Write
 * tests produced. Trees are adapted first (bt_adapt in tree.h).
 */
#ifndef SDX_BENCH_REF_H
#define SDX_BENCH_REF_H

#include <stddef.h>

#include "hash.h"
#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The formats, in report order: "json", "msgpack", "cbor", "bson",
 * "ubjson", "binn"; NULL-terminated. */
extern const char *const ref_formats[];

/* 1 if `format` is one of ref_formats. */
int ref_known_format(const char *format);

/* Encode an adapted tree. Returns a malloc'd buffer with BENCH_PADDING (64)
 * zero bytes after the *len bytes of output, or NULL for an unknown format
 * or a value the format cannot represent. */
char *ref_encode(const char *format, const bt_node *root, size_t *len);

/* Decode data[0, len) (exactly one value, nothing after it) and absorb
 * every value into *h in document order. Returns 0, or non-zero with a
 * message in err[0, errlen). */
int ref_decode(const char *format, const char *data, size_t len, sbh *h, char *err, size_t errlen);

/* ref_decode with every map hashed without order (sbh_unordered_map,
 * SPEC.md): what the output of a library flagged BENCH_UNORDERED_MAPS is
 * compared with. Map keys must be strings. */
int ref_decode_unordered(const char *format, const char *data, size_t len, sbh *h, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_REF_H */
