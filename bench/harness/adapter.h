/*
 * What one benchmark adapter implements. Each benchmark program is the
 * harness (main.c) linked with exactly one adapter source file: one library,
 * one format, one test — so that its stripped size measures the code that
 * library and test pull in (compare with the empty adapter, empty.c).
 *
 * An adapter defines bench_adapter_def: its identity and the one function
 * its test needs (the other stays NULL).
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

/* Write: called with the finished output of one encoding. */
typedef void (*bench_emit_fn)(void *ctx, const void *data, size_t len);

typedef struct bench_adapter {
    const char *library;  /* "sdx", "yyjson", "msgpack-c", ... */
    const char *language; /* "C", "C++" */
    const char *format;   /* "json", "msgpack", "cbor", "bson", "ubjson", "binn" */
    const char *test;     /* "write", "tree" or "incremental" */

    /* Write test: encode `root` with the library's most natural writer API
     * into a growable buffer that this call creates, hand the finished bytes
     * to emit(ctx, ...) exactly once, then release everything. Returns 0, or
     * non-zero if the library reported an error. */
    int (*write)(const bt_node *root, bench_emit_fn emit, void *ctx);

    /* Tree and Incremental tests: parse data[0, len) — into the library's
     * document tree and then walk it (tree), or with its SAX / pull / event
     * API (incremental) — absorbing every value into *h in document order
     * with the sbh_* functions of hash.h. Returns 0, or non-zero if the
     * library rejected the input. `data` is followed by 64 zero bytes that
     * are not part of the input (for libraries that want padded input). */
    int (*parse)(const char *data, size_t len, sbh *h);
} bench_adapter;

/* Defined by the adapter source file (C++: extern "C"). */
extern const bench_adapter bench_adapter_def;

#define BENCH_PADDING 64

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_ADAPTER_H */
