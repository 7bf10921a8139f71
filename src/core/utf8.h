/*
 * Internal: UTF-8 validation, decoding and encoding (RFC 3629; the
 * well-formed byte sequences of Unicode 15, table 3-7).
 */
#ifndef SDX_UTF8_H
#define SDX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the longest prefix of s[0, n) that is well-formed UTF-8 and ends
 * at a character boundary: n if the whole input is valid, otherwise the
 * offset of the first byte of the first ill-formed sequence. */
size_t sdx_utf8_valid_prefix(const char *s, size_t n);

/* At an offset where sdx_utf8_valid_prefix() stopped, the length (1 to 3) of
 * the maximal subpart of an ill-formed sequence: the bytes that one U+FFFD
 * replaces under the Unicode "substitution of maximal subparts" practice
 * (Unicode 15, section 3.9). n must be at least 1. */
size_t sdx_utf8_invalid_len(const char *s, size_t n);

/* Whether s[0, n) (n >= 1) is a proper prefix of a well-formed sequence: a
 * lead byte and fewer continuation bytes than it needs, all in range. Input
 * that ends so has been cut inside a character, which readers report as the
 * end of input rather than as invalid UTF-8. */
bool sdx_utf8_is_cut(const char *s, size_t n);

/* Decode one well-formed sequence at s (the caller has validated it); stores
 * its length (1 to 4) in *len and returns the code point. */
uint32_t sdx_utf8_decode(const char *s, size_t *len);

/* Encode code point cp (at most 0x10FFFF, not a surrogate) at dst; returns
 * the end (1 to 4 bytes written). */
char *sdx_utf8_encode(char *dst, uint32_t cp);

#endif /* SDX_UTF8_H */
