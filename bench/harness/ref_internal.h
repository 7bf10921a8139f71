/*
 * What the reference codecs (ref_*.c) share: an output buffer for the
 * encoders, a bounds-checked input cursor for the decoders, UTF-8
 * validation and bit-exact float conversions. Private to the harness's
 * reference codecs (the library target bench_ref); see ref.h.
 */
#ifndef SDX_BENCH_REF_INTERNAL_H
#define SDX_BENCH_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "tree.h"

#if defined(__GNUC__) || defined(__clang__)
#define REF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define REF_PRINTF(f, a)
#endif

/* Deepest nesting of containers a decoder accepts (and an encoder writes):
 * deeper input is an error, not a stack overflow. */
#define REF_MAX_DEPTH 512

/* ---- encoders' output ---------------------------------------------------- */

/* A growable byte buffer. `failed` is sticky: set when memory runs out or an
 * encoder meets a value its format cannot represent; later writes do
 * nothing and rbuf_finish returns NULL. */
typedef struct rbuf {
    char *p;
    size_t len, cap;
    int failed;
} rbuf;

void rbuf_put(rbuf *b, const void *p, size_t n);
void rbuf_byte(rbuf *b, unsigned c);
/* The low `nbytes` bytes of v, most significant first / least first. */
void rbuf_be(rbuf *b, uint64_t v, int nbytes);
void rbuf_le(rbuf *b, uint64_t v, int nbytes);
void rbuf_fail(rbuf *b);
/* The bytes followed by BENCH_PADDING zero bytes, owned by the caller; NULL
 * (and the buffer released) if the buffer failed. */
char *rbuf_finish(rbuf *b, size_t *len);
void rbuf_free(rbuf *b);

/* ---- decoders' input ----------------------------------------------------- */

/* An open container while decoding with maps hashed without order. */
typedef struct ref_frame {
    sbh entry;       /* the current map entry's own hash */
    uint64_t sum;    /* of the finished entries' hashes */
    uint64_t count;  /* entries */
    sbh *parent;     /* where the container itself is absorbed */
    int is_map, open;
} ref_frame;

/* The input cursor of one decode. Decoders never read p[len] or beyond;
 * every `need` is checked against len, which a container may narrow to its
 * own declared end while its items are read (BSON, Binn).
 *
 * Decoders absorb scalars into d->h and report containers and string keys
 * with rdec_begin, rdec_key and rdec_end: with `frames` set (ref_decode's
 * unordered mode) these hash every map without order (SPEC.md), moving
 * d->h to the current entry's state; otherwise they are sbh_map/_array,
 * sbh_key and sbh_end on d->h. */
typedef struct rdec {
    const unsigned char *p;
    size_t len, pos;
    sbh *h;
    ref_frame *frames; /* REF_MAX_DEPTH + 1 of them, or NULL */
    unsigned nframes;
    char *err;
    size_t errlen;
    int failed;
    unsigned depth;
    rbuf scratch; /* unescaped strings, number text, concatenated chunks */
} rdec;

/* Record the first error ("byte AT: message") and return -1. */
int rdec_fail(rdec *d, size_t at, const char *fmt, ...) REF_PRINTF(3, 4);
/* 0 if n more bytes are available at pos, else an error (-1). */
int rdec_need(rdec *d, size_t n);
/* Container nesting: rdec_enter fails past REF_MAX_DEPTH. */
int rdec_enter(rdec *d);
void rdec_leave(rdec *d);

/* A container begins (map or array), a string map key, a container ends. */
void rdec_begin(rdec *d, int is_map);
void rdec_key(rdec *d, const char *p, size_t n);
void rdec_end(rdec *d);

uint64_t ref_load_be(const unsigned char *p, int nbytes);
uint64_t ref_load_le(const unsigned char *p, int nbytes);

/* 1 if p[0, n) is well-formed UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF); else 0 and *bad is the offset of the bad
 * sequence. */
int ref_utf8_valid(const unsigned char *p, size_t n, size_t *bad);

/* Absorb a string: as a map key (sbh_key) or a value (sbh_str), after
 * checking it is UTF-8 (error at offset `at` + the bad byte). */
int ref_text(rdec *d, const unsigned char *p, size_t n, int as_key, size_t at);

/* Exact conversions to double from the bits of a binary64, binary32 and
 * binary16 value (NaNs keep their sign and payload, quietened). */
double ref_double_from_bits(uint64_t bits);
uint64_t ref_double_bits(double d);
double ref_double_from_binary32(uint32_t bits);
double ref_double_from_binary16(uint16_t bits);

/* A JSON number text (RFC 8259 grammar, the whole of p[0, n)), absorbed
 * with the JSON decoder's rules (ref_json.c); used by UBJSON's
 * high-precision numbers. */
int ref_json_number(rdec *d, const char *p, size_t n, size_t at);

/* ---- the formats ---------------------------------------------------------- */

/* Encoders: see ref_encode. Decoders: decode one value at d->pos and absorb
 * it into d->h; ref_decode checks that nothing follows. */
#define REF_FORMAT(name)                                                                                     \
    char *ref_##name##_encode(const bt_node *root, size_t *len);                                             \
    int ref_##name##_decode(rdec *d);
REF_FORMAT(json)
REF_FORMAT(msgpack)
REF_FORMAT(cbor)
REF_FORMAT(bson)
REF_FORMAT(ubjson)
REF_FORMAT(binn)
#undef REF_FORMAT

#endif /* SDX_BENCH_REF_INTERNAL_H */
