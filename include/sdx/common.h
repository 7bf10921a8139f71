/*
 * sdx — common types: version, errors, allocator, the event model and sinks.
 *
 * Every reader in sdx produces sdx_event values and every writer consumes
 * them through an sdx_sink, so that any format converts to any other without
 * a tree in between.
 */
#ifndef SDX_COMMON_H
#define SDX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of sdx: written here and nowhere else. CMake reads these
 * three lines (project version, shared library version, sdx.pc, the CMake
 * package's version file), the command prints SDX_VERSION_STRING, and
 * CHANGELOG.md names the releases. */
#define SDX_VERSION_MAJOR 0
#define SDX_VERSION_MINOR 1
#define SDX_VERSION_PATCH 0
#define SDX_VERSION_STR_(x) #x
#define SDX_VERSION_STR(x) SDX_VERSION_STR_(x)
#define SDX_VERSION_STRING                                                                    \
    SDX_VERSION_STR(SDX_VERSION_MAJOR) "." SDX_VERSION_STR(SDX_VERSION_MINOR) "." SDX_VERSION_STR( \
        SDX_VERSION_PATCH)
/* One number that grows with every release: 10000 * major + 100 * minor +
 * patch (for #if). */
#define SDX_VERSION_NUMBER (SDX_VERSION_MAJOR * 10000 + SDX_VERSION_MINOR * 100 + SDX_VERSION_PATCH)

/* Public functions are exported from the shared library; everything else is
 * hidden (the library is compiled with -fvisibility=hidden). Define
 * SDX_HIDE_API when the library's sources are compiled into another
 * shared object that should not export them (the Python extension, with
 * -fvisibility=hidden): its calls into sdx are then direct calls, not
 * calls through the PLT. */
#if defined(SDX_HIDE_API)
#define SDX_API
#elif defined(_WIN32) && defined(SDX_BUILDING_SHARED)
#define SDX_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SDX_API __attribute__((visibility("default")))
#else
#define SDX_API
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* One error enum for the whole library. Values are stable: new ones are only
 * ever added before SDX_ERR__COUNT. */
typedef enum sdx_err {
    SDX_OK = 0,
    SDX_ERR_NOMEM,       /* an allocation failed */
    SDX_ERR_IO,          /* a read from or write to a stream failed */
    SDX_ERR_OVERFLOW,    /* the output does not fit in a fixed-size buffer */
    SDX_ERR_USAGE,       /* a call out of order: a value where a key is due, an
                            end without a begin, a container count not met,
                            finish with containers still open */
    SDX_ERR_SYNTAX,      /* malformed input */
    SDX_ERR_TRUNCATED,   /* the input ends inside a value */
    SDX_ERR_DEPTH,       /* nesting deeper than the configured limit */
    SDX_ERR_UTF8,        /* a string is not valid UTF-8 */
    SDX_ERR_RANGE,       /* a number the target cannot represent (NaN or
                            infinity in strict JSON, out-of-range integers) */
    SDX_ERR_UNSUPPORTED, /* a value the target format cannot represent */
    SDX_ERR_KEY,         /* a map key the target format does not allow */
    SDX_ERR_TYPE,        /* a value of another type than the one asked for */
    SDX_ERR_NOT_FOUND,   /* no such key or index */
    SDX_ERR_LIMIT,       /* a size or count above a configured limit */
    SDX_ERR_INVALID_ARG, /* an argument outside its documented domain */
    SDX_ERR__COUNT
} sdx_err;

/* A short English description of an error code; never NULL (unknown codes
 * give "unknown error"). Works in every build. */
SDX_API const char *sdx_strerror(sdx_err err);

/* Where and why reading failed. `offset` is a byte offset into the input;
 * `line` and `column` (both 1-based, column counted in bytes) are set by text
 * formats and 0 for binary ones. `msg` is a static string, never NULL once an
 * error is reported. */
typedef struct sdx_error {
    sdx_err code;
    size_t offset;
    size_t line;
    size_t column;
    const char *msg;
} sdx_error;

/* ------------------------------------------------------------------------ */
/* Allocator                                                                 */
/* ------------------------------------------------------------------------ */

/* One pluggable allocator for every allocation the library makes. `realloc`
 * receives the old size so that arena and pool allocators can be plugged in;
 * `free` accepts NULL. Any function may return NULL to signal failure, which
 * the library reports as SDX_ERR_NOMEM and never treats as fatal. */
typedef struct sdx_alloc {
    void *(*malloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
} sdx_alloc;

/* The default allocator: the C library's malloc, realloc and free. */
SDX_API const sdx_alloc *sdx_alloc_default(void);

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

/* What an event is. A map's entries are alternating key and value events: a
 * string key is an SDX_KEY event; formats that allow other keys (MessagePack,
 * CBOR) deliver them as ordinary scalar events in key position. */
typedef enum sdx_kind {
    SDX_NULL = 0,
    SDX_BOOL,   /* v.b */
    SDX_INT,    /* v.i: readers use SDX_INT for every integer that fits int64 */
    SDX_UINT,   /* v.u: readers use SDX_UINT only above INT64_MAX; writers
                   accept any value either way */
    SDX_DOUBLE, /* v.d */
    SDX_STR,    /* v.str: UTF-8 text, not NUL-terminated */
    SDX_BIN,    /* v.str: raw bytes */
    SDX_ARRAY,  /* begin an array of v.count elements (or SDX_COUNT_UNKNOWN) */
    SDX_MAP,    /* begin a map of v.count entries (or SDX_COUNT_UNKNOWN) */
    SDX_KEY,    /* v.str: a string map key */
    SDX_END,    /* end the innermost array or map */
    SDX_RAW,    /* v.str: a number kept as its JSON text (readers do this only
                   when asked to, for numbers beyond 64 bits); the JSON writer
                   writes it as is after checking its grammar, other formats
                   reject it with SDX_ERR_UNSUPPORTED */
    SDX_NINT,   /* v.u = n: the integer -1 - n, for integers below INT64_MIN
                   (-2^64 .. -2^63 - 1; CBOR major type 1). Readers use it
                   only there. CBOR writes it as is, JSON as exact decimal
                   text; formats that cannot hold it: SDX_ERR_RANGE */
    SDX_TAG     /* one more tag on the next item, in tag_kind and tag. An
                   item's own event carries at most one tag; a format that
                   allows several on one item (CBOR) delivers the outer ones
                   first as SDX_TAG events, outermost first, and the
                   innermost on the item's event. SDX_TAG is not an item (it
                   does not count towards a container's count); writers of
                   formats without such tags ignore it */
} sdx_kind;

/* The count of a container whose size is not known when it begins. */
#define SDX_COUNT_UNKNOWN UINT64_MAX

/* Which namespace an event's tag belongs to. A format that has no notion of
 * a tag writes the plain value and ignores the tag. */
typedef enum sdx_tag_kind {
    SDX_TAG_NONE = 0,    /* untagged (tag is 0) */
    SDX_TAG_MSGPACK_EXT, /* MessagePack extension type; tag holds the int8
                            type (as a two's complement value) */
    SDX_TAG_CBOR,        /* CBOR tag number (RFC 8949 section 3.4) */
    SDX_TAG_BSON,        /* BSON element type or binary subtype */
    SDX_TAG_CBOR_SIMPLE, /* on SDX_NULL: the CBOR simple value tag (0..19,
                            32..255; 23 is undefined). false, true and null
                            are plain SDX_BOOL and SDX_NULL events */
    SDX_TAG_UBJSON,      /* UBJSON and BJData: on a strongly typed
                            SDX_ARRAY or SDX_MAP ('$'), tag holds its
                            element type marker (an ASCII byte); see
                            ubjson.h */
    SDX_TAG_BINN         /* Binn type outside the plain ones (datetime,
                            date, time, decimal, user sub-types): tag holds
                            the whole type parameter, 0x00-0xff or
                            0x1000-0xffff for a two-byte type (binn.h) */
} sdx_tag_kind;

/* Details of an event's value that the value itself does not carry. */
typedef enum sdx_event_flag {
    /* On SDX_DOUBLE: the value was read from a 32-bit float (MessagePack
     * float 32), so v.d converts to float exactly; a writer of a format
     * with 32-bit floats writes it as one again. */
    SDX_EVENT_FLOAT32 = 1u << 0,
    /* On SDX_DOUBLE: the value was read from a 16-bit float (CBOR half
     * precision), so it converts to a half exactly. */
    SDX_EVENT_FLOAT16 = 1u << 1,
    /* On SDX_STR, SDX_BIN, SDX_KEY: the string was an indefinite-length
     * one (CBOR, RFC 8949 section 3.2.3) whose chunks the reader joined.
     * Set only by readers asked to keep that structure
     * (SDX_CBOR_READ_CHUNKS); writers ignore it. */
    SDX_EVENT_INDEFINITE = 1u << 2
} sdx_event_flag;

/* One event: what readers produce and writers consume. A zero-initialized
 * event is an untagged null. Strings and binaries are views: the bytes belong
 * to whoever produced the event and are valid until the producer's next call. */
typedef struct sdx_event {
    uint8_t kind;     /* sdx_kind */
    uint8_t tag_kind; /* sdx_tag_kind */
    uint8_t flags;    /* sdx_event_flag bits (0 unless documented) */
    uint32_t depth;   /* nesting depth, set by readers (0 at the root) */
    uint64_t tag;     /* meaning given by tag_kind */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *ptr;
            size_t len;
        } str;          /* SDX_STR, SDX_BIN, SDX_KEY, SDX_RAW */
        uint64_t count; /* SDX_ARRAY, SDX_MAP */
    } v;
} sdx_event;

/* Private helpers of the readers' and writers' inline fast paths
 * (msgpack.h, cbor.h), not part of the API: the n bytes at p as a
 * big-endian number (a load and a byte swap), 8 bytes in the machine's order,
 * an event's kind and depth with no flags, no tag and a zero value (set
 * whole, so that the compiler sees every byte of an event in registers
 * initialized), and a copy of an event field by field (loads of the sizes
 * the exported function stored: a wider copy would wait for its stores to
 * retire). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Loads and stores of 2, 4 and 8 bytes spelled as one memcpy (and one byte
 * swap for big-endian numbers): gcc 12 at -O2 leaves the byte loops below
 * as loops, one byte per step, where they sit inside another loop (BSON's
 * key scan), and a program built at -O2 read twitter.bson 1.8x slower for
 * it (bench/micro/pull_loop.c, bench/README.md). */
#define SDX__HOT_LE_HOST 1
#endif
static inline uint64_t sdx_hot_word(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint64_t sdx_hot_be(const uint8_t *p, int n) {
#ifdef SDX__HOT_LE_HOST
    if (n == 8) return __builtin_bswap64(sdx_hot_word(p));
    if (n == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return __builtin_bswap32(v);
    }
    if (n == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return __builtin_bswap16(v);
    }
#endif
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}
/* The n bytes at p as a little-endian number: BSON's inline reading
 * path. */
static inline uint64_t sdx_hot_le(const uint8_t *p, int n) {
#ifdef SDX__HOT_LE_HOST
    if (n == 8) return sdx_hot_word(p);
    if (n == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
#endif
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
/* The low n bytes of v, big-endian, at p: the writers' inline paths. One
 * byte swap and one store for 2, 4 and 8 bytes on little-endian gcc and
 * clang (gcc 12 at -O2 stored a float64 one byte per step: the MessagePack
 * writer's loop of uint64 and double values took 2.5x the time). */
static inline void sdx_hot_store_be(char *p, uint64_t v, int n) {
#ifdef SDX__HOT_LE_HOST
    if (n == 8) {
        uint64_t w = __builtin_bswap64(v);
        memcpy(p, &w, 8);
        return;
    }
    if (n == 4) {
        uint32_t w = __builtin_bswap32((uint32_t)v);
        memcpy(p, &w, 4);
        return;
    }
    if (n == 2) {
        uint16_t w = __builtin_bswap16((uint16_t)v);
        memcpy(p, &w, 2);
        return;
    }
#endif
    for (int i = 0; i < n; i++) p[i] = (char)(unsigned char)(v >> (8 * (n - 1 - i)));
}
/* v's low `len` bytes (1, 2, 4 or 8), big-endian, at p, by one 8-byte
 * store of v shifted to the top: the 8 bytes from p must be writable. For
 * a writer's integer whose size class comes from compares instead of a
 * branch per class (sdx_ubj_w_int): on integers of mixed magnitudes a
 * chain of branches mispredicts about once a value. */
static inline void sdx_hot_store_be_top(char *p, uint64_t v, unsigned len) {
    sdx_hot_store_be(p, v << (64 - 8 * len), 8);
}
/* A hint that a condition is rarely true, for the headers' inline
 * functions (not part of the API). */
#if defined(__GNUC__) || defined(__clang__)
#define SDX__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SDX__UNLIKELY(x) (x)
#endif
/* How the binary formats' reader fast paths (sdx_msgpack_reader_next_inline
 * and the like) are declared: static inline, so the compiler inlines them
 * where it judges it worth their size. A program that calls one from a
 * few hot loops and wants it in each of them may define
 * SDX_READER_ALWAYS_INLINE before it includes the headers (GCC and Clang;
 * the Python package does, for its decoder's container loops). */
#if defined(SDX_READER_ALWAYS_INLINE) && (defined(__GNUC__) || defined(__clang__))
#define SDX_READER_HOT_FN static inline __attribute__((always_inline))
#else
#define SDX_READER_HOT_FN static inline
#endif
/* Every byte 0x01: with a byte value times it, that byte in all eight. */
#define SDX_HOT_ONES8 0x0101010101010101u

/* The index of the lowest set bit of x (x not 0). */
#if defined(__GNUC__) || defined(__clang__)
static inline __attribute__((always_inline)) unsigned sdx_hot_ctz64(uint64_t x) {
    return (unsigned)__builtin_ctzll(x);
}
#else
static inline unsigned sdx_hot_ctz64(uint64_t x) {
    unsigned n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif
/* Copy n bytes from s to p (s may be NULL when n is 0) and tell whether
 * they were all ASCII, with `mask` the high bit of each byte (0 accepts
 * any bytes): one pass of word loads that both copies and tests, the
 * cheap half of the UTF-8 check of short text in the writers' inline
 * paths. Words may overlap (the last one ends at n). */
static inline int sdx_hot_copy_ascii(char *p, const char *s, size_t n, uint64_t mask) {
    uint64_t a = 0, x;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, s + i, 8);
            memcpy(p + i, &x, 8);
            a |= x;
        }
        memcpy(&x, s + n - 8, 8);
        memcpy(p + n - 8, &x, 8);
        return ((a | x) & mask) == 0;
    }
    if (n >= 4) {
        uint32_t y, z;
        memcpy(&y, s, 4);
        memcpy(&z, s + n - 4, 4);
        memcpy(p, &y, 4);
        memcpy(p + n - 4, &z, 4);
        return ((y | z) & mask) == 0;
    }
    if (n == 0) return 1;
    p[0] = s[0];
    p[n / 2] = s[n / 2];
    p[n - 1] = s[n - 1];
    a = (uint64_t)(unsigned char)s[0] | (unsigned char)s[n / 2] | (unsigned char)s[n - 1];
    return (a & mask) == 0;
}
/* Whether the n bytes at q are ASCII under `mask` (the high bit of each
 * byte, or 0 to accept any bytes), for the readers' inline paths: 16 bytes
 * from q must be readable (they are in the window) whatever n is. Up to 16
 * bytes without a branch on n: both words at q, each under a mask of the
 * string's bytes, read from a table of 16 high bits and 16 zeros (the
 * string lengths of random data made the branches on n mispredict about
 * once per string, bench/README.md); up to 128 bytes inside the `avail`
 * bytes from q: every 8 bytes. 0 for anything else (longer, past the
 * window, or not ASCII): the exported function's to read. */
static inline int sdx_hot_ascii(const uint8_t *q, size_t n, size_t avail, uint64_t mask) {
    static const uint8_t lanes[32] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    uint64_t a, b;
    if (n <= 16) { /* byte i of the string is under lanes[16 - n + i] */
        a = sdx_hot_word(q) & sdx_hot_word(lanes + 16 - n);
        b = sdx_hot_word(q + 8) & sdx_hot_word(lanes + 24 - n);
    } else {
        if (n > 128 || n > avail) return 0;
        a = sdx_hot_word(q);
        for (size_t i = 8; i + 8 <= n; i += 8) a |= sdx_hot_word(q + i);
        b = sdx_hot_word(q + n - 8);
    }
    return ((a | b) & mask) == 0;
}
/* Whether a reader's inline path may take the text string of n bytes at
 * q (as sdx_hot_ascii: 16 bytes readable from q, `avail` in the window):
 * ASCII up to 128 bytes is checked here; a longer string, or one with
 * other bytes, by `valid` (the library's UTF-8 kernel) when it is in the
 * window; without UTF-8 checks (mask 0) any bytes in the window. The
 * kernel's branch is marked unlikely: placed inline it slowed data that
 * has no such strings (bench/README.md). */
static inline int sdx_hot_text(const uint8_t *q, size_t n, size_t avail, uint64_t mask,
                               size_t (*valid)(const char *, size_t)) {
    if (SDX__UNLIKELY(!sdx_hot_ascii(q, n, avail, mask)))
        return n <= avail && (!mask || valid((const char *)q, n) == n);
    return 1;
}
static inline void sdx_hot_head(sdx_event *ev, uint8_t kind, uint32_t depth) {
    ev->kind = kind;
    ev->tag_kind = SDX_TAG_NONE;
    ev->flags = 0;
    ev->depth = depth;
    ev->tag = 0;
    ev->v.str.ptr = NULL;
    ev->v.str.len = 0;
}
static inline void sdx_hot_copy(sdx_event *ev, const sdx_event *e) {
    ev->kind = e->kind;
    ev->tag_kind = e->tag_kind;
    ev->flags = e->flags;
    ev->depth = e->depth;
    ev->tag = e->tag;
    ev->v.str.ptr = e->v.str.ptr;
    ev->v.str.len = e->v.str.len;
}

/* The name of the SIMD instruction set the library's kernels use in this
 * process: "scalar", "sse2", "avx2", "avx512" or "neon". Chosen at first use
 * from what the CPU supports; the environment variable SDX_SIMD (same names)
 * caps the choice, e.g. SDX_SIMD=scalar forces the portable kernels. */
SDX_API const char *sdx_simd_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SDX_COMMON_H */
