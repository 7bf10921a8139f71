/*
 * Encoding: Python objects walked straight into a format's writer
 * (enc_tmpl.h, once per writer) into one output buffer, then one bytes
 * object; the forms each format gives to big integers, datetimes, UUIDs,
 * decimals and Tagged values; sdx.dumps.
 */
#include "sdxpy.h"

#include <datetime.h>

#include <math.h>

/* the library's private headers, for the direct JSON path */
#include "json/escape.h"
#include "num/num.h"
#include "simd/simd.h"

/* What a value is, beyond the core types. */
enum { CLS_NONE, CLS_BIGINT, CLS_DATETIME, CLS_UUID, CLS_DECIMAL, CLS_TAGGED, CLS_ENUM };

typedef struct enc_ctx {
    sp_format fmt;
    const sp_opts *o;
    sdx_buf *out;
    int max_depth;
    /* the event sink (JSON's Tagged values through the mapping layer): a
     * tag for the next item */
    int has_tag;
    uint8_t tag_kind;
    uint64_t tag;
    PyObject *tagged; /* the Tagged being written through the mapping layer */
} enc_ctx;

#define ENC_MAX_DEPTH 1024

/* The direct paths of JSON and MessagePack (jd_dumps, md_dumps) on or off:
 * the tests compare them with the writers' (sdx._sdx._direct). */
int sp_direct_paths = 1;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static inline int enc_utf8(PyObject *o, const char **s, Py_ssize_t *n) {
    if (PyUnicode_IS_COMPACT_ASCII(o)) {
        *s = (const char *)PyUnicode_DATA(o);
        *n = PyUnicode_GET_LENGTH(o);
        return 0;
    }
    *s = PyUnicode_AsUTF8AndSize(o, n);
    return *s ? 0 : -1;
}

static uint64_t enc_offset(const enc_ctx *c) { return sdx_buf_total(c->out); }

static int enc_str_error(enc_ctx *c, PyObject *o) {
    (void)o;
    if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
        PyErr_Clear();
        sp_encode_error(SDX_ERR_UTF8, enc_offset(c), "a str with a lone surrogate cannot be written as %s (UTF-8)",
                        sp_format_title(c->fmt));
    }
    return -1;
}

static int enc_depth_error(enc_ctx *c) {
    sp_encode_error(SDX_ERR_DEPTH, enc_offset(c), "nesting deeper than %d levels (a circular reference?)",
                    c->max_depth);
    return -1;
}

static int enc_changed(enc_ctx *c, PyObject *o) {
    if (!PyErr_Occurred())
        sp_encode_error(SDX_ERR_USAGE, enc_offset(c), "a %.50s changed size while it was written",
                        Py_TYPE(o)->tp_name);
    return -1;
}

static int enc_wrap_error(enc_ctx *c, const char *what) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    sp_encode_error(SDX_ERR_INVALID_ARG, enc_offset(c), "%s: %S", what, value ? value : Py_None);
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    if (v2 && value) PyException_SetCause(v2, Py_NewRef(value));
    PyErr_Restore(t2, v2, tb2);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
}

static int enc_type_error(enc_ctx *c, PyObject *o) {
    sp_encode_error(SDX_ERR_UNSUPPORTED, enc_offset(c),
                    "a value of type %.100s cannot be written as %s (default= may convert it)", Py_TYPE(o)->tp_name,
                    sp_format_title(c->fmt));
    return -1;
}

/* A writer's error on object o, as an EncodeError that says what and how
 * to allow it. */
static int tagged_unsupported(enc_ctx *c, PyObject *o);

static int enc_fail(enc_ctx *c, sdx_err e, PyObject *o) {
    if (PyErr_Occurred()) return -1;
    if (c->tagged && e == SDX_ERR_UNSUPPORTED) return tagged_unsupported(c, c->tagged);
    if (c->tagged && e == SDX_ERR_UTF8)
        return sp_encode_error(e, enc_offset(c), "%R holds text that is not UTF-8", c->tagged), -1;
    const char *fmt = sp_format_title(c->fmt);
    const char *type = Py_TYPE(o)->tp_name;
    uint64_t at = enc_offset(c);
    if (e == SDX_ERR_RANGE && PyFloat_Check(o)) {
        double d = PyFloat_AS_DOUBLE(o);
        sp_encode_error(e, at, "%s cannot be written as %s (nan='null' writes null)",
                        isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity", fmt);
    } else if (e == SDX_ERR_RANGE && PyLong_Check(o)) {
        sp_encode_error(e, at, "the integer %S is out of range for %s", o, fmt);
    } else if (e == SDX_ERR_UNSUPPORTED && c->fmt == SDX_FORMAT_JSON &&
               (PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o))) {
        sp_encode_error(e, at, "%s cannot be written as JSON (bin='base64' writes a base64 string)", type);
    } else if (e == SDX_ERR_UNSUPPORTED && c->fmt == SDX_FORMAT_BSON && c->out && sdx_buf_total(c->out) == 0) {
        sp_encode_error(e, at, "a %s cannot be the root of a BSON document, which must be a dict (root='wrap' "
                               "writes it as {'0': value} or a list as {'0': ..., '1': ...})", type);
    } else if (e == SDX_ERR_USAGE) {
        sp_encode_error(e, at, "a %s cannot be written here in %s", type, fmt);
    } else {
        sp_encode_error(e, at, "a %s cannot be written as %s: %s", type, fmt, sdx_strerror(e));
    }
    return -1;
}

static int enc_fail_key(enc_ctx *c, sdx_err e, PyObject *k) {
    if (PyErr_Occurred()) return -1;
    if (e == SDX_ERR_KEY || e == SDX_ERR_USAGE)
        sp_encode_error(SDX_ERR_KEY, enc_offset(c), "the dict key %R cannot be written as a %s key", k,
                        sp_format_title(c->fmt));
    else
        enc_fail(c, e, k);
    return -1;
}

static int enc_key_type_error(enc_ctx *c, PyObject *k) {
    sp_encode_error(SDX_ERR_KEY, enc_offset(c),
                    "dict keys must be str in %s, not %.100s (non_str_keys=True writes ints, floats, bools, None, "
                    "datetimes, UUIDs, decimals and enums as their text)",
                    sp_format_title(c->fmt), Py_TYPE(k)->tp_name);
    return -1;
}

static int enc_classify(PyObject *o) {
    if (PyObject_TypeCheck(o, (PyTypeObject *)sp.UUID)) return CLS_UUID;
    if (PyObject_TypeCheck(o, (PyTypeObject *)sp.Decimal)) return CLS_DECIMAL;
    if (PyObject_TypeCheck(o, (PyTypeObject *)sp.Enum)) return CLS_ENUM;
    return CLS_NONE;
}

/* ------------------------------------------------------------------------ */
/* Datetimes, UUIDs, decimals, big integers                                  */
/* ------------------------------------------------------------------------ */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* The UTC offset of a datetime in microseconds (0 for a naive one, taken
 * as UTC); -1 with an exception set. *aware tells whether it has one. */
static int dt_offset(PyObject *o, int64_t *offset_us, int *aware) {
    PyObject *tz = PyDateTime_DATE_GET_TZINFO(o);
    *offset_us = 0;
    *aware = tz != Py_None;
    if (tz == Py_None || tz == sp.utc) return 0;
    PyObject *td = PyObject_CallMethodOneArg(tz, sp.s_utcoffset, o);
    if (!td) return -1;
    if (td == Py_None) {
        *aware = 0;
    } else if (PyDelta_Check(td)) {
        *offset_us = ((int64_t)PyDateTime_DELTA_GET_DAYS(td) * 86400 + PyDateTime_DELTA_GET_SECONDS(td)) * 1000000 +
                     PyDateTime_DELTA_GET_MICROSECONDS(td);
    }
    Py_DECREF(td);
    return 0;
}

/* Seconds and microseconds since the epoch (UTC) of a datetime. */
static int dt_epoch(PyObject *o, int64_t *sec, int64_t *usec) {
    int64_t off;
    int aware;
    if (dt_offset(o, &off, &aware) < 0) return -1;
    int64_t days = days_from_civil(PyDateTime_GET_YEAR(o), (unsigned)PyDateTime_GET_MONTH(o),
                                   (unsigned)PyDateTime_GET_DAY(o));
    int64_t us = (days * 86400 + PyDateTime_DATE_GET_HOUR(o) * 3600 + PyDateTime_DATE_GET_MINUTE(o) * 60 +
                  PyDateTime_DATE_GET_SECOND(o)) * 1000000 + PyDateTime_DATE_GET_MICROSECOND(o) - off;
    *sec = us / 1000000;
    *usec = us % 1000000;
    if (*usec < 0) {
        *usec += 1000000;
        (*sec)--;
    }
    return 0;
}

/* The datetime's text as datetime.isoformat() writes it (RFC 3339 for an
 * aware one): YYYY-MM-DDTHH:MM:SS[.ffffff][+HH:MM[:SS[.ffffff]]]. */
static PyObject *dt_iso(PyObject *o) {
    int64_t off;
    int aware;
    if (dt_offset(o, &off, &aware) < 0) return NULL;
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", PyDateTime_GET_YEAR(o),
                     PyDateTime_GET_MONTH(o), PyDateTime_GET_DAY(o), PyDateTime_DATE_GET_HOUR(o),
                     PyDateTime_DATE_GET_MINUTE(o), PyDateTime_DATE_GET_SECOND(o));
    if (PyDateTime_DATE_GET_MICROSECOND(o))
        n += snprintf(buf + n, sizeof buf - (size_t)n, ".%06d", PyDateTime_DATE_GET_MICROSECOND(o));
    if (aware) {
        char sign = off < 0 ? '-' : '+';
        int64_t a = off < 0 ? -off : off;
        int64_t s = a / 1000000, u = a % 1000000;
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%c%02d:%02d", sign, (int)(s / 3600), (int)(s / 60 % 60));
        if (s % 60 || u) n += snprintf(buf + n, sizeof buf - (size_t)n, ":%02d", (int)(s % 60));
        if (u) n += snprintf(buf + n, sizeof buf - (size_t)n, ".%06d", (int)u);
    }
    return PyUnicode_FromStringAndSize(buf, n);
}

/* The 16 bytes of a UUID (its `bytes`). */
static PyObject *uuid_bytes(PyObject *o) {
    PyObject *b = PyObject_GetAttr(o, sp.s_bytes);
    if (b && (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) != 16)) {
        Py_DECREF(b);
        PyErr_SetString(PyExc_TypeError, "a UUID whose bytes are not 16 bytes");
        return NULL;
    }
    return b;
}

/* Its canonical text, 8-4-4-4-12 lower-case hex digits, into buf[37]. */
static int uuid_text(PyObject *o, char *buf) {
    PyObject *b = uuid_bytes(o);
    if (!b) return -1;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
    static const char hex[] = "0123456789abcdef";
    int n = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) buf[n++] = '-';
        buf[n++] = hex[p[i] >> 4];
        buf[n++] = hex[p[i] & 15];
    }
    buf[n] = 0;
    Py_DECREF(b);
    return 0;
}

/* A Decimal's text (str()), and whether it is finite. */
static PyObject *dec_text(PyObject *o, int *finite) {
    PyObject *t = PyObject_Str(o);
    if (!t) return NULL;
    const char *s = PyUnicode_AsUTF8(t);
    if (!s) {
        Py_DECREF(t);
        return NULL;
    }
    *finite = strpbrk(s, "NnIi") == NULL;
    return t;
}

/* A key's text for non_str_keys: JSON's words for True, False and None,
 * else str() of ints, floats, UUIDs, decimals, datetimes (isoformat) and
 * enums (of their value). NULL with EncodeError for other types. */
static PyObject *key_text(enc_ctx *c, PyObject *k) {
    if (k == Py_True) return PyUnicode_FromString("true");
    if (k == Py_False) return PyUnicode_FromString("false");
    if (k == Py_None) return PyUnicode_FromString("null");
    if (PyUnicode_Check(k)) return Py_NewRef(k);
    if (PyLong_Check(k) || PyFloat_Check(k)) return PyObject_Str(k);
    if (PyDateTime_Check(k)) return dt_iso(k);
    int cls = enc_classify(k);
    if (cls == CLS_UUID) {
        char buf[37];
        return uuid_text(k, buf) < 0 ? NULL : PyUnicode_FromString(buf);
    }
    if (cls == CLS_DECIMAL) return PyObject_Str(k);
    if (cls == CLS_ENUM) {
        PyObject *v = PyObject_GetAttr(k, sp.s_value);
        if (!v) return NULL;
        PyObject *t = key_text(c, v);
        Py_DECREF(v);
        return t;
    }
    enc_key_type_error(c, k);
    return NULL;
}

/* The big-endian magnitude bytes of a nonnegative int:
 * n.to_bytes((n.bit_length() + 7) // 8, "big"). */
static PyObject *int_to_bytes(PyObject *n) {
    PyObject *bits = PyObject_CallMethod(n, "bit_length", NULL);
    if (!bits) return NULL;
    long long nbits = PyLong_AsLongLong(bits);
    Py_DECREF(bits);
    if (nbits < 0) return NULL;
    PyObject *len = PyLong_FromLongLong((nbits + 7) / 8);
    if (!len) return NULL;
    PyObject *b = PyObject_CallMethodObjArgs(n, sp.s_to_bytes, len, sp.s_big, NULL);
    Py_DECREF(len);
    return b;
}

/* The integer text of a big int (str(), bounded by Python's digit limit). */
static PyObject *bigint_text(enc_ctx *c, PyObject *o) {
    PyObject *t = PyObject_Str(o);
    if (!t && PyErr_ExceptionMatches(PyExc_ValueError)) {
        enc_wrap_error(c, "cannot write the integer");
        return NULL;
    }
    return t;
}

/* Whether a Tagged's value is bytes-like; its buffer in *view. */
static int tagged_buffer(PyObject *v, Py_buffer *view) {
    if (!(PyBytes_Check(v) || PyByteArray_Check(v) || PyMemoryView_Check(v))) return 0;
    return PyObject_GetBuffer(v, view, PyBUF_C_CONTIGUOUS) == 0 ? 1 : -1;
}

static int tagged_unsupported(enc_ctx *c, PyObject *o) {
    if (PyErr_Occurred()) return -1;
    sp_encode_error(SDX_ERR_UNSUPPORTED, enc_offset(c),
                    "%R cannot be written as %s (tags='drop' writes its value alone)", o, sp_format_title(c->fmt));
    return -1;
}

/* A Tagged's tag as a uint64 (its constructor checked the range). */
static uint64_t tagged_tag(PyObject *o) {
    PyObject *t = ((sp_tagged *)o)->tag;
    long long v = PyLong_AsLongLong(t);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_AsUnsignedLongLong(t);
    }
    return (uint64_t)v;
}

/* Fill ev with a scalar Python value (for a tagged event of the BSON or
 * Binn writer); 0, or 1 when the value is no scalar, -1 on error. The
 * event's strings point into *keep, which the caller releases. */
static int scalar_event(PyObject *v, sdx_event *ev, Py_buffer *view, int *has_view) {
    memset(ev, 0, sizeof *ev);
    *has_view = 0;
    if (v == Py_None) ev->kind = SDX_NULL;
    else if (PyBool_Check(v)) {
        ev->kind = SDX_BOOL;
        ev->v.b = v == Py_True;
    } else if (PyLong_Check(v)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (i == -1 && PyErr_Occurred()) return -1;
        if (!overflow) {
            ev->kind = SDX_INT;
            ev->v.i = i;
        } else {
            unsigned long long u = PyLong_AsUnsignedLongLong(v);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
            ev->kind = SDX_UINT;
            ev->v.u = u;
        }
    } else if (PyFloat_Check(v)) {
        ev->kind = SDX_DOUBLE;
        ev->v.d = PyFloat_AS_DOUBLE(v);
    } else if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s;
        if (enc_utf8(v, &s, &n) < 0) return -1;
        ev->kind = SDX_STR;
        ev->v.str.ptr = s;
        ev->v.str.len = (size_t)n;
    } else {
        int b = tagged_buffer(v, view);
        if (b <= 0) return b < 0 ? -1 : 1;
        *has_view = 1;
        ev->kind = SDX_BIN;
        ev->v.str.ptr = view->buf;
        ev->v.str.len = (size_t)view->len;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The event sink (JSON's Tagged values, through the mapping layer)          */
/* ------------------------------------------------------------------------ */

typedef struct {
    sdx_sink s;
    enc_ctx *c;
} sk_writer;

static sdx_err skw_put(sk_writer *w, sdx_event *ev) {
    enc_ctx *c = w->c;
    if (c->has_tag && ev->kind != SDX_KEY && ev->kind != SDX_END) {
        ev->tag_kind = c->tag_kind;
        ev->tag = c->tag;
        c->has_tag = 0;
    }
    return sdx_sink_put(w->s, ev);
}

static sdx_err skw_simple(sk_writer *w, uint8_t kind) {
    sdx_event ev = {0};
    ev.kind = kind;
    return skw_put(w, &ev);
}
static sdx_err skw_bool(sk_writer *w, bool b) {
    sdx_event ev = {0};
    ev.kind = SDX_BOOL;
    ev.v.b = b;
    return skw_put(w, &ev);
}
static sdx_err skw_int(sk_writer *w, int64_t i) {
    sdx_event ev = {0};
    ev.kind = SDX_INT;
    ev.v.i = i;
    return skw_put(w, &ev);
}
static sdx_err skw_uint(sk_writer *w, uint64_t u) {
    sdx_event ev = {0};
    ev.kind = SDX_UINT;
    ev.v.u = u;
    return skw_put(w, &ev);
}
static sdx_err skw_double(sk_writer *w, double d) {
    sdx_event ev = {0};
    ev.kind = SDX_DOUBLE;
    ev.v.d = d;
    return skw_put(w, &ev);
}
static sdx_err skw_str(sk_writer *w, uint8_t kind, const void *s, size_t n) {
    sdx_event ev = {0};
    ev.kind = kind;
    ev.v.str.ptr = s;
    ev.v.str.len = n;
    return skw_put(w, &ev);
}
static sdx_err skw_begin(sk_writer *w, uint8_t kind, uint64_t n) {
    sdx_event ev = {0};
    ev.kind = kind;
    ev.v.count = n;
    return skw_put(w, &ev);
}

static int sk_special(enc_ctx *c, sk_writer *w, PyObject *o, int depth, int cls);
static int sk_key(enc_ctx *c, sk_writer *w, PyObject *k, int depth);

#define ENC(name) sk_##name
#define ENC_WT sk_writer
#define W_NULL(w) skw_simple(w, SDX_NULL)
#define W_BOOL(w, b) skw_bool(w, b)
#define W_INT(w, i) skw_int(w, i)
#define W_UINT(w, u) skw_uint(w, u)
#define W_DOUBLE(w, d) skw_double(w, d)
#define W_STR(w, s, n) skw_str(w, SDX_STR, s, n)
#define W_KEY(w, s, n) skw_str(w, SDX_KEY, s, n)
#define W_BIN(w, p, n) skw_str(w, SDX_BIN, p, n)
#define W_BEGIN_ARRAY(w, n) skw_begin(w, SDX_ARRAY, n)
#define W_BEGIN_MAP(w, n) skw_begin(w, SDX_MAP, n)
#define W_END(w) skw_simple(w, SDX_END)
#define ENC_SPECIAL(c, w, o, d, cls) sk_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) sk_key(c, w, k, d)
#include "enc_tmpl.h"

static int sk_text(enc_ctx *c, sk_writer *w, uint8_t kind, PyObject *t, PyObject *o) {
    if (!t) return -1;
    Py_ssize_t n;
    const char *s;
    int rc = -1;
    if (enc_utf8(t, &s, &n) == 0) {
        sdx_err e = skw_str(w, kind, s, (size_t)n);
        rc = e ? enc_fail(c, e, o) : 0;
    }
    Py_DECREF(t);
    return rc;
}

static int sk_special(enc_ctx *c, sk_writer *w, PyObject *o, int depth, int cls) {
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (c->has_tag) { /* an outer tag: its own event, before */
            sdx_event ev = {0};
            ev.kind = SDX_TAG;
            ev.tag_kind = c->tag_kind;
            ev.tag = c->tag;
            c->has_tag = 0;
            sdx_err e = sdx_sink_put(w->s, &ev);
            if (e) return enc_fail(c, e, o);
        }
        c->has_tag = 1;
        c->tag_kind = (uint8_t)t->kind;
        c->tag = tagged_tag(o);
        if (t->kind == SP_TAG_SIMPLE) {
            sdx_err e = skw_simple(w, SDX_NULL);
            return e ? enc_fail(c, e, o) : 0;
        }
        return sk_value(c, w, t->value, depth + 1);
    }
    case CLS_BIGINT: return sk_text(c, w, SDX_RAW, bigint_text(c, o), o);
    case CLS_DATETIME: return sk_text(c, w, SDX_STR, dt_iso(o), o);
    case CLS_UUID: {
        char buf[37];
        if (uuid_text(o, buf) < 0) return -1;
        sdx_err e = skw_str(w, SDX_STR, buf, 36);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_DECIMAL: {
        int finite;
        PyObject *t = dec_text(o, &finite);
        if (t && !finite) {
            Py_DECREF(t);
            double d = PyFloat_AsDouble(o);
            sdx_err e = skw_double(w, d);
            return e ? enc_fail(c, e, o) : 0;
        }
        return sk_text(c, w, SDX_RAW, t, o);
    }
    default: return enc_type_error(c, o);
    }
}

static int sk_key(enc_ctx *c, sk_writer *w, PyObject *k, int depth) {
    (void)depth;
    if (!PyUnicode_Check(k) && !c->o->non_str_keys) return enc_key_type_error(c, k);
    return sk_text(c, w, SDX_KEY, key_text(c, k), k);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static int json_special(enc_ctx *c, sdx_json_writer *w, PyObject *o, int depth, int cls);
static int json_key(enc_ctx *c, sdx_json_writer *w, PyObject *k, int depth);

#define ENC(name) json_##name
#define ENC_WT sdx_json_writer
#define W_NULL(w) sdx_json_writer_null(w)
#define W_BOOL(w, b) sdx_json_writer_bool(w, b)
#define W_INT(w, i) sdx_json_writer_int(w, i)
#define W_UINT(w, u) sdx_json_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_json_writer_double(w, d)
#define W_STR(w, s, n) sdx_json_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_json_writer_key(w, s, n)
#define W_BIN(w, p, n) sdx_json_writer_bin(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_json_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_json_writer_begin_map(w, n)
#define W_END(w) sdx_json_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) json_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) json_key(c, w, k, d)
#include "enc_tmpl.h"

/* Whether n bytes are valid UTF-8 (Python's decoder says). */
static int is_utf8(const char *p, size_t n) {
    PyObject *u = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "strict");
    if (!u) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(u);
    return 1;
}

/* The JSON writer as a sink whose finish does not finish it: the mapping
 * layer writes one Tagged value into the document being written. */
/* The writer does not check UTF-8 (str is valid by construction), but
 * what the mapping layer makes of a Tagged value's bytes (a BSON regex's
 * pattern, ...) may not be valid: checked here. */
static sdx_err fwd_put(void *ctx, const sdx_event *ev) {
    if ((ev->kind == SDX_STR || ev->kind == SDX_KEY) && !is_utf8(ev->v.str.ptr, ev->v.str.len))
        return SDX_ERR_UTF8;
    return sdx_json_writer_put(ctx, ev);
}
static sdx_err fwd_finish(void *ctx) { return sdx_json_writer_error(ctx); }
static const sdx_sink_vt fwd_vt = {fwd_put, fwd_finish};

static int json_text(enc_ctx *c, sdx_json_writer *w, PyObject *t, PyObject *o, int raw) {
    if (!t) return -1;
    Py_ssize_t n;
    const char *s;
    int rc = -1;
    if (enc_utf8(t, &s, &n) == 0) {
        sdx_err e = raw ? sdx_json_writer_raw_number(w, s, (size_t)n) : sdx_json_writer_string(w, s, (size_t)n);
        rc = e ? enc_fail(c, e, o) : 0;
    }
    Py_DECREF(t);
    return rc;
}

static int json_special(enc_ctx *c, sdx_json_writer *w, PyObject *o, int depth, int cls) {
    switch (cls) {
    case CLS_TAGGED: {
        sdx_map_opts mo = {0, 0, 0, NULL};
        if (c->o->tags == 1) mo.flags |= SDX_MAP_TAGS_DROP;
        if (c->o->tags == 2) mo.flags |= SDX_MAP_TAGS_WRAP;
        sdx_map_to_json m;
        sdx_sink fwd = {&fwd_vt, w};
        sdx_map_to_json_init(&m, fwd, &mo);
        sk_writer sw = {sdx_map_to_json_sink(&m), c};
        c->has_tag = 0;
        c->tagged = o;
        int rc = sk_value(c, &sw, o, depth);
        sdx_err e = sdx_map_to_json_finish(&m);
        c->tagged = NULL;
        if (!rc && e) {
            if (e == SDX_ERR_UNSUPPORTED)
                rc = tagged_unsupported(c, o);
            else
                rc = enc_fail(c, e, o);
        }
        return rc;
    }
    case CLS_BIGINT: return json_text(c, w, bigint_text(c, o), o, 1);
    case CLS_DATETIME: return json_text(c, w, dt_iso(o), o, 0);
    case CLS_UUID: {
        char buf[37];
        if (uuid_text(o, buf) < 0) return -1;
        sdx_err e = sdx_json_writer_string(w, buf, 36);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_DECIMAL: {
        int finite;
        PyObject *t = dec_text(o, &finite);
        if (t && !finite) {
            Py_DECREF(t);
            double d = PyFloat_AsDouble(o);
            if (d == -1.0 && PyErr_Occurred()) { /* a signaling NaN */
                PyErr_Clear();
                d = NAN;
            }
            PyObject *f = PyFloat_FromDouble(d);
            if (!f) return -1;
            sdx_err e = sdx_json_writer_double(w, d);
            int rc = e ? enc_fail(c, e, f) : 0;
            Py_DECREF(f);
            return rc;
        }
        return json_text(c, w, t, o, 1);
    }
    default: return enc_type_error(c, o);
    }
}

static int json_key(enc_ctx *c, sdx_json_writer *w, PyObject *k, int depth) {
    (void)depth;
    sdx_err e;
    if (PyUnicode_Check(k)) {
        const char *s;
        Py_ssize_t n;
        if (enc_utf8(k, &s, &n) < 0) return enc_str_error(c, k);
        e = sdx_json_writer_key(w, s, (size_t)n);
        return e ? enc_fail_key(c, e, k) : 0;
    }
    if (!c->o->non_str_keys) return enc_key_type_error(c, k);
    /* the writer turns null, bools and numbers into keys itself
     * (SDX_JSON_WRITE_STRINGIFY_KEYS) */
    if (k == Py_None) e = sdx_json_writer_null(w);
    else if (PyBool_Check(k)) e = sdx_json_writer_bool(w, k == Py_True);
    else if (PyFloat_Check(k)) e = sdx_json_writer_double(w, PyFloat_AS_DOUBLE(k));
    else if (PyLong_Check(k)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
        if (overflow) goto text;
        e = sdx_json_writer_int(w, v);
    } else {
        goto text;
    }
    return e ? enc_fail_key(c, e, k) : 0;
text: {
    PyObject *t = key_text(c, k);
    if (!t) return -1;
    const char *s;
    Py_ssize_t n;
    int rc = -1;
    if (enc_utf8(t, &s, &n) == 0) {
        e = sdx_json_writer_key(w, s, (size_t)n);
        rc = e ? enc_fail_key(c, e, k) : 0;
    }
    Py_DECREF(t);
    return rc;
}
}

/* ------------------------------------------------------------------------ */
/* JSON straight into the buffer                                             */
/* ------------------------------------------------------------------------ */

/*
 * Minified JSON (no indent, no sort_keys) of the core types — dict and its
 * subclasses with str keys, list, tuple, str, int, float, None, bool —
 * written straight into the output buffer: the write position stays in a
 * register, the walk places the commas and brackets itself, and no value
 * goes through a call into the writer, whose bookkeeping per call (its
 * position and counts, the buffer's cursor kept in memory) was a third of
 * dumps' time on citm_catalog. Everything else (bytes, big integers,
 * non-finite floats, datetimes, UUIDs, decimals, enums, Tagged, other
 * subclasses, default=, keys that are not str) is written by the walk
 * above, json_value or json_key, through a writer of its own at the same
 * place in the buffer, as a top-level value: the same text. So the output
 * and the errors, offsets included, are the writer's to the byte;
 * tests/python/test_direct.py compares both paths (sdx._sdx._direct(False)
 * turns this one off, as does indent=0).
 */

/* A second copy of the walk for AVX-512 (jd_tmpl.h), with the library's
 * short copy (src/simd/short_copy.h), where the library has its x86
 * kernels: as the amalgamation decides, which defines SDX_HAVE_X86_KERNELS
 * in sdx.c, not in the header this file sees. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    (!defined(SDX_HAVE_X86_KERNELS) || (SDX_HAVE_X86_KERNELS + 0) != 0)
#undef SDX_HAVE_X86_KERNELS
#define SDX_HAVE_X86_KERNELS 1
#include "simd/short_copy.h"
#define JD_AVX512 1
#endif

/* Room for any scalar with the comma before it (a double takes at most
 * SDX_DTOA_RESERVE bytes, an integer SDX_ITOA_RESERVE). */
#define JD_ROOM 48

typedef struct {
    enc_ctx *c;
    sdx_buf *b;
    const sdx_json_write_opts *wo;
    size_t (*escape_copy)(char *dst, const char *src, size_t n, unsigned set);
} jd_ctx;

/* The buffer's position for an error at the value that starts at p: before
 * the comma that precedes it, if any, where the writer stands when it
 * refuses a value (a value never ends with a comma, so a comma before p is
 * the separator). */
static void jd_sync_error(jd_ctx *j, char *p) {
    j->b->cur = p > j->b->start && p[-1] == ',' ? p - 1 : p;
}

/* Room for n bytes at p, which the buffer grows to give: where to write,
 * or NULL with the error raised. */
static SDX_NOINLINE char *jd_grow(jd_ctx *j, char *p, size_t n, PyObject *o) {
    j->b->cur = p;
    char *q = sdx_buf_reserve_slow(j->b, n);
    if (!q) {
        jd_sync_error(j, p);
        enc_fail(j->c, j->b->err ? j->b->err : SDX_ERR_NOMEM, o);
    }
    return q;
}

#define JD_NEED(p, n, o, fail)                                                          \
    do {                                                                                \
        if (SDX_UNLIKELY((size_t)(j->b->end - (p)) < (size_t)(n)) && !((p) = jd_grow(j, p, n, o))) \
            goto fail;                                                                  \
    } while (0)

/* The rest of a string from s[k], the first byte the escape kernel stopped
 * at (a quote, a backslash or a control character: Python's text is valid
 * UTF-8 and nothing else is escaped), with the closing quote and, for a
 * key, the colon. */
static SDX_NOINLINE char *jd_escaped(jd_ctx *j, char *p, const char *s, size_t n, size_t k, int key,
                                     PyObject *o) {
    for (;;) {
        p += k;
        s += k;
        n -= k;
        if (n == 0) break;
        /* the escape (at most 6 bytes), the rest (at most n - 1) and the tail */
        JD_NEED(p, n + 8, o, fail);
        p += sdx_json_escape_ascii(p, (uint8_t)*s);
        s++;
        n--;
        k = j->escape_copy(p, s, n, 0);
    }
    p[0] = '"';
    p[1] = ':';
    return p + 1 + key;
fail:
    return NULL;
}

/* The value of an int that fits a machine word (CPython's compact form):
 * 1 and *v, else 0. */
static SDX_ALWAYS_INLINE int jd_compact_int(PyObject *o, long long *v) {
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)o)) return 0;
    *v = (long long)PyUnstable_Long_CompactValue((PyLongObject *)o);
    return 1;
#else
    Py_ssize_t size = Py_SIZE(o);
    if (size < -1 || size > 1) return 0;
    *v = size == 0 ? 0 : (long long)size * (long long)((PyLongObject *)o)->ob_digit[0];
    return 1;
#endif
}

/* A value the walk above writes, through a writer of its own: at the
 * place of its comma, which is then put back before it, so that an error
 * stands where the writer's would. */
static SDX_NOINLINE char *jd_via_writer(jd_ctx *j, char *p, PyObject *o, int depth) {
    sdx_buf *b = j->b;
    const int comma = p > b->start && p[-1] == ',';
    const size_t at = (size_t)(p - comma - b->start);
    b->cur = p - comma;
    sdx_json_writer w;
    sdx_json_writer_init(&w, b, j->wo);
    int rc = json_value(j->c, &w, o, depth);
    sdx_err e = sdx_json_writer_finish(&w);
    if (!rc && e) rc = enc_fail(j->c, e, o);
    if (rc) return NULL;
    if (comma) {
        size_t end = (size_t)(b->cur - b->start);
        if (!sdx_buf_reserve(b, 1)) {
            enc_fail(j->c, b->err ? b->err : SDX_ERR_NOMEM, o);
            return NULL;
        }
        memmove(b->start + at + 1, b->start + at, end - at);
        b->start[at] = ',';
        b->cur = b->start + end + 1;
    }
    return b->cur;
}

/* The key cache of the direct path: the text of recent keys ('"', the
 * key, '":'), found by the key object's address, so that a key written
 * before is one 32-byte copy, with no look at its characters and no call
 * of the escape kernel (a document's keys are mostly a few str objects met
 * again and again: in the same document, or in the next one when they are
 * the same constants). An entry holds a reference to its str: while it is
 * cached no other object can take its address, and a str does not change,
 * so an entry stays right. A key is cached the second time running that
 * its slot sees it (`jk_seen`, an address kept as a number, only compared):
 * keys met once cost one compare and one store, not a reference and a
 * copy of their text. Only exact str keys come here, and the direct path
 * writes them one way (nothing but '"', '\\' and control characters
 * escaped). */
#define JK_BITS 10
#define JK_SLOTS (1u << JK_BITS)
#define JK_TEXT 32

/* Apart, so that the test of a key touches only jk_obj. */
static PyObject *jk_obj[JK_SLOTS];        /* the cached key (a reference), or NULL */
static uintptr_t jk_seen[JK_SLOTS];       /* the address of the last key missed there */
static uint8_t jk_len[JK_SLOTS];
static char jk_text[JK_SLOTS][JK_TEXT];

_Static_assert(JK_TEXT <= JD_ROOM - 1 && JK_TEXT < 256,
               "a key's text is copied where JD_ROOM bytes less its comma are free");

static SDX_NOINLINE char *jd_key_other(jd_ctx *j, char *p, PyObject *k, int depth);

/* The walk: jd_str, jd_key, jd_item, jd_dict, jd_seq, jd_value, jd_top */
#define JD(name) jd_##name
#include "jd_tmpl.h"
#undef JD

#ifdef JD_AVX512
/* The same for AVX-512 (jd512_*), taken when the library's kernels are
 * AVX-512's: str of up to 32 bytes by one masked load and store. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,bmi,bmi2")
#endif
#define JD_SHORT_AVX512 1
#define JD(name) jd512_##name
#include "jd_tmpl.h"
#undef JD
#undef JD_SHORT_AVX512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* A key that is not an exact str, with its colon. Other than a str
 * subclass, through a writer of its own, as {key:null}, whose '{' takes the
 * place of the byte before the key (so that an error stands where the
 * writer's would) and of which the key stays. */
static SDX_NOINLINE char *jd_key_other(jd_ctx *j, char *p, PyObject *k, int depth) {
    if (PyUnicode_Check(k)) return jd_str(j, p, k, 1);
    if (!j->c->o->non_str_keys) {
        jd_sync_error(j, p);
        enc_key_type_error(j->c, k);
        return NULL;
    }
    sdx_buf *b = j->b;
    const int comma = p[-1] == ','; /* a key always follows '{' or ',' */
    const size_t at = (size_t)(p - comma - b->start);
    const char before = b->start[at - 1];
    b->cur = b->start + at - 1;
    sdx_json_writer w;
    sdx_json_writer_init(&w, b, j->wo);
    sdx_err e = sdx_json_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    int rc = e ? enc_fail(j->c, e, k) : json_key(j->c, &w, k, depth);
    if (!rc && ((e = sdx_json_writer_null(&w)) != SDX_OK || (e = sdx_json_writer_end(&w)) != SDX_OK))
        rc = enc_fail(j->c, e, k);
    e = sdx_json_writer_finish(&w);
    if (!rc && e) rc = enc_fail(j->c, e, k);
    if (rc) return NULL;
    /* before "key:" "null}": the byte before, the comma, "key:" */
    char *t = b->start + at;
    size_t len = (size_t)(b->cur - t) - 5;
    t[-1] = before;
    if (comma) {
        memmove(t + 1, t, len);
        t[0] = ',';
    }
    b->cur = t + comma + len;
    return b->cur;
}


/* The document as minified JSON at the buffer's position: 0, or -1 with
 * the error raised. */
static int jd_dumps(enc_ctx *c, sdx_buf *b, PyObject *obj, const sdx_json_write_opts *wo) {
    const sdx_simd_kernels *k = sdx_simd_active();
    jd_ctx j = {c, b, wo, k->json_escape_copy};
    char *p = sdx_buf_reserve(b, JD_ROOM);
    if (!p) return enc_fail(c, b->err ? b->err : SDX_ERR_NOMEM, obj);
#ifdef JD_AVX512
    p = k->level == SDX_SIMD_AVX512 ? jd512_top(&j, p, obj) : jd_top(&j, p, obj);
#else
    p = jd_top(&j, p, obj);
#endif
    if (!p) return -1;
    b->cur = p;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Keys of the binary formats                                                */
/* ------------------------------------------------------------------------ */

/* A key as its text with the format's key function (non_str_keys), or an
 * error. */
#define TEXT_KEY_FN(name, WT, keyfn)                                                \
    static int name(enc_ctx *c, WT *w, PyObject *k) {                               \
        if (!PyUnicode_Check(k) && !c->o->non_str_keys) return enc_key_type_error(c, k); \
        PyObject *t = key_text(c, k);                                               \
        if (!t) return -1;                                                          \
        const char *s;                                                              \
        Py_ssize_t n;                                                               \
        int rc = -1;                                                                \
        if (enc_utf8(t, &s, &n) == 0) {                                             \
            sdx_err e = keyfn(w, s, (size_t)n);                                     \
            rc = e ? enc_fail_key(c, e, k) : 0;                                     \
        } else {                                                                    \
            enc_str_error(c, t);                                                    \
        }                                                                           \
        Py_DECREF(t);                                                               \
        return rc;                                                                  \
    }

/* ------------------------------------------------------------------------ */
/* MessagePack                                                               */
/* ------------------------------------------------------------------------ */

static int msgpack_special(enc_ctx *c, sdx_msgpack_writer *w, PyObject *o, int depth, int cls);
static int msgpack_key(enc_ctx *c, sdx_msgpack_writer *w, PyObject *k, int depth);

#define ENC(name) msgpack_##name
#define ENC_WT sdx_msgpack_writer
#define W_NULL(w) sdx_msgpack_writer_null(w)
#define W_BOOL(w, b) sdx_msgpack_writer_bool(w, b)
#define W_INT(w, i) sdx_msgpack_writer_int(w, i)
#define W_UINT(w, u) sdx_msgpack_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_msgpack_writer_double(w, d)
#define W_STR(w, s, n) sdx_msgpack_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_msgpack_writer_key(w, s, n)
#define W_BIN(w, p, n) sdx_msgpack_writer_bin(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_msgpack_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_msgpack_writer_begin_map(w, n)
#define W_END(w) sdx_msgpack_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) msgpack_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) msgpack_key(c, w, k, d)
#include "enc_tmpl.h"

/* A text (a UUID's, a decimal's) as a str. */
#define STR_TEXT_FN(name, WT, strfn)                             \
    static int name(enc_ctx *c, WT *w, PyObject *t, PyObject *o) { \
        if (!t) return -1;                                       \
        const char *s;                                           \
        Py_ssize_t n;                                            \
        int rc = -1;                                             \
        if (enc_utf8(t, &s, &n) == 0) {                          \
            sdx_err e = strfn(w, s, (size_t)n);                  \
            rc = e ? enc_fail(c, e, o) : 0;                      \
        }                                                        \
        Py_DECREF(t);                                            \
        return rc;                                               \
    }

STR_TEXT_FN(msgpack_text, sdx_msgpack_writer, sdx_msgpack_writer_string)

/* A UUID as its canonical text. */
#define UUID_STR(c, w, o, strfn)                        \
    do {                                               \
        char buf_[37];                                 \
        if (uuid_text(o, buf_) < 0) return -1;         \
        sdx_err e_ = strfn(w, buf_, 36);               \
        return e_ ? enc_fail(c, e_, o) : 0;            \
    } while (0)

static int msgpack_special(enc_ctx *c, sdx_msgpack_writer *w, PyObject *o, int depth, int cls) {
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (t->kind == SP_TAG_MSGPACK) {
            Py_buffer view;
            int b = tagged_buffer(t->value, &view);
            if (b < 0) return -1;
            if (b) {
                sdx_err e = sdx_msgpack_writer_ext(w, (int8_t)tagged_tag(o), view.buf, (size_t)view.len);
                PyBuffer_Release(&view);
                if (e == SDX_ERR_INVALID_ARG)
                    return sp_encode_error(e, enc_offset(c), "%R is not a valid MessagePack timestamp", o), -1;
                return e ? enc_fail(c, e, o) : 0;
            }
        }
        if (c->o->tags == 1) return msgpack_value(c, w, t->value, depth + 1);
        return tagged_unsupported(c, o);
    }
    case CLS_BIGINT:
        sp_encode_error(SDX_ERR_RANGE, enc_offset(c), "the integer %S is out of range for MessagePack (64 bits)", o);
        return -1;
    case CLS_DATETIME: {
        int64_t sec, usec;
        if (dt_epoch(o, &sec, &usec) < 0) return -1;
        sdx_err e = sdx_msgpack_writer_timestamp(w, sec, (uint32_t)usec * 1000u);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_UUID: UUID_STR(c, w, o, sdx_msgpack_writer_string);
    case CLS_DECIMAL: {
        int finite;
        return msgpack_text(c, w, dec_text(o, &finite), o);
    }
    default: return enc_type_error(c, o);
    }
}

/* MessagePack keys may be of any type. */
static int msgpack_key(enc_ctx *c, sdx_msgpack_writer *w, PyObject *k, int depth) {
    if (PyUnicode_Check(k)) {
        const char *s;
        Py_ssize_t n;
        if (enc_utf8(k, &s, &n) < 0) return enc_str_error(c, k);
        sdx_err e = sdx_msgpack_writer_key(w, s, (size_t)n);
        return e ? enc_fail_key(c, e, k) : 0;
    }
    return msgpack_value(c, w, k, depth);
}

/* ------------------------------------------------------------------------ */
/* MessagePack straight into the buffer                                      */
/* ------------------------------------------------------------------------ */

/*
 * MessagePack of the core types — dict and its subclasses, list, tuple,
 * str, int within 64 bits, float, None, bool, bytes — written straight into
 * the output buffer, as JSON's jd_* above: the write position stays in a
 * register and no value goes through the writer, whose bookkeeping per
 * value (the frame's count, the buffer's cursor in memory, a call for
 * every str) is what the walk would otherwise pay for. The encodings are
 * the writer's (the smallest integer, float 64, fixstr/str 8/16/32,
 * bin 8/16/32, the smallest container header: msgpack.h's sdx_mp_w_*);
 * everything else (big integers, datetimes, Tagged, UUIDs, decimals,
 * enums, other buffers and subclasses, default=, lengths of 2^32 or more)
 * is written by msgpack_value through a writer of its own at the same
 * place in the buffer, as a top-level value: the same bytes. The buffer's
 * cursor is set before every error, so errors stand where the writer's
 * would; tests/python/test_direct.py compares both paths
 * (sdx._sdx._direct(False) turns this one off).
 */

/* Room for any scalar or header (9 bytes at most). */
#define MD_ROOM 16

typedef struct {
    enc_ctx *c;
    sdx_buf *b;
    const sdx_msgpack_write_opts *wo;
} md_ctx;

/* Room for n bytes at p, which the buffer grows to give: where to write,
 * or NULL with the error raised. */
static SDX_NOINLINE char *md_grow(md_ctx *j, char *p, size_t n, PyObject *o) {
    j->b->cur = p;
    char *q = sdx_buf_reserve_slow(j->b, n);
    if (!q) enc_fail(j->c, j->b->err ? j->b->err : SDX_ERR_NOMEM, o);
    return q;
}

#define MD_NEED(p, n, o)                                                                            \
    do {                                                                                            \
        if (SDX_UNLIKELY((size_t)(j->b->end - (p)) < (size_t)(n)) && !((p) = md_grow(j, p, n, o))) \
            return NULL;                                                                            \
    } while (0)

static char *md_other(md_ctx *j, char *p, PyObject *o, int depth);

/* A str at p (a value or a key: the same encoding). */
static SDX_ALWAYS_INLINE char *md_str(md_ctx *j, char *p, PyObject *o, int depth) {
    const char *s;
    Py_ssize_t n;
    if (SDX_UNLIKELY(enc_utf8(o, &s, &n) < 0)) {
        j->b->cur = p;
        enc_str_error(j->c, o);
        return NULL;
    }
    if (SDX_UNLIKELY((uint64_t)n > 0xffffffffu)) return md_other(j, p, o, depth);
    MD_NEED(p, (size_t)n + 5, o);
    p = sdx_mp_w_str_head(p, (size_t)n);
    memcpy(p, s, (size_t)n);
    return p + n;
}

/* A value msgpack_value writes, through a writer of its own at p. */
static SDX_NOINLINE char *md_other(md_ctx *j, char *p, PyObject *o, int depth) {
    sdx_buf *b = j->b;
    b->cur = p;
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, b, j->wo);
    int rc = msgpack_value(j->c, &w, o, depth);
    sdx_err e = sdx_msgpack_writer_finish(&w);
    if (!rc && e) rc = enc_fail(j->c, e, o);
    return rc ? NULL : b->cur;
}

static char *md_value(md_ctx *j, char *p, PyObject *o, int depth);

/* An element or a dict's value at p, where MD_ROOM bytes are free: the
 * commonest scalars here, in the container's loop, the rest by md_value. */
static SDX_ALWAYS_INLINE char *md_item(md_ctx *j, char *p, PyObject *o, int depth) {
    PyTypeObject *t = Py_TYPE(o);
    long long v;
    if (t == &PyUnicode_Type) return md_str(j, p, o, depth);
    if (t == &PyLong_Type && jd_compact_int(o, &v)) return sdx_mp_w_int(p, v);
    if (t == &PyFloat_Type) return sdx_mp_w_f64(p, PyFloat_AS_DOUBLE(o));
    return md_value(j, p, o, depth);
}

/* md_dict and md_seq */
#define DW(name) md_##name
#define DW_CTX md_ctx
#define DW_ROOM MD_ROOM
#define DW_GROW(j, p, n, o) md_grow(j, p, n, o)
#define DW_SYNC(j, p) ((j)->b->cur = (p))
#define DW_TOO_LONG(n) ((uint64_t)(n) > 0xffffffffu)
#define DW_MAP_BEGIN(p, n) ((p) = sdx_mp_w_container(p, (uint64_t)(n), 1))
#define DW_SEQ_BEGIN(p, n) ((p) = sdx_mp_w_container(p, (uint64_t)(n), 0))
#define DW_MAP_END(p, o, fail) ((void)0)
#define DW_SEQ_END(p, o, fail) ((void)0)
#define DW_SEP(p, i) ((void)0)
#define DW_KEY(j, p, k, d) md_str(j, p, k, d)
/* a key of another type is written as a value (msgpack_key) */
#define DW_KEY_OTHER(j, p, k, d) (PyUnicode_Check(k) ? md_str(j, p, k, d) : md_other(j, p, k, d))
#define DW_ITEM(j, p, v, d) md_item(j, p, v, d)
#include "direct_tmpl.h"

/* One value at p, where MD_ROOM bytes are free: its end, or NULL with the
 * error raised. The exact types in the order of enc_tmpl.h's value. */
static char *md_value(md_ctx *j, char *p, PyObject *o, int depth) {
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyUnicode_Type) return md_str(j, p, o, depth);
    if (t == &PyLong_Type) {
        long long v;
        if (SDX_LIKELY(jd_compact_int(o, &v))) return sdx_mp_w_int(p, v);
        int overflow;
        v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow) return sdx_mp_w_int(p, v);
        return md_other(j, p, o, depth); /* uint64 or beyond: msgpack_int */
    }
    if (t == &PyFloat_Type) return sdx_mp_w_f64(p, PyFloat_AS_DOUBLE(o));
    if (t == &PyDict_Type) return md_dict(j, p, o, depth);
    if (t == &PyList_Type || t == &PyTuple_Type) return md_seq(j, p, o, depth);
    if (o == Py_None) {
        *p = (char)0xc0;
        return p + 1;
    }
    if (t == &PyBool_Type) {
        *p = (char)(o == Py_True ? 0xc3 : 0xc2);
        return p + 1;
    }
    if (t == &PyBytes_Type) {
        const size_t n = (size_t)PyBytes_GET_SIZE(o);
        if (SDX_UNLIKELY((uint64_t)n > 0xffffffffu)) return md_other(j, p, o, depth);
        MD_NEED(p, n + 5, o);
        p = sdx_mp_w_sized_head(p, n, 0xc4);
        memcpy(p, PyBytes_AS_STRING(o), n);
        return p + n;
    }
    /* subclasses of dict, list and tuple are walked as those are
     * (msgpack_other does the same, after Tagged, which is neither) */
    if (PyDict_Check(o) && !PyObject_TypeCheck(o, sp.Tagged)) return md_dict(j, p, o, depth);
    if ((PyList_Check(o) || PyTuple_Check(o)) && !PyObject_TypeCheck(o, sp.Tagged)) return md_seq(j, p, o, depth);
    return md_other(j, p, o, depth);
}

/* The document as MessagePack at the buffer's position: 0, or -1 with the
 * error raised. */
static int md_dumps(enc_ctx *c, sdx_buf *b, PyObject *obj, const sdx_msgpack_write_opts *wo) {
    md_ctx j = {c, b, wo};
    char *p = sdx_buf_reserve(b, MD_ROOM);
    if (!p) return enc_fail(c, b->err ? b->err : SDX_ERR_NOMEM, obj);
    p = md_value(&j, p, obj, 0);
    if (!p) return -1;
    b->cur = p;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* CBOR                                                                      */
/* ------------------------------------------------------------------------ */

static int cbor_special(enc_ctx *c, sdx_cbor_writer *w, PyObject *o, int depth, int cls);
static int cbor_key(enc_ctx *c, sdx_cbor_writer *w, PyObject *k, int depth);

#define ENC(name) cbor_##name
#define ENC_WT sdx_cbor_writer
#define W_NULL(w) sdx_cbor_writer_null(w)
#define W_BOOL(w, b) sdx_cbor_writer_bool(w, b)
#define W_INT(w, i) sdx_cbor_writer_int(w, i)
#define W_UINT(w, u) sdx_cbor_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_cbor_writer_double(w, d)
#define W_STR(w, s, n) sdx_cbor_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_cbor_writer_key(w, s, n)
#define W_BIN(w, p, n) sdx_cbor_writer_bytes(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_cbor_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_cbor_writer_begin_map(w, n)
#define W_END(w) sdx_cbor_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) cbor_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) cbor_key(c, w, k, d)
#include "enc_tmpl.h"

/* A CBOR bignum (tag 2 or 3 on the magnitude's bytes), or an integer of
 * major type 1 down to -2^64. */
static int cbor_bigint(enc_ctx *c, sdx_cbor_writer *w, PyObject *o) {
    int neg = PyObject_RichCompareBool(o, Py_False, Py_LT); /* o < 0 */
    if (neg < 0) return -1;
    PyObject *mag = neg ? PyNumber_Invert(o) : Py_NewRef(o); /* -1 - o */
    if (!mag) return -1;
    sdx_err e;
    unsigned long long u = PyLong_AsUnsignedLongLong(mag);
    if (neg && !(u == (unsigned long long)-1 && PyErr_Occurred())) {
        e = sdx_cbor_writer_nint(w, u);
    } else {
        PyErr_Clear();
        PyObject *b = int_to_bytes(mag);
        if (!b) {
            Py_DECREF(mag);
            return -1;
        }
        e = sdx_cbor_writer_tag(w, neg ? SDX_CBOR_TAG_BIGNUM_NEG : SDX_CBOR_TAG_BIGNUM_POS);
        if (!e) e = sdx_cbor_writer_bytes(w, PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b));
        Py_DECREF(b);
    }
    Py_DECREF(mag);
    return e ? enc_fail(c, e, o) : 0;
}

/* A finite Decimal as a decimal fraction, tag 4 on [exponent, mantissa]. */
static int cbor_decimal(enc_ctx *c, sdx_cbor_writer *w, PyObject *o, int depth) {
    PyObject *tup = PyObject_CallMethodNoArgs(o, sp.s_as_tuple);
    if (!tup) return -1;
    int rc = -1;
    PyObject *sign = PyTuple_GetItem(tup, 0), *digits = PyTuple_GetItem(tup, 1), *exp = PyTuple_GetItem(tup, 2);
    PyObject *text = NULL, *m = NULL;
    if (!sign || !digits || !exp || !PyTuple_Check(digits)) goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(digits);
    text = PyUnicode_New(n + 2, 127);
    if (!text) goto done;
    {
        Py_UCS1 *p = PyUnicode_1BYTE_DATA(text);
        Py_ssize_t j = 0;
        p[j++] = PyObject_IsTrue(sign) ? '-' : '+';
        p[j++] = '0';
        for (Py_ssize_t i = 0; i < n; i++) p[j++] = (Py_UCS1)('0' + PyLong_AsLong(PyTuple_GET_ITEM(digits, i)));
    }
    m = PyLong_FromUnicodeObject(text, 10);
    if (!m) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) enc_wrap_error(c, "cannot write the decimal");
        goto done;
    }
    long long e10 = PyLong_AsLongLong(exp);
    if (e10 == -1 && PyErr_Occurred()) goto done;
    sdx_err e = sdx_cbor_writer_tag(w, SDX_CBOR_TAG_DECIMAL);
    if (!e) e = sdx_cbor_writer_begin_array(w, 2);
    if (!e) e = sdx_cbor_writer_int(w, e10);
    if (e) {
        rc = enc_fail(c, e, o);
        goto done;
    }
    if (cbor_int(c, w, m)) goto done;
    e = sdx_cbor_writer_end(w);
    rc = e ? enc_fail(c, e, o) : 0;
done:
    (void)depth;
    Py_XDECREF(m);
    Py_XDECREF(text);
    Py_DECREF(tup);
    return rc;
}

static int cbor_special(enc_ctx *c, sdx_cbor_writer *w, PyObject *o, int depth, int cls) {
    sdx_err e;
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (t->kind == SP_TAG_CBOR) {
            e = sdx_cbor_writer_tag(w, tagged_tag(o));
            if (e) return enc_fail(c, e, o);
            return cbor_value(c, w, t->value, depth + 1);
        }
        if (t->kind == SP_TAG_SIMPLE) {
            e = sdx_cbor_writer_simple(w, (uint8_t)tagged_tag(o));
            return e ? enc_fail(c, e, o) : 0;
        }
        if (c->o->tags == 1) return cbor_value(c, w, t->value, depth + 1);
        return tagged_unsupported(c, o);
    }
    case CLS_BIGINT: return cbor_bigint(c, w, o);
    case CLS_DATETIME: {
        int64_t sec, usec;
        if (dt_epoch(o, &sec, &usec) < 0) return -1;
        /* tag 1 on the seconds, an int or (with microseconds) a float when
         * that float reads back as the same microsecond; otherwise (far
         * from 1970) tag 0 on the RFC 3339 text, which is exact */
        double x = (double)sec + (double)usec / 1e6;
        int64_t bs, bu;
        sp_epoch_split(x, &bs, &bu);
        if (usec && (bs != sec || bu != usec)) {
            PyObject *t = dt_iso(o);
            if (!t) return -1;
            Py_ssize_t n;
            const char *s = PyUnicode_AsUTF8AndSize(t, &n);
            e = sdx_cbor_writer_tag(w, SDX_CBOR_TAG_DATETIME_STRING);
            if (!e && s) e = sdx_cbor_writer_string(w, s, (size_t)n);
            Py_DECREF(t);
            if (!s) return -1;
            return e ? enc_fail(c, e, o) : 0;
        }
        e = sdx_cbor_writer_tag(w, SDX_CBOR_TAG_DATETIME_EPOCH);
        if (!e) e = usec ? sdx_cbor_writer_double(w, x) : sdx_cbor_writer_int(w, sec);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_UUID: {
        PyObject *b = uuid_bytes(o);
        if (!b) return -1;
        e = sdx_cbor_writer_tag(w, 37);
        if (!e) e = sdx_cbor_writer_bytes(w, PyBytes_AS_STRING(b), 16);
        Py_DECREF(b);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_DECIMAL: {
        int finite;
        PyObject *t = dec_text(o, &finite);
        if (!t) return -1;
        Py_DECREF(t);
        if (!finite) {
            double d = PyFloat_AsDouble(o);
            if (d == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                d = NAN;
            }
            e = sdx_cbor_writer_double(w, d);
            return e ? enc_fail(c, e, o) : 0;
        }
        return cbor_decimal(c, w, o, depth);
    }
    default: return enc_type_error(c, o);
    }
}

/* CBOR keys may be of any type. */
static int cbor_key(enc_ctx *c, sdx_cbor_writer *w, PyObject *k, int depth) {
    if (PyUnicode_Check(k)) {
        const char *s;
        Py_ssize_t n;
        if (enc_utf8(k, &s, &n) < 0) return enc_str_error(c, k);
        sdx_err e = sdx_cbor_writer_key(w, s, (size_t)n);
        return e ? enc_fail_key(c, e, k) : 0;
    }
    return cbor_value(c, w, k, depth);
}

/* ------------------------------------------------------------------------ */
/* BSON                                                                      */
/* ------------------------------------------------------------------------ */

static int bson_special(enc_ctx *c, sdx_bson_writer *w, PyObject *o, int depth, int cls);
static int bson_key(enc_ctx *c, sdx_bson_writer *w, PyObject *k, int depth);

static inline sdx_err bson_bin(sdx_bson_writer *w, const void *p, size_t n) {
    return sdx_bson_writer_binary(w, 0, p, n);
}

#define ENC(name) bson_##name
#define ENC_WT sdx_bson_writer
#define W_NULL(w) sdx_bson_writer_null(w)
#define W_BOOL(w, b) sdx_bson_writer_bool(w, b)
#define W_INT(w, i) sdx_bson_writer_int(w, i)
#define W_UINT(w, u) sdx_bson_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_bson_writer_double(w, d)
#define W_STR(w, s, n) sdx_bson_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_bson_writer_key(w, s, n)
#define W_BIN(w, p, n) bson_bin(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_bson_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_bson_writer_begin_map(w, n)
#define W_END(w) sdx_bson_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) bson_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) bson_key(c, w, k, d)
#include "enc_tmpl.h"


static int bson_special(enc_ctx *c, sdx_bson_writer *w, PyObject *o, int depth, int cls) {
    sdx_err e;
    sdx_event ev;
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (t->kind != SP_TAG_BSON) {
            if (c->o->tags == 1) return bson_value(c, w, t->value, depth + 1);
            return tagged_unsupported(c, o);
        }
        uint64_t tag = tagged_tag(o);
        if (PyDict_Check(t->value)) { /* an array held as a map (0x04) */
            memset(&ev, 0, sizeof ev);
            ev.kind = SDX_MAP;
            ev.tag_kind = SDX_TAG_BSON;
            ev.tag = tag;
            ev.v.count = SDX_COUNT_UNKNOWN;
            e = sdx_bson_writer_put(w, &ev);
            if (e) return enc_fail(c, e, o);
            if (depth >= c->max_depth) return enc_depth_error(c);
            PyObject *d = t->value;
            Py_INCREF(d);
            Py_ssize_t got = bson_dict_body(c, w, d, depth + 1);
            Py_DECREF(d);
            if (got < 0) return -1;
            e = sdx_bson_writer_end(w);
            return e ? enc_fail(c, e, o) : 0;
        }
        Py_buffer view;
        int has_view;
        int s = scalar_event(t->value, &ev, &view, &has_view);
        if (s < 0) return -1;
        if (s > 0) return tagged_unsupported(c, o);
        ev.tag_kind = SDX_TAG_BSON;
        ev.tag = tag;
        e = sdx_bson_writer_put(w, &ev);
        if (has_view) PyBuffer_Release(&view);
        if (e == SDX_ERR_INVALID_ARG || e == SDX_ERR_UNSUPPORTED)
            return sp_encode_error(e, enc_offset(c), "%R is not a valid BSON value", o), -1;
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_BIGINT:
        sp_encode_error(SDX_ERR_RANGE, enc_offset(c), "the integer %S is out of range for BSON (int64)", o);
        return -1;
    case CLS_DATETIME: {
        int64_t sec, usec;
        if (dt_epoch(o, &sec, &usec) < 0) return -1;
        memset(&ev, 0, sizeof ev);
        ev.kind = SDX_INT;
        ev.tag_kind = SDX_TAG_BSON;
        ev.tag = SDX_BSON_DATETIME;
        ev.v.i = sec * 1000 + usec / 1000;
        e = sdx_bson_writer_put(w, &ev);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_UUID: {
        PyObject *b = uuid_bytes(o);
        if (!b) return -1;
        e = sdx_bson_writer_binary(w, 4, PyBytes_AS_STRING(b), 16);
        Py_DECREF(b);
        return e ? enc_fail(c, e, o) : 0;
    }
    case CLS_DECIMAL: {
        int finite;
        PyObject *t = dec_text(o, &finite);
        if (!t) return -1;
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(t, &n);
        uint8_t bytes[16];
        e = s ? sdx_bson_decimal128_from_string(s, (size_t)n, bytes) : SDX_ERR_INVALID_ARG;
        Py_DECREF(t);
        if (!s) return -1;
        if (e) {
            sp_encode_error(e, enc_offset(c), "the decimal %S cannot be written as a BSON decimal128 %s", o,
                            e == SDX_ERR_RANGE ? "exactly" : "(not a number it has)");
            return -1;
        }
        memset(&ev, 0, sizeof ev);
        ev.kind = SDX_BIN;
        ev.tag_kind = SDX_TAG_BSON;
        ev.tag = SDX_BSON_DECIMAL128;
        ev.v.str.ptr = (const char *)bytes;
        ev.v.str.len = 16;
        e = sdx_bson_writer_put(w, &ev);
        return e ? enc_fail(c, e, o) : 0;
    }
    default: return enc_type_error(c, o);
    }
}

TEXT_KEY_FN(bson_text_key, sdx_bson_writer, sdx_bson_writer_key)

static int bson_key(enc_ctx *c, sdx_bson_writer *w, PyObject *k, int depth) {
    (void)depth;
    return bson_text_key(c, w, k);
}

/* ------------------------------------------------------------------------ */
/* UBJSON and BJData                                                         */
/* ------------------------------------------------------------------------ */

static int ubjson_special(enc_ctx *c, sdx_ubjson_writer *w, PyObject *o, int depth, int cls);
static int ubjson_key(enc_ctx *c, sdx_ubjson_writer *w, PyObject *k, int depth);

#define ENC(name) ubjson_##name
#define ENC_WT sdx_ubjson_writer
#define W_NULL(w) sdx_ubjson_writer_null(w)
#define W_BOOL(w, b) sdx_ubjson_writer_bool(w, b)
#define W_INT(w, i) sdx_ubjson_writer_int(w, i)
#define W_UINT(w, u) sdx_ubjson_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_ubjson_writer_double(w, d)
#define W_STR(w, s, n) sdx_ubjson_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_ubjson_writer_key(w, s, n)
#define W_BIN(w, p, n) sdx_ubjson_writer_bin(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_ubjson_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_ubjson_writer_begin_map(w, n)
#define W_END(w) sdx_ubjson_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) ubjson_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) ubjson_key(c, w, k, d)
#include "enc_tmpl.h"

STR_TEXT_FN(ubjson_text, sdx_ubjson_writer, sdx_ubjson_writer_string)
STR_TEXT_FN(ubjson_hp, sdx_ubjson_writer, sdx_ubjson_writer_high_precision)

static int ubjson_special(enc_ctx *c, sdx_ubjson_writer *w, PyObject *o, int depth, int cls) {
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (c->o->tags == 1) return ubjson_value(c, w, t->value, depth + 1);
        return tagged_unsupported(c, o);
    }
    case CLS_BIGINT: return ubjson_hp(c, w, bigint_text(c, o), o);
    case CLS_DATETIME: return ubjson_text(c, w, dt_iso(o), o);
    case CLS_UUID: UUID_STR(c, w, o, sdx_ubjson_writer_string);
    case CLS_DECIMAL: {
        int finite;
        PyObject *t = dec_text(o, &finite);
        if (t && !finite) {
            Py_DECREF(t);
            sp_encode_error(SDX_ERR_RANGE, enc_offset(c), "the decimal %S cannot be written as %s", o,
                            sp_format_title(c->fmt));
            return -1;
        }
        return ubjson_hp(c, w, t, o);
    }
    default: return enc_type_error(c, o);
    }
}

TEXT_KEY_FN(ubjson_text_key, sdx_ubjson_writer, sdx_ubjson_writer_key)

static int ubjson_key(enc_ctx *c, sdx_ubjson_writer *w, PyObject *k, int depth) {
    (void)depth;
    return ubjson_text_key(c, w, k);
}

/* ------------------------------------------------------------------------ */
/* Binn                                                                      */
/* ------------------------------------------------------------------------ */

static int binn_special(enc_ctx *c, sdx_binn_writer *w, PyObject *o, int depth, int cls);
static int binn_key(enc_ctx *c, sdx_binn_writer *w, PyObject *k, int depth);

#define ENC(name) binn_##name
#define ENC_WT sdx_binn_writer
#define W_NULL(w) sdx_binn_writer_null(w)
#define W_BOOL(w, b) sdx_binn_writer_bool(w, b)
#define W_INT(w, i) sdx_binn_writer_int(w, i)
#define W_UINT(w, u) sdx_binn_writer_uint(w, u)
#define W_DOUBLE(w, d) sdx_binn_writer_double(w, d)
#define W_STR(w, s, n) sdx_binn_writer_string(w, s, n)
#define W_KEY(w, s, n) sdx_binn_writer_key(w, s, n)
#define W_BIN(w, p, n) sdx_binn_writer_blob(w, p, n)
#define W_BEGIN_ARRAY(w, n) sdx_binn_writer_begin_array(w, n)
#define W_BEGIN_MAP(w, n) sdx_binn_writer_begin_map(w, n)
#define W_END(w) sdx_binn_writer_end(w)
#define ENC_SPECIAL(c, w, o, d, cls) binn_special(c, w, o, d, cls)
#define ENC_KEY(c, w, k, d) binn_key(c, w, k, d)
#include "enc_tmpl.h"


static int binn_typed_text(enc_ctx *c, sdx_binn_writer *w, uint32_t type, PyObject *t, PyObject *o) {
    if (!t) return -1;
    const char *s;
    Py_ssize_t n;
    int rc = -1;
    if (enc_utf8(t, &s, &n) == 0) {
        sdx_err e = sdx_binn_writer_typed(w, type, s, (size_t)n);
        rc = e ? enc_fail(c, e, o) : 0;
    }
    Py_DECREF(t);
    return rc;
}

static int binn_special(enc_ctx *c, sdx_binn_writer *w, PyObject *o, int depth, int cls) {
    switch (cls) {
    case CLS_TAGGED: {
        sp_tagged *t = (sp_tagged *)o;
        if (t->kind == SP_TAG_BINN) {
            sdx_event ev;
            Py_buffer view;
            int has_view;
            int s = scalar_event(t->value, &ev, &view, &has_view);
            if (s < 0) return -1;
            if (s == 0 && (ev.kind == SDX_NULL || ev.kind == SDX_STR || ev.kind == SDX_BIN)) {
                ev.tag_kind = SDX_TAG_BINN;
                ev.tag = tagged_tag(o);
                sdx_err e = sdx_binn_writer_put(w, &ev);
                if (has_view) PyBuffer_Release(&view);
                if (e == SDX_ERR_INVALID_ARG)
                    return sp_encode_error(e, enc_offset(c), "%R is not a valid Binn value", o), -1;
                return e ? enc_fail(c, e, o) : 0;
            }
            if (has_view) PyBuffer_Release(&view);
        }
        if (c->o->tags == 1) return binn_value(c, w, t->value, depth + 1);
        return tagged_unsupported(c, o);
    }
    case CLS_BIGINT:
        sp_encode_error(SDX_ERR_RANGE, enc_offset(c), "the integer %S is out of range for Binn (64 bits)", o);
        return -1;
    case CLS_DATETIME: return binn_typed_text(c, w, SDX_BINN_DATETIME, dt_iso(o), o);
    case CLS_UUID: UUID_STR(c, w, o, sdx_binn_writer_string);
    case CLS_DECIMAL: {
        int finite;
        return binn_typed_text(c, w, SDX_BINN_DECIMAL, dec_text(o, &finite), o);
    }
    default: return enc_type_error(c, o);
    }
}

TEXT_KEY_FN(binn_text_key, sdx_binn_writer, sdx_binn_writer_key)

/* Binn: str keys make an object, int32 keys a map. */
static int binn_key(enc_ctx *c, sdx_binn_writer *w, PyObject *k, int depth) {
    (void)depth;
    if (PyLong_Check(k) && !PyBool_Check(k)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
        if (!overflow && v >= INT32_MIN && v <= INT32_MAX) {
            sdx_err e = sdx_binn_writer_map_key(w, (int32_t)v);
            return e ? enc_fail_key(c, e, k) : 0;
        }
    }
    return binn_text_key(c, w, k);
}

/* ------------------------------------------------------------------------ */
/* dumps                                                                     */
/* ------------------------------------------------------------------------ */

/* One output buffer kept between calls (its storage reused), unless a call
 * is already using it (default= calling dumps): then a fresh one. */
static sdx_buf shared_buf;
static int shared_buf_ready, shared_buf_busy;

/* Above this the shared buffer's storage is released after the call. */
#define SHARED_BUF_KEEP ((size_t)1 << 20)

/* Large outputs are written straight into a bytes object instead: the
 * buffer's storage is the character array of one, grown with
 * PyObject_Realloc (in place or by remapping, for large sizes) and given
 * the output's length at the end (see sp_dumps), so the output is never
 * copied. The
 * previous output's size (per format) predicts which path a call takes and
 * the first size to allocate. */
#define BYTES_OUT_FROM ((size_t)32 << 10)
static size_t last_len[SDX_FORMAT__COUNT];

typedef struct {
    PyBytesObject *obj; /* the one live storage, or NULL */
} bytes_alloc_ctx;

static void *bytes_malloc(void *ctx, size_t size) {
    bytes_alloc_ctx *a = ctx;
    if (a->obj || size > (size_t)PY_SSIZE_T_MAX - sizeof(PyBytesObject)) return NULL;
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!b) {
        PyErr_Clear(); /* reported as SDX_ERR_NOMEM */
        return NULL;
    }
    a->obj = (PyBytesObject *)b;
    return PyBytes_AS_STRING(b);
}

static void *bytes_realloc(void *ctx, void *p, size_t old, size_t size) {
    bytes_alloc_ctx *a = ctx;
    (void)old;
    if (!a->obj || p != PyBytes_AS_STRING(a->obj) || size > (size_t)PY_SSIZE_T_MAX - sizeof(PyBytesObject))
        return NULL;
    PyObject *b = (PyObject *)a->obj;
    if (_PyBytes_Resize(&b, (Py_ssize_t)size) < 0) {
        /* the old object is gone: forget it (the buffer's free is then a
         * no-op) and report NOMEM */
        PyErr_Clear();
        a->obj = NULL;
        return NULL;
    }
    a->obj = (PyBytesObject *)b;
    return PyBytes_AS_STRING(b);
}

static void bytes_free(void *ctx, void *p) {
    bytes_alloc_ctx *a = ctx;
    if (a->obj && p == PyBytes_AS_STRING(a->obj)) Py_CLEAR(a->obj);
}

PyObject *sp_dumps(PyObject *obj, sp_format f, const sp_opts *o) {
    sdx_buf local, *b;
    bytes_alloc_ctx actx = {NULL};
    sdx_alloc balloc = {bytes_malloc, bytes_realloc, bytes_free, &actx};
    int to_bytes = last_len[f] >= BYTES_OUT_FROM;
    if (to_bytes) {
        b = &local;
        sdx_buf_init(b, &balloc);
        /* room for a little more than last time, allocated now */
        size_t hint = last_len[f] + last_len[f] / 8;
        if (!sdx_buf_reserve(b, hint)) {
            sdx_buf_destroy(b);
            return PyErr_NoMemory();
        }
    } else if (!shared_buf_busy) {
        b = &shared_buf;
        shared_buf_busy = 1;
        if (!shared_buf_ready) sdx_buf_init(b, NULL);
        shared_buf_ready = 1;
        sdx_buf_clear(b);
    } else {
        b = &local;
        sdx_buf_init(b, NULL);
    }
    enc_ctx c = {f, o, b, ENC_MAX_DEPTH, 0, 0, 0, NULL};
    int rc = -1;
    sdx_err e = SDX_OK;
    switch (f) {
    case SDX_FORMAT_JSON: {
        /* Python's str is Unicode: its UTF-8 needs no check */
        sdx_json_write_opts wo = {SDX_JSON_WRITE_NO_UTF8_CHECK, o->indent > 0 ? (uint32_t)o->indent : 0, NULL};
        if (o->nan_null) wo.flags |= SDX_JSON_WRITE_NAN_AS_NULL;
        if (o->bin_base64) wo.flags |= SDX_JSON_WRITE_BIN_BASE64;
        if (o->non_str_keys) wo.flags |= SDX_JSON_WRITE_STRINGIFY_KEYS;
        if (o->indent < 0 && !o->sort_keys && sp_direct_paths) {
            rc = jd_dumps(&c, b, obj, &wo);
            break;
        }
        sdx_json_writer w;
        sdx_json_writer_init(&w, b, &wo);
        rc = json_value(&c, &w, obj, 0);
        e = sdx_json_writer_finish(&w);
        break;
    }
    case SDX_FORMAT_MSGPACK: {
        sdx_msgpack_write_opts wo = {SDX_MSGPACK_WRITE_NO_UTF8_CHECK, NULL};
        if (!o->sort_keys && sp_direct_paths) {
            rc = md_dumps(&c, b, obj, &wo);
            break;
        }
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, b, &wo);
        rc = msgpack_value(&c, &w, obj, 0);
        e = sdx_msgpack_writer_finish(&w);
        break;
    }
    case SDX_FORMAT_CBOR: {
        sdx_cbor_write_opts wo = {SDX_CBOR_WRITE_NO_UTF8_CHECK | SDX_CBOR_WRITE_DEFINITE, NULL};
        sdx_cbor_writer w;
        sdx_cbor_writer_init(&w, b, &wo);
        rc = cbor_value(&c, &w, obj, 0);
        e = sdx_cbor_writer_finish(&w);
        break;
    }
    case SDX_FORMAT_BSON: {
        sdx_bson_write_opts wo = {SDX_BSON_WRITE_NO_UTF8_CHECK, NULL};
        if (o->root_wrap) wo.flags |= SDX_BSON_WRITE_WRAP_ROOT;
        sdx_bson_writer w;
        sdx_bson_writer_init(&w, b, &wo);
        rc = bson_value(&c, &w, obj, 0);
        e = sdx_bson_writer_finish(&w);
        break;
    }
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: {
        sdx_ubjson_write_opts wo = {SDX_UBJSON_WRITE_NO_UTF8_CHECK, NULL};
        if (f == SDX_FORMAT_BJDATA) wo.flags |= SDX_UBJSON_WRITE_BJDATA;
        sdx_ubjson_writer w;
        sdx_ubjson_writer_init(&w, b, &wo);
        rc = ubjson_value(&c, &w, obj, 0);
        e = sdx_ubjson_writer_finish(&w);
        break;
    }
    case SDX_FORMAT_BINN: {
        sdx_binn_write_opts wo = {SDX_BINN_WRITE_NO_UTF8_CHECK, NULL};
        sdx_binn_writer w;
        sdx_binn_writer_init(&w, b, &wo);
        rc = binn_value(&c, &w, obj, 0);
        e = sdx_binn_writer_finish(&w);
        break;
    }
    default: PyErr_SetString(PyExc_ValueError, "unknown format"); break;
    }
    PyObject *result = NULL;
    size_t len = sdx_buf_len(b);
    if (rc == 0) {
        if (e) {
            enc_fail(&c, e, obj);
        } else if (to_bytes && actx.obj && sdx_buf_data(b) == PyBytes_AS_STRING(actx.obj)) {
            /* the output is the bytes object's content: hand it out (the
             * buffer's free then does nothing), shrunk to the length. When
             * what is left over is at most an eighth (the usual case: the
             * allocation was the last output's length and an eighth), the
             * storage is kept as it is and only the object's length set:
             * shrinking with realloc would make the block freed later
             * smaller than the next call's first allocation, and glibc's
             * malloc, which raises its mmap threshold to the size of an
             * mmapped block when it is freed, would then map (and fault in)
             * fresh pages for every call. */
            result = (PyObject *)actx.obj;
            actx.obj = NULL;
            const size_t cap = (size_t)PyBytes_GET_SIZE(result);
            if (len >= cap - cap / 8) {
                Py_SET_SIZE(result, (Py_ssize_t)len);
                PyBytes_AS_STRING(result)[len] = '\0';
            } else if (_PyBytes_Resize(&result, (Py_ssize_t)len) < 0) {
                result = NULL;
            }
        } else {
            result = PyBytes_FromStringAndSize(sdx_buf_data(b), (Py_ssize_t)len);
        }
        if (result) last_len[f] = len;
    }
    if (b == &shared_buf) {
        if (sdx_buf_len(b) > SHARED_BUF_KEEP) {
            sdx_buf_destroy(b);
            shared_buf_ready = 0;
        }
        shared_buf_busy = 0;
    } else {
        sdx_buf_destroy(b);
    }
    return result;
}

int sp_dict_direct = 0;

/* Whether sp_dict_next's reading of the entries agrees with PyDict_Next on
 * this interpreter: dicts of both kinds of keys, with deleted entries;
 * sets sp_dict_direct (0 or 1). -1 with an exception if Python failed. */
int sp_dict_check(void) {
    sp_dict_direct = 0;
#ifdef SP_DICT_DIRECT
    PyObject *d[2] = {PyDict_New(), PyDict_New()};
    int ok = 1, rc = 0;
    for (int t = 0; t < 2 && rc == 0; t++) {
        if (!d[t]) {
            rc = -1;
            break;
        }
        /* 40 entries, then every third deleted (holes in the entries) */
        for (long pass = 0; pass < 2; pass++)
            for (long i = 0; i < 40 && rc == 0; i++) {
                if (pass == 1 && i % 3 != 1) continue;
                PyObject *key = t == 0 ? PyUnicode_FromFormat("k%ld", i) : PyLong_FromLong(i);
                PyObject *val = PyLong_FromLong(1000 + i);
                if (!key || !val || (pass ? PyDict_DelItem(d[t], key) : PyDict_SetItem(d[t], key, val)) < 0)
                    rc = -1;
                Py_XDECREF(key);
                Py_XDECREF(val);
            }
        if (rc) break;
        const PyDictObject *mp = (const PyDictObject *)d[t];
        const sp_dict_keys *dk = (const sp_dict_keys *)(const void *)mp->ma_keys;
        /* the fields this layout puts where it expects them, before any
         * entry is read through it */
        if (mp->ma_values || dk->kind != (t == 0 ? 1 : 0) || dk->log2_size < 3 || dk->log2_size > 10 ||
            dk->log2_index_bytes != dk->log2_size || dk->nentries != 40 || mp->ma_used != 27 || dk->refcnt < 1) {
            ok = 0;
            break;
        }
        sp_dict_direct = 1;
        Py_ssize_t p1 = 0, p2 = 0;
        PyObject *k1, *v1, *k2, *v2;
        for (;;) {
            int a = PyDict_Next(d[t], &p1, &k1, &v1), b = sp_dict_next(d[t], &p2, &k2, &v2);
            if (a != b || (a && (k1 != k2 || v1 != v2 || p1 != p2))) ok = 0;
            if (!a || !b) break;
        }
        sp_dict_direct = 0;
    }
    Py_XDECREF(d[0]);
    Py_XDECREF(d[1]);
    if (rc) return -1;
    sp_dict_direct = ok;
#endif
    return 0;
}

int sp_encode_init(void) {
    if (sp_dict_check() < 0) return -1;
    PyDateTime_IMPORT;
    return PyDateTimeAPI ? 0 : -1;
}
