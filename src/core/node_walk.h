/*
 * Internal: the one walk of a document's value array, without recursion,
 * that turns a value into a writer's calls. Two kinds of user include it:
 *
 *   - sdx_node_emit (src/core/doc.c), with NODE_WALK_EVENTS_ONLY: every
 *     value, every SDX_TAG of a chain of tags and every SDX_END is an event
 *     handed to NODE_WALK_PUT (the sink);
 *   - sdx_<fmt>_writer_node (each format's writer.c): the commonest values
 *     (untagged null, bool, int, uint, double, string, key, binary, array,
 *     map, and every end) go straight to the writer's calls, which for
 *     MessagePack, CBOR and UBJSON are their inline fast paths; everything
 *     else (a tagged value, a float32/float16 double, an integer below
 *     INT64_MIN, raw number text, a map key that is not a string, and the
 *     SDX_TAG events of a chain) is built as the event sdx_node_emit gives
 *     and handed to the writer's event call. So both write the same bytes
 *     with the same errors (tests/unit/test_writer_node.c).
 *
 * Include it after defining:
 *   NODE_WALK_FN           the name of the function to define:
 *                          static sdx_err NODE_WALK_FN(NODE_WALK_W *w, sdx_node n)
 *   NODE_WALK_W            the writer (or sink) type
 *   NODE_WALK_PUT(w, ev)   the event call
 * and, without NODE_WALK_EVENTS_ONLY, the writer's calls, each an
 * expression of type sdx_err:
 *   NODE_WALK_NULL(w)      NODE_WALK_BOOL(w, b)   NODE_WALK_INT(w, i)
 *   NODE_WALK_UINT(w, u)   NODE_WALK_DOUBLE(w, d)
 *   NODE_WALK_STR(w, s, n) NODE_WALK_KEY(w, s, n) NODE_WALK_BIN(w, s, n)
 *   NODE_WALK_ARRAY(w, n)  NODE_WALK_MAP(w, n)    NODE_WALK_END(w)
 * A format's writer defines NODE_WALK_WRITER (sdx_<fmt>_writer) instead:
 * then NODE_WALK_W and NODE_WALK_PUT, and every call it leaves undefined
 * but NODE_WALK_BIN (whose name differs by format), are the writer's
 * functions of the same name (sdx_<fmt>_writer_null, ..._put), and
 * NODE_WALK_FN is walk_node. NODE_WALK_OWN adds the helpers of a
 * writer's own walk (see there). The macros are undefined at the end, so a
 * file may include this once per walk.
 */
#include <string.h>

#include "core/doc_internal.h"
#include "sdx/common.h"

#define NODE_WALK_INLINE_DEPTH 32

#ifdef NODE_WALK_WRITER
/* the writer's function NODE_WALK_WRITER ## suffix: its inline fast path
 * where it has one, as the name is a macro then */
#define NODE_WALK_CAT_(a, b) a##b
#define NODE_WALK_CAT(a, b) NODE_WALK_CAT_(a, b)
#define NODE_WALK_FN walk_node
#define NODE_WALK_W NODE_WALK_WRITER
#define NODE_WALK_PUT(w, ev) NODE_WALK_CAT(NODE_WALK_WRITER, _put)(w, ev)
#ifndef NODE_WALK_NULL
#define NODE_WALK_NULL(w) NODE_WALK_CAT(NODE_WALK_WRITER, _null)(w)
#endif
#ifndef NODE_WALK_BOOL
#define NODE_WALK_BOOL(w, b) NODE_WALK_CAT(NODE_WALK_WRITER, _bool)(w, b)
#endif
#ifndef NODE_WALK_INT
#define NODE_WALK_INT(w, i) NODE_WALK_CAT(NODE_WALK_WRITER, _int)(w, i)
#endif
#ifndef NODE_WALK_UINT
#define NODE_WALK_UINT(w, u) NODE_WALK_CAT(NODE_WALK_WRITER, _uint)(w, u)
#endif
#ifndef NODE_WALK_DOUBLE
#define NODE_WALK_DOUBLE(w, d) NODE_WALK_CAT(NODE_WALK_WRITER, _double)(w, d)
#endif
#ifndef NODE_WALK_STR
#define NODE_WALK_STR(w, s, n) NODE_WALK_CAT(NODE_WALK_WRITER, _string)(w, s, n)
#endif
#ifndef NODE_WALK_KEY
#define NODE_WALK_KEY(w, s, n) NODE_WALK_CAT(NODE_WALK_WRITER, _key)(w, s, n)
#endif
#ifndef NODE_WALK_ARRAY
#define NODE_WALK_ARRAY(w, n) NODE_WALK_CAT(NODE_WALK_WRITER, _begin_array)(w, n)
#endif
#ifndef NODE_WALK_MAP
#define NODE_WALK_MAP(w, n) NODE_WALK_CAT(NODE_WALK_WRITER, _begin_map)(w, n)
#endif
#ifndef NODE_WALK_END
#define NODE_WALK_END(w) NODE_WALK_CAT(NODE_WALK_WRITER, _end)(w)
#endif
#endif

static sdx_err NODE_WALK_FN(NODE_WALK_W *w, sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) return SDX_ERR_NOT_FOUND;
    /* the slot after each open container's last descendant, whether it is
     * a map and whether its next child is a key */
    struct node_walk_frame {
        const sdx_val *end;
        uint8_t map, key_due;
    } inline_frames[NODE_WALK_INLINE_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_WALK_INLINE_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    size_t depth = 0;
    const sdx_val *p = sdx_val_tags_start(n.doc, n.val), *end = sdx_val_next(n.val);
    sdx_event ev;
    sdx_err rc = SDX_OK;
    for (;;) {
        while (depth && p == frames[depth - 1].end) {
            depth--;
#ifdef NODE_WALK_EVENTS_ONLY
            memset(&ev, 0, sizeof ev);
            ev.kind = SDX_END;
            ev.depth = (uint32_t)depth;
            rc = NODE_WALK_PUT(w, &ev);
#else
            rc = NODE_WALK_END(w);
#endif
            if (rc != SDX_OK) goto out;
        }
        if (p == end) break;
        bool key = false;
        if (depth) {
            struct node_walk_frame *f = &frames[depth - 1];
            key = f->key_due;
            f->key_due = (uint8_t)(f->map && !key);
        }
        /* a chain of tags: the outer ones as SDX_TAG events, the innermost
         * on the value's event */
        bool tagged = false;
        uint8_t tag_kind = SDX_TAG_NONE;
        uint64_t tag = 0;
        for (; SDX_VAL_TYPE(p) == SDX_TYPE__TAG; p++) {
            if (tagged) {
                memset(&ev, 0, sizeof ev);
                ev.kind = SDX_TAG;
                ev.depth = (uint32_t)depth;
                ev.tag_kind = tag_kind;
                ev.tag = tag;
                if ((rc = NODE_WALK_PUT(w, &ev)) != SDX_OK) goto out;
            }
            tagged = true;
            tag_kind = (uint8_t)(p->tag >> 8);
            tag = p->v.u;
        }
        sdx_type t = SDX_VAL_TYPE(p);
        if (t == SDX_TYPE_NONE || t > SDX_TYPE_NINT) { /* not a value: a corrupted document */
            rc = SDX_ERR_INVALID_ARG;
            goto out;
        }
        bool container = t == SDX_TYPE_ARRAY || t == SDX_TYPE_MAP;
        if (container && depth == st.cap) { /* its frame's room, before its event */
            if (!sdx_stack_grow(&st)) {
                rc = SDX_ERR_NOMEM;
                goto out;
            }
            frames = st.items;
        }
#ifndef NODE_WALK_EVENTS_ONLY
        if (!tagged && (t == SDX_TYPE_STR || !key) && t != SDX_TYPE_NINT && t != SDX_TYPE_RAW &&
            !(p->tag & (SDX_VAL_FLOAT32 | SDX_VAL_FLOAT16))) {
            switch (t) {
            case SDX_TYPE_NULL: rc = NODE_WALK_NULL(w); break;
            case SDX_TYPE_BOOL: rc = NODE_WALK_BOOL(w, p->v.u != 0); break;
            case SDX_TYPE_INT: rc = NODE_WALK_INT(w, p->v.i); break;
            case SDX_TYPE_UINT: rc = NODE_WALK_UINT(w, p->v.u); break;
            case SDX_TYPE_DOUBLE: rc = NODE_WALK_DOUBLE(w, p->v.d); break;
            case SDX_TYPE_STR:
                rc = key ? NODE_WALK_KEY(w, p->v.s, (size_t)SDX_VAL_LEN(p))
                         : NODE_WALK_STR(w, p->v.s, (size_t)SDX_VAL_LEN(p));
                break;
            case SDX_TYPE_BIN: rc = NODE_WALK_BIN(w, p->v.s, (size_t)SDX_VAL_LEN(p)); break;
            case SDX_TYPE_ARRAY: rc = NODE_WALK_ARRAY(w, SDX_VAL_LEN(p)); break;
            default: rc = NODE_WALK_MAP(w, SDX_VAL_LEN(p)); break;
            }
        } else
#endif
        {
            memset(&ev, 0, sizeof ev);
            ev.depth = (uint32_t)depth;
            if (container) {
                ev.kind = t == SDX_TYPE_MAP ? SDX_MAP : SDX_ARRAY;
                ev.v.count = SDX_VAL_LEN(p);
            } else {
                sdx_val_scalar_event(&ev, p, key);
            }
            ev.tag_kind = tag_kind;
            ev.tag = tag;
            rc = NODE_WALK_PUT(w, &ev);
        }
        if (rc != SDX_OK) goto out;
        if (container) {
            frames[depth].end = p + p->v.u;
            frames[depth].map = t == SDX_TYPE_MAP;
            frames[depth].key_due = t == SDX_TYPE_MAP;
            depth++;
        }
        p++;
    }
out:
    sdx_stack_free(&st);
    return rc;
}

#ifdef NODE_WALK_OWN
#include "core/buf_room.h"

/* With NODE_WALK_OWN: the helpers of a writer's own walk of a document's
 * value array (node_fast in its writer.c, after this include), which
 * writes the common case straight into a memory buffer and hands anything
 * else to walk_node. */

/* Room for `need` bytes at p (a char or byte pointer into b's memory),
 * the buffer growing to give it, p moving with it; to the label `fail` when
 * it cannot grow. A macro, so that the common case is one compare. */
#define NODE_WALK_NEED(b, p, need, fail)                                                  \
    do {                                                                                  \
        if ((size_t)((b)->end - (char *)(p)) < (need) &&                                  \
            !((p) = (void *)sdx_buf_room_slow((b), (char *)(p), (need))))                    \
            goto fail;                                                                    \
    } while (0)

/* The own walks' dispatch on a value's type: tests in the order of how
 * common the types are, not a switch. On data that mixes types, a switch's
 * indirect jump is often mispredicted, while conditional branches are
 * predicted well from the history of recent branches; and as GCC turns a
 * chain of == tests on one value back into a switch, the tests after the
 * first are on NODE_WALK_BIT(type): `bit & NODE_WALK_BIT(SDX_TYPE_INT)`
 * with `bit = NODE_WALK_BIT(SDX_VAL_TYPE(v))`. Types are below 16
 * (SDX_TYPE__TAG); the mask only keeps the shift defined. */
#define NODE_WALK_BIT(t) (UINT32_C(1) << ((t) & 31))

/* The end of an own walk. `written`: the buffer's position moves to p, the
 * end of the value, and 1 is returned. Else 0, with the buffer rewound to
 * `start`, where the value began, for walk_node to write it all again; or
 * -1 when the buffer could not grow, whose error the caller then gives its
 * writer. */
static inline int node_walk_end(sdx_buf *b, int written, char *p, size_t start) {
    if (written) {
        b->cur = p;
        return 1;
    }
    if (b->err) return -1;
    b->cur = b->start + start;
    return 0;
}

/* sdx_<fmt>_writer_node: the own walk `fast` (which returns as
 * node_walk_end does), else walk_node, the writer's calls. */
static inline sdx_err walk_node_fast(NODE_WALK_W *w, sdx_node n, int (*fast)(NODE_WALK_W *, sdx_node)) {
    if (SDX_VAL_TYPE(n.val) != SDX_TYPE_NONE) {
        int rc = fast(w, n);
        if (rc > 0) return SDX_OK;
        if (rc < 0) return w->err;
    }
    return NODE_WALK_FN(w, n);
}
#endif

#undef NODE_WALK_INLINE_DEPTH
#undef NODE_WALK_OWN
#undef NODE_WALK_CAT_
#undef NODE_WALK_CAT
#undef NODE_WALK_WRITER
#undef NODE_WALK_FN
#undef NODE_WALK_W
#undef NODE_WALK_EVENTS_ONLY
#undef NODE_WALK_NULL
#undef NODE_WALK_BOOL
#undef NODE_WALK_INT
#undef NODE_WALK_UINT
#undef NODE_WALK_DOUBLE
#undef NODE_WALK_STR
#undef NODE_WALK_KEY
#undef NODE_WALK_BIN
#undef NODE_WALK_ARRAY
#undef NODE_WALK_MAP
#undef NODE_WALK_END
#undef NODE_WALK_PUT
