/*
 * The JSON direct path's walk (encode.c's jd_*): str, keys, the scalars in
 * the containers' loops, dicts and sequences, and the rest. Included by
 * encode.c twice, with
 *   JD(name)         the function name of this copy
 *   JD_SHORT_AVX512  defined for the copy compiled for AVX-512 (F, BW, VL,
 *                    BMI2: a target region around the include), taken
 *                    when the library's kernels are AVX-512's
 * Both write the same bytes; tests/python/run.sh runs test_direct.py with
 * SDX_SIMD=avx2 too, for the copy without AVX-512 on a machine that has it.
 *
 * The copy for AVX-512 writes a str of up to 32 bytes with one masked load
 * and store and its escape test here, in the walk, instead of a call of the
 * escape kernel through its pointer: 0.81 of the time on a list of 18,880
 * short str, 0.98 on twitter (bench/README.md, "Update, 2026-12-06,
 * later"), with src/simd/short_copy.h's sdx_json_escape_copy32_avx512,
 * which reads exactly s[0, n) and writes exactly p[0, n).
 */

static char *JD(value)(jd_ctx *j, char *p, PyObject *o, int depth);

/* A str at p, quoted, followed by ':' for a key. */
static SDX_ALWAYS_INLINE char *JD(str)(jd_ctx *j, char *p, PyObject *o, int key) {
    const char *s;
    Py_ssize_t n;
    if (SDX_UNLIKELY(enc_utf8(o, &s, &n) < 0)) {
        jd_sync_error(j, p);
        enc_str_error(j->c, o);
        return NULL;
    }
    JD_NEED(p, (size_t)n + 4, o, fail);
    *p++ = '"';
    size_t k;
#ifdef JD_SHORT_AVX512
    k = (size_t)n <= 32 ? sdx_json_escape_copy32_avx512(p, s, (size_t)n) : j->escape_copy(p, s, (size_t)n, 0);
#else
    k = j->escape_copy(p, s, (size_t)n, 0);
#endif
    if (SDX_UNLIKELY(k != (size_t)n)) return jd_escaped(j, p, s, (size_t)n, k, key, o);
    p += n;
    p[0] = '"';
    p[1] = ':';
    return p + 1 + key;
fail:
    return NULL;
}

/* A key that missed its slot twice running: written as any str, and
 * cached when its text fits and the buffer was not moved to make room for
 * it (which an escaped key may need). */
static SDX_NOINLINE char *JD(key_admit)(jd_ctx *j, char *p, PyObject *k, size_t i) {
    const uintptr_t start = (uintptr_t)j->b->start;
    char *q = JD(str)(j, p, k, 1);
    if (q && (uintptr_t)j->b->start == start && q - p <= JK_TEXT) {
        PyObject *old = jk_obj[i];
        jk_obj[i] = Py_NewRef(k);
        jk_len[i] = (uint8_t)(q - p);
        memcpy(jk_text[i], p, (size_t)(q - p)); /* a hit copies the rest too, past the output */
        Py_XDECREF(old); /* a str: its deallocation runs no Python code */
    }
    return q;
}

/* An exact str key at p, where JD_ROOM - 1 bytes are free: its text and
 * colon. */
static SDX_ALWAYS_INLINE char *JD(key)(jd_ctx *j, char *p, PyObject *k) {
    const size_t i = (size_t)((uint64_t)(uintptr_t)k * UINT64_C(0x9e3779b97f4a7c15) >> (64 - JK_BITS));
    if (SDX_LIKELY(jk_obj[i] == k)) {
        memcpy(p, jk_text[i], JK_TEXT);
        return p + jk_len[i];
    }
    if (jk_seen[i] != (uintptr_t)k) { /* a key met once costs this store */
        jk_seen[i] = (uintptr_t)k;
        return JD(str)(j, p, k, 1);
    }
    return JD(key_admit)(j, p, k, i);
}

/* An element or a dict's value (or the top-level value) at p, where JD_ROOM
 * bytes are free: the commonest scalars here, in the container's loop, the
 * rest (and what these leave: integers beyond a machine word, non-finite
 * floats) by JD(value), as md_item does for MessagePack. A call of the
 * value function per value cost its prologue, which saves the registers
 * its container paths need: with the scalars in the loop, a list of 18,880
 * short str takes 0.86 of the time and twitter 0.93 (bench/README.md,
 * "Update, 2026-12-06, later"). */
static SDX_ALWAYS_INLINE char *JD(item)(jd_ctx *j, char *p, PyObject *o, int depth) {
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyUnicode_Type) return JD(str)(j, p, o, 0);
    if (t == &PyLong_Type) {
        long long v;
        if (SDX_LIKELY(jd_compact_int(o, &v))) return sdx_i64_to_dec(p, v);
    } else if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(o);
        if (SDX_LIKELY(isfinite(d))) return sdx_dtoa_json(p, d);
    } else if (o == Py_None) {
        memcpy(p, "null", 4);
        return p + 4;
    } else if (o == Py_True) {
        memcpy(p, "true", 4);
        return p + 4;
    } else if (o == Py_False) {
        memcpy(p, "false", 5);
        return p + 5;
    }
    return JD(value)(j, p, o, depth);
}

/* direct_tmpl.h's DW(other), which JSON's DW_TOO_LONG never takes */
static SDX_ALWAYS_INLINE char *JD(other)(jd_ctx *j, char *p, PyObject *o, int depth) {
    return jd_via_writer(j, p, o, depth);
}

/* JD(dict) and JD(seq) */
#define DW(name) JD(name)
#define DW_CTX jd_ctx
#define DW_ROOM JD_ROOM
#define DW_GROW(j, p, n, o) jd_grow(j, p, n, o)
#define DW_SYNC(j, p) jd_sync_error(j, p)
#define DW_TOO_LONG(n) 0
#define DW_MAP_BEGIN(p, n) (*(p)++ = '{')
#define DW_SEQ_BEGIN(p, n) (*(p)++ = '[')
#define DW_MAP_END(p, o, fail)     \
    do {                           \
        DW_NEED(p, 1, o, fail);    \
        *(p)++ = '}';              \
    } while (0)
#define DW_SEQ_END(p, o, fail)     \
    do {                           \
        DW_NEED(p, 1, o, fail);    \
        *(p)++ = ']';              \
    } while (0)
#define DW_SEP(p, i) (*(p) = ',', (p) += (i) != 0)
#define DW_KEY(j, p, k, d) JD(key)(j, p, k)
#define DW_KEY_OTHER(j, p, k, d) jd_key_other(j, p, k, d)
#define DW_ITEM(j, p, v, d) JD(item)(j, p, v, d)
#include "direct_tmpl.h"

/* A value JD(item) did not write, at p, where JD_ROOM bytes are free: its
 * end, or NULL with the error raised. The exact types in the order of
 * enc_tmpl.h's value. */
static char *JD(value)(jd_ctx *j, char *p, PyObject *o, int depth) {
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyLong_Type) { /* not compact */
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow) return sdx_i64_to_dec(p, v);
        return jd_via_writer(j, p, o, depth); /* beyond 64 bits: the writer's forms */
    }
    if (t == &PyDict_Type) return JD(dict)(j, p, o, depth);
    if (t == &PyList_Type || t == &PyTuple_Type) return JD(seq)(j, p, o, depth);
    /* subclasses of dict, list and tuple are walked as those are (json_other
     * does the same, after Tagged, which is neither) */
    if (PyDict_Check(o) && !PyObject_TypeCheck(o, sp.Tagged)) return JD(dict)(j, p, o, depth);
    if ((PyList_Check(o) || PyTuple_Check(o)) && !PyObject_TypeCheck(o, sp.Tagged)) return JD(seq)(j, p, o, depth);
    return jd_via_writer(j, p, o, depth); /* non-finite floats too: nan= decides */
}

/* The document at p, where JD_ROOM bytes are free: its end, or NULL with
 * the error raised (the entry from jd_dumps, which is not compiled for
 * AVX-512 and so cannot inline JD(item) of that copy). */
static SDX_NOINLINE char *JD(top)(jd_ctx *j, char *p, PyObject *o) {
    return JD(item)(j, p, o, 0);
}
