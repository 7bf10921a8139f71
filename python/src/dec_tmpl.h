/*
 * The Python objects of one format's events, read with that format's pull
 * reader (its inline fast path): included by decode.c once per reader type
 * with
 *   DEC(name)      the function name for this reader
 *   DEC_RT         the reader type
 *   DEC_NEXT(r,e)  its next function (the inline macro where there is one),
 *                  for the elements and entries of containers
 *   DEC_NEXT_COLD(r,e)  the exported next function, for the rest (a tag's
 *                  item, the top level): with the inline path at only
 *                  the three calls of the loops, the compiler inlines it
 * No tree in between: each container's elements go onto the context's
 * stack as they arrive (so nothing is sized from a declared count) and
 * become one list or dict at its end.
 */

static PyObject *DEC(value)(dec_ctx *c, DEC_RT *r, sdx_event *ev);

/* The elements of an array whose begin event was just read, up to its
 * END: a list, or a tuple inside a map key. */
static PyObject *DEC(array)(dec_ctx *c, DEC_RT *r, int as_tuple) {
    Py_ssize_t base = c->sp;
    sdx_event e;
    for (;;) {
        if (!DEC_NEXT(r, &e)) {
            dec_reader_fail(c);
            goto fail;
        }
        if (e.kind == SDX_END) break;
        PyObject *v;
        switch (e.kind) { /* the commonest scalars without a call */
        case SDX_INT:
            if (e.tag_kind) goto general;
            v = PyLong_FromLongLong(e.v.i);
            break;
        case SDX_DOUBLE:
            if (e.tag_kind) goto general;
            v = PyFloat_FromDouble(e.v.d);
            break;
        case SDX_STR:
            if (e.tag_kind) goto general;
            v = dec_str(c, e.v.str.ptr, e.v.str.len);
            break;
        default:
        general:
            v = DEC(value)(c, r, &e);
        }
        if (!v) goto fail;
        if (c->sp == c->cap && dec_grow(c) < 0) {
            Py_DECREF(v);
            goto fail;
        }
        c->stack[c->sp++] = v;
    }
    Py_ssize_t n = c->sp - base;
    PyObject *seq = as_tuple ? PyTuple_New(n) : PyList_New(n);
    if (!seq) goto fail;
    if (n) {
        PyObject **items = as_tuple ? ((PyTupleObject *)seq)->ob_item : ((PyListObject *)seq)->ob_item;
        memcpy(items, c->stack + base, (size_t)n * sizeof(PyObject *));
    }
    c->sp = base;
    return seq;
fail:
    while (c->sp > base) Py_DECREF(c->stack[--c->sp]);
    return NULL;
}

/* The entries of a map whose begin event was just read, up to its END;
 * `count` is its declared number of entries (SDX_COUNT_UNKNOWN if none),
 * which sizes the dict (dec_dict_new). Without a count the dict is made
 * at the first key, sized as the last map that began with the same key
 * (dec_dict_guess). */
static PyObject *DEC(map)(dec_ctx *c, DEC_RT *r, uint64_t count) {
    PyObject *d = NULL;
    uint8_t *guess = NULL;
    if (count != SDX_COUNT_UNKNOWN && !(d = dec_dict_new(count))) return NULL;
    sdx_event e;
    for (;;) {
        if (!DEC_NEXT(r, &e)) {
            dec_reader_fail(c);
            goto fail;
        }
        if (e.kind == SDX_END) break;
        PyObject *k;
        if (e.kind == SDX_KEY) {
            k = dec_key(c, e.v.str.ptr, e.v.str.len);
        } else {
            c->in_key++;
            k = DEC(value)(c, r, &e);
            c->in_key--;
        }
        if (!k) goto fail;
        if (SDX_UNLIKELY(!d) && !(d = dec_dict_guess(k, &guess))) {
            Py_DECREF(k);
            goto fail;
        }
        if (!DEC_NEXT(r, &e)) {
            Py_DECREF(k);
            dec_reader_fail(c);
            goto fail;
        }
        PyObject *v;
        switch (e.kind) {
        case SDX_INT:
            if (e.tag_kind) goto general;
            v = PyLong_FromLongLong(e.v.i);
            break;
        case SDX_DOUBLE:
            if (e.tag_kind) goto general;
            v = PyFloat_FromDouble(e.v.d);
            break;
        case SDX_STR:
            if (e.tag_kind) goto general;
            v = dec_str(c, e.v.str.ptr, e.v.str.len);
            break;
        default:
        general:
            v = DEC(value)(c, r, &e);
        }
        if (!v) {
            Py_DECREF(k);
            goto fail;
        }
        int rc = PyDict_SetItem(d, k, v);
        Py_DECREF(v);
        if (rc < 0) {
            dec_key_error(c, k);
            Py_DECREF(k);
            goto fail;
        }
        Py_DECREF(k);
    }
    if (!d) return PyDict_New(); /* no entries */
    if (guess) dec_dict_learn(guess, d);
    return d;
fail:
    Py_XDECREF(d);
    return NULL;
}

/* The value whose first event is *ev (which may be overwritten). */
static PyObject *DEC(value)(dec_ctx *c, DEC_RT *r, sdx_event *ev) {
    uint8_t tk = ev->tag_kind;
    uint64_t tag = ev->tag;
    PyObject *v;
    switch (ev->kind) {
    case SDX_ARRAY:
        v = DEC(array)(c, r, c->in_key > 0);
        break;
    case SDX_MAP:
        if (c->in_key) {
            sp_decode_error_msg(c->fmt, SDX_ERR_KEY, sdx_source_offset(c->src),
                                "a map cannot be a dict key");
            return NULL;
        }
        v = DEC(map)(c, r, ev->v.count);
        break;
    case SDX_TAG:
        /* one more tag on the item that follows: outermost first */
        if (!DEC_NEXT_COLD(r, ev)) {
            dec_reader_fail(c);
            return NULL;
        }
        v = DEC(value)(c, r, ev);
        break;
    default:
        v = dec_scalar(c, ev);
        break;
    }
    if (tk && v) v = dec_tag(c, tk, tag, v);
    return v;
}

/* The next top-level value: a new reference, or NULL with an exception
 * set, or NULL without one at the end of the input. */
static PyObject *DEC(next_value)(dec_ctx *c, DEC_RT *r) {
    sdx_event ev;
    if (!DEC_NEXT_COLD(r, &ev)) {
        if (sdx_source_error(c->src, NULL) != SDX_OK || c->pending_exc) dec_reader_fail(c);
        return NULL;
    }
    return DEC(value)(c, r, &ev);
}

/* The whole input: exactly one value, or (seq) a list of every value. */
static PyObject *DEC(all)(dec_ctx *c, DEC_RT *r, int seq) {
    if (seq) {
        PyObject *list = PyList_New(0);
        if (!list) return NULL;
        for (;;) {
            PyObject *v = DEC(next_value)(c, r);
            if (!v) {
                if (PyErr_Occurred()) {
                    Py_DECREF(list);
                    return NULL;
                }
                return list;
            }
            int rc = PyList_Append(list, v);
            Py_DECREF(v);
            if (rc < 0) {
                Py_DECREF(list);
                return NULL;
            }
        }
    }
    PyObject *v = DEC(next_value)(c, r);
    if (!v) {
        if (!PyErr_Occurred()) dec_reader_fail(c); /* no value at all */
        return NULL;
    }
    sdx_event ev;
    if (DEC_NEXT_COLD(r, &ev) || sdx_source_error(c->src, NULL) != SDX_OK) {
        /* the reader reports bytes after the value */
        Py_DECREF(v);
        dec_reader_fail(c);
        return NULL;
    }
    return v;
}

#undef DEC
#undef DEC_RT
#undef DEC_NEXT
#undef DEC_NEXT_COLD
