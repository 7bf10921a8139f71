/*
 * What one benchmark adapter implements. Each benchmark program is the
 * harness (main.c) linked with exactly one adapter source file: one library,
 * one format, one test — so that its stripped size measures the code that
 * library and test pull in (compare with the empty adapter, empty.c).
 *
 * An adapter defines bench_adapter_def: its identity and the functions its
 * test needs (the others stay NULL).
 */
#ifndef SDX_BENCH_ADAPTER_H
#define SDX_BENCH_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write and Serialize: called with the finished output of one encoding. */
typedef void (*bench_emit_fn)(void *ctx, const void *data, size_t len);

/* bench_adapter.flags */
enum {
    /* The library's maps do not keep the document's key order, and it has no
     * option that makes them: its Tree/Serialize results are compared using
     * the order-independent map hash (SPEC.md, "Maps without order"). An
     * adapter with this flag hashes every map with sbh_unordered_map. */
    BENCH_UNORDERED_MAPS = 1
};

typedef struct bench_adapter {
    const char *library;  /* "sdx", "yyjson", "msgpack-c", ... */
    const char *language; /* "C", "C++" */
    const char *format;   /* "json", "msgpack", "cbor", "bson", "ubjson", "binn" */
    const char *test;     /* "write", "tree", "incremental" or "serialize" */

    /* Write test: encode `root` with the library's most natural writer API
     * into a growable buffer that this call creates, hand the finished bytes
     * to emit(ctx, ...) exactly once, then release everything. Returns 0, or
     * non-zero if the library reported an error (after bench_error). */
    int (*write)(const bt_node *root, bench_emit_fn emit, void *ctx);

    /* Tree and Incremental tests: parse data[0, len) — into the library's
     * document tree and then walk it (tree), or with its SAX / pull / event
     * API (incremental) — absorbing every value into *h in document order
     * with the sbh_* functions of hash.h. Returns 0, or non-zero if the
     * library rejected the input (after bench_error). `data` is followed by
     * 64 zero bytes that are not part of the input (for libraries that want
     * padded input). */
    int (*parse)(const char *data, size_t len, sbh *h);

    /* Serialize test ("document to bytes"): load parses data[0, len) once,
     * before any timing, into the library's own document and returns it
     * (NULL after bench_error on failure); serialize — the timed part —
     * writes that document back to the format into a buffer the call
     * creates, hands the bytes to emit exactly once and releases the buffer
     * (non-zero after bench_error on failure); unload frees the document. */
    void *(*load)(const char *data, size_t len);
    int (*serialize)(void *doc, bench_emit_fn emit, void *ctx);
    void (*unload)(void *doc);

    unsigned flags; /* BENCH_* above */
} bench_adapter;

/* Defined by the adapter source file (C++: extern "C"). */
extern const bench_adapter bench_adapter_def;

/* Record the library's own error message (printf-style) before returning
 * failure: the report shows it, so a failing row says what the library
 * said rather than "the library reported an error". Defined in main.c. */
void bench_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#define BENCH_PADDING 64

/* The definition of a Serialize adapter, in C or C++:
 *   BENCH_SERIALIZE_ADAPTER("yyjson", "C", "json", my_load, my_serialize, my_unload);
 */
#ifdef __cplusplus
#define BENCH_ADAPTER_LINKAGE extern "C"
#else
#define BENCH_ADAPTER_LINKAGE
#endif
#define BENCH_SERIALIZE_ADAPTER(library, language, format, load, serialize, unload) \
    BENCH_ADAPTER_LINKAGE const bench_adapter bench_adapter_def = {                \
        (library), (language), (format), "serialize", NULL, NULL, (load), (serialize), (unload), 0}

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_ADAPTER_H */
