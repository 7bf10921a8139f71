/*
 * One format's writer driven by a walk of Python objects: included by
 * encode.c once per writer with
 *   ENC(name)                the function name for this writer
 *   ENC_WT                   the writer type
 *   W_NULL(w) W_BOOL(w,b) W_INT(w,i) W_UINT(w,u) W_DOUBLE(w,d)
 *   W_STR(w,s,n) W_KEY(w,s,n) W_BIN(w,p,n)
 *   W_BEGIN_ARRAY(w,n) W_BEGIN_MAP(w,n) W_END(w)
 *                            the writer's calls (each returns sdx_err)
 *   ENC_SPECIAL(c,w,o,d,cls) everything else the format has a form for
 *                            (bignums, datetimes, UUIDs, decimals, Tagged)
 *   ENC_KEY(c,w,k,d)         a dict key that is not an exact str
 * Exact types are tested first (dict, str, int, float, list, ...), with
 * no attribute lookup; a container holds a reference to itself while it is
 * walked, so that Python code run on the way (default=, a tzinfo) cannot
 * free it under the walk.
 */

static int ENC(value)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth);

static int ENC(str)(enc_ctx *c, ENC_WT *w, PyObject *o) {
    const char *s;
    Py_ssize_t n;
    if (enc_utf8(o, &s, &n) < 0) return enc_str_error(c, o);
    sdx_err e = W_STR(w, s, (size_t)n);
    return e ? enc_fail(c, e, o) : 0;
}

static int ENC(int)(enc_ctx *c, ENC_WT *w, PyObject *o) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    sdx_err e;
    if (!overflow) {
        e = W_INT(w, v);
    } else {
        if (overflow < 0) return ENC_SPECIAL(c, w, o, 0, CLS_BIGINT);
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            return ENC_SPECIAL(c, w, o, 0, CLS_BIGINT);
        }
        e = W_UINT(w, u);
    }
    return e ? enc_fail(c, e, o) : 0;
}

static int ENC(bytes)(enc_ctx *c, ENC_WT *w, PyObject *o) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    sdx_err e = W_BIN(w, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return e ? enc_fail(c, e, o) : 0;
}

/* The first n elements of a list or tuple (no begin, no end); a list
 * that shrinks on the way (default= may change it) stops early and the
 * caller reports it. */
static int ENC(seq_body)(enc_ctx *c, ENC_WT *w, PyObject *o, Py_ssize_t n, int depth) {
    Py_ssize_t i;
    if (PyList_Check(o)) {
        for (i = 0; i < n && i < PyList_GET_SIZE(o); i++)
            if (ENC(value)(c, w, PyList_GET_ITEM(o, i), depth)) return -1;
    } else {
        for (i = 0; i < n; i++)
            if (ENC(value)(c, w, PyTuple_GET_ITEM(o, i), depth)) return -1;
    }
    return 0;
}

static int ENC(seq)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth) {
    if (depth >= c->max_depth) return enc_depth_error(c);
    Py_ssize_t n = PyList_Check(o) ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
    sdx_err e = W_BEGIN_ARRAY(w, (uint64_t)n);
    if (e) return enc_fail(c, e, o);
    Py_INCREF(o);
    int rc = ENC(seq_body)(c, w, o, n, depth + 1);
    if (!rc && (PyList_Check(o) ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o)) != n) rc = enc_changed(c, o);
    if (!rc && (e = W_END(w)) != SDX_OK) rc = enc_fail(c, e, o);
    Py_DECREF(o);
    return rc;
}

/* One entry: the key, then the value. */
static inline int ENC(entry)(enc_ctx *c, ENC_WT *w, PyObject *k, PyObject *v, int depth) {
    if (PyUnicode_CheckExact(k)) {
        const char *s;
        Py_ssize_t n;
        if (enc_utf8(k, &s, &n) < 0) return enc_str_error(c, k);
        sdx_err e = W_KEY(w, s, (size_t)n);
        if (e) return enc_fail_key(c, e, k);
        return ENC(value)(c, w, v, depth);
    }
    /* other keys may run Python code, which may take the entry out of the
     * dict: hold the key and the value meanwhile */
    Py_INCREF(k);
    Py_INCREF(v);
    int rc = ENC_KEY(c, w, k, depth) ? -1 : ENC(value)(c, w, v, depth);
    Py_DECREF(v);
    Py_DECREF(k);
    return rc;
}

/* The entries of a dict (no begin, no end), in insertion order or with
 * sort_keys sorted by key. Returns the number written, or -1. */
static Py_ssize_t ENC(dict_body)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth) {
    Py_ssize_t count = 0;
    if (c->o->sort_keys) {
        PyObject *keys = PyDict_Keys(o);
        if (!keys) return -1;
        if (PyList_Sort(keys) < 0) {
            Py_DECREF(keys);
            enc_wrap_error(c, "cannot sort the keys of a dict");
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *k = PyList_GET_ITEM(keys, i);
            PyObject *v = PyDict_GetItemWithError(o, k);
            if (!v) {
                Py_DECREF(keys);
                if (!PyErr_Occurred()) enc_changed(c, o);
                return -1;
            }
            Py_INCREF(v);
            int rc = ENC(entry)(c, w, k, v, depth);
            Py_DECREF(v);
            if (rc) {
                Py_DECREF(keys);
                return -1;
            }
            count++;
        }
        Py_DECREF(keys);
        return count;
    }
    Py_ssize_t pos = 0, n = PyDict_GET_SIZE(o);
    PyObject *k, *v;
    while (sp_dict_next(o, &pos, &k, &v)) {
        if (count == n) return enc_changed(c, o); /* it grew on the way */
        if (ENC(entry)(c, w, k, v, depth)) return -1;
        count++;
    }
    return count;
}

static int ENC(dict)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth) {
    if (depth >= c->max_depth) return enc_depth_error(c);
    Py_ssize_t n = PyDict_GET_SIZE(o);
    sdx_err e = W_BEGIN_MAP(w, (uint64_t)n);
    if (e) return enc_fail(c, e, o);
    Py_INCREF(o);
    Py_ssize_t got = ENC(dict_body)(c, w, o, depth + 1);
    int rc = got < 0 ? -1 : (got != n || PyDict_GET_SIZE(o) != n) ? enc_changed(c, o) : 0;
    if (!rc && (e = W_END(w)) != SDX_OK) rc = enc_fail(c, e, o);
    Py_DECREF(o);
    return rc;
}

/* Everything but the exact core types: subclasses, other buffers, the
 * special types, then default=. */
static int ENC(other)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth) {
    int rc;
    Py_INCREF(o);
    if (PyObject_TypeCheck(o, sp.Tagged)) rc = ENC_SPECIAL(c, w, o, depth, CLS_TAGGED);
    else if (PyDict_Check(o)) rc = ENC(dict)(c, w, o, depth);
    else if (PyList_Check(o) || PyTuple_Check(o)) rc = ENC(seq)(c, w, o, depth);
    else if (PyUnicode_Check(o)) rc = ENC(str)(c, w, o);
    else if (PyLong_Check(o)) rc = ENC(int)(c, w, o);
    else if (PyFloat_Check(o)) {
        sdx_err e = W_DOUBLE(w, PyFloat_AS_DOUBLE(o));
        rc = e ? enc_fail(c, e, o) : 0;
    } else if (PyByteArray_Check(o) || PyMemoryView_Check(o)) rc = ENC(bytes)(c, w, o);
    else if (PyDateTime_Check(o)) rc = ENC_SPECIAL(c, w, o, depth, CLS_DATETIME);
    else {
        int k = enc_classify(o);
        if (k < 0) rc = -1;
        else if (k == CLS_ENUM) {
            PyObject *v = PyObject_GetAttr(o, sp.s_value);
            rc = v ? ENC(value)(c, w, v, depth + 1) : -1;
            Py_XDECREF(v);
        } else if (k != CLS_NONE) {
            rc = ENC_SPECIAL(c, w, o, depth, k);
        } else if (c->o->default_fn && depth < c->max_depth) {
            PyObject *v = PyObject_CallOneArg(c->o->default_fn, o);
            rc = v ? ENC(value)(c, w, v, depth + 1) : -1;
            Py_XDECREF(v);
        } else {
            rc = enc_type_error(c, o);
        }
    }
    Py_DECREF(o);
    return rc;
}

static int ENC(value)(enc_ctx *c, ENC_WT *w, PyObject *o, int depth) {
    PyTypeObject *t = Py_TYPE(o);
    sdx_err e;
    if (t == &PyUnicode_Type) return ENC(str)(c, w, o);
    if (t == &PyLong_Type) return ENC(int)(c, w, o);
    if (t == &PyFloat_Type) {
        e = W_DOUBLE(w, PyFloat_AS_DOUBLE(o));
        return e ? enc_fail(c, e, o) : 0;
    }
    if (t == &PyDict_Type) return ENC(dict)(c, w, o, depth);
    if (t == &PyList_Type || t == &PyTuple_Type) return ENC(seq)(c, w, o, depth);
    if (o == Py_None) {
        e = W_NULL(w);
        return e ? enc_fail(c, e, o) : 0;
    }
    if (t == &PyBool_Type) {
        e = W_BOOL(w, o == Py_True);
        return e ? enc_fail(c, e, o) : 0;
    }
    if (t == &PyBytes_Type) {
        e = W_BIN(w, PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o));
        return e ? enc_fail(c, e, o) : 0;
    }
    return ENC(other)(c, w, o, depth);
}

#undef ENC
#undef ENC_WT
#undef W_NULL
#undef W_BOOL
#undef W_INT
#undef W_UINT
#undef W_DOUBLE
#undef W_STR
#undef W_KEY
#undef W_BIN
#undef W_BEGIN_ARRAY
#undef W_BEGIN_MAP
#undef W_END
#undef ENC_SPECIAL
#undef ENC_KEY
