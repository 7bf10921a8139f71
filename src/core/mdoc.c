/*
 * The mutable document: a tree of values for building and editing data in
 * code (see include/sdx/doc.h).
 *
 * Memory: values live in chunks (arrays of sdx_mval that grow geometrically)
 * and strings in chunked byte storage, both owned by the mdoc and freed with
 * it; a value removed from its container stays valid until then, so a
 * pointer the caller holds never dangles. A container holds an array of
 * child pointers that grows geometrically (a map's are key, value, key,
 * value, ...), so append and put are amortized O(1). A map of 16 entries
 * or more gets a hash index over its string keys (open addressing, linear
 * probing, at most half full), kept up to date by every edit, so that set
 * and get stay O(1) for large maps and reads never modify anything.
 *
 * Walks (emit, import) use explicit stacks: no recursion.
 */
#include <string.h>

#include "core/doc_internal.h"
#include "core/platform.h"

#define FIRST_CHUNK_VALS 16
#define MAX_CHUNK_VALS 4096
#define INDEX_MIN_ENTRIES 16 /* smaller maps are searched linearly */

struct sdx_mval {
    sdx_mdoc *md;
    sdx_mval *parent; /* the container holding it (a map for its keys too) */
    uint64_t tag;
    uint8_t type;     /* sdx_type */
    uint8_t tag_kind; /* sdx_tag_kind */
    uint8_t index_bits; /* maps: log2 of the index's slots, 0 = no index array */
    bool indexed;       /* maps: the index is up to date */
    union {
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *p; /* NULL when len is 0 */
            size_t len;
        } s;
        struct {
            sdx_mval **items; /* arrays: elements; maps: key, value, ... */
            size_t len;       /* elements or entries */
            size_t cap;       /* pointers allocated */
            size_t *index;    /* maps: entry + 1 per slot, 0 = empty */
        } c;
    } v;
};

/* A chunk of values. */
typedef struct mchunk {
    struct mchunk *next;
    size_t used;
    size_t cap;
    sdx_mval vals[];
} mchunk;

struct sdx_mdoc {
    sdx_alloc alloc;
    sdx_err err;
    sdx_mval *root;
    sdx_doc *store; /* owns this struct, the chunks and the string bytes (its blocks) */
    mchunk *chunks; /* newest first */
    uint64_t seed;  /* of the hash index */
};

static bool is_container(const sdx_mval *v) {
    return v->type == SDX_TYPE_ARRAY || v->type == SDX_TYPE_MAP;
}

static sdx_err flag(sdx_mdoc *md, sdx_err err) {
    if (md && !md->err) md->err = err;
    return err;
}

/* ------------------------------------------------------------------------ */
/* The document and its values                                              */
/* ------------------------------------------------------------------------ */

sdx_mdoc *sdx_mdoc_new(const sdx_alloc *alloc) {
    /* The mdoc lives in its own store: one allocation less, freed with it. */
    sdx_doc *store = sdx_doc_alloc(alloc);
    sdx_mdoc *md = store ? sdx_doc_block_alloc(store, sizeof *md) : NULL;
    if (!md) {
        sdx_doc_free(store);
        return NULL;
    }
    memset(md, 0, sizeof *md);
    md->alloc = store->alloc;
    md->store = store;
    uint64_t s = (uint64_t)(uintptr_t)md;
    md->seed = (s ^ (s >> 31)) * 0x9e3779b97f4a7c15ull;
    return md;
}

void sdx_mdoc_free(sdx_mdoc *md) {
    if (!md) return;
    const sdx_alloc *a = &md->alloc;
    for (mchunk *c = md->chunks; c; c = c->next) {
        for (size_t i = 0; i < c->used; i++) {
            sdx_mval *v = &c->vals[i];
            if (is_container(v)) {
                a->free(a->ctx, v->v.c.items);
                a->free(a->ctx, v->v.c.index);
            }
        }
    }
    sdx_doc_free(md->store); /* md included */
}

sdx_err sdx_mdoc_error(const sdx_mdoc *md) { return md ? md->err : SDX_ERR_INVALID_ARG; }

void sdx_mdoc_clear_error(sdx_mdoc *md) {
    if (md) md->err = SDX_OK;
}

sdx_mval *sdx_mdoc_root(const sdx_mdoc *md) { return md ? md->root : NULL; }

sdx_err sdx_mdoc_set_root(sdx_mdoc *md, sdx_mval *v) {
    if (!md) return SDX_ERR_INVALID_ARG;
    if (!v) return flag(md, SDX_ERR_INVALID_ARG);
    if (v->md != md || v->parent) return flag(md, SDX_ERR_USAGE);
    md->root = v;
    return SDX_OK;
}

static SDX_NOINLINE bool new_chunk(sdx_mdoc *md) {
    size_t cap = md->chunks ? md->chunks->cap * 2 : FIRST_CHUNK_VALS;
    if (cap > MAX_CHUNK_VALS) cap = MAX_CHUNK_VALS;
    mchunk *c = sdx_doc_block_alloc(md->store, sizeof(mchunk) + cap * sizeof(sdx_mval));
    if (!c) return false;
    c->next = md->chunks;
    c->used = 0;
    c->cap = cap;
    md->chunks = c;
    return true;
}

/* A new detached value of type t, zeroed; NULL (flagged) on failure. */
static sdx_mval *new_val(sdx_mdoc *md, sdx_type t) {
    if (!md) return NULL;
    mchunk *c = md->chunks;
    if (SDX_UNLIKELY(!c || c->used == c->cap)) {
        if (!new_chunk(md)) {
            flag(md, SDX_ERR_NOMEM);
            return NULL;
        }
        c = md->chunks;
    }
    sdx_mval *v = &c->vals[c->used++];
    memset(v, 0, sizeof *v);
    v->md = md;
    v->type = (uint8_t)t;
    return v;
}

sdx_mval *sdx_mdoc_null(sdx_mdoc *md) { return new_val(md, SDX_TYPE_NULL); }

sdx_mval *sdx_mdoc_bool(sdx_mdoc *md, bool b) {
    sdx_mval *v = new_val(md, SDX_TYPE_BOOL);
    if (v) v->v.u = b ? 1 : 0;
    return v;
}

sdx_mval *sdx_mdoc_int(sdx_mdoc *md, int64_t i) {
    sdx_mval *v = new_val(md, SDX_TYPE_INT);
    if (v) v->v.i = i;
    return v;
}

sdx_mval *sdx_mdoc_uint(sdx_mdoc *md, uint64_t u) {
    sdx_mval *v = new_val(md, u <= INT64_MAX ? SDX_TYPE_INT : SDX_TYPE_UINT);
    if (v) v->v.u = u;
    return v;
}

sdx_mval *sdx_mdoc_double(sdx_mdoc *md, double d) {
    sdx_mval *v = new_val(md, SDX_TYPE_DOUBLE);
    if (v) v->v.d = d;
    return v;
}

/* A string-like value holding a copy of s. */
static sdx_mval *new_bytes(sdx_mdoc *md, sdx_type t, const void *s, size_t len) {
    if (!md) return NULL;
    if (!s && len) {
        flag(md, SDX_ERR_INVALID_ARG);
        return NULL;
    }
    if (len > SDX_VAL_LEN_MAX) {
        flag(md, SDX_ERR_LIMIT);
        return NULL;
    }
    const char *copy = NULL;
    if (len && !(copy = sdx_doc_store_bytes(md->store, s, len))) {
        flag(md, SDX_ERR_NOMEM);
        return NULL;
    }
    sdx_mval *v = new_val(md, t);
    if (v) {
        v->v.s.p = copy;
        v->v.s.len = len;
    }
    return v;
}

sdx_mval *sdx_mdoc_str(sdx_mdoc *md, const char *s, size_t len) {
    return new_bytes(md, SDX_TYPE_STR, s, len);
}

sdx_mval *sdx_mdoc_strz(sdx_mdoc *md, const char *s) {
    if (!s) {
        flag(md, SDX_ERR_INVALID_ARG);
        return NULL;
    }
    return new_bytes(md, SDX_TYPE_STR, s, strlen(s));
}

sdx_mval *sdx_mdoc_bin(sdx_mdoc *md, const void *p, size_t len) {
    return new_bytes(md, SDX_TYPE_BIN, p, len);
}

sdx_mval *sdx_mdoc_raw(sdx_mdoc *md, const char *s, size_t len) {
    return new_bytes(md, SDX_TYPE_RAW, s, len);
}

sdx_mval *sdx_mdoc_array(sdx_mdoc *md) { return new_val(md, SDX_TYPE_ARRAY); }

sdx_mval *sdx_mdoc_map(sdx_mdoc *md) { return new_val(md, SDX_TYPE_MAP); }

sdx_mval *sdx_mval_set_tag(sdx_mval *v, sdx_tag_kind kind, uint64_t tag) {
    if (!v) return NULL;
    if ((unsigned)kind > 0xff) {
        flag(v->md, SDX_ERR_INVALID_ARG);
        return v;
    }
    v->tag_kind = (uint8_t)kind;
    v->tag = kind == SDX_TAG_NONE ? 0 : tag;
    return v;
}

/* ------------------------------------------------------------------------ */
/* Inspect                                                                   */
/* ------------------------------------------------------------------------ */

sdx_type sdx_mval_type(const sdx_mval *v) { return v ? (sdx_type)v->type : SDX_TYPE_NONE; }

sdx_tag_kind sdx_mval_tag(const sdx_mval *v, uint64_t *tag) {
    if (tag) *tag = v ? v->tag : 0;
    return v ? (sdx_tag_kind)v->tag_kind : SDX_TAG_NONE;
}

static void wrong_type(const sdx_mval *v) {
    if (v) flag(v->md, SDX_ERR_TYPE);
}

bool sdx_mval_bool(const sdx_mval *v) {
    if (v && v->type == SDX_TYPE_BOOL) return v->v.u != 0;
    wrong_type(v);
    return false;
}

int64_t sdx_mval_int(const sdx_mval *v) {
    if (v && (v->type == SDX_TYPE_INT || (v->type == SDX_TYPE_UINT && v->v.u <= INT64_MAX)))
        return v->v.i;
    wrong_type(v);
    return 0;
}

uint64_t sdx_mval_uint(const sdx_mval *v) {
    if (v && (v->type == SDX_TYPE_UINT || (v->type == SDX_TYPE_INT && v->v.i >= 0))) return v->v.u;
    wrong_type(v);
    return 0;
}

double sdx_mval_double(const sdx_mval *v) {
    if (v && v->type == SDX_TYPE_DOUBLE) return v->v.d;
    if (v && v->type == SDX_TYPE_INT) return (double)v->v.i;
    if (v && v->type == SDX_TYPE_UINT) return (double)v->v.u;
    wrong_type(v);
    return 0.0;
}

static const char *bytes_of(const sdx_mval *v, size_t *len) {
    if (len) *len = v->v.s.len;
    return v->v.s.p ? v->v.s.p : "";
}

const char *sdx_mval_str(const sdx_mval *v, size_t *len) {
    if (v && (v->type == SDX_TYPE_STR || v->type == SDX_TYPE_RAW)) return bytes_of(v, len);
    wrong_type(v);
    if (len) *len = 0;
    return NULL;
}

const void *sdx_mval_bin(const sdx_mval *v, size_t *len) {
    if (v && (v->type == SDX_TYPE_BIN || v->type == SDX_TYPE_STR)) return bytes_of(v, len);
    wrong_type(v);
    if (len) *len = 0;
    return NULL;
}

size_t sdx_mval_len(const sdx_mval *v) {
    if (!v) return 0;
    switch (v->type) {
    case SDX_TYPE_STR:
    case SDX_TYPE_BIN:
    case SDX_TYPE_RAW: return v->v.s.len;
    case SDX_TYPE_ARRAY:
    case SDX_TYPE_MAP: return v->v.c.len;
    default: return 0;
    }
}

/* The container v if it has type t, else NULL (flagged). */
static sdx_mval *container(const sdx_mval *v, sdx_type t) {
    if (v && v->type == t) return (sdx_mval *)v;
    wrong_type(v);
    return NULL;
}

/* Part `part` of the i-th element (width 1) or entry (width 2) of container
 * c of type t, or NULL (flagged) when c has another type or i is out of
 * range. */
static sdx_mval *child(const sdx_mval *c, sdx_type t, size_t i, size_t width, size_t part) {
    sdx_mval *m = container(c, t);
    if (!m) return NULL;
    if (i >= m->v.c.len) {
        flag(m->md, SDX_ERR_NOT_FOUND);
        return NULL;
    }
    return m->v.c.items[width * i + part];
}

sdx_mval *sdx_mval_index(const sdx_mval *arr, size_t i) { return child(arr, SDX_TYPE_ARRAY, i, 1, 0); }

sdx_mval *sdx_mval_key_at(const sdx_mval *map, size_t i) { return child(map, SDX_TYPE_MAP, i, 2, 0); }

sdx_mval *sdx_mval_value_at(const sdx_mval *map, size_t i) { return child(map, SDX_TYPE_MAP, i, 2, 1); }

/* ------------------------------------------------------------------------ */
/* The hash index of a map's string keys                                     */
/* ------------------------------------------------------------------------ */

/* A 64-bit hash of a key: 8 bytes per step mixed in by multiplication,
 * then the finalizer of MurmurHash3 (fmix64) so that every input bit
 * reaches the low bits the index uses. Seeded per mdoc; not cryptographic. */
static uint64_t hash_key(const char *s, size_t n, uint64_t seed) {
    uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15ull);
    uint64_t w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    w = 0;
    if (n) memcpy(&w, s, n);
    h ^= w;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static bool key_is(const sdx_mval *k, const char *key, size_t len) {
    return k->type == SDX_TYPE_STR && k->v.s.len == len && (len == 0 || memcmp(k->v.s.p, key, len) == 0);
}

/* Probe the index for `key`: returns the entry, or SIZE_MAX with *slot the
 * empty slot where it would go. */
static size_t index_probe(const sdx_mval *m, const char *key, size_t len, size_t *slot) {
    size_t mask = ((size_t)1 << m->index_bits) - 1;
    size_t i = (size_t)hash_key(key, len, m->md->seed) & mask;
    for (;; i = (i + 1) & mask) {
        size_t e = m->v.c.index[i];
        if (!e) {
            *slot = i;
            return SIZE_MAX;
        }
        if (key_is(m->v.c.items[2 * (e - 1)], key, len)) return e - 1;
    }
}

/* Add entry e (a STR key) unless an earlier entry has the same key. */
static void index_add(sdx_mval *m, size_t e) {
    const sdx_mval *k = m->v.c.items[2 * e];
    size_t slot;
    if (index_probe(m, k->v.s.p, k->v.s.len, &slot) == SIZE_MAX) m->v.c.index[slot] = e + 1;
}

/* The slot where a search for the key of entry e starts. */
static size_t index_home(const sdx_mval *m, size_t e) {
    const sdx_mval *k = m->v.c.items[2 * e];
    return (size_t)hash_key(k->v.s.p, k->v.s.len, m->md->seed) & (((size_t)1 << m->index_bits) - 1);
}

/* The slot holding `value` in the cluster that starts at `home`, or
 * SIZE_MAX. */
static size_t index_find_value(const sdx_mval *m, size_t home, size_t value) {
    size_t mask = ((size_t)1 << m->index_bits) - 1;
    for (size_t i = home; m->v.c.index[i]; i = (i + 1) & mask)
        if (m->v.c.index[i] == value) return i;
    return SIZE_MAX;
}

/* Update the index for the removal of entry e, before the entries move:
 * delete e's slot, let a later entry with the same key take its place, and
 * renumber the entries after e. O(len - e) probes. */
static void index_remove(sdx_mval *m, size_t e) {
    size_t mask = ((size_t)1 << m->index_bits) - 1, n = m->v.c.len, dup = SIZE_MAX, slot;
    size_t *idx = m->v.c.index;
    const sdx_mval *k = m->v.c.items[2 * e];
    if (k->type == SDX_TYPE_STR && (slot = index_find_value(m, index_home(m, e), e + 1)) != SIZE_MAX) {
        /* Deletion by backward shift (Knuth, TAOCP vol. 3, 6.4, Algorithm
         * R): a later slot of the cluster moves into the hole unless its
         * home lies cyclically in (hole, j]. */
        size_t hole = slot;
        for (size_t j = (slot + 1) & mask; idx[j]; j = (j + 1) & mask) {
            size_t home = index_home(m, idx[j] - 1);
            bool stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                idx[hole] = idx[j];
                hole = j;
            }
        }
        idx[hole] = 0;
        for (size_t f = e + 1; f < n && dup == SIZE_MAX; f++)
            if (key_is(m->v.c.items[2 * f], k->v.s.p, k->v.s.len)) dup = f;
    }
    /* Entry f becomes f - 1: its value f + 1 becomes f. */
    for (size_t f = e + 1; f < n; f++) {
        if (m->v.c.items[2 * f]->type != SDX_TYPE_STR || f == dup) continue;
        if ((slot = index_find_value(m, index_home(m, f), f + 1)) != SIZE_MAX) idx[slot] = f;
    }
    if (dup != SIZE_MAX) {
        for (slot = index_home(m, dup); idx[slot]; slot = (slot + 1) & mask) continue;
        idx[slot] = dup;
    }
}

/* Fill the index from the entries (its size unchanged). */
static void index_fill(sdx_mval *m) {
    memset(m->v.c.index, 0, ((size_t)1 << m->index_bits) * sizeof(size_t));
    for (size_t e = 0; e < m->v.c.len; e++)
        if (m->v.c.items[2 * e]->type == SDX_TYPE_STR) index_add(m, e);
    m->indexed = true;
}

/* (Re)build the index with room for the entries at half load, doubled so
 * that appends do not rebuild it at once. On allocation failure the map has
 * no index (lookups search it linearly) until the next append retries. */
static void index_build(sdx_mval *m) {
    unsigned bits = 5;
    while (bits < sizeof(size_t) * 8 - 3 && ((size_t)1 << bits) < m->v.c.len * 4) bits++;
    if (bits != m->index_bits || !m->v.c.index) {
        const sdx_alloc *a = &m->md->alloc;
        size_t *p = a->malloc(a->ctx, ((size_t)1 << bits) * sizeof(size_t));
        if (!p) {
            m->indexed = false;
            return;
        }
        a->free(a->ctx, m->v.c.index);
        m->v.c.index = p;
        m->index_bits = (uint8_t)bits;
    }
    index_fill(m);
}

/* Keep the index up to date after entry e was appended: maps get one when
 * they reach INDEX_MIN_ENTRIES entries, and keep it (current) when removals
 * bring them below. */
static void index_appended(sdx_mval *m, size_t e) {
    if (m->indexed && (e + 1) * 2 <= ((size_t)1 << m->index_bits)) {
        if (m->v.c.items[2 * e]->type == SDX_TYPE_STR) index_add(m, e);
    } else if (m->indexed || m->v.c.len >= INDEX_MIN_ENTRIES) {
        index_build(m);
    }
}

/* The first entry of map m with string key `key`, or SIZE_MAX. Reads only. */
static size_t find_key(const sdx_mval *m, const char *key, size_t len) {
    size_t slot;
    if (m->indexed) return index_probe(m, key, len, &slot);
    for (size_t e = 0; e < m->v.c.len; e++)
        if (key_is(m->v.c.items[2 * e], key, len)) return e;
    return SIZE_MAX;
}

sdx_mval *sdx_mval_get(const sdx_mval *map, const char *key, size_t len) {
    sdx_mval *m = container(map, SDX_TYPE_MAP);
    if (!m) return NULL;
    size_t e = key || !len ? find_key(m, key, len) : SIZE_MAX;
    if (e == SIZE_MAX) {
        flag(m->md, SDX_ERR_NOT_FOUND);
        return NULL;
    }
    return m->v.c.items[2 * e + 1];
}

/* ------------------------------------------------------------------------ */
/* Edit                                                                      */
/* ------------------------------------------------------------------------ */

/* Check that v may be added to container c (of type t). */
static sdx_err check_add(sdx_mval *c, sdx_type t, const sdx_mval *v) {
    if (!c) return SDX_ERR_INVALID_ARG;
    if (c->type != t) return flag(c->md, SDX_ERR_TYPE);
    if (!v) return flag(c->md, SDX_ERR_INVALID_ARG);
    if (v->md != c->md || v->parent || v == c->md->root) return flag(c->md, SDX_ERR_USAGE);
    /* v is detached: it is an ancestor of c only if c is in its subtree,
     * and then v is c's topmost ancestor. */
    if (v == c) return flag(c->md, SDX_ERR_USAGE);
    if (is_container(v) && v->v.c.len) {
        for (const sdx_mval *p = c->parent; p; p = p->parent)
            if (p == v) return flag(c->md, SDX_ERR_USAGE);
    }
    return SDX_OK;
}

/* Room for `more` more child pointers. */
static sdx_err reserve(sdx_mval *c, size_t more) {
    size_t used = c->type == SDX_TYPE_MAP ? 2 * c->v.c.len : c->v.c.len;
    if (c->v.c.cap - used >= more) return SDX_OK;
    size_t cap = c->v.c.cap ? c->v.c.cap * 2 : 4;
    if (cap < used + more) cap = used + more;
    if (cap > SIZE_MAX / sizeof(sdx_mval *)) return flag(c->md, SDX_ERR_NOMEM);
    const sdx_alloc *a = &c->md->alloc;
    sdx_mval **p = c->v.c.items
                       ? a->realloc(a->ctx, c->v.c.items, c->v.c.cap * sizeof(sdx_mval *),
                                    cap * sizeof(sdx_mval *))
                       : a->malloc(a->ctx, cap * sizeof(sdx_mval *));
    if (!p) return flag(c->md, SDX_ERR_NOMEM);
    c->v.c.items = p;
    c->v.c.cap = cap;
    return SDX_OK;
}

sdx_err sdx_mval_append(sdx_mval *arr, sdx_mval *v) {
    sdx_err rc = check_add(arr, SDX_TYPE_ARRAY, v);
    if (rc || (rc = reserve(arr, 1))) return rc;
    arr->v.c.items[arr->v.c.len++] = v;
    v->parent = arr;
    return SDX_OK;
}

sdx_err sdx_mval_insert(sdx_mval *arr, size_t i, sdx_mval *v) {
    sdx_err rc = check_add(arr, SDX_TYPE_ARRAY, v);
    if (rc) return rc;
    if (i > arr->v.c.len) return flag(arr->md, SDX_ERR_NOT_FOUND);
    if ((rc = reserve(arr, 1))) return rc;
    sdx_mval **items = arr->v.c.items;
    memmove(items + i + 1, items + i, (arr->v.c.len - i) * sizeof *items);
    items[i] = v;
    arr->v.c.len++;
    v->parent = arr;
    return SDX_OK;
}

sdx_err sdx_mval_remove_at(sdx_mval *c, size_t i) {
    if (!c) return SDX_ERR_INVALID_ARG;
    if (!is_container(c)) return flag(c->md, SDX_ERR_TYPE);
    if (i >= c->v.c.len) return flag(c->md, SDX_ERR_NOT_FOUND);
    size_t width = c->type == SDX_TYPE_MAP ? 2 : 1, used = width * c->v.c.len;
    sdx_mval **items = c->v.c.items;
    if (c->indexed) index_remove(c, i);
    for (size_t k = 0; k < width; k++) items[width * i + k]->parent = NULL;
    memmove(items + width * i, items + width * (i + 1), (used - width * (i + 1)) * sizeof *items);
    c->v.c.len--;
    return SDX_OK;
}

/* Append the entry (k, v) to map m (checked by the caller, room reserved). */
static void append_entry(sdx_mval *m, sdx_mval *k, sdx_mval *v) {
    size_t e = m->v.c.len++;
    m->v.c.items[2 * e] = k;
    m->v.c.items[2 * e + 1] = v;
    k->parent = m;
    v->parent = m;
    index_appended(m, e);
}

sdx_err sdx_mval_set(sdx_mval *map, const char *key, size_t len, sdx_mval *v) {
    sdx_err rc = check_add(map, SDX_TYPE_MAP, v);
    if (rc) return rc;
    if (!key && len) return flag(map->md, SDX_ERR_INVALID_ARG);
    size_t e = find_key(map, key, len);
    if (e != SIZE_MAX) {
        map->v.c.items[2 * e + 1]->parent = NULL;
        map->v.c.items[2 * e + 1] = v;
        v->parent = map;
        return SDX_OK;
    }
    if ((rc = reserve(map, 2))) return rc;
    sdx_mval *k = new_bytes(map->md, SDX_TYPE_STR, key, len);
    if (!k) return map->md->err ? map->md->err : SDX_ERR_NOMEM;
    append_entry(map, k, v);
    return SDX_OK;
}

sdx_err sdx_mval_put(sdx_mval *map, sdx_mval *key, sdx_mval *v) {
    sdx_err rc = check_add(map, SDX_TYPE_MAP, key);
    if (rc || (rc = check_add(map, SDX_TYPE_MAP, v))) return rc;
    if (key == v) return flag(map->md, SDX_ERR_USAGE);
    if ((rc = reserve(map, 2))) return rc;
    append_entry(map, key, v);
    return SDX_OK;
}

sdx_err sdx_mval_remove(sdx_mval *map, const char *key, size_t len) {
    if (!map) return SDX_ERR_INVALID_ARG;
    if (map->type != SDX_TYPE_MAP) return flag(map->md, SDX_ERR_TYPE);
    size_t e = key || !len ? find_key(map, key, len) : SIZE_MAX;
    if (e == SIZE_MAX) return flag(map->md, SDX_ERR_NOT_FOUND);
    return sdx_mval_remove_at(map, e);
}

/* ------------------------------------------------------------------------ */
/* Emit, and conversion to a document                                        */
/* ------------------------------------------------------------------------ */

/* One open container during a walk of mutable values. */
typedef struct mframe {
    const sdx_mval *c;
    size_t next; /* the next child pointer */
    size_t end;  /* child pointers in all */
} mframe;

#define WALK_INLINE_DEPTH 32

/* Send v and its descendants to put(ctx, event) (depth counted from v as 0);
 * returns put's first error, or SDX_ERR_NOMEM when the walk's stack cannot
 * grow. */
static sdx_err emit_walk(const sdx_mval *v, sdx_err (*put)(void *, const sdx_event *), void *ctx) {
    mframe inline_frames[WALK_INLINE_DEPTH];
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, WALK_INLINE_DEPTH, sizeof(mframe), &v->md->alloc);
    mframe *frames = st.items;
    size_t depth = 0;
    bool key = false;
    sdx_err rc = SDX_OK;
    for (;;) {
        sdx_event ev;
        ev.flags = 0;
        ev.tag_kind = v->tag_kind;
        ev.tag = v->tag;
        ev.depth = (uint32_t)depth;
        if (v->type == SDX_TYPE_ARRAY || v->type == SDX_TYPE_MAP) {
            if (depth == st.cap) {
                if (!sdx_stack_grow(&st)) {
                    rc = SDX_ERR_NOMEM;
                    goto out;
                }
                frames = st.items;
            }
            frames[depth].c = v;
            frames[depth].next = 0;
            frames[depth].end = v->type == SDX_TYPE_MAP ? 2 * v->v.c.len : v->v.c.len;
            depth++;
            ev.kind = v->type == SDX_TYPE_MAP ? SDX_MAP : SDX_ARRAY;
            ev.v.count = v->v.c.len;
        } else {
            sdx_val slot; /* the scalar as a document slot */
            slot.tag = v->type;
            if (v->type == SDX_TYPE_STR || v->type == SDX_TYPE_BIN || v->type == SDX_TYPE_RAW) {
                slot.tag |= (uint64_t)v->v.s.len << 16;
                slot.v.s = v->v.s.p;
            } else {
                slot.v.u = v->v.u;
            }
            sdx_val_scalar_event(&ev, &slot, key);
        }
        if ((rc = put(ctx, &ev)) != SDX_OK) goto out;
        /* The next value: the next child of the innermost container that
         * has one, closing the finished ones. */
        for (;;) {
            if (!depth) goto out;
            mframe *f = &frames[depth - 1];
            if (f->next < f->end) {
                key = f->c->type == SDX_TYPE_MAP && !(f->next & 1);
                v = f->c->v.c.items[f->next++];
                break;
            }
            depth--;
            sdx_event end = {0};
            end.kind = SDX_END;
            end.depth = (uint32_t)depth;
            if ((rc = put(ctx, &end)) != SDX_OK) goto out;
        }
    }
out:
    sdx_stack_free(&st);
    return rc;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    const sdx_sink *sink = ctx;
    return sdx_sink_put(*sink, ev);
}

sdx_err sdx_mval_emit(const sdx_mval *v, sdx_sink sink) {
    if (!v) return SDX_ERR_INVALID_ARG;
    return emit_walk(v, sink_put, &sink);
}

static sdx_err builder_put(void *ctx, const sdx_event *ev) {
    return sdx_doc_builder_put((sdx_doc_builder *)ctx, ev);
}

sdx_doc *sdx_mdoc_to_doc(const sdx_mdoc *md, sdx_err *err) {
    sdx_err rc = !md ? SDX_ERR_INVALID_ARG : !md->root ? SDX_ERR_USAGE : SDX_OK;
    if (rc) {
        if (err) *err = rc;
        return NULL;
    }
    /* The mdoc's depth is not limited: nothing recurses. */
    sdx_doc_build_opts opts = {&md->alloc, UINT32_MAX};
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, &opts);
    if (!b.err && (rc = emit_walk(md->root, builder_put, &b)) != SDX_OK && !b.err) b.err = rc;
    return sdx_doc_builder_finish(&b, err);
}

/* ------------------------------------------------------------------------ */
/* Import from an immutable document                                         */
/* ------------------------------------------------------------------------ */

/* One container being filled during an import. */
typedef struct iframe {
    sdx_mval *c;
    size_t filled; /* child pointers stored */
} iframe;

sdx_mval *sdx_mdoc_import(sdx_mdoc *md, sdx_node n) {
    if (!md) return NULL;
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) {
        flag(md, SDX_ERR_NOT_FOUND);
        return NULL;
    }
    iframe inline_frames[WALK_INLINE_DEPTH];
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, WALK_INLINE_DEPTH, sizeof(iframe), &md->alloc);
    iframe *frames = st.items;
    size_t depth = 0;
    sdx_mval *result = NULL;
    /* A chain of tags: each tag slot overwrites the last, so the value gets
     * its innermost tag (an sdx_mval holds one). */
    const sdx_val *p = sdx_val_tags_start(n.doc, n.val), *end = sdx_val_next(n.val);
    uint8_t tag_kind = 0;
    uint64_t tag_num = 0;
    for (; p < end; p++) {
        sdx_type t = SDX_VAL_TYPE(p);
        if (t == SDX_TYPE__TAG) {
            tag_kind = (uint8_t)(p->tag >> 8);
            tag_num = p->v.u;
            continue;
        }
        sdx_mval *v;
        if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW)
            v = new_bytes(md, t, p->v.s, (size_t)SDX_VAL_LEN(p));
        else
            v = new_val(md, t);
        if (!v) goto fail;
        v->tag_kind = tag_kind;
        v->tag = tag_num;
        tag_kind = 0;
        tag_num = 0;
        size_t children = 0;
        switch (t) {
        case SDX_TYPE_ARRAY:
        case SDX_TYPE_MAP:
            children = (size_t)SDX_VAL_LEN(p) * (t == SDX_TYPE_MAP ? 2 : 1);
            if (children) {
                v->v.c.items = md->alloc.malloc(md->alloc.ctx, children * sizeof(sdx_mval *));
                if (!v->v.c.items) {
                    flag(md, SDX_ERR_NOMEM);
                    goto fail;
                }
                v->v.c.cap = children;
            }
            break;
        case SDX_TYPE_STR:
        case SDX_TYPE_BIN:
        case SDX_TYPE_RAW:
            break;
        default: v->v.u = p->v.u; break;
        }
        if (depth) {
            iframe *f = &frames[depth - 1];
            f->c->v.c.items[f->filled++] = v;
            v->parent = f->c;
            if (f->c->type == SDX_TYPE_ARRAY || !(f->filled & 1)) f->c->v.c.len++;
        } else {
            result = v;
        }
        if (children) {
            if (depth == st.cap) {
                if (!sdx_stack_grow(&st)) {
                    flag(md, SDX_ERR_NOMEM);
                    goto fail;
                }
                frames = st.items;
            }
            frames[depth].c = v;
            frames[depth].filled = 0;
            depth++;
        }
        while (depth && frames[depth - 1].filled == frames[depth - 1].c->v.c.cap) {
            sdx_mval *c = frames[--depth].c;
            if (c->type == SDX_TYPE_MAP && c->v.c.len >= INDEX_MIN_ENTRIES) index_build(c);
        }
    }
    sdx_stack_free(&st);
    return result;
fail:
    /* What was made stays in the mdoc's storage, unreachable, until it is
     * freed. */
    sdx_stack_free(&st);
    return NULL;
}

sdx_mdoc *sdx_mdoc_from_node(sdx_node n, const sdx_alloc *alloc) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) return NULL;
    sdx_mdoc *md = sdx_mdoc_new(alloc);
    if (!md) return NULL;
    sdx_mval *root = sdx_mdoc_import(md, n);
    if (!root) {
        sdx_mdoc_free(md);
        return NULL;
    }
    md->root = root;
    return md;
}
