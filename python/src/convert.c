/*
 * sdx.convert: bytes of one format to bytes of another, a reader's events
 * straight into a writer (sdx_transcode) with the mapping layer in between
 * where JSON is one side (map.h), no Python object in between, the GIL
 * released. The mapping options are the sdx command's (`sdx convert
 * --bin=base64 ...`), as keyword arguments.
 */
#include "sdxpy.h"

typedef struct {
    int bin_base64;      /* bin="base64" */
    int keys_stringify;  /* keys="stringify" */
    int nan_null;        /* nan="null" */
    int bigint_double;   /* bigint="double" */
    int utf8_replace;    /* utf8="replace" */
    int tags;            /* tags="error" | "drop" | "wrap": 0, 1, 2 */
    int undefined_null;  /* undefined="null" */
    int root_wrap;       /* root="wrap" */
    int ejson;           /* ejson="relaxed" | "canonical" | "off": 0, 1, 2 */
    int seq;             /* seq=True */
    int indent;          /* indent=N (JSON) */
} cv_opts;

static int str_eq(PyObject *v, const char *s) {
    if (!PyUnicode_Check(v)) return 0;
    const char *t = PyUnicode_AsUTF8(v);
    return t && strcmp(t, s) == 0;
}

/* name="value" options: each a choice between an off word and on words. */
static int cv_parse(PyObject *kwargs, cv_opts *o) {
    memset(o, 0, sizeof *o);
    if (!kwargs) return 0;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
        const char *name = PyUnicode_AsUTF8(k);
        if (!name) return -1;
        int bad = 0;
        if (strcmp(name, "bin") == 0) {
            if (str_eq(v, "base64")) o->bin_base64 = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "keys") == 0) {
            if (str_eq(v, "stringify")) o->keys_stringify = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "nan") == 0) {
            if (str_eq(v, "null")) o->nan_null = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "bigint") == 0) {
            if (str_eq(v, "double")) o->bigint_double = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "utf8") == 0) {
            if (str_eq(v, "replace")) o->utf8_replace = 1;
            else bad = !str_eq(v, "strict");
        } else if (strcmp(name, "tags") == 0) {
            if (str_eq(v, "drop")) o->tags = 1;
            else if (str_eq(v, "wrap")) o->tags = 2;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "undefined") == 0) {
            if (str_eq(v, "null")) o->undefined_null = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "root") == 0) {
            if (str_eq(v, "wrap")) o->root_wrap = 1;
            else bad = !str_eq(v, "error");
        } else if (strcmp(name, "ejson") == 0) {
            if (str_eq(v, "canonical")) o->ejson = 1;
            else if (str_eq(v, "off")) o->ejson = 2;
            else bad = !str_eq(v, "relaxed");
        } else if (strcmp(name, "seq") == 0) {
            int b = PyObject_IsTrue(v);
            if (b < 0) return -1;
            o->seq = b;
        } else if (strcmp(name, "indent") == 0) {
            long n = v == Py_None ? 0 : PyLong_Check(v) ? PyLong_AsLong(v) : -1;
            if (n < 0 || n > 16) {
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError, "indent must be None or an int from 0 to 16");
                return -1;
            }
            o->indent = (int)n;
        } else {
            PyErr_Format(PyExc_TypeError, "unexpected keyword argument '%s'", name);
            return -1;
        }
        if (bad) {
            PyErr_Format(PyExc_ValueError, "invalid value %R for option '%s'", v, name);
            return -1;
        }
    }
    return 0;
}

/* Every reader and writer a conversion may use, and the two layers. */
typedef struct {
    sp_format src_fmt, dst_fmt;
    void *reader;
    sdx_source src;
    union {
        sdx_json_writer json;
        sdx_msgpack_writer msgpack;
        sdx_cbor_writer cbor;
        sdx_bson_writer bson;
        sdx_ubjson_writer ubjson;
        sdx_binn_writer binn;
    } w;
    sdx_map_to_json to_json;
    sdx_map_from_json from_json;
    sdx_buf out;
    /* results */
    sdx_err code;
    int source_failed;
    sdx_error err;
} cv_job;

static void *cv_reader(cv_job *j, const char *data, size_t len, const cv_opts *o) {
    int seq = o->seq, u8 = o->utf8_replace;
    switch (j->src_fmt) {
    case SDX_FORMAT_JSON: {
        sdx_json_read_opts ro = {SDX_JSON_READ_BOM, 0, NULL};
        if (seq) ro.flags |= SDX_JSON_READ_STOP_AFTER_VALUE;
        if (!o->bigint_double) ro.flags |= SDX_JSON_READ_BIGNUM_RAW;
        sdx_json_reader *r = sdx_json_reader_new(data, len, &ro);
        if (r) j->src = sdx_json_reader_source(r);
        return r;
    }
    case SDX_FORMAT_MSGPACK: {
        sdx_msgpack_read_opts ro = {(seq ? SDX_MSGPACK_READ_STOP_AFTER_VALUE : 0u) |
                                        (u8 ? SDX_MSGPACK_READ_NO_UTF8_CHECK : 0u), 0, NULL};
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(data, len, &ro);
        if (r) j->src = sdx_msgpack_reader_source(r);
        return r;
    }
    case SDX_FORMAT_CBOR: {
        sdx_cbor_read_opts ro = {(seq ? SDX_CBOR_READ_STOP_AFTER_VALUE : 0u) | (u8 ? SDX_CBOR_READ_NO_UTF8_CHECK : 0u),
                                 0, 0, 0, NULL};
        sdx_cbor_reader *r = sdx_cbor_reader_new(data, len, &ro);
        if (r) j->src = sdx_cbor_reader_source(r);
        return r;
    }
    case SDX_FORMAT_BSON: {
        sdx_bson_read_opts ro = {(seq ? SDX_BSON_READ_SEQUENCE : 0u) | (u8 ? SDX_BSON_READ_NO_UTF8_CHECK : 0u), 0, 0,
                                 NULL};
        sdx_bson_reader *r = sdx_bson_reader_new(data, len, &ro);
        if (r) j->src = sdx_bson_reader_source(r);
        return r;
    }
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: {
        sdx_ubjson_read_opts ro = {(j->src_fmt == SDX_FORMAT_BJDATA ? SDX_UBJSON_READ_BJDATA : 0u) |
                                       (seq ? SDX_UBJSON_READ_STOP_AFTER_VALUE : 0u) |
                                       (u8 ? SDX_UBJSON_READ_NO_UTF8_CHECK : 0u),
                                   0, 0, NULL};
        sdx_ubjson_reader *r = sdx_ubjson_reader_new(data, len, &ro);
        if (r) j->src = sdx_ubjson_reader_source(r);
        return r;
    }
    case SDX_FORMAT_BINN: {
        sdx_binn_read_opts ro = {(seq ? SDX_BINN_READ_STOP_AFTER_VALUE : 0u) | (u8 ? SDX_BINN_READ_NO_UTF8_CHECK : 0u),
                                 0, NULL};
        sdx_binn_reader *r = sdx_binn_reader_new(data, len, &ro);
        if (r) j->src = sdx_binn_reader_source(r);
        return r;
    }
    default: return NULL;
    }
}

static void cv_reader_free(cv_job *j) {
    switch (j->src_fmt) {
    case SDX_FORMAT_JSON: sdx_json_reader_free(j->reader); break;
    case SDX_FORMAT_MSGPACK: sdx_msgpack_reader_free(j->reader); break;
    case SDX_FORMAT_CBOR: sdx_cbor_reader_free(j->reader); break;
    case SDX_FORMAT_BSON: sdx_bson_reader_free(j->reader); break;
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: sdx_ubjson_reader_free(j->reader); break;
    case SDX_FORMAT_BINN: sdx_binn_reader_free(j->reader); break;
    default: break;
    }
}

/* Start the target's writer; its sink in *sink, and the types it has
 * beyond JSON's (sdx_map_target bits) in *target. */
static sdx_err cv_writer(cv_job *j, const cv_opts *o, sdx_sink *sink, uint32_t *target) {
    int seq = o->seq, u8 = o->utf8_replace;
    sdx_err e = SDX_OK;
    *target = 0;
    switch (j->dst_fmt) {
    case SDX_FORMAT_JSON: {
        sdx_json_write_opts wo = {0, (uint32_t)o->indent, NULL};
        if (seq) wo.flags |= SDX_JSON_WRITE_SEQUENCE;
        if (o->bin_base64) wo.flags |= SDX_JSON_WRITE_BIN_BASE64;
        if (o->nan_null) wo.flags |= SDX_JSON_WRITE_NAN_AS_NULL;
        if (u8) wo.flags |= SDX_JSON_WRITE_REPLACE_INVALID_UTF8;
        if (o->keys_stringify) wo.flags |= SDX_JSON_WRITE_STRINGIFY_KEYS;
        e = sdx_json_writer_init(&j->w.json, &j->out, &wo);
        *sink = sdx_json_writer_sink(&j->w.json);
        break;
    }
    case SDX_FORMAT_MSGPACK: {
        sdx_msgpack_write_opts wo = {(seq ? SDX_MSGPACK_WRITE_SEQUENCE : 0u) | (u8 ? SDX_MSGPACK_WRITE_NO_UTF8_CHECK : 0u),
                                     NULL};
        e = sdx_msgpack_writer_init(&j->w.msgpack, &j->out, &wo);
        *sink = sdx_msgpack_writer_sink(&j->w.msgpack);
        *target = SDX_MAP_TARGET_MSGPACK_EXT;
        break;
    }
    case SDX_FORMAT_CBOR: {
        sdx_cbor_write_opts wo = {SDX_CBOR_WRITE_DEFINITE | (seq ? SDX_CBOR_WRITE_SEQUENCE : 0u) |
                                      (u8 ? SDX_CBOR_WRITE_NO_UTF8_CHECK : 0u),
                                  NULL};
        e = sdx_cbor_writer_init(&j->w.cbor, &j->out, &wo);
        *sink = sdx_cbor_writer_sink(&j->w.cbor);
        *target = SDX_MAP_TARGET_CBOR;
        break;
    }
    case SDX_FORMAT_BSON: {
        sdx_bson_write_opts wo = {0, NULL};
        if (seq) wo.flags |= SDX_BSON_WRITE_SEQUENCE;
        if (u8) wo.flags |= SDX_BSON_WRITE_NO_UTF8_CHECK;
        if (o->bigint_double) wo.flags |= SDX_BSON_WRITE_BIG_DOUBLE;
        if (o->root_wrap) wo.flags |= SDX_BSON_WRITE_WRAP_ROOT;
        e = sdx_bson_writer_init(&j->w.bson, &j->out, &wo);
        *sink = sdx_bson_writer_sink(&j->w.bson);
        *target = o->ejson == 2 ? 0 : SDX_MAP_TARGET_BSON;
        break;
    }
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: {
        sdx_ubjson_write_opts wo = {(j->dst_fmt == SDX_FORMAT_BJDATA ? SDX_UBJSON_WRITE_BJDATA : 0u) |
                                        (seq ? SDX_UBJSON_WRITE_SEQUENCE : 0u) |
                                        (u8 ? SDX_UBJSON_WRITE_NO_UTF8_CHECK : 0u),
                                    NULL};
        e = sdx_ubjson_writer_init(&j->w.ubjson, &j->out, &wo);
        *sink = sdx_ubjson_writer_sink(&j->w.ubjson);
        break;
    }
    case SDX_FORMAT_BINN: {
        sdx_binn_write_opts wo = {(seq ? SDX_BINN_WRITE_SEQUENCE : 0u) | (u8 ? SDX_BINN_WRITE_NO_UTF8_CHECK : 0u), NULL};
        e = sdx_binn_writer_init(&j->w.binn, &j->out, &wo);
        *sink = sdx_binn_writer_sink(&j->w.binn);
        *target = SDX_MAP_TARGET_BINN;
        break;
    }
    default: e = SDX_ERR_INVALID_ARG;
    }
    return e;
}

/* The conversion itself: no Python object touched (run without the GIL). */
static void cv_run(cv_job *j, const char *data, size_t len, const cv_opts *o) {
    j->code = SDX_OK;
    j->source_failed = 0;
    memset(&j->err, 0, sizeof j->err);
    sdx_buf_init(&j->out, NULL);
    j->reader = cv_reader(j, data, len, o);
    if (!j->reader) {
        j->code = SDX_ERR_NOMEM;
        return;
    }
    sdx_sink sink;
    uint32_t target;
    sdx_err e = cv_writer(j, o, &sink, &target);
    if (!e && j->dst_fmt == SDX_FORMAT_JSON) {
        /* tagged and special values get their JSON forms */
        sdx_map_opts mo = {0, 0, 0, NULL};
        if (o->tags == 1) mo.flags |= SDX_MAP_TAGS_DROP;
        if (o->tags == 2) mo.flags |= SDX_MAP_TAGS_WRAP;
        if (o->undefined_null) mo.flags |= SDX_MAP_UNDEFINED_NULL;
        if (o->ejson == 2) mo.flags |= SDX_MAP_EJSON_OFF;
        else if (o->ejson == 1) mo.flags |= SDX_MAP_EJSON_CANONICAL;
        else if (j->src_fmt == SDX_FORMAT_BSON) mo.flags |= SDX_MAP_EJSON_RELAXED;
        e = sdx_map_to_json_init(&j->to_json, sink, &mo);
        sink = sdx_map_to_json_sink(&j->to_json);
    } else if (!e && target && j->src_fmt == SDX_FORMAT_JSON) {
        /* JSON into a format with more types: big numbers, wrapped forms,
         * Extended JSON */
        sdx_map_opts mo = {o->tags == 2 ? SDX_MAP_TAGS_WRAP : 0u, target, 0, NULL};
        e = sdx_map_from_json_init(&j->from_json, sink, &mo);
        sink = sdx_map_from_json_sink(&j->from_json);
    }
    if (!e) e = sdx_transcode(j->src, sink, &j->err);
    if (e && sdx_source_error(j->src, NULL) != SDX_OK) {
        j->source_failed = 1;
        sdx_source_error(j->src, &j->err);
    }
    sdx_err f = sdx_sink_finish(sink);
    if (!e && f) {
        e = f;
        j->err.code = f;
        j->err.offset = (size_t)sdx_source_offset(j->src);
        j->err.msg = sdx_strerror(f);
    }
    j->code = e;
    cv_reader_free(j);
}

/* What to say about a value the target refused. */
static const char *cv_hint(sdx_err code, sp_format dst) {
    switch (code) {
    case SDX_ERR_UNSUPPORTED:
        return dst == SDX_FORMAT_JSON ? " (bin='base64' writes bytes as base64, tags='wrap' or 'drop' writes "
                                        "tagged values, undefined='null' CBOR's undefined)"
               : dst == SDX_FORMAT_BSON ? " (root='wrap' writes a root that is not a map as a document)"
                                        : "";
    case SDX_ERR_RANGE:
        return dst == SDX_FORMAT_JSON ? " (nan='null' writes NaN and infinities as null)"
                                      : " (bigint='double' writes the nearest double)";
    case SDX_ERR_KEY: return dst == SDX_FORMAT_JSON ? " (keys='stringify' writes such keys as strings)" : "";
    case SDX_ERR_UTF8: return " (utf8='replace' reads and writes it with U+FFFD)";
    default: return "";
    }
}

PyObject *sp_convert(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *data, *src = Py_None, *dst = NULL;
    if (!PyArg_ParseTuple(args, "O|OO:convert", &data, &src, &dst)) return NULL;
    PyObject *kw = NULL;
    if (kwargs && (kw = PyDict_Copy(kwargs)) == NULL) return NULL;
    if (kw) {
        PyObject *v;
        if (PyTuple_GET_SIZE(args) < 2 && (v = PyDict_GetItemString(kw, "src"))) src = v;
        if (PyTuple_GET_SIZE(args) < 3 && (v = PyDict_GetItemString(kw, "dst"))) dst = v;
        Py_INCREF(src);
        Py_XINCREF(dst);
        if (PyDict_GetItemString(kw, "src")) PyDict_DelItemString(kw, "src");
        if (PyDict_GetItemString(kw, "dst")) PyDict_DelItemString(kw, "dst");
    } else {
        Py_INCREF(src);
        Py_XINCREF(dst);
    }
    PyObject *result = NULL;
    cv_opts o;
    cv_job *j = NULL;
    sp_input in;
    int have_in = 0;
    sp_format sf, df;
    if (!dst) {
        PyErr_SetString(PyExc_TypeError, "convert() needs the target format dst");
        goto done;
    }
    if (sp_format_from_arg(src, &sf, 1) < 0 || sp_format_from_arg(dst, &df, 0) < 0 || cv_parse(kw, &o) < 0) goto done;
    if (sp_input_get(data, &in) < 0) goto done;
    have_in = 1;
    if (sf == SDX_FORMAT_UNKNOWN) {
        uint32_t flags = (o.seq ? SDX_DETECT_SEQUENCE : 0u) | (o.utf8_replace ? SDX_DETECT_NO_UTF8_CHECK : 0u);
        if (sdx_detect_format(in.data, (size_t)in.len, (uint64_t)in.len, flags, &sf, NULL) != SDX_OK) {
            PyErr_NoMemory();
            goto done;
        }
    }
    j = PyMem_Calloc(1, sizeof *j);
    if (!j) {
        PyErr_NoMemory();
        goto done;
    }
    j->src_fmt = sf;
    j->dst_fmt = df;
    Py_BEGIN_ALLOW_THREADS
    cv_run(j, in.data, (size_t)in.len, &o);
    Py_END_ALLOW_THREADS
    if (j->code == SDX_OK) {
        result = PyBytes_FromStringAndSize(sdx_buf_data(&j->out), (Py_ssize_t)sdx_buf_len(&j->out));
    } else if (j->code == SDX_ERR_NOMEM) {
        PyErr_NoMemory();
    } else if (j->source_failed) {
        sp_decode_error(sf, &j->err);
    } else {
        sp_encode_error(j->code, j->err.offset, "%s -> %s: a value at input byte %zu cannot be written as %s: %s%s",
                        sp_format_title(sf), sp_format_title(df), j->err.offset, sp_format_title(df),
                        sdx_strerror(j->code), cv_hint(j->code, df));
    }
    sdx_buf_destroy(&j->out);
done:
    PyMem_Free(j);
    if (have_in) sp_input_release(&in);
    Py_XDECREF(src);
    Py_XDECREF(dst);
    Py_XDECREF(kw);
    return result;
}
