/*
 * The benchmark harness's own plain in-memory tree: what the Write tests
 * encode and what every result is checked against. Built before timing by
 * the generator, or read from a tree file that bench_tool made from a JSON
 * document with an independent parser (jansson), so that no library under
 * test produces its own input.
 */
#ifndef SDX_BENCH_TREE_H
#define SDX_BENCH_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bt_type { BT_NULL, BT_BOOL, BT_INT, BT_UINT, BT_DOUBLE, BT_STR, BT_ARRAY, BT_MAP } bt_type;

typedef struct bt_node {
    uint8_t type; /* bt_type */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *ptr; /* followed by a NUL byte (not counted in len) */
            size_t len;
        } str;
        struct {
            struct bt_node *items; /* maps: key, value, key, value, ... */
            size_t count;          /* elements, or map entries */
        } c;
    } v;
} bt_node;

/* Parse a JSON file into a tree (with jansson; tree_json.c, linked into
 * bench_tool and the tests only). Returns NULL and prints a message on
 * failure. Free with bt_free. */
bt_node *bt_load_json_file(const char *path);
void bt_free(bt_node *root);

/* A malloc'd copy of s[0, n) with a NUL after it (aborts on allocation
 * failure: this is harness code). */
char *bt_dup(const char *s, size_t n);

/* Number of nodes (keys count as nodes). */
size_t bt_count(const bt_node *n);

/* Absorb every value of the tree into *h in document order (the reference
 * hash; see SPEC.md). Needs hash.h. */
struct sbh;
void bt_hash(const bt_node *n, struct sbh *h);

/* The same with every map hashed without order (sbh_unordered_map): the
 * reference for libraries flagged BENCH_UNORDERED_MAPS. */
void bt_hash_unordered(const bt_node *n, struct sbh *h);

/* Change `root` in place into what `format` can represent (SPEC.md): for
 * "bson" a root array becomes a map with keys "0", "1", ..., and for "bson"
 * and "ubjson" integers above INT64_MAX become the nearest double. Other
 * formats: unchanged. */
void bt_adapt(const char *format, bt_node *root);

/* Load a tree from a spec: "gen:SIZE", "gen:SIZE:SEED" (the generator's
 * standard data) or "gen:SIZE:SEED:extended" (its extended data), or
 * "tree:PATH" (a tree file, treefile.h). NULL and a message on stderr if
 * the spec is bad. */
bt_node *bt_from_spec(const char *spec);

/* bt_from_spec, and also "json:PATH" (bt_load_json_file; tree_json.c). */
bt_node *bt_load_spec(const char *spec);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_TREE_H */
