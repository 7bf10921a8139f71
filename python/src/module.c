/*
 * The module sdx._sdx: its functions, the options they take, the error
 * classes and the Tagged type.
 */
#include "sdxpy.h"

#include <datetime.h>

#include <stdarg.h>
#include <structmember.h>

sp_globals sp;

/* ------------------------------------------------------------------------ */
/* Formats                                                                   */
/* ------------------------------------------------------------------------ */

const char *sp_format_title(sp_format f) {
    switch (f) {
    case SDX_FORMAT_JSON: return "JSON";
    case SDX_FORMAT_MSGPACK: return "MessagePack";
    case SDX_FORMAT_CBOR: return "CBOR";
    case SDX_FORMAT_BSON: return "BSON";
    case SDX_FORMAT_UBJSON: return "UBJSON";
    case SDX_FORMAT_BJDATA: return "BJData";
    case SDX_FORMAT_BINN: return "Binn";
    default: return "?";
    }
}

/* A format argument: one of the seven names (or None when allowed, giving
 * SDX_FORMAT_UNKNOWN: detect). */
int sp_format_from_arg(PyObject *arg, sp_format *f, int allow_none) {
    if (arg == NULL || arg == Py_None) {
        if (allow_none) {
            *f = SDX_FORMAT_UNKNOWN;
            return 0;
        }
        PyErr_SetString(PyExc_TypeError, "a format name is required");
        return -1;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "format must be a str, not %.100s", Py_TYPE(arg)->tp_name);
        return -1;
    }
    for (int i = SDX_FORMAT_JSON; i < SDX_FORMAT__COUNT; i++) {
        if (arg == sp.fmt_names[i]) { /* a literal in the caller's code is interned */
            *f = (sp_format)i;
            return 0;
        }
    }
    const char *s = PyUnicode_AsUTF8(arg);
    if (!s) return -1;
    for (int i = SDX_FORMAT_JSON; i < SDX_FORMAT__COUNT; i++) {
        if (strcmp(s, sdx_format_name((sdx_format)i)) == 0) {
            *f = (sp_format)i;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "unknown format %R (json, msgpack, cbor, bson, ubjson, bjdata or binn)", arg);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

const char *sp_err_name(sdx_err code) {
    switch (code) {
    case SDX_OK: return "ok";
    case SDX_ERR_NOMEM: return "nomem";
    case SDX_ERR_IO: return "io";
    case SDX_ERR_OVERFLOW: return "overflow";
    case SDX_ERR_USAGE: return "usage";
    case SDX_ERR_SYNTAX: return "syntax";
    case SDX_ERR_TRUNCATED: return "truncated";
    case SDX_ERR_DEPTH: return "depth";
    case SDX_ERR_UTF8: return "utf8";
    case SDX_ERR_RANGE: return "range";
    case SDX_ERR_UNSUPPORTED: return "unsupported";
    case SDX_ERR_KEY: return "key";
    case SDX_ERR_TYPE: return "type";
    case SDX_ERR_NOT_FOUND: return "not_found";
    case SDX_ERR_LIMIT: return "limit";
    case SDX_ERR_INVALID_ARG: return "invalid_arg";
    default: return "unknown";
    }
}

/* Raise cls(message) with the attributes offset, line, column, code and
 * format; returns NULL. */
static PyObject *raise_with(PyObject *cls, const char *msg, sdx_err code, uint64_t offset,
                            size_t line, size_t column, sp_format f) {
    PyObject *exc = PyObject_CallFunction(cls, "s", msg);
    if (!exc) return NULL;
    PyObject *o = PyLong_FromUnsignedLongLong(offset);
    PyObject *l = line ? PyLong_FromSize_t(line) : Py_NewRef(Py_None);
    PyObject *c = line ? PyLong_FromSize_t(column) : Py_NewRef(Py_None);
    PyObject *k = PyUnicode_FromString(sp_err_name(code));
    PyObject *fm = f != SDX_FORMAT_UNKNOWN ? PyUnicode_FromString(sdx_format_name(f)) : Py_NewRef(Py_None);
    if (o && l && c && k && fm && PyObject_SetAttrString(exc, "offset", o) == 0 &&
        PyObject_SetAttrString(exc, "line", l) == 0 && PyObject_SetAttrString(exc, "column", c) == 0 &&
        PyObject_SetAttrString(exc, "code", k) == 0 && PyObject_SetAttrString(exc, "format", fm) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(o);
    Py_XDECREF(l);
    Py_XDECREF(c);
    Py_XDECREF(k);
    Py_XDECREF(fm);
    Py_DECREF(exc);
    return NULL;
}

PyObject *sp_decode_error(sp_format f, const sdx_error *e) {
    if (e->code == SDX_ERR_NOMEM) return PyErr_NoMemory();
    char msg[400];
    const char *what = e->msg ? e->msg : sdx_strerror(e->code);
    if (e->line)
        snprintf(msg, sizeof msg, "%s: %s at line %zu column %zu (byte %zu)", sp_format_title(f), what, e->line,
                 e->column, e->offset);
    else
        snprintf(msg, sizeof msg, "%s: %s at byte %zu", sp_format_title(f), what, e->offset);
    return raise_with(sp.DecodeError, msg, e->code, e->offset, e->line, e->column, f);
}

/* Messages are formatted as PyUnicode_FromFormat formats them (%R, %S). */
PyObject *sp_decode_error_msg(sp_format f, sdx_err code, uint64_t offset, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *what = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!what) return NULL;
    PyObject *msg = PyUnicode_FromFormat("%s: %U at byte %llu", sp_format_title(f), what, (unsigned long long)offset);
    Py_DECREF(what);
    if (!msg) return NULL;
    const char *m = PyUnicode_AsUTF8(msg);
    if (m) raise_with(sp.DecodeError, m, code, offset, 0, 0, f);
    Py_DECREF(msg);
    return NULL;
}

PyObject *sp_encode_error(sdx_err code, uint64_t offset, const char *fmt, ...) {
    if (code == SDX_ERR_NOMEM) return PyErr_NoMemory();
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg) return NULL;
    const char *m = PyUnicode_AsUTF8(msg);
    if (m) raise_with(sp.EncodeError, m, code, offset, 0, 0, SDX_FORMAT_UNKNOWN);
    Py_DECREF(msg);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Tagged                                                                    */
/* ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    int kind;
} tag_kinds[] = {
    {"msgpack", SP_TAG_MSGPACK}, {"cbor", SP_TAG_CBOR}, {"simple", SP_TAG_SIMPLE},
    {"bson", SP_TAG_BSON},       {"binn", SP_TAG_BINN},
};

const char *sp_tag_kind_name(int kind) {
    for (size_t i = 0; i < sizeof tag_kinds / sizeof tag_kinds[0]; i++)
        if (tag_kinds[i].kind == kind) return tag_kinds[i].name;
    return "?";
}

PyObject *sp_tagged_new(int kind, PyObject *tag, PyObject *value) {
    if (!value) return NULL;
    sp_tagged *t = PyObject_GC_New(sp_tagged, sp.Tagged);
    if (!t) {
        Py_DECREF(value);
        return NULL;
    }
    t->kind = kind;
    t->tag = Py_NewRef(tag);
    t->value = value;
    t->hash = -1;
    PyObject_GC_Track(t);
    return (PyObject *)t;
}

PyObject *sp_tagged_new_u64(int kind, uint64_t tag, PyObject *value) {
    if (!value) return NULL;
    PyObject *t = kind == SP_TAG_MSGPACK ? PyLong_FromLong((int8_t)(uint8_t)tag) : PyLong_FromUnsignedLongLong(tag);
    if (!t) {
        Py_DECREF(value);
        return NULL;
    }
    PyObject *r = sp_tagged_new(kind, t, value);
    Py_DECREF(t);
    return r;
}

/* Tagged(kind, tag, value=None): kind one of "msgpack" (ext type
 * -128..127, value bytes), "cbor" (tag number >= 0), "simple" (CBOR simple
 * value), "bson" (element type, binary subtype << 8 | 5), "binn" (type). */
static PyObject *tagged_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kw[] = {"kind", "tag", "value", NULL};
    const char *kind;
    PyObject *tag, *value = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO!|O:Tagged", kw, &kind, &PyLong_Type, &tag, &value))
        return NULL;
    int k = -1;
    for (size_t i = 0; i < sizeof tag_kinds / sizeof tag_kinds[0]; i++)
        if (strcmp(kind, tag_kinds[i].name) == 0) k = tag_kinds[i].kind;
    if (k < 0) {
        PyErr_Format(PyExc_ValueError, "unknown Tagged kind '%s' (msgpack, cbor, simple, bson or binn)", kind);
        return NULL;
    }
    int overflow;
    long long t = PyLong_AsLongLongAndOverflow(tag, &overflow);
    if (t == -1 && PyErr_Occurred()) return NULL;
    int ok = overflow == 0;
    if (k == SP_TAG_MSGPACK) ok = ok && t >= -128 && t <= 127;
    else if (k == SP_TAG_CBOR) {
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(tag);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) PyErr_Clear();
            else ok = 1;
        } else
            ok = ok && t >= 0;
    } else if (k == SP_TAG_SIMPLE)
        ok = ok && t >= 0 && t <= 255 && !(t >= 20 && t <= 22) && !(t >= 24 && t <= 31);
    else
        ok = ok && t >= 0 && t <= 0xffff;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "tag %R is out of range for a Tagged of kind '%s'", tag, kind);
        return NULL;
    }
    sp_tagged *self = (sp_tagged *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->kind = k;
    self->tag = Py_NewRef(tag);
    self->value = Py_NewRef(value);
    self->hash = -1;
    return (PyObject *)self;
}

static int tagged_traverse(sp_tagged *self, visitproc visit, void *arg) {
    Py_VISIT(self->tag);
    Py_VISIT(self->value);
    return 0;
}

static int tagged_clear(sp_tagged *self) {
    Py_CLEAR(self->tag);
    Py_CLEAR(self->value);
    return 0;
}

static void tagged_dealloc(sp_tagged *self) {
    PyObject_GC_UnTrack(self);
    tagged_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *tagged_repr(sp_tagged *self) {
    return PyUnicode_FromFormat("Tagged('%s', %R, %R)", sp_tag_kind_name(self->kind), self->tag, self->value);
}

static PyObject *tagged_richcompare(PyObject *a, PyObject *b, int op) {
    if (!PyObject_TypeCheck(b, sp.Tagged) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
    sp_tagged *x = (sp_tagged *)a, *y = (sp_tagged *)b;
    int eq = x->kind == y->kind;
    if (eq) {
        eq = PyObject_RichCompareBool(x->tag, y->tag, Py_EQ);
        if (eq < 0) return NULL;
    }
    if (eq) {
        eq = PyObject_RichCompareBool(x->value, y->value, Py_EQ);
        if (eq < 0) return NULL;
    }
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t tagged_hash(sp_tagged *self) {
    if (self->hash != -1) return self->hash;
    Py_hash_t a = PyObject_Hash(self->tag);
    if (a == -1) return -1;
    Py_hash_t b = PyObject_Hash(self->value);
    if (b == -1) return -1;
    Py_hash_t h = (Py_hash_t)((Py_uhash_t)self->kind * 1000003u ^ (Py_uhash_t)a * 31u ^ (Py_uhash_t)b);
    if (h == -1) h = -2;
    self->hash = h;
    return h;
}

static PyObject *tagged_get_kind(sp_tagged *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(sp_tag_kind_name(self->kind));
}

static PyObject *tagged_reduce(sp_tagged *self, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("O(sOO)", Py_TYPE(self), sp_tag_kind_name(self->kind), self->tag, self->value);
}

static PyMemberDef tagged_members[] = {
    {"tag", T_OBJECT_EX, offsetof(sp_tagged, tag), READONLY, "the tag: ext type, tag number, BSON type, ..."},
    {"value", T_OBJECT_EX, offsetof(sp_tagged, value), READONLY, "the tagged content"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef tagged_getset[] = {
    {"kind", (getter)tagged_get_kind, NULL, "'msgpack', 'cbor', 'simple', 'bson' or 'binn'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef tagged_methods[] = {
    {"__reduce__", (PyCFunction)tagged_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject tagged_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sdx.Tagged",
    .tp_basicsize = sizeof(sp_tagged),
    .tp_dealloc = (destructor)tagged_dealloc,
    .tp_repr = (reprfunc)tagged_repr,
    .tp_hash = (hashfunc)tagged_hash,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Tagged(kind, tag, value=None): a value with a format's tag that Python has no type for\n"
              "(a MessagePack ext value, a CBOR tag or simple value, a BSON ObjectId, regex, ...,\n"
              "a Binn user type). Written back as it was read.",
    .tp_traverse = (traverseproc)tagged_traverse,
    .tp_clear = (inquiry)tagged_clear,
    .tp_richcompare = tagged_richcompare,
    .tp_methods = tagged_methods,
    .tp_members = tagged_members,
    .tp_getset = tagged_getset,
    .tp_new = tagged_tp_new,
};

int sp_tagged_init_type(PyObject *module) {
    if (PyType_Ready(&tagged_type) < 0) return -1;
    sp.Tagged = &tagged_type;
    Py_INCREF(&tagged_type);
    if (PyModule_AddObject(module, "Tagged", (PyObject *)&tagged_type) < 0) {
        Py_DECREF(&tagged_type);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

/* Whether `v` is the string `s`. */
static int str_is(PyObject *v, const char *s) {
    if (!PyUnicode_Check(v)) return 0;
    const char *t = PyUnicode_AsUTF8(v);
    return t && strcmp(t, s) == 0;
}

static void opts_init(sp_opts *o) {
    memset(o, 0, sizeof *o);
    o->indent = -1;
}

/* One keyword option k=v; `allowed` names the ones the function takes
 * (space-separated, with spaces around). Returns -1 with TypeError or
 * ValueError set. */
static int parse_opt(PyObject *k, PyObject *v, const char *allowed, sp_opts *o) {
    {
        const char *name = PyUnicode_AsUTF8(k);
        if (!name) return -1;
        char pat[64];
        snprintf(pat, sizeof pat, " %s ", name);
        if (strlen(name) > 40 || !strstr(allowed, pat)) {
            PyErr_Format(PyExc_TypeError, "unexpected keyword argument '%s'", name);
            return -1;
        }
        int bad = 0;
        if (strcmp(name, "default") == 0) {
            if (v != Py_None && !PyCallable_Check(v)) {
                PyErr_SetString(PyExc_TypeError, "default must be callable");
                return -1;
            }
            o->default_fn = v == Py_None ? NULL : v;
        } else if (strcmp(name, "indent") == 0) {
            if (v == Py_None) o->indent = -1;
            else {
                long n = PyLong_Check(v) ? PyLong_AsLong(v) : -2;
                if (n < 0 || n > 16) {
                    PyErr_Clear();
                    PyErr_SetString(PyExc_ValueError, "indent must be None or an int from 0 to 16");
                    return -1;
                }
                o->indent = (int)n;
            }
        } else if (strcmp(name, "max_depth") == 0) {
            long n = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
            /* the decoder recurses once per level: 10000 levels stay well
             * inside a thread's default stack */
            if (n < 1 || n > 10000) {
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError, "max_depth must be an int from 1 to 10000");
                return -1;
            }
            o->max_depth = (uint32_t)n;
        } else if (strcmp(name, "nan") == 0) {
            if (str_is(v, "null")) o->nan_null = 1;
            else if (!str_is(v, "error")) bad = 1;
        } else if (strcmp(name, "bin") == 0) {
            if (str_is(v, "base64")) o->bin_base64 = 1;
            else if (!str_is(v, "error")) bad = 1;
        } else if (strcmp(name, "tags") == 0) {
            if (str_is(v, "error")) o->tags = 0;
            else if (str_is(v, "drop")) o->tags = 1;
            else if (str_is(v, "wrap")) o->tags = 2;
            else bad = 1;
        } else if (strcmp(name, "utf8") == 0) {
            if (str_is(v, "replace")) o->utf8_replace = 1;
            else if (!str_is(v, "strict")) bad = 1;
        } else if (strcmp(name, "root") == 0) {
            if (str_is(v, "wrap")) o->root_wrap = 1;
            else if (!str_is(v, "error")) bad = 1;
        } else if (strcmp(name, "keys") == 0) {
            if (str_is(v, "stringify")) o->non_str_keys = 1;
            else if (!str_is(v, "error")) bad = 1;
        } else {
            int b = PyObject_IsTrue(v);
            if (b < 0) return -1;
            if (strcmp(name, "seq") == 0) o->seq = b;
            else if (strcmp(name, "allow_nan") == 0) o->allow_nan = b;
            else if (strcmp(name, "comments") == 0) o->comments = b;
            else if (strcmp(name, "trailing_commas") == 0) o->trailing_commas = b;
            else if (strcmp(name, "sort_keys") == 0) o->sort_keys = b;
            else if (strcmp(name, "non_str_keys") == 0) o->non_str_keys = b;
        }
        if (bad) {
            PyErr_Format(PyExc_ValueError, "invalid value %R for option '%s'", v, name);
            return -1;
        }
    }
    return 0;
}

/* Keyword options from a dict (NULL: none). */
static int parse_opts(PyObject *kwargs, const char *allowed, sp_opts *o) {
    opts_init(o);
    if (!kwargs) return 0;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v))
        if (parse_opt(k, v, allowed, o) < 0) return -1;
    return 0;
}

/* Keyword options of a vectorcall (kwnames NULL: none); "fmt" goes to
 * *fmt (an error if it was given positionally too). */
static int parse_fast_opts(PyObject *kwnames, PyObject *const *values, const char *allowed, sp_opts *o,
                           PyObject **fmt) {
    opts_init(o);
    if (!kwnames) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (PyUnicode_CompareWithASCIIString(k, "fmt") == 0) {
            if (*fmt) {
                PyErr_SetString(PyExc_TypeError, "fmt given twice");
                return -1;
            }
            *fmt = values[i];
            continue;
        }
        if (parse_opt(k, values[i], allowed, o) < 0) return -1;
    }
    return 0;
}

#define DUMPS_OPTS " default sort_keys indent non_str_keys keys nan bin tags root "
#define LOADS_OPTS " seq utf8 allow_nan comments trailing_commas max_depth "
#define ITER_OPTS " utf8 allow_nan comments trailing_commas max_depth "

/* ------------------------------------------------------------------------ */
/* Functions                                                                 */
/* ------------------------------------------------------------------------ */

static PyObject *mod_dumps(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)self;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "dumps(obj, fmt='json', **options) takes 1 or 2 positional arguments");
        return NULL;
    }
    PyObject *fmt = nargs > 1 ? args[1] : NULL;
    sp_format f = SDX_FORMAT_JSON;
    sp_opts o;
    if (parse_fast_opts(kwnames, args + nargs, DUMPS_OPTS, &o, &fmt) < 0) return NULL;
    if (fmt && sp_format_from_arg(fmt, &f, 0) < 0) return NULL;
    return sp_dumps(args[0], f, &o);
}

/* The bytes of a loads/convert argument: bytes, bytearray, memoryview (any
 * C-contiguous buffer), or str (its UTF-8). */
int sp_input_get(PyObject *obj, sp_input *in) {
    in->has_view = 0;
    if (PyBytes_CheckExact(obj)) {
        in->data = PyBytes_AS_STRING(obj);
        in->len = PyBytes_GET_SIZE(obj);
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        in->data = PyUnicode_AsUTF8AndSize(obj, &in->len);
        return in->data ? 0 : -1;
    }
    if (PyObject_GetBuffer(obj, &in->view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Format(PyExc_TypeError, "expected bytes, bytearray, memoryview or str, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    in->has_view = 1;
    in->data = in->view.buf;
    in->len = in->view.len;
    return 0;
}

void sp_input_release(sp_input *in) {
    if (in->has_view) PyBuffer_Release(&in->view);
}

static PyObject *mod_loads(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)self;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "loads(data, fmt=None, **options) takes 1 or 2 positional arguments");
        return NULL;
    }
    PyObject *fmt = nargs > 1 ? args[1] : NULL;
    sp_format f;
    sp_opts o;
    sp_input in;
    if (parse_fast_opts(kwnames, args + nargs, LOADS_OPTS, &o, &fmt) < 0 || sp_format_from_arg(fmt, &f, 1) < 0 ||
        sp_input_get(args[0], &in) < 0)
        return NULL;
    PyObject *r = NULL;
    if (f == SDX_FORMAT_UNKNOWN) {
        uint32_t flags = (o.seq ? SDX_DETECT_SEQUENCE : 0) | (o.utf8_replace ? SDX_DETECT_NO_UTF8_CHECK : 0);
        if (sdx_detect_format(in.data, (size_t)in.len, (uint64_t)in.len, flags, &f, NULL) != SDX_OK) PyErr_NoMemory();
    }
    if (f != SDX_FORMAT_UNKNOWN) r = sp_loads(f, in.data, (size_t)in.len, &o);
    sp_input_release(&in);
    return r;
}

static PyObject *mod_iter_load(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *fp, *fmt = NULL;
    if (!PyArg_ParseTuple(args, "O|O:iter_load", &fp, &fmt)) return NULL;
    PyObject *kw = NULL;
    if (kwargs && (kw = PyDict_Copy(kwargs)) == NULL) return NULL;
    Py_ssize_t chunk = 65536;
    PyObject *r = NULL;
    if (kw) {
        if (!fmt) fmt = PyDict_GetItemString(kw, "fmt");
        PyObject *c = PyDict_GetItemString(kw, "chunk_size");
        if (c) {
            chunk = PyLong_AsSsize_t(c);
            if (chunk == -1 && PyErr_Occurred()) goto done;
            if (chunk < 1 || chunk > ((Py_ssize_t)1 << 30)) {
                PyErr_SetString(PyExc_ValueError, "chunk_size must be from 1 to 2**30");
                goto done;
            }
        }
        if (PyDict_GetItemString(kw, "fmt")) PyDict_DelItemString(kw, "fmt");
        if (c) PyDict_DelItemString(kw, "chunk_size");
    }
    Py_XINCREF(fmt);
    sp_format f;
    sp_opts o;
    if (sp_format_from_arg(fmt, &f, 1) == 0 && parse_opts(kw, ITER_OPTS, &o) == 0) r = sp_iter_new(fp, f, chunk, &o);
    Py_XDECREF(fmt);
done:
    Py_XDECREF(kw);
    return r;
}

static PyObject *mod_detect(PyObject *self, PyObject *arg) {
    (void)self;
    sp_input in;
    if (sp_input_get(arg, &in) < 0) return NULL;
    sdx_format f;
    sdx_err e = sdx_detect_format(in.data, (size_t)in.len, (uint64_t)in.len, 0, &f, NULL);
    sp_input_release(&in);
    if (e) return PyErr_NoMemory();
    return PyUnicode_FromString(sdx_format_name(f));
}

static PyObject *mod_simd(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyUnicode_FromString(sdx_simd_name());
}

/* A switch for the tests: *flag set from flag's truth; its old value. */
static PyObject *swap_flag(int *flag, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    int old = *flag;
    *flag = on;
    return PyBool_FromLong(old);
}

/* _direct(flag): for the tests, which compare dumps' direct paths with the
 * writers'. */
static PyObject *mod_direct(PyObject *self, PyObject *flag) {
    (void)self;
    return swap_flag(&sp_direct_paths, flag);
}

/* _padded(flag): for the tests, which compare loads of small inputs from
 * a padded copy with loads of the input itself. */
static PyObject *mod_padded(PyObject *self, PyObject *flag) {
    (void)self;
    return swap_flag(&sp_padded_loads, flag);
}

/* _dict_direct(flag): for the tests, which compare sp_dict_next's reading
 * of the entries with PyDict_Next's. None asks without changing it; True
 * turns it on only where the check at import passed. */
static PyObject *mod_dict_direct(PyObject *self, PyObject *flag) {
    (void)self;
    int old = sp_dict_direct;
    if (flag != Py_None) {
        int on = PyObject_IsTrue(flag);
        if (on < 0) return NULL;
        if (!on) sp_dict_direct = 0;
        else if (sp_dict_check() < 0) return NULL;
    }
    return PyBool_FromLong(old);
}

static PyMethodDef methods[] = {
    {"dumps", (PyCFunction)(void (*)(void))mod_dumps, METH_FASTCALL | METH_KEYWORDS,
     "dumps(obj, fmt='json', **options) -> bytes"},
    {"loads", (PyCFunction)(void (*)(void))mod_loads, METH_FASTCALL | METH_KEYWORDS,
     "loads(data, fmt=None, **options) -> object"},
    {"iter_load", (PyCFunction)(void (*)(void))mod_iter_load, METH_VARARGS | METH_KEYWORDS,
     "iter_load(fp, fmt=None, chunk_size=65536, **options) -> iterator"},
    {"convert", (PyCFunction)(void (*)(void))sp_convert, METH_VARARGS | METH_KEYWORDS,
     "convert(data, src, dst, **mapping) -> bytes"},
    {"detect", mod_detect, METH_O, "detect(data) -> str: the format of data"},
    {"simd", mod_simd, METH_NOARGS, "simd() -> str: the SIMD kernels in use"},
    {"_direct", mod_direct, METH_O,
     "_direct(flag) -> bool: dumps' direct JSON and MessagePack paths on or off (for the tests); the old value"},
    {"_padded", mod_padded, METH_O,
     "_padded(flag) -> bool: loads of small inputs from a padded copy on or off (for the tests); the old value"},
    {"_dict_direct", mod_dict_direct, METH_O,
     "_dict_direct(flag) -> bool: dicts' entries read in place (CPython 3.11, 3.12) or through PyDict_Next "
     "(for the tests; None only asks); the old value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "sdx._sdx", NULL, -1, methods,
                                       NULL, NULL, NULL, NULL};

static PyObject *import_attr(const char *module, const char *name) {
    PyObject *m = PyImport_ImportModule(module);
    if (!m) return NULL;
    PyObject *a = PyObject_GetAttrString(m, name);
    Py_DECREF(m);
    return a;
}

PyMODINIT_FUNC PyInit__sdx(void) {
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI || sp_decode_init() < 0 || sp_encode_init() < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    sp.DecodeError = PyErr_NewExceptionWithDoc(
        "sdx.DecodeError", "Input that is not valid in its format: .offset (bytes), .line and .column (JSON), .code",
        PyExc_ValueError, NULL);
    sp.EncodeError = PyErr_NewExceptionWithDoc(
        "sdx.EncodeError", "A value that the target format cannot represent: .code, .offset", PyExc_ValueError, NULL);
    if (!sp.DecodeError || !sp.EncodeError) goto fail;
    Py_INCREF(sp.DecodeError);
    Py_INCREF(sp.EncodeError);
    if (PyModule_AddObject(m, "DecodeError", sp.DecodeError) < 0 ||
        PyModule_AddObject(m, "EncodeError", sp.EncodeError) < 0)
        goto fail;
    if (sp_tagged_init_type(m) < 0 || PyType_Ready(&sp_iter_type) < 0) goto fail;
    sp.UUID = import_attr("uuid", "UUID");
    sp.Decimal = import_attr("decimal", "Decimal");
    sp.Enum = import_attr("enum", "Enum");
    sp.utc = import_attr("datetime", "timezone");
    if (!sp.UUID || !sp.Decimal || !sp.Enum || !sp.utc) goto fail;
    {
        PyObject *tz = sp.utc;
        sp.utc = PyObject_GetAttrString(tz, "utc");
        Py_DECREF(tz);
        if (!sp.utc) goto fail;
    }
#define INTERN(field, text) \
    if (!(sp.field = PyUnicode_InternFromString(text))) goto fail;
    INTERN(s_bytes, "bytes")
    INTERN(s_value, "value")
    INTERN(s_int, "int")
    INTERN(s_read, "read")
    INTERN(s_write, "write")
    INTERN(s_isoformat, "isoformat")
    INTERN(s_as_tuple, "as_tuple")
    INTERN(s_utcoffset, "utcoffset")
    INTERN(s_fromisoformat, "fromisoformat")
    INTERN(s_to_bytes, "to_bytes")
    INTERN(s_from_bytes, "from_bytes")
    INTERN(s_big, "big")
#undef INTERN
    for (int i = SDX_FORMAT_JSON; i < SDX_FORMAT__COUNT; i++)
        if (!(sp.fmt_names[i] = PyUnicode_InternFromString(sdx_format_name((sdx_format)i)))) goto fail;
    if (PyModule_AddStringConstant(m, "__version__", SDX_VERSION_STRING) < 0) goto fail;
    {
        PyObject *fmts = Py_BuildValue("(sssssss)", "json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn");
        if (!fmts || PyModule_AddObject(m, "FORMATS", fmts) < 0) {
            Py_XDECREF(fmts);
            goto fail;
        }
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
