/*
 * Internal: SIMD kernels with run-time dispatch.
 *
 * Each instruction set has one source file that fills an sdx_simd_kernels
 * table (scalar.c always exists). dispatch.c picks the best table the CPU
 * supports at first use, capped by the environment variable SDX_SIMD.
 */
#ifndef SDX_SIMD_H
#define SDX_SIMD_H

#include <stddef.h>
#include <stdint.h>

typedef enum sdx_simd_level {
    SDX_SIMD_SCALAR = 0,
    SDX_SIMD_SSE2,
    SDX_SIMD_AVX2,
    SDX_SIMD_AVX512, /* AVX-512 F + BW + VL */
    SDX_SIMD_NEON,
    SDX_SIMD__COUNT
} sdx_simd_level;

/* Which bytes stop the JSON escape scan, besides '"', '\\' and 0x00-0x1F,
 * which always do. */
enum {
    SDX_ESC_SLASH = 1u << 0, /* also '/' */
    SDX_ESC_HIGH = 1u << 1   /* also every byte >= 0x80 */
};

typedef struct sdx_simd_kernels {
    sdx_simd_level level;
    const char *name;
    /* Copy src to dst up to (not including) the first byte that needs
     * attention when writing a JSON string: '"', '\\', a byte below 0x20, and
     * the bytes chosen by `set` (SDX_ESC_*). Returns the number of bytes
     * before that byte, or n if there is none. Bytes [0, result) of dst hold
     * a copy of src; the kernel may also store to dst[result, n), never
     * beyond dst[n - 1], and never reads src beyond src[n - 1]. With n == 0
     * it touches nothing (dst and src may be NULL) and returns 0. */
    size_t (*json_escape_copy)(char *dst, const char *src, size_t n, unsigned set);
    /* Length of the longest prefix of s[0, n) that is well-formed UTF-8 and
     * ends at a character boundary: n if all of it is valid. Same result as
     * sdx_utf8_valid_prefix() in src/core/utf8.c for every input. Never
     * reads outside s[0, n); with n == 0, s may be NULL (the result is 0). */
    size_t (*utf8_valid_prefix)(const char *s, size_t n);
    /* Index of the first byte of s[0, n) that ends the plain part of a JSON
     * string body when reading: '"', '\\' or a byte below 0x20; n if there
     * is none. The JSON parser's scan for the end of a string. Never reads
     * outside s[0, n); with n == 0, s may be NULL (the result is 0). */
    size_t (*json_string_scan)(const char *s, size_t n);
    /* json_escape_copy for text that must be valid UTF-8, in one pass where
     * the level can: with R the smaller of the position of the first byte
     * that `set` stops at (SDX_ESC_HIGH is ignored) and the length of the
     * longest prefix of src[0, n) that is well-formed UTF-8 ending at a
     * character boundary (sdx_utf8_valid_prefix), it returns some r <= R,
     * with dst[0, r) a copy of src[0, r), and r == R unless src[r] >= 0x80
     * (then the caller validates from r on: a level may stop at every byte
     * above 0x7F, as json_escape_copy with SDX_ESC_HIGH does). Stores,
     * reads and n == 0 as json_escape_copy. */
    size_t (*json_escape_copy_utf8)(char *dst, const char *src, size_t n, unsigned set);
    /* Index of the first byte of s[0, n) that text has no place for: a
     * control byte (below 0x20) other than tab, newline and carriage
     * return, or DEL (0x7F); n if there is none. Format detection's test
     * for JSON text (src/core/detect.c). Never reads outside s[0, n); with
     * n == 0, s may be NULL (the result is 0). */
    size_t (*text_control_scan)(const char *s, size_t n);
} sdx_simd_kernels;

/* The table in use (chosen on first call; thread-safe). */
const sdx_simd_kernels *sdx_simd_active(void);

/* The table for `level` if this build has it and this CPU runs it, else
 * NULL. Tests use it to run every available kernel on the same inputs. */
const sdx_simd_kernels *sdx_simd_kernels_for(sdx_simd_level level);

/* Make `level` (or the best supported level below it) the active one for
 * objects created from now on; returns the level now active. */
sdx_simd_level sdx_simd_select(sdx_simd_level level);

/* Whether the CPU has AVX-512 (the avx512 level's extensions, and OS
 * support) together with VBMI2 and PCLMULQDQ, which the JSON tree parser's
 * structural indexing uses (src/json/parse.c); 0 on other architectures. */
int sdx_simd_avx512_vbmi2(void);

/* Level name ("scalar", "sse2", ...), and its inverse (-1 if unknown). */
const char *sdx_simd_level_name(sdx_simd_level level);
int sdx_simd_level_from_name(const char *name);

/* Per instruction set tables, defined in scalar.c, sse2.c, ... */
extern const sdx_simd_kernels sdx_simd_scalar;
extern const sdx_simd_kernels sdx_simd_sse2;
extern const sdx_simd_kernels sdx_simd_avx2;
extern const sdx_simd_kernels sdx_simd_avx512;
extern const sdx_simd_kernels sdx_simd_neon;

#endif /* SDX_SIMD_H */
