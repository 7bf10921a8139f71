/*
 * bench_tool: the benchmark's reference encoder, decoder and hasher on the
 * command line (ref.h, tree.h). bench/run.py uses it to make the inputs of
 * the Tree and Incremental tests and to verify what the Write tests wrote.
 *
 *   bench_tool encode FORMAT TREESPEC OUT    adapt the tree, encode it, write OUT
 *   bench_tool hash FORMAT TREESPEC          the adapted tree's value hash
 *   bench_tool verify FORMAT TREESPEC FILE   decode FILE, compare with the hash;
 *                                            one JSON object; exit 0 only if equal
 *   bench_tool decode-hash FORMAT FILE       the value hash of FILE's content
 *   bench_tool info TREESPEC                 counts, depth and sizes (JSON)
 *   bench_tool tree TREESPEC OUT             write the (unadapted) tree as a tree
 *                                            file, for the benchmark programs
 *   bench_tool strings FORMAT TREESPEC OUT   every string and key of the adapted
 *                                            tree, concatenated in document order
 *                                            (the UTF-8 bound's input)
 *   bench_tool hash --unordered FORMAT TREESPEC
 *   bench_tool verify --unordered FORMAT TREESPEC FILE
 *                                            the same with the order-independent
 *                                            map hash (SPEC.md)
 *
 * TREESPEC is gen:SIZE[:SEED[:extended]], json:PATH or tree:PATH. Hashes are
 * 16 lowercase hex digits. Exit status: 0 success, 1 failure (bad input,
 * mismatch), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "ref.h"
#include "tree.h"
#include "treefile.h"

static int usage(void) {
    fprintf(stderr, "usage: bench_tool encode FORMAT TREESPEC OUT\n"
                    "       bench_tool hash FORMAT TREESPEC\n"
                    "       bench_tool verify FORMAT TREESPEC FILE\n"
                    "       bench_tool decode-hash FORMAT FILE\n"
                    "       bench_tool info TREESPEC\n"
                    "       bench_tool tree TREESPEC OUT\n"
                    "       bench_tool strings FORMAT TREESPEC OUT\n"
                    "       (hash and verify take --unordered before FORMAT)\n"
                    "FORMAT: json msgpack cbor bson ubjson binn; TREESPEC: gen:SIZE[:SEED[:extended]], "
                    "json:PATH or tree:PATH\n");
    return 2;
}

static int check_format(const char *format) {
    if (ref_known_format(format)) return 1;
    fprintf(stderr, "bench_tool: unknown format '%s'\n", format);
    return 0;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    for (;;) {
        if (!p) {
            fclose(f);
            return NULL;
        }
        n += fread(p + n, 1, cap - n, f);
        if (n < cap) break;
        cap *= 2;
        char *q = realloc(p, cap);
        if (!q) free(p);
        p = q;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return NULL;
    }
    *len = n;
    return p;
}

/* The tree of a spec, adapted to a format (NULL: message printed). */
static bt_node *load_tree(const char *format, const char *spec) {
    bt_node *t = bt_load_spec(spec);
    if (t && format) bt_adapt(format, t);
    return t;
}

/* --unordered: maps hashed without order (SPEC.md). */
static int unordered;

static uint64_t tree_hash(const bt_node *t) {
    sbh h;
    sbh_init(&h);
    if (unordered) bt_hash_unordered(t, &h);
    else bt_hash(t, &h);
    return sbh_final(&h);
}

/* A JSON string literal of a short text. */
static void print_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7F) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static int cmd_encode(const char *format, const char *spec, const char *out) {
    if (!check_format(format)) return 2;
    bt_node *t = load_tree(format, spec);
    if (!t) return 1;
    size_t len;
    char *data = ref_encode(format, t, &len);
    bt_free(t);
    if (!data) {
        fprintf(stderr, "bench_tool: %s cannot represent the tree of %s\n", format, spec);
        return 1;
    }
    FILE *f = fopen(out, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    free(data);
    if (!ok) {
        fprintf(stderr, "bench_tool: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    return 0;
}

static int cmd_hash(const char *format, const char *spec) {
    if (!check_format(format)) return 2;
    bt_node *t = load_tree(format, spec);
    if (!t) return 1;
    printf("%016" PRIx64 "\n", tree_hash(t));
    bt_free(t);
    return 0;
}

/* Decode a file: 0 and the hash, or 1 and a message. */
static int decode_file(const char *format, const char *path, uint64_t *hash, char *err, size_t errlen) {
    size_t len;
    char *data = read_file(path, &len);
    if (!data) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return 1;
    }
    sbh h;
    sbh_init(&h);
    int rc = unordered ? ref_decode_unordered(format, data, len, &h, err, errlen)
                       : ref_decode(format, data, len, &h, err, errlen);
    free(data);
    *hash = sbh_final(&h);
    return rc;
}

static int cmd_verify(const char *format, const char *spec, const char *path) {
    if (!check_format(format)) return 2;
    bt_node *t = load_tree(format, spec);
    if (!t) return 1;
    uint64_t want = tree_hash(t), got = 0;
    bt_free(t);
    char err[512], hex[17] = "";
    int rc = decode_file(format, path, &got, err, sizeof err);
    int ok = rc == 0 && got == want;
    if (rc == 0) {
        snprintf(hex, sizeof hex, "%016" PRIx64, got);
        snprintf(err, sizeof err, "%s", ok ? "" : "decoded value differs from the tree");
    }
    printf("{\"ok\":%s,\"expected\":\"%016" PRIx64 "\",\"got\":\"%s\",\"message\":", ok ? "true" : "false", want,
           hex);
    print_json_string(stdout, err);
    printf("}\n");
    return ok ? 0 : 1;
}

static int cmd_decode_hash(const char *format, const char *path) {
    if (!check_format(format)) return 2;
    char err[512];
    uint64_t h;
    if (decode_file(format, path, &h, err, sizeof err)) {
        fprintf(stderr, "bench_tool: %s: %s\n", path, err);
        return 1;
    }
    printf("%016" PRIx64 "\n", h);
    return 0;
}

typedef struct counts {
    size_t by_type[BT_MAP + 1];
    size_t keys, string_bytes, max_depth;
} counts;

static void count_node(const bt_node *n, size_t depth, counts *c) {
    c->by_type[n->type]++;
    if (depth > c->max_depth) c->max_depth = depth;
    if (n->type == BT_STR) c->string_bytes += n->v.str.len;
    if (n->type == BT_ARRAY) {
        for (size_t i = 0; i < n->v.c.count; i++) count_node(&n->v.c.items[i], depth + 1, c);
    } else if (n->type == BT_MAP) {
        for (size_t i = 0; i < n->v.c.count; i++) {
            c->keys++;
            c->string_bytes += n->v.c.items[2 * i].v.str.len;
            count_node(&n->v.c.items[2 * i + 1], depth + 1, c);
        }
    }
}

static int cmd_info(const char *spec) {
    bt_node *t = load_tree(NULL, spec);
    if (!t) return 1;
    counts c;
    memset(&c, 0, sizeof c);
    count_node(t, 1, &c);
    static const char *const names[] = {"null", "bool", "int", "uint", "double", "string", "array", "map"};
    size_t values = 0;
    for (int i = 0; i <= BT_MAP; i++) values += c.by_type[i];
    printf("{\"spec\":");
    print_json_string(stdout, spec);
    printf(",\"values\":%zu,\"keys\":%zu", values, c.keys);
    for (int i = 0; i <= BT_MAP; i++) printf(",\"%s\":%zu", names[i], c.by_type[i]);
    printf(",\"string_bytes\":%zu,\"max_depth\":%zu", c.string_bytes, c.max_depth);
    bt_free(t);
    int rc = 0;
    printf(",\"bytes\":{");
    for (int i = 0; ref_formats[i]; i++) {
        bt_node *a = load_tree(ref_formats[i], spec);
        size_t len = 0;
        char *data = a ? ref_encode(ref_formats[i], a, &len) : NULL;
        if (!data) rc = 1;
        printf("%s\"%s\":%zu", i ? "," : "", ref_formats[i], len);
        free(data);
        bt_free(a);
    }
    printf("},\"hash\":{");
    for (int i = 0; ref_formats[i]; i++) {
        bt_node *a = load_tree(ref_formats[i], spec);
        if (!a) return 1;
        printf("%s\"%s\":\"%016" PRIx64 "\"", i ? "," : "", ref_formats[i], tree_hash(a));
        bt_free(a);
    }
    printf("}}\n");
    return rc;
}

static int cmd_tree(const char *spec, const char *out) {
    bt_node *t = bt_load_spec(spec);
    if (!t) return 1;
    int rc = bt_write_file(out, t);
    bt_free(t);
    if (rc != 0) {
        fprintf(stderr, "bench_tool: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    return 0;
}

/* Append every string and key of n to *out in document order. */
static void collect_strings(const bt_node *n, char **out, size_t *len, size_t *cap) {
    const bt_node *s[2] = {NULL, NULL};
    if (n->type == BT_STR) s[0] = n;
    for (int k = 0; k < 2 && s[k]; k++) {
        size_t l = s[k]->v.str.len;
        if (*len + l > *cap) {
            *cap = (*len + l) * 2;
            *out = realloc(*out, *cap);
            if (!*out) abort();
        }
        memcpy(*out + *len, s[k]->v.str.ptr, l);
        *len += l;
    }
    if (n->type == BT_ARRAY || n->type == BT_MAP) {
        size_t items = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        for (size_t i = 0; i < items; i++) collect_strings(&n->v.c.items[i], out, len, cap);
    }
}

static int cmd_strings(const char *format, const char *spec, const char *out) {
    if (!check_format(format)) return 2;
    bt_node *t = load_tree(format, spec);
    if (!t) return 1;
    char *text = NULL;
    size_t len = 0, cap = 0;
    collect_strings(t, &text, &len, &cap);
    bt_free(t);
    FILE *f = fopen(out, "wb");
    int ok = f && (len == 0 || fwrite(text, 1, len, f) == len);
    if (f && fclose(f) != 0) ok = 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "bench_tool: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[2], "--unordered") == 0 &&
        (strcmp(argv[1], "hash") == 0 || strcmp(argv[1], "verify") == 0)) {
        unordered = 1;
        for (int i = 2; i + 1 < argc; i++) argv[i] = argv[i + 1];
        argc--;
    }
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "encode") == 0 && argc == 5) return cmd_encode(argv[2], argv[3], argv[4]);
    if (strcmp(cmd, "hash") == 0 && argc == 4) return cmd_hash(argv[2], argv[3]);
    if (strcmp(cmd, "verify") == 0 && argc == 5) return cmd_verify(argv[2], argv[3], argv[4]);
    if (strcmp(cmd, "decode-hash") == 0 && argc == 4) return cmd_decode_hash(argv[2], argv[3]);
    if (strcmp(cmd, "info") == 0 && argc == 3) return cmd_info(argv[2]);
    if (strcmp(cmd, "tree") == 0 && argc == 4) return cmd_tree(argv[2], argv[3]);
    if (strcmp(cmd, "strings") == 0 && argc == 5) return cmd_strings(argv[2], argv[3], argv[4]);
    return usage();
}
