/*
 * The containers of a direct path (encode.c's jd_* for JSON, md_* for
 * MessagePack): a dict or a list/tuple written straight into the buffer,
 * with the write position p passed along and returned (NULL with the
 * error raised). Included by encode.c once per format with
 *   DW(name)                  the function name for this format
 *   DW_CTX                    its context (c: the enc_ctx, b: the buffer)
 *   DW_ROOM                   room every value may assume at p
 *   DW_GROW(j, p, n, o)       room for n bytes at p: where to write, or
 *                             NULL with the error raised
 *   DW_SYNC(j, p)             the buffer's position for an error at p
 *   DW_TOO_LONG(n)            a count the format's header cannot hold
 *                             (the container goes to DW(other))
 *   DW_MAP_BEGIN(p, n)        DW_SEQ_BEGIN(p, n)   the opening, at p
 *   DW_MAP_END(p, o, fail)    DW_SEQ_END(p, o, fail)
 *                             the closing (may use DW_NEED)
 *   DW_SEP(p, i)              what comes before element or entry i
 *   DW_KEY(j, p, k, d)        a key that is an exact str
 *   DW_KEY_OTHER(j, p, k, d)  any other key (may run Python code)
 *   DW_ITEM(j, p, v, d)       an element or a value
 * and DW(value), DW(other) declared before. A container holds a reference
 * to itself while it is walked, and one that changes size on the way
 * (default= may change it) is an error, as in enc_tmpl.h.
 */

#define DW_NEED(p, n, o, fail)                                                                      \
    do {                                                                                            \
        if (SDX_UNLIKELY((size_t)(j->b->end - (p)) < (size_t)(n)) && !((p) = DW_GROW(j, p, n, o))) \
            goto fail;                                                                              \
    } while (0)

static char *DW(dict)(DW_CTX *j, char *p, PyObject *o, int depth) {
    enc_ctx *c = j->c;
    if (depth >= c->max_depth) {
        DW_SYNC(j, p);
        enc_depth_error(c);
        return NULL;
    }
    Py_ssize_t n = PyDict_GET_SIZE(o), pos = 0, count = 0;
    if (SDX_UNLIKELY(DW_TOO_LONG(n))) return DW(other)(j, p, o, depth);
    PyObject *k, *v;
    Py_INCREF(o);
    DW_MAP_BEGIN(p, n);
    while (sp_dict_next(o, &pos, &k, &v)) {
        if (count == n) goto changed; /* it grew on the way */
        DW_NEED(p, DW_ROOM, o, fail);
        DW_SEP(p, count);
        if (SDX_LIKELY(PyUnicode_CheckExact(k))) {
            if (!(p = DW_KEY(j, p, k, depth + 1))) goto fail;
            DW_NEED(p, DW_ROOM, o, fail);
            if (!(p = DW_ITEM(j, p, v, depth + 1))) goto fail;
        } else {
            /* the key may run Python code, which may take the entry out
             * of the dict: hold the key and the value meanwhile */
            Py_INCREF(k);
            Py_INCREF(v);
            if ((p = DW_KEY_OTHER(j, p, k, depth + 1)) != NULL) {
                DW_NEED(p, DW_ROOM, o, fail_v);
                p = DW_ITEM(j, p, v, depth + 1);
            }
        fail_v:
            Py_DECREF(v);
            Py_DECREF(k);
            if (!p) goto fail;
        }
        count++;
    }
    if (count != n || PyDict_GET_SIZE(o) != n) goto changed;
    DW_MAP_END(p, o, fail);
    Py_DECREF(o);
    return p;
changed:
    j->b->cur = p;
    enc_changed(c, o);
fail:
    Py_DECREF(o);
    return NULL;
}

static char *DW(seq)(DW_CTX *j, char *p, PyObject *o, int depth) {
    enc_ctx *c = j->c;
    if (depth >= c->max_depth) {
        DW_SYNC(j, p);
        enc_depth_error(c);
        return NULL;
    }
    const int list = PyList_Check(o);
    const Py_ssize_t n = list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
    if (SDX_UNLIKELY(DW_TOO_LONG(n))) return DW(other)(j, p, o, depth);
    Py_INCREF(o);
    DW_SEQ_BEGIN(p, n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (list && i >= PyList_GET_SIZE(o)) break; /* it shrank on the way */
        DW_NEED(p, DW_ROOM, o, fail);
        DW_SEP(p, i);
        if (!(p = DW_ITEM(j, p, list ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i), depth + 1))) goto fail;
    }
    if ((list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o)) != n) {
        j->b->cur = p;
        enc_changed(c, o);
        goto fail;
    }
    DW_SEQ_END(p, o, fail);
    Py_DECREF(o);
    return p;
fail:
    Py_DECREF(o);
    return NULL;
}

#undef DW_NEED
#undef DW
#undef DW_CTX
#undef DW_ROOM
#undef DW_GROW
#undef DW_SYNC
#undef DW_TOO_LONG
#undef DW_MAP_BEGIN
#undef DW_SEQ_BEGIN
#undef DW_MAP_END
#undef DW_SEQ_END
#undef DW_SEP
#undef DW_KEY
#undef DW_KEY_OTHER
#undef DW_ITEM
