/*
 * Internal: base64 (RFC 4648 section 4, standard alphabet, with padding).
 */
#ifndef SDX_BASE64_H
#define SDX_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Encoded length of n bytes: 4 * ceil(n / 3). The caller checks n against
 * overflow (n <= SIZE_MAX / 4 * 3 - 3). */
static inline size_t sdx_base64_len(size_t n) { return (n + 2) / 3 * 4; }

/* Encode n bytes at src into dst (room for sdx_base64_len(n) bytes); returns
 * the end. */
char *sdx_base64_encode(char *dst, const void *src, size_t n);

/* Decode n bytes of base64 text (standard alphabet, padded, canonical: the
 * bits padding leaves over must be zero) into dst (room for n / 4 * 3
 * bytes); returns the decoded length, or SIZE_MAX when the text is not
 * exactly such base64 (nothing is skipped, whitespace included). */
size_t sdx_base64_decode(void *dst, const char *src, size_t n);

#endif /* SDX_BASE64_H */
