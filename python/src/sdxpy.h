/*
 * sdx's Python binding: what the module's files share. The library itself
 * comes from the repository's amalgamation (sdx.h, sdx.c), generated into
 * the build directory by setup.py.
 */
#ifndef SDXPY_H
#define SDXPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#include "sdx.h"

/* The seven format names (sdx_format, detect.h, with BJData as UBJSON's
 * dialect). */
typedef sdx_format sp_format;

/* Kinds of Tagged values: the tag namespaces of common.h that a Python
 * value carries (UBJSON's container types are an encoding detail and are
 * dropped). */
enum sp_tag_kind {
    SP_TAG_MSGPACK = SDX_TAG_MSGPACK_EXT,
    SP_TAG_CBOR = SDX_TAG_CBOR,
    SP_TAG_BSON = SDX_TAG_BSON,
    SP_TAG_SIMPLE = SDX_TAG_CBOR_SIMPLE,
    SP_TAG_BINN = SDX_TAG_BINN
};

/* sdx.Tagged: a tagged value the Python types have no class for. */
typedef struct {
    PyObject_HEAD
    int kind;        /* sp_tag_kind */
    PyObject *tag;   /* int */
    PyObject *value; /* the tagged content */
    Py_hash_t hash;  /* -1 until computed */
} sp_tagged;

/* Module-wide objects, set once at import. */
typedef struct {
    PyObject *DecodeError, *EncodeError;
    PyTypeObject *Tagged;
    PyObject *UUID, *Decimal, *Enum;
    PyObject *utc;
    PyObject *s_bytes, *s_value, *s_int, *s_read, *s_write, *s_isoformat, *s_as_tuple;
    PyObject *s_utcoffset, *s_fromisoformat, *s_to_bytes, *s_from_bytes, *s_big;
    PyObject *fmt_names[SDX_FORMAT__COUNT]; /* interned, by sdx_format */
} sp_globals;

extern sp_globals sp;

/* Tagged values. */
PyObject *sp_tagged_new(int kind, PyObject *tag, PyObject *value); /* steals value */
PyObject *sp_tagged_new_u64(int kind, uint64_t tag, PyObject *value); /* steals value */
int sp_tagged_init_type(PyObject *module);
const char *sp_tag_kind_name(int kind);

/* Seconds since the epoch as a float (CBOR tag 1) to whole seconds and
 * microseconds, rounded as datetime.fromtimestamp rounds: the fraction
 * (exact) times 10^6, to nearest, ties to even. */
static inline void sp_epoch_split(double x, int64_t *sec, int64_t *usec) {
    double whole = floor(x);
    double us = nearbyint((x - whole) * 1e6);
    *sec = (int64_t)whole;
    *usec = (int64_t)us;
    if (*usec >= 1000000) {
        *usec -= 1000000;
        (*sec)++;
    }
}

/* Format names. */
int sp_format_from_arg(PyObject *arg, sp_format *f, int allow_none);
const char *sp_format_title(sp_format f);

/* Errors: DecodeError with the reader's error; EncodeError with a message. */
PyObject *sp_decode_error(sp_format f, const sdx_error *e);
PyObject *sp_decode_error_msg(sp_format f, sdx_err code, uint64_t offset, const char *fmt, ...);
PyObject *sp_encode_error(sdx_err code, uint64_t offset, const char *fmt, ...);
const char *sp_err_name(sdx_err code);

/* Options shared by the functions (module.c parses them). */
typedef struct {
    /* reading */
    int seq;              /* loads: a sequence, returned as a list */
    int utf8_replace;     /* strings that are not UTF-8: U+FFFD */
    int allow_nan;        /* JSON: NaN, Infinity, -Infinity */
    int comments;         /* JSON: comments */
    int trailing_commas;  /* JSON: trailing commas */
    uint32_t max_depth;   /* 0: the readers' default */
    /* writing */
    PyObject *default_fn; /* borrowed; NULL for none */
    int sort_keys;
    int indent;           /* JSON: -1 none, else 0..16 */
    int non_str_keys;     /* stringify keys a format does not allow */
    int nan_null;         /* JSON: NaN and infinities as null */
    int bin_base64;       /* JSON: bytes as base64 strings */
    int tags;             /* 0 error, 1 drop, 2 wrap: tagged values a format has no form for */
    int root_wrap;        /* BSON: a root that is not a dict */
} sp_opts;

/* The bytes of a loads/convert argument: bytes, bytearray, memoryview (any
 * C-contiguous buffer), or str (its UTF-8). */
typedef struct {
    Py_buffer view;
    int has_view;
    const char *data;
    Py_ssize_t len;
} sp_input;
int sp_input_get(PyObject *obj, sp_input *in);
void sp_input_release(sp_input *in);

/* Decoding (decode.c). */
PyObject *sp_loads(sp_format f, const char *data, size_t len, const sp_opts *o);
/* The iterator of sdx.iter_load (decode.c). */
extern PyTypeObject sp_iter_type;
PyObject *sp_iter_new(PyObject *fp, sp_format f, Py_ssize_t chunk, const sp_opts *o);

/* Encoding (encode.c). */
PyObject *sp_dumps(PyObject *obj, sp_format f, const sp_opts *o);
/* 1 (the default): dumps writes JSON and MessagePack of the core types
 * straight into its buffer; 0: through the writers alone (for the tests). */
extern int sp_direct_paths;
extern int sp_padded_loads; /* sp_loads reads small inputs from a padded copy */

/* Iterating a dict for dumps: PyDict_Next, or on CPython 3.11 and 3.12
 * for a dict with a combined table (every dict but instances' split
 * __dict__) its entries read in place, without a call per entry. The
 * layout is that of CPython's Include/internal/pycore_dict.h in those
 * versions (struct _dictkeysobject, PyDictKeyEntry, PyDictUnicodeEntry:
 * the entries follow the index table of 2^dk_log2_index_bytes bytes; a
 * deleted entry has a NULL value); sp_dict_check() compares it with
 * PyDict_Next at import and leaves sp_dict_direct 0 when they differ. The
 * positions are PyDict_Next's (the entry index), so a loop may mix the
 * two; as with PyDict_Next, a dict changed during the loop is detected by
 * the caller (its size). */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000 && !defined(Py_LIMITED_API) && \
    !defined(Py_GIL_DISABLED)
#define SP_DICT_DIRECT 1
typedef struct {
    Py_ssize_t refcnt;
    uint8_t log2_size;
    uint8_t log2_index_bytes;
    uint8_t kind; /* 0 general (PyDictKeyEntry), 1 unicode, 2 split */
    uint32_t version;
    Py_ssize_t usable;
    Py_ssize_t nentries;
    char indices[];
} sp_dict_keys;
typedef struct {
    Py_hash_t hash;
    PyObject *key, *value;
} sp_dict_entry;
typedef struct {
    PyObject *key, *value;
} sp_dict_uentry;
#endif
extern int sp_dict_direct;
int sp_dict_check(void);

static inline int sp_dict_next(PyObject *o, Py_ssize_t *pos, PyObject **k, PyObject **v) {
#ifdef SP_DICT_DIRECT
    const PyDictObject *mp = (const PyDictObject *)o;
    if (sp_dict_direct && mp->ma_values == NULL) {
        const sp_dict_keys *dk = (const sp_dict_keys *)(const void *)mp->ma_keys;
        const char *entries = dk->indices + ((size_t)1 << dk->log2_index_bytes);
        Py_ssize_t i = *pos, n = dk->nentries;
        if (dk->kind == 0) {
            const sp_dict_entry *e = (const sp_dict_entry *)(const void *)entries;
            while (i < n && !e[i].value) i++;
            if (i >= n) return 0;
            *k = e[i].key;
            *v = e[i].value;
        } else {
            const sp_dict_uentry *e = (const sp_dict_uentry *)(const void *)entries;
            while (i < n && !e[i].value) i++;
            if (i >= n) return 0;
            *k = e[i].key;
            *v = e[i].value;
        }
        *pos = i + 1;
        return 1;
    }
#endif
    return PyDict_Next(o, pos, k, v);
}

/* Converting (convert.c); the mapping options are parsed there. */
PyObject *sp_convert(PyObject *self, PyObject *args, PyObject *kwargs);

/* The key cache of the decoders (decode.c). */
void sp_key_cache_clear(void);

/* datetime's C API is a static variable of each file that includes
 * datetime.h: each file imports it (0, or -1 with an exception). */
int sp_decode_init(void);
int sp_encode_init(void);

#endif /* SDXPY_H */
