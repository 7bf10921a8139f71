/*
 * Internal: what the Binn writer, reader and parser share — the storage
 * classes of a type parameter and the size/count parameter's two widths
 * (spec.md, "[Type]" and "[Size]").
 */
#ifndef SDX_BINN_INTERNAL_H
#define SDX_BINN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/endian.h"
#include "sdx/binn.h"
#include "sdx/doc.h"

/* The storage classes: the top three bits of a type's first byte. */
enum {
    SDX_BINN_ST_NOBYTES = 0x00,
    SDX_BINN_ST_BYTE = 0x20,
    SDX_BINN_ST_WORD = 0x40,
    SDX_BINN_ST_DWORD = 0x60,
    SDX_BINN_ST_QWORD = 0x80,
    SDX_BINN_ST_STRING = 0xa0,
    SDX_BINN_ST_BLOB = 0xc0,
    SDX_BINN_ST_CONTAINER = 0xe0
};

/* The bit of a type's first byte that says the type takes two bytes. */
#define SDX_BINN_TYPE_WIDE 0x10

/* Whether `type` is a type parameter as the writer takes it (binn.h): one
 * byte with the wide bit clear, or two bytes with it set. */
static inline bool sdx_binn_type_valid(uint32_t type) {
    if (type <= 0xff) return !(type & SDX_BINN_TYPE_WIDE);
    return type <= 0xffff && (type & (SDX_BINN_TYPE_WIDE << 8));
}

/* The storage class of a valid type parameter. */
static inline unsigned sdx_binn_storage(uint32_t type) {
    return (type <= 0xff ? type : type >> 8) & 0xe0;
}

/* The data bytes of a fixed-size storage (byte, word, dword, qword); 0 for
 * the others. */
static inline size_t sdx_binn_fixed_size(unsigned storage) {
    switch (storage) {
    case SDX_BINN_ST_BYTE: return 1;
    case SDX_BINN_ST_WORD: return 2;
    case SDX_BINN_ST_DWORD: return 4;
    case SDX_BINN_ST_QWORD: return 8;
    default: return 0;
    }
}

/* Store a size or count parameter (n <= SDX_BINN_SIZE_MAX) at p: one byte
 * up to 127, else four big-endian bytes with the high bit set. Returns the
 * end. */
static inline unsigned char *sdx_binn_put_size(unsigned char *p, uint32_t n) {
    if (n <= 127) {
        *p = (unsigned char)n;
        return p + 1;
    }
    sdx_store_be32(p, n | 0x80000000u);
    return p + 4;
}

/* The bytes a size or count parameter of value n takes. */
static inline size_t sdx_binn_size_len(uint64_t n) { return n <= 127 ? 1 : 4; }

/* The parser's reader: stop after the first top-level value (whatever
 * follows is not looked at). */
void sdx_binn_reader_one_value(sdx_binn_reader *r);

/* sdx_binn_parse's loop: the reader's events into the builder until the
 * reader stops (then its error tells why) or the builder refuses (its
 * error returned). In reader.c, where the reader's code is inlined. */
sdx_err sdx_binn_reader_build_(sdx_binn_reader *r, sdx_doc_builder *b);

/* sdx_binn_parse's two paths (parse.c), private, apart for the tests that
 * compare them: the direct parse of a value of the common types (1 with
 * the document in *out, 0 when the input is not that or not valid, -1
 * when out of memory), and the reader's events into the builder (the
 * parser's result, errors included, for any input). */
int sdx_binn_parse_direct_(const char *data, size_t len, const sdx_binn_read_opts *opts,
                           sdx_doc **out);
sdx_doc *sdx_binn_parse_events_(const char *data, size_t len, const sdx_binn_read_opts *opts,
                                sdx_error *err);

#endif
