/*
 * sdx — the document: a format-independent tree of values.
 *
 * Two kinds of document:
 *
 *  - sdx_doc, immutable and compact: every value is a 16-byte sdx_val in one
 *    contiguous array in document order (a container is followed by its
 *    elements; a map's entries are key, value, key, value, ...). A container
 *    stores its span, so skipping a subtree is O(1). Strings point into the
 *    parsed input where they needed no unescaping. Built by the format
 *    parsers (sdx_json_parse, ...) or, from any event stream, by the builder.
 *
 *  - sdx_mdoc, mutable: a tree of heap nodes for building and editing data in
 *    code; converts to and from sdx_doc.
 *
 * Reading never dereferences NULL: a node is a {doc, val} pair that is never
 * NULL itself. A missing key, an index out of range or a getter of the wrong
 * type returns a nil node (type SDX_TYPE_NONE) or a zero value and flags a
 * sticky error on the document, so a chain of lookups needs one check:
 *
 *   sdx_node root = sdx_doc_root(doc);
 *   int64_t id = sdx_node_int(sdx_node_get(sdx_node_index(root, 0), "id", 2));
 *   if (sdx_doc_error(doc) != SDX_OK) ... // SDX_ERR_NOT_FOUND or SDX_ERR_TYPE
 *
 * Threads: reading an sdx_doc writes nothing but that error, so several
 * threads may read one document at once as long as their lookups succeed
 * (or each checks types and keys first: sdx_node_type, sdx_node_len,
 * iteration); a failed lookup writes the error field. Reading an sdx_mdoc
 * writes nothing but its error in the same way. Nothing in this file
 * recurses: documents of any depth are walked with explicit stacks.
 */
#ifndef SDX_DOC_H
#define SDX_DOC_H

#include "common.h"
#include "sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* The type of a value. */
typedef enum sdx_type {
    SDX_TYPE_NONE = 0, /* the nil node: a missing value */
    SDX_TYPE_NULL,
    SDX_TYPE_BOOL,
    SDX_TYPE_INT,      /* int64 (every integer that fits int64 is INT) */
    SDX_TYPE_UINT,     /* uint64 above INT64_MAX */
    SDX_TYPE_DOUBLE,
    SDX_TYPE_STR,      /* UTF-8 text */
    SDX_TYPE_BIN,      /* raw bytes */
    SDX_TYPE_RAW,      /* a number kept as its text (see SDX_RAW) */
    SDX_TYPE_ARRAY,
    SDX_TYPE_MAP,
    SDX_TYPE_NINT,     /* an integer below INT64_MIN: payload u = n stands for
                          -1 - n (see SDX_NINT; CBOR major type 1) */
    SDX_TYPE__TAG = 15 /* internal: a tag slot that prefixes a tagged value */
} sdx_type;

/* One value: 16 bytes. `tag` holds the type in bits 0-7, a tag kind in
 * bits 8-15 of tag slots (flags in value slots: SDX_VAL_FLOAT32,
 * SDX_VAL_FLOAT16, SDX_VAL_NOESC) and a length in bits 16-63 (bytes of a
 * string, binary or raw number; elements of an array; entries of a map).
 * The payload:
 *   BOOL: u (0 or 1)   INT: i   UINT: u   DOUBLE: d   NINT: u (= n for -1 - n)
 *   STR, BIN, RAW: s (not NUL-terminated; may be NULL when the length is 0)
 *   ARRAY, MAP: u = span, the number of slots of the container and all its
 *     descendants, itself included: the next sibling is at this + span.
 *   __TAG: u = the tag number; the tagged value follows. A value may carry
 *     several tags (CBOR allows any number on one item): a chain of tag
 *     slots, outermost first, directly before the value. Tag slots are never
 *     visible through the node API: a node is the tagged value,
 *     sdx_node_tag() reads the slot just before it (the innermost tag) and
 *     sdx_node_tags() the whole chain.
 * The layout is public so that hot accessors can be inline; build documents
 * only through the parsers, the builder or sdx_mdoc. */
typedef struct sdx_val {
    uint64_t tag;
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
    } v;
} sdx_val;

#define SDX_VAL_TYPE(val) ((sdx_type)((val)->tag & 0xff))
/* Set on a DOUBLE that was read from a 32-bit float (see SDX_EVENT_FLOAT32):
 * the builder sets it from the event flag, sdx_node_emit sets the flag. */
#define SDX_VAL_FLOAT32 (UINT64_C(1) << 8)
/* Set on a DOUBLE that was read from a 16-bit float (see SDX_EVENT_FLOAT16),
 * in the same way. */
#define SDX_VAL_FLOAT16 (UINT64_C(1) << 9)
/* Set on a STR by the JSON parser when the string was read without an
 * escape: its bytes are valid UTF-8 with no '"', '\\' or control character,
 * so a JSON writer may copy them as they are (unless asked to escape '/' or
 * non-ASCII text). It also says that 16 bytes may be read from the string's
 * start (the input's or the document's, whatever its length), so that a
 * short one can be copied in one 16-byte move: the parser leaves it off a
 * string within 16 bytes of the input's end, and sdx_node_copy pads its
 * copies. Equality and key lookup ignore it. */
#define SDX_VAL_NOESC (UINT64_C(1) << 10)
#define SDX_VAL_LEN(val) ((val)->tag >> 16)
/* The largest length a value can have (2^48 - 1). */
#define SDX_VAL_LEN_MAX ((UINT64_C(1) << 48) - 1)

/* An immutable document (opaque).
 *
 * Its values are one array of slots. A format's tree parser sizes the
 * array by a guess from the input and grows it when the guess was short.
 * Each parser also remembers the slots per input byte of the last
 * document it made from 64 KiB or more (one value for all threads), and a
 * parse of an input of about that size (half to twice) starts from that
 * rate when it is higher than its own guess (at most four times the
 * guess; what it overestimates is given back at the end). Documents of
 * one kind parsed one after another so get their array in one allocation
 * of about the size they need: growing it costs a copy, and with glibc's
 * malloc it can also make every parse of a loop fault its memory in anew. */
typedef struct sdx_doc sdx_doc;

/* A value in a document. Never NULL: a nil node has val pointing to a static
 * value of type SDX_TYPE_NONE (doc may then be NULL too). */
typedef struct sdx_node {
    sdx_doc *doc;
    const sdx_val *val;
} sdx_node;

/* ------------------------------------------------------------------------ */
/* The document                                                              */
/* ------------------------------------------------------------------------ */

/* Free a document and everything it owns. NULL is a no-op. */
SDX_API void sdx_doc_free(sdx_doc *doc);

/* The root value; a nil node when doc is NULL. */
SDX_API sdx_node sdx_doc_root(sdx_doc *doc);

/* The sticky lookup error: SDX_OK, or the first of SDX_ERR_NOT_FOUND (missing
 * key, index out of range, lookup in a nil node) and SDX_ERR_TYPE (a getter
 * or lookup on a value of another type) since the last clear. A NULL doc
 * gives SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_doc_error(const sdx_doc *doc);
SDX_API void sdx_doc_clear_error(sdx_doc *doc);

/* Bytes of input the parser consumed: the whole input, or with
 * SDX_JSON_READ_STOP_AFTER_VALUE the end of the first value (the next value,
 * if any, starts there after whitespace). 0 for documents not parsed. */
SDX_API size_t sdx_doc_consumed(const sdx_doc *doc);

/* Number of slots (sdx_val) in the document, tag slots included. */
SDX_API size_t sdx_doc_size(const sdx_doc *doc);

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

/* The nil node. */
SDX_API sdx_node sdx_node_nil(void);

/* The node's type (SDX_TYPE_NONE for the nil node); never SDX_TYPE__TAG. */
static inline sdx_type sdx_node_type(sdx_node n) { return SDX_VAL_TYPE(n.val); }
static inline bool sdx_node_exists(sdx_node n) { return SDX_VAL_TYPE(n.val) != SDX_TYPE_NONE; }
static inline bool sdx_node_is_null(sdx_node n) { return SDX_VAL_TYPE(n.val) == SDX_TYPE_NULL; }
static inline bool sdx_node_is_container(sdx_node n) {
    return SDX_VAL_TYPE(n.val) == SDX_TYPE_ARRAY || SDX_VAL_TYPE(n.val) == SDX_TYPE_MAP;
}

/* Flag on n's document the error a getter of another type gives: SDX_ERR_TYPE,
 * or SDX_ERR_NOT_FOUND for the nil node (nothing when n.doc is NULL or an
 * error is already flagged). For accessors written on top of the layout. */
SDX_API void sdx_node_flag(sdx_node n);

/* The getters, sdx_iter_init and sdx_iter_next are C99 inline functions:
 * the compiler inlines them where it pays (a tree walk is markedly faster),
 * and the library also exports them (src/core/doc.c holds their external
 * definitions) for callers that cannot use inline functions. Inline
 * definitions with external linkage may only use macros and external
 * functions. */

/* Typed getters. On another type (or the nil node) each returns 0 / false /
 * NULL and flags SDX_ERR_TYPE (SDX_ERR_NOT_FOUND for the nil node).
 * sdx_node_int accepts a UINT up to INT64_MAX (never stored so by the
 * readers); sdx_node_uint accepts a nonnegative INT; sdx_node_double accepts
 * INT, UINT and NINT too (converted, possibly rounded). A NINT has no getter
 * of its own: its payload v.u is n for the value -1 - n. */
SDX_API inline bool sdx_node_bool(sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_BOOL) return n.val->v.u != 0;
    sdx_node_flag(n);
    return false;
}
SDX_API inline int64_t sdx_node_int(sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_INT ||
        (SDX_VAL_TYPE(n.val) == SDX_TYPE_UINT && n.val->v.u <= (uint64_t)INT64_MAX))
        return n.val->v.i;
    sdx_node_flag(n);
    return 0;
}
SDX_API inline uint64_t sdx_node_uint(sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_UINT ||
        (SDX_VAL_TYPE(n.val) == SDX_TYPE_INT && n.val->v.i >= 0))
        return n.val->v.u;
    sdx_node_flag(n);
    return 0;
}
SDX_API inline double sdx_node_double(sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_DOUBLE) return n.val->v.d;
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_INT) return (double)n.val->v.i;
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_UINT) return (double)n.val->v.u;
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NINT) return -1.0 - (double)n.val->v.u;
    sdx_node_flag(n);
    return 0.0;
}
/* STR (and RAW); `*len` (if not NULL) gets the length in bytes (0 on
 * error). The bytes are not NUL-terminated and live as long as the document
 * (and its input). Never NULL for a value of the right type, even an empty
 * one; NULL only on error. */
SDX_API inline const char *sdx_node_str(sdx_node n, size_t *len) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_STR || SDX_VAL_TYPE(n.val) == SDX_TYPE_RAW) {
        if (len) *len = (size_t)SDX_VAL_LEN(n.val);
        return n.val->v.s ? n.val->v.s : "";
    }
    sdx_node_flag(n);
    if (len) *len = 0;
    return NULL;
}
/* BIN (also STR: any bytes); as sdx_node_str. */
SDX_API inline const void *sdx_node_bin(sdx_node n, size_t *len) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_BIN || SDX_VAL_TYPE(n.val) == SDX_TYPE_STR) {
        if (len) *len = (size_t)SDX_VAL_LEN(n.val);
        return n.val->v.s ? n.val->v.s : "";
    }
    sdx_node_flag(n);
    if (len) *len = 0;
    return NULL;
}

/* Elements of an array, entries of a map, bytes of a string / binary / raw
 * number; 0 for other types (no error). */
static inline uint64_t sdx_node_len(sdx_node n) { return SDX_VAL_LEN(n.val); }

/* The tag of a tagged value: returns its sdx_tag_kind (SDX_TAG_NONE when the
 * value is untagged, then *tag = 0) and stores the tag in *tag (if not NULL).
 * A value with several tags (CBOR) gives its innermost one, the tag right
 * on the value (for 61(18([...])) that is 18). */
SDX_API sdx_tag_kind sdx_node_tag(sdx_node n, uint64_t *tag);

/* All tags of a value, outermost first (for 61(18([...])): 61, then 18):
 * stores up to `cap` of them in kinds[i] and tags[i] (either array may be
 * NULL when cap is 0) and returns how many the value has (0 when untagged
 * or for the nil node), which may be more than `cap`. */
SDX_API size_t sdx_node_tags(sdx_node n, sdx_tag_kind *kinds, uint64_t *tags, size_t cap);

/* Lookups. A failed lookup returns a nil node of the same document, so that
 * a chain of lookups flags its first failure and then returns nil: on the
 * nil node every lookup flags SDX_ERR_NOT_FOUND (and keeps the first error). */

/* The i-th element of an array (O(i): each skip is O(1)). Out of range:
 * nil and SDX_ERR_NOT_FOUND; not an array: nil and SDX_ERR_TYPE. */
SDX_API sdx_node sdx_node_index(sdx_node n, uint64_t i);

/* The key and the value of the i-th entry of a map (O(i)); keys of any type
 * (string keys are STR). Out of range: nil and SDX_ERR_NOT_FOUND; not a map:
 * nil and SDX_ERR_TYPE. */
SDX_API sdx_node sdx_node_key_at(sdx_node n, uint64_t i);
SDX_API sdx_node sdx_node_value_at(sdx_node n, uint64_t i);

/* The value of the first entry of a map whose key is the string `key` of
 * `len` bytes (linear search; a tagged STR key matches too; `key` may be NULL
 * when len is 0). Missing: nil and SDX_ERR_NOT_FOUND; not a map: nil and
 * SDX_ERR_TYPE. sdx_node_getz takes a NUL-terminated key (NULL: not found). */
SDX_API sdx_node sdx_node_get(sdx_node n, const char *key, size_t len);
SDX_API sdx_node sdx_node_getz(sdx_node n, const char *key);

/* Iteration over an array's elements or a map's entries:
 *
 *   sdx_iter it = sdx_iter_init(map);
 *   sdx_node k, v;
 *   while (sdx_iter_next(&it, &k, &v)) ...   // arrays: k is nil
 *
 * On another type the iterator is empty and SDX_ERR_TYPE is flagged
 * (SDX_ERR_NOT_FOUND on the nil node). */
typedef struct sdx_iter {
    sdx_doc *doc;
    const sdx_val *cur; /* next slot */
    uint64_t left;      /* elements (entries) still to come */
    bool map;
} sdx_iter;
SDX_API inline sdx_iter sdx_iter_init(sdx_node n) {
    sdx_iter it;
    it.doc = n.doc;
    it.cur = n.val + 1; /* not read when empty */
    it.left = 0;
    it.map = false;
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_ARRAY || SDX_VAL_TYPE(n.val) == SDX_TYPE_MAP) {
        it.left = SDX_VAL_LEN(n.val);
        it.map = SDX_VAL_TYPE(n.val) == SDX_TYPE_MAP;
    } else {
        sdx_node_flag(n);
    }
    return it;
}

/* The slot after a value and its descendants, for walking the value array
 * directly. `v` must be a value slot, not a tag slot; the slot returned may be
 * the tag slot of the next sibling. */
SDX_API inline const sdx_val *sdx_val_next(const sdx_val *v) {
    return (SDX_VAL_TYPE(v) == SDX_TYPE_ARRAY || SDX_VAL_TYPE(v) == SDX_TYPE_MAP) ? v + v->v.u
                                                                                : v + 1;
}

/* Stores the next entry's key (maps; nil for arrays) and value, advances and
 * returns true; false (and both nil) at the end. `key`/`val` may be NULL. */
SDX_API inline bool sdx_iter_next(sdx_iter *it, sdx_node *key, sdx_node *val) {
    /* The nil value, here rather than sdx_node_nil() so that ending an
     * iteration calls nothing (a const object may be defined in an inline
     * definition; each translation unit may have its own copy, and nothing
     * compares nil nodes by address). */
    static const sdx_val nil_slot = {0, {0}};
    const sdx_val *p = it->cur;
    if (!it->left) {
        if (key) {
            key->doc = it->doc;
            key->val = &nil_slot;
        }
        if (val) {
            val->doc = it->doc;
            val->val = &nil_slot;
        }
        return false;
    }
    /* Tag slots are rare: a branch lets the walk go on without waiting for
     * the slot's type to load, which adding the comparison's result would.
     * A node's doc is stored before the loop over tag slots and its val
     * after it: in one basic block GCC's SLP vectorizer merges the two
     * stores into one 16-byte store, which a caller passing the node by
     * value then reads back as two 8-byte halves, and the second half
     * stalls on store forwarding (AMD Zen 3; a Tree walk of gen:4 took
     * 5-7 % longer). */
    if (it->map) {
        if (key) key->doc = it->doc;
        while (SDX__UNLIKELY(SDX_VAL_TYPE(p) == SDX_TYPE__TAG)) p++;
        if (key) key->val = p;
        p = sdx_val_next(p);
    } else if (key) {
        key->doc = it->doc;
        key->val = &nil_slot;
    }
    if (val) val->doc = it->doc;
    while (SDX__UNLIKELY(SDX_VAL_TYPE(p) == SDX_TYPE__TAG)) p++;
    if (val) val->val = p;
    it->cur = sdx_val_next(p);
    it->left--;
    return true;
}

/* Deep equality of two values (possibly from different documents): same
 * types (INT and UINT differ), tags, scalars (doubles by bit pattern: 0.0 and
 * -0.0 differ, a NaN equals the same NaN), bytes, and containers equal
 * element by element (maps in order); tag chains compare whole. Two nil
 * nodes are equal. One linear
 * pass over both values, no recursion; no error is flagged. */
SDX_API bool sdx_node_equal(sdx_node a, sdx_node b);

/* ------------------------------------------------------------------------ */
/* Events in and out                                                         */
/* ------------------------------------------------------------------------ */

/* Send the value `n` and its descendants to `sink` as events (depth counted
 * from n as 0), without finishing the sink: STR keys of a map as SDX_KEY,
 * every other value as its own kind (so non-string keys appear as values in
 * key position), NINT as SDX_NINT, tags on the event's tag_kind and tag (n's
 * own tag too; a value's outer tags, if it has several, as SDX_TAG events
 * before it, outermost first), float flags as SDX_EVENT_FLOAT32/16,
 * containers with their stored counts. Returns the sink's first error,
 * SDX_ERR_NOT_FOUND for the nil node, SDX_ERR_NOMEM when the walk's stack
 * (explicit, in the document's allocator beyond 32 levels) cannot grow.
 * Writing a document in any format:
 *   sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&w));
 *   sdx_json_writer_finish(&w); */
SDX_API sdx_err sdx_node_emit(sdx_node n, sdx_sink sink);

/* Builder options; NULL means defaults. */
typedef struct sdx_doc_build_opts {
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
    uint32_t max_depth;     /* nesting limit, 0 = 1024 (SDX_ERR_DEPTH) */
} sdx_doc_build_opts;

/* The builder: a sink that builds an immutable document from any event
 * stream. It copies strings, binaries and raw numbers into storage the
 * document owns, so events may come from any reader. The rules:
 *  - exactly one root value; any event after it is SDX_ERR_USAGE;
 *  - containers may declare their count or give SDX_COUNT_UNKNOWN; a child
 *    beyond the declared count, or an SDX_END before it is met, is
 *    SDX_ERR_USAGE;
 *  - in a map, SDX_KEY gives a STR key slot; any other event in key position
 *    (MessagePack and CBOR allow any key, even a container) gives a key of
 *    its own type; SDX_KEY outside key position, SDX_END after a key without
 *    its value, SDX_END with no open container, or an unknown kind is
 *    SDX_ERR_USAGE;
 *  - an event with tag_kind != SDX_TAG_NONE gets a tag slot (the tag of an
 *    SDX_END is ignored); an SDX_TAG event adds a tag slot before the next
 *    item's (it is not an item itself; SDX_TAG with SDX_TAG_NONE, or
 *    followed by SDX_END or by nothing, is SDX_ERR_USAGE); SDX_RAW becomes
 *    SDX_TYPE_RAW, SDX_NINT SDX_TYPE_NINT; an SDX_UINT up to INT64_MAX
 *    becomes SDX_TYPE_INT (every integer that fits int64 is INT);
 *  - opening more than max_depth nested containers is SDX_ERR_DEPTH;
 *  - a string longer than SDX_VAL_LEN_MAX is SDX_ERR_LIMIT;
 *  - event depths are not looked at.
 * Its state is private; it points into itself, so it must not be copied or
 * moved after sdx_doc_builder_init(). */
typedef struct sdx_doc_build_frame { /* one open container (private) */
    size_t slot;    /* index of the container's slot */
    uint64_t items; /* children so far (a map's keys and values both count) */
    uint64_t limit; /* children allowed (twice the count for a map), or UINT64_MAX */
    bool map;
} sdx_doc_build_frame;

/* Nesting levels held inside the builder before it allocates. */
#define SDX_DOC_BUILDER_INLINE_DEPTH 16

typedef struct sdx_doc_builder { /* all fields private */
    sdx_doc *doc;              /* the document being built */
    sdx_doc_build_frame *top;  /* innermost open container; NULL at the top level */
    sdx_doc_build_frame *frames; /* inline_frames or an allocation */
    uint32_t depth;            /* open containers */
    uint32_t cap;              /* frames available */
    uint32_t max_depth;
    bool done;                 /* the root value is complete */
    bool tag_due;              /* an SDX_TAG came: an item must follow */
    bool borrow;               /* strings are referenced, not copied (set by
                                  the library's parsers for bytes in an input
                                  that outlives the document) */
    sdx_err err;               /* sticky */
    sdx_alloc alloc;
    sdx_doc_build_frame inline_frames[SDX_DOC_BUILDER_INLINE_DEPTH];
} sdx_doc_builder;

/* Start building. Returns SDX_ERR_NOMEM if the first allocation fails
 * (also sticky). */
SDX_API sdx_err sdx_doc_builder_init(sdx_doc_builder *b, const sdx_doc_build_opts *opts);
/* The builder as a sink; its finish checks that exactly one root value was
 * completed. */
SDX_API sdx_sink sdx_doc_builder_sink(sdx_doc_builder *b);
/* Consume one event; returns the sticky error. */
SDX_API sdx_err sdx_doc_builder_put(sdx_doc_builder *b, const sdx_event *ev);
/* The finished document (the caller frees it with sdx_doc_free), or NULL with
 * the error in *err (if not NULL) when building failed or is incomplete
 * (SDX_ERR_USAGE: no root value, or containers still open). Releases the
 * builder's state either way; call it exactly once, also after a failed
 * init. */
SDX_API sdx_doc *sdx_doc_builder_finish(sdx_doc_builder *b, sdx_err *err);

/* A deep copy of the value n (with its tag) as a new document that owns all
 * its bytes (no pointer into n's input), allocated with `alloc` (NULL =
 * sdx_alloc_default()); NULL on allocation failure or for the nil node. */
SDX_API sdx_doc *sdx_node_copy(sdx_node n, const sdx_alloc *alloc);

/* ------------------------------------------------------------------------ */
/* The mutable document                                                      */
/* ------------------------------------------------------------------------ */

/* A mutable document and its values (opaque).
 *
 * Values are created by one sdx_mdoc and owned by it: they live until
 * sdx_mdoc_free, even after being removed from their container (a removed
 * value may be added again), so a pointer to a value never dangles while its
 * mdoc lives; memory of removed values is reclaimed only by sdx_mdoc_free.
 * Appending to an array, and putting, setting or getting a map entry by
 * string key, are amortized O(1): maps of 16 entries or more get a hash index
 * over their string keys, kept current by every edit (removing entry i of a
 * map or element i of an array is O(len - i)).
 *
 * Errors: every function accepts NULL values and then does nothing and
 * returns NULL / 0 / SDX_ERR_INVALID_ARG, so calls can be chained
 * (sdx_mval_append(arr, sdx_mdoc_int(md, 1)) with a failed allocation adds
 * nothing). Every failure is also flagged as the mdoc's error, which keeps the
 * first one until cleared; operations go on working after an error (as
 * lookups on sdx_doc do), so check sdx_mdoc_error() after a sequence of
 * edits: an edit that failed left its container unchanged. */
typedef struct sdx_mdoc sdx_mdoc;
typedef struct sdx_mval sdx_mval;

/* A new, empty mdoc (no root) using `alloc` (NULL = sdx_alloc_default());
 * NULL when allocation fails. */
SDX_API sdx_mdoc *sdx_mdoc_new(const sdx_alloc *alloc);
/* Free an mdoc and all its values. NULL is a no-op. */
SDX_API void sdx_mdoc_free(sdx_mdoc *md);
/* The first error since the last clear: SDX_ERR_NOMEM, SDX_ERR_TYPE,
 * SDX_ERR_NOT_FOUND, SDX_ERR_USAGE, SDX_ERR_INVALID_ARG or SDX_ERR_LIMIT;
 * SDX_ERR_INVALID_ARG for a NULL md. */
SDX_API sdx_err sdx_mdoc_error(const sdx_mdoc *md);
SDX_API void sdx_mdoc_clear_error(sdx_mdoc *md);

/* The root value (NULL while none is set). */
SDX_API sdx_mval *sdx_mdoc_root(const sdx_mdoc *md);
/* Make v (created by md, not inside a container) the root; the previous root,
 * if any, becomes a detached value. SDX_ERR_USAGE for a value of another
 * mdoc or inside a container. */
SDX_API sdx_err sdx_mdoc_set_root(sdx_mdoc *md, sdx_mval *v);

/* Create detached values (NULL and the error flagged on failure). Strings,
 * binaries and raw numbers are copied (`s` may be NULL when len is 0; longer
 * than SDX_VAL_LEN_MAX: SDX_ERR_LIMIT). */
SDX_API sdx_mval *sdx_mdoc_null(sdx_mdoc *md);
SDX_API sdx_mval *sdx_mdoc_bool(sdx_mdoc *md, bool b);
SDX_API sdx_mval *sdx_mdoc_int(sdx_mdoc *md, int64_t i);
SDX_API sdx_mval *sdx_mdoc_uint(sdx_mdoc *md, uint64_t u); /* INT when <= INT64_MAX */
SDX_API sdx_mval *sdx_mdoc_double(sdx_mdoc *md, double d);
SDX_API sdx_mval *sdx_mdoc_str(sdx_mdoc *md, const char *s, size_t len);
SDX_API sdx_mval *sdx_mdoc_strz(sdx_mdoc *md, const char *s);
SDX_API sdx_mval *sdx_mdoc_bin(sdx_mdoc *md, const void *p, size_t len);
/* A number kept as its text (SDX_TYPE_RAW; see SDX_RAW). Not checked here:
 * the JSON writer checks its grammar. */
SDX_API sdx_mval *sdx_mdoc_raw(sdx_mdoc *md, const char *s, size_t len);
SDX_API sdx_mval *sdx_mdoc_array(sdx_mdoc *md);
SDX_API sdx_mval *sdx_mdoc_map(sdx_mdoc *md);
/* Set (kind != SDX_TAG_NONE) or clear the tag of a value; returns v. A
 * mutable value holds one tag: importing a value with several (CBOR) keeps
 * its innermost one only. */
SDX_API sdx_mval *sdx_mval_set_tag(sdx_mval *v, sdx_tag_kind kind, uint64_t tag);

/* Inspect. The getters behave as the sdx_node ones: on another type they
 * return 0 / false / NULL and flag SDX_ERR_TYPE; sdx_mval_str and
 * sdx_mval_bin never return NULL for a value of the right type. */
SDX_API sdx_type sdx_mval_type(const sdx_mval *v); /* NONE for NULL */
/* The tag kind (SDX_TAG_NONE when untagged; *tag (if not NULL) = 0). */
SDX_API sdx_tag_kind sdx_mval_tag(const sdx_mval *v, uint64_t *tag);
SDX_API bool sdx_mval_bool(const sdx_mval *v);
SDX_API int64_t sdx_mval_int(const sdx_mval *v);
SDX_API uint64_t sdx_mval_uint(const sdx_mval *v);
SDX_API double sdx_mval_double(const sdx_mval *v);
SDX_API const char *sdx_mval_str(const sdx_mval *v, size_t *len); /* STR, RAW */
SDX_API const void *sdx_mval_bin(const sdx_mval *v, size_t *len); /* BIN, STR */
SDX_API size_t sdx_mval_len(const sdx_mval *v); /* elements, entries or bytes; else 0 */
/* Lookups: NULL and SDX_ERR_NOT_FOUND when out of range or missing,
 * SDX_ERR_TYPE on a value of another type. sdx_mval_get finds the first
 * entry whose key is the string `key` (a tagged STR key matches too). */
SDX_API sdx_mval *sdx_mval_index(const sdx_mval *arr, size_t i);
SDX_API sdx_mval *sdx_mval_get(const sdx_mval *map, const char *key, size_t len);
/* The i-th entry of a map: its key (a value: string keys are STR) and value. */
SDX_API sdx_mval *sdx_mval_key_at(const sdx_mval *map, size_t i);
SDX_API sdx_mval *sdx_mval_value_at(const sdx_mval *map, size_t i);

/* Edit. A value can be in one container at a time: adding a value of another
 * mdoc, or one that is already inside a container (as an element, a key or a
 * value), or is the root, or is the container itself or one of its
 * ancestors, is SDX_ERR_USAGE. Adding to a value of the wrong type is
 * SDX_ERR_TYPE. A value removed or replaced becomes detached (and may be
 * added again). */
SDX_API sdx_err sdx_mval_append(sdx_mval *arr, sdx_mval *v);
/* Insert before element i (i <= len; beyond: SDX_ERR_NOT_FOUND). O(len - i). */
SDX_API sdx_err sdx_mval_insert(sdx_mval *arr, size_t i, sdx_mval *v);
/* Remove the i-th element of an array or entry of a map (SDX_ERR_NOT_FOUND
 * out of range). O(len - i). */
SDX_API sdx_err sdx_mval_remove_at(sdx_mval *c, size_t i);
/* Set map[key] = v: replaces the value of the first entry with that string
 * key (the old value becomes detached), or appends an entry with a copy of
 * the key. */
SDX_API sdx_err sdx_mval_set(sdx_mval *map, const char *key, size_t len, sdx_mval *v);
/* Append an entry with any key value (MessagePack and CBOR allow non-string
 * keys); no check for duplicates. key and v must be distinct. */
SDX_API sdx_err sdx_mval_put(sdx_mval *map, sdx_mval *key, sdx_mval *v);
/* Remove the first entry with that string key (SDX_ERR_NOT_FOUND if none). */
SDX_API sdx_err sdx_mval_remove(sdx_mval *map, const char *key, size_t len);

/* Conversions, all without recursion.
 * sdx_mdoc_import deep-copies a value of a document (with its tag) into md
 * as a detached value; NULL on failure (SDX_ERR_NOT_FOUND for the nil node,
 * SDX_ERR_NOMEM).
 * sdx_mdoc_from_node deep-copies a value into a new mdoc as its root (NULL on
 * allocation failure or for the nil node).
 * sdx_mdoc_to_doc builds an immutable document from the mdoc's root, with the
 * mdoc's allocator and no depth limit (NULL on failure, the error in *err if
 * not NULL: SDX_ERR_USAGE when there is no root, SDX_ERR_NOMEM). It does not
 * look at the mdoc's error. */
SDX_API sdx_mval *sdx_mdoc_import(sdx_mdoc *md, sdx_node n);
SDX_API sdx_mdoc *sdx_mdoc_from_node(sdx_node n, const sdx_alloc *alloc);
SDX_API sdx_doc *sdx_mdoc_to_doc(const sdx_mdoc *md, sdx_err *err);
/* Emit a mutable value as events (as sdx_node_emit: depth counted from v,
 * v's own tag included). Returns the sink's first error, SDX_ERR_NOMEM when
 * the walk's stack cannot grow, SDX_ERR_INVALID_ARG for NULL. */
SDX_API sdx_err sdx_mval_emit(const sdx_mval *v, sdx_sink sink);

#ifdef __cplusplus
}
#endif

#endif /* SDX_DOC_H */
