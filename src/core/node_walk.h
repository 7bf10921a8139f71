/*
 * Internal: a document walk that calls one format's writer directly — the
 * body of sdx_<fmt>_writer_node, each format's fast way to write a parsed
 * document. It produces exactly what sdx_node_emit (src/core/doc.c) into
 * the same writer's sink produces, without building an event per value
 * and dispatching it through the sink and the writer's event switch: the
 * commonest values (untagged null, bool, int, uint, double, string, key,
 * binary, array, map, end) go straight to the writer's calls, which for
 * msgpack, CBOR and UBJSON are their inline fast paths; everything else (a
 * tagged value, a float32/float16 double, a negative integer below
 * INT64_MIN, raw number text, a map key that is not a string, a value
 * after an outer tag of a chain) is built as the event sdx_node_emit would
 * give and handed to the writer's event call.
 *
 * Include it after defining:
 *   NODE_WALK_FN           the name of the function to define:
 *                          static sdx_err NODE_WALK_FN(NODE_WALK_W *w, sdx_node n)
 *   NODE_WALK_W            the writer type
 *   NODE_WALK_NULL(w)      NODE_WALK_BOOL(w, b)   NODE_WALK_INT(w, i)
 *   NODE_WALK_UINT(w, u)   NODE_WALK_DOUBLE(w, d)
 *   NODE_WALK_STR(w, s, n) NODE_WALK_KEY(w, s, n) NODE_WALK_BIN(w, s, n)
 *   NODE_WALK_ARRAY(w, n)  NODE_WALK_MAP(w, n)    NODE_WALK_END(w)
 *   NODE_WALK_PUT(w, ev)   the writer's event call (sdx_<fmt>_writer_put)
 * each an expression of type sdx_err. The macros are undefined at the end,
 * so a file may include this once per writer.
 */
#include "core/doc_internal.h"
#include "sdx/common.h"

#define NODE_WALK_INLINE_DEPTH 32

static sdx_err NODE_WALK_FN(NODE_WALK_W *w, sdx_node n) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) return SDX_ERR_NOT_FOUND;
    /* the slot after each open container's last descendant; whether it
     * is a map and its next child a key is kept as two bits beside it */
    struct node_walk_frame {
        const sdx_val *end;
        uint8_t map, key_due;
    } inline_frames[NODE_WALK_INLINE_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_WALK_INLINE_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    size_t depth = 0;
    const sdx_val *p = sdx_val_tags_start(n.doc, n.val), *end = sdx_val_next(n.val);
    sdx_err rc = SDX_OK;
    for (;;) {
        while (depth && p == frames[depth - 1].end) {
            depth--;
            if ((rc = NODE_WALK_END(w)) != SDX_OK) goto out;
        }
        if (p == end) break;
        sdx_type t = SDX_VAL_TYPE(p);
        bool key = false;
        if (depth) {
            struct node_walk_frame *f = &frames[depth - 1];
            key = f->key_due;
            f->key_due = (uint8_t)(f->map && !key);
        }
        if (t == SDX_TYPE__TAG) {
            /* a tagged value: its chain's outer tags as SDX_TAG events and
             * the value with its innermost tag, as sdx_node_emit gives */
            sdx_event ev;
            memset(&ev, 0, sizeof ev);
            ev.depth = (uint32_t)depth;
            while (SDX_VAL_TYPE(p) == SDX_TYPE__TAG) {
                ev.tag_kind = (uint8_t)(p->tag >> 8);
                ev.tag = p->v.u;
                p++;
                if (SDX_VAL_TYPE(p) == SDX_TYPE__TAG) {
                    ev.kind = SDX_TAG;
                    if ((rc = NODE_WALK_PUT(w, &ev)) != SDX_OK) goto out;
                }
            }
            t = SDX_VAL_TYPE(p);
            if (t == SDX_TYPE_ARRAY || t == SDX_TYPE_MAP) {
                ev.kind = t == SDX_TYPE_MAP ? SDX_MAP : SDX_ARRAY;
                ev.flags = 0;
                ev.v.count = SDX_VAL_LEN(p);
            } else if (t != SDX_TYPE_NONE && t <= SDX_TYPE_NINT) {
                sdx_val_scalar_event(&ev, p, key);
            } else {
                rc = SDX_ERR_INVALID_ARG; /* not a value: a corrupted document */
                goto out;
            }
            if ((rc = NODE_WALK_PUT(w, &ev)) != SDX_OK) goto out;
            if (t != SDX_TYPE_ARRAY && t != SDX_TYPE_MAP) {
                p++;
                continue;
            }
        } else if (key && t != SDX_TYPE_STR) {
            /* a map key that is not a string: the writer's event call says
             * whether the format takes it (and for containers, opens it) */
            sdx_event ev;
            memset(&ev, 0, sizeof ev);
            ev.depth = (uint32_t)depth;
            if (t == SDX_TYPE_ARRAY || t == SDX_TYPE_MAP) {
                ev.kind = t == SDX_TYPE_MAP ? SDX_MAP : SDX_ARRAY;
                ev.v.count = SDX_VAL_LEN(p);
            } else if (t != SDX_TYPE_NONE && t <= SDX_TYPE_NINT) {
                sdx_val_scalar_event(&ev, p, false);
            } else {
                rc = SDX_ERR_INVALID_ARG;
                goto out;
            }
            if ((rc = NODE_WALK_PUT(w, &ev)) != SDX_OK) goto out;
            if (t != SDX_TYPE_ARRAY && t != SDX_TYPE_MAP) {
                p++;
                continue;
            }
        } else {
            switch (t) {
            case SDX_TYPE_NULL: rc = NODE_WALK_NULL(w); break;
            case SDX_TYPE_BOOL: rc = NODE_WALK_BOOL(w, p->v.u != 0); break;
            case SDX_TYPE_INT: rc = NODE_WALK_INT(w, p->v.i); break;
            case SDX_TYPE_UINT: rc = NODE_WALK_UINT(w, p->v.u); break;
            case SDX_TYPE_DOUBLE:
                if (p->tag & (SDX_VAL_FLOAT32 | SDX_VAL_FLOAT16)) {
                    sdx_event ev;
                    memset(&ev, 0, sizeof ev);
                    ev.depth = (uint32_t)depth;
                    sdx_val_scalar_event(&ev, p, false);
                    rc = NODE_WALK_PUT(w, &ev);
                } else {
                    rc = NODE_WALK_DOUBLE(w, p->v.d);
                }
                break;
            case SDX_TYPE_STR:
                rc = key ? NODE_WALK_KEY(w, p->v.s, (size_t)SDX_VAL_LEN(p))
                         : NODE_WALK_STR(w, p->v.s, (size_t)SDX_VAL_LEN(p));
                break;
            case SDX_TYPE_BIN: rc = NODE_WALK_BIN(w, p->v.s, (size_t)SDX_VAL_LEN(p)); break;
            case SDX_TYPE_NINT:
            case SDX_TYPE_RAW: {
                sdx_event ev;
                memset(&ev, 0, sizeof ev);
                ev.depth = (uint32_t)depth;
                sdx_val_scalar_event(&ev, p, false);
                rc = NODE_WALK_PUT(w, &ev);
                break;
            }
            case SDX_TYPE_ARRAY: rc = NODE_WALK_ARRAY(w, SDX_VAL_LEN(p)); break;
            case SDX_TYPE_MAP: rc = NODE_WALK_MAP(w, SDX_VAL_LEN(p)); break;
            default: rc = SDX_ERR_INVALID_ARG; /* not a value: a corrupted document */
            }
            if (rc != SDX_OK) goto out;
            if (t != SDX_TYPE_ARRAY && t != SDX_TYPE_MAP) {
                p++;
                continue;
            }
        }
        /* a container was opened: its frame */
        if (depth == st.cap) {
            if (!sdx_stack_grow(&st)) {
                rc = SDX_ERR_NOMEM;
                goto out;
            }
            frames = st.items;
        }
        frames[depth].end = p + p->v.u;
        frames[depth].map = t == SDX_TYPE_MAP;
        frames[depth].key_due = t == SDX_TYPE_MAP;
        depth++;
        p++;
    }
out:
    sdx_stack_free(&st);
    return rc;
}

#undef NODE_WALK_INLINE_DEPTH
#undef NODE_WALK_FN
#undef NODE_WALK_W
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
