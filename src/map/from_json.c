/*
 * The from-JSON mapping layer (map.h): events of a JSON reader in, the
 * target format's types out — big numbers as CBOR integers, bignums and
 * decimal fractions, and the wrapped forms of the to-JSON layer read back.
 */
#include <string.h>

#include "binn/binn_internal.h"
#include "core/base64.h"
#include "map/map_internal.h"

static sdx_err emit(sdx_map_from_json *m, const sdx_event *ev) { return sdx_map_from_json_send(m, m->out, ev); }

/* Send an item's first event with the tags read for it: the innermost on
 * the event itself when it has none, the others before it as SDX_TAG
 * events, outermost first (common.h). */
static sdx_err send_item(sdx_map_from_json *m, const sdx_event *ev) {
    sdx_event e = *ev;
    uint32_t n = m->ntags, before = n;
    /* {"$tag":N,...} is a Binn type for a Binn target, else a CBOR tag. */
    uint8_t kind = m->target & SDX_MAP_TARGET_BINN ? SDX_TAG_BINN : SDX_TAG_CBOR;
    if (n && e.tag_kind == SDX_TAG_NONE) {
        before = n - 1;
        e.tag_kind = kind;
        e.tag = m->tags[n - 1];
    }
    for (uint32_t i = 0; i < before; i++) {
        sdx_event t = sdx_map_event(SDX_TAG);
        t.tag_kind = kind;
        t.tag = m->tags[i];
        emit(m, &t);
    }
    m->ntags = 0;
    return emit(m, &e);
}

/* An item completed at the current depth: if it is the value of a
 * {"$tag":N,"$value":V} map, that map's end is due next. */
static void item_done(sdx_map_from_json *m) {
    if (m->ncloses && m->closes[m->ncloses - 1] >> 1 == m->depth) m->closes[m->ncloses - 1] |= 1;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

/* The integer given by its sign and decimal digits d[0, n) as an event:
 * SDX_INT, SDX_UINT, SDX_NINT (-2^64 .. -2^63 - 1), or a bignum (SDX_BIN
 * tagged CBOR 2 / 3, RFC 8949 §3.4.3) whose bytes are in m->text. False
 * after an error. */
static bool integer_event(sdx_map_from_json *m, bool neg, const char *d, size_t n, sdx_event *out) {
    while (n > 1 && *d == '0') {
        d++;
        n--;
    }
    if (n > m->max_digits) return sdx_map_from_json_fail(m, SDX_ERR_LIMIT), false;
    size_t limbs = sdx_big_limbs_for_digits(n);
    sdx_big b = {sdx_map_scratch_get(&m->limbs, &m->alloc, limbs * 4), 0};
    if (!b.limb) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM), false;
    sdx_big_from_dec(&b, d, n);
    /* A negative value is -1 - n (CBOR major type 1 and tag 3 store n). */
    if (neg && b.n == 0) neg = false; /* "-0" */
    if (neg) sdx_big_sub_one(&b);
    uint64_t v;
    if (sdx_big_to_u64(&b, &v)) {
        if (!neg && v <= INT64_MAX) {
            *out = sdx_map_event(SDX_INT);
            out->v.i = (int64_t)v;
        } else if (!neg) {
            *out = sdx_map_event(SDX_UINT);
            out->v.u = v;
        } else if (v <= INT64_MAX) {
            *out = sdx_map_event(SDX_INT);
            out->v.i = -1 - (int64_t)v;
        } else {
            *out = sdx_map_event(SDX_NINT);
            out->v.u = v;
        }
        return true;
    }
    uint8_t *bytes = sdx_map_scratch_get(&m->text, &m->alloc, b.n * 4);
    if (!bytes) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM), false;
    *out = sdx_map_event(SDX_BIN);
    out->tag_kind = SDX_TAG_CBOR;
    out->tag = neg ? 3 : 2;
    out->v.str.ptr = (const char *)bytes;
    out->v.str.len = sdx_big_to_be(&b, bytes);
    return true;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number kept as text (SDX_RAW) for a CBOR target: an integer as above,
 * anything else as the decimal fraction 4([e, m]) (RFC 8949 §3.4.4) that
 * is exactly its value. Text outside the JSON number grammar is sent on
 * unchanged (the target decides). */
static sdx_err raw_number(sdx_map_from_json *m, const sdx_event *ev) {
    const char *p = ev->v.str.ptr, *end = p + ev->v.str.len;
    bool neg = p < end && *p == '-';
    p += neg;
    const char *int0 = p;
    while (p < end && is_digit(*p)) p++;
    const char *int1 = p, *frac0 = p, *frac1 = p;
    if (p < end && *p == '.') {
        frac0 = ++p;
        while (p < end && is_digit(*p)) p++;
        frac1 = p;
        if (frac1 == frac0) goto unchanged;
    }
    bool eneg = false;
    uint64_t emag = 0;
    bool has_exp = p < end && (*p == 'e' || *p == 'E');
    if (has_exp) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p == end) goto unchanged;
        for (; p < end && is_digit(*p); p++) {
            if (emag > (UINT64_MAX - 9) / 10) return sdx_map_from_json_fail(m, SDX_ERR_RANGE);
            emag = emag * 10 + (uint64_t)(*p - '0');
        }
    }
    if (p != end || int1 == int0) goto unchanged;
    sdx_event num;
    if (frac0 == frac1 && !has_exp) {
        if (!integer_event(m, neg, int0, (size_t)(int1 - int0), &num)) return m->err;
        if (send_item(m, &num)) return m->err;
        item_done(m);
        return SDX_OK;
    }
    /* m = the digits before and after the point; e = exponent - fraction
     * digits, which must fit int64 (the tag's exponent is an integer). */
    size_t ni = (size_t)(int1 - int0), nf = (size_t)(frac1 - frac0);
    if (emag > INT64_MAX || nf > INT64_MAX / 2) return sdx_map_from_json_fail(m, SDX_ERR_RANGE);
    int64_t e = eneg ? -(int64_t)emag : (int64_t)emag;
    if (e < INT64_MIN + (int64_t)nf) return sdx_map_from_json_fail(m, SDX_ERR_RANGE);
    e -= (int64_t)nf;
    if (ni + nf > m->max_digits + (size_t)1) {
        /* leading zeros do not count: "0.000...01" */
        const char *q = int0;
        size_t zeros = 0;
        for (; q < int1 && *q == '0'; q++) zeros++;
        if (q == int1)
            for (q = frac0; q < frac1 && *q == '0'; q++) zeros++;
        if (ni + nf - zeros > m->max_digits) return sdx_map_from_json_fail(m, SDX_ERR_LIMIT);
    }
    char *digits = sdx_map_scratch_get(&m->strs, &m->alloc, ni + nf + 1);
    if (!digits) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    memcpy(digits, int0, ni);
    memcpy(digits + ni, frac0, nf);
    if (!integer_event(m, neg, digits, ni + nf, &num)) return m->err;
    sdx_event arr = sdx_map_event(SDX_ARRAY), exp = sdx_map_event(SDX_INT), end_ev = sdx_map_event(SDX_END);
    arr.tag_kind = SDX_TAG_CBOR;
    arr.tag = 4;
    arr.v.count = 2;
    exp.v.i = e;
    if (send_item(m, &arr) || emit(m, &exp) || emit(m, &num) || emit(m, &end_ev)) return m->err;
    item_done(m);
    return SDX_OK;
unchanged:
    if (send_item(m, ev)) return m->err;
    item_done(m);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Passing events on                                                         */
/* ------------------------------------------------------------------------ */

static sdx_err pass(sdx_map_from_json *m, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_RAW:
        if (m->target & SDX_MAP_TARGET_CBOR) return raw_number(m, ev);
        break;
    case SDX_KEY: return emit(m, ev);
    case SDX_END:
        if (emit(m, ev)) return m->err;
        if (m->depth) m->depth--;
        item_done(m);
        return SDX_OK;
    case SDX_ARRAY:
    case SDX_MAP:
        if (send_item(m, ev)) return m->err;
        m->depth++;
        return SDX_OK;
    default: break;
    }
    if (send_item(m, ev)) return m->err;
    item_done(m);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Recognizing the wrapped forms                                             */
/* ------------------------------------------------------------------------ */

enum { FORM_NONE, FORM_TAG, FORM_SIMPLE, FORM_EXT };

static bool key_is(const sdx_event *ev, const char *s) {
    size_t n = strlen(s);
    return ev->kind == SDX_KEY && ev->v.str.len == n && memcmp(ev->v.str.ptr, s, n) == 0;
}

/* The map held so far is no wrapped form: send its events on as they
 * were. */
static sdx_err release(sdx_map_from_json *m) {
    sdx_event held[6];
    uint32_t n = m->nheld;
    memcpy(held, m->held, n * sizeof *held);
    m->nheld = 0;
    m->form = FORM_NONE;
    for (uint32_t i = 0; i < n; i++)
        if (pass(m, &held[i])) return m->err;
    return SDX_OK;
}

static bool count_is(const sdx_event *map, uint64_t n) {
    return map->v.count == n || map->v.count == SDX_COUNT_UNKNOWN;
}

/* Hold one more event of a map that may be a wrapped form; act when it is
 * complete, release it when it cannot be one. */
static sdx_err hold(sdx_map_from_json *m, const sdx_event *ev) {
    const sdx_event *map = &m->held[0];
    bool cbor = m->target & SDX_MAP_TARGET_CBOR, ext = m->target & SDX_MAP_TARGET_MSGPACK_EXT;
    bool binn = m->target & SDX_MAP_TARGET_BINN;
    bool untagged = ev->tag_kind == SDX_TAG_NONE;
    sdx_event keep = *ev;
    switch (m->nheld) {
    case 1:
        if ((cbor || binn) && count_is(map, 2) && key_is(ev, "$tag")) {
            m->form = FORM_TAG;
            keep.v.str.ptr = "$tag";
        } else if (cbor && count_is(map, 1) && key_is(ev, "$simple")) {
            m->form = FORM_SIMPLE;
            keep.v.str.ptr = "$simple";
        } else if (ext && count_is(map, 2) && key_is(ev, "$ext")) {
            m->form = FORM_EXT;
            keep.v.str.ptr = "$ext";
        } else {
            goto mismatch;
        }
        break;
    case 2: {
        bool ok = false;
        if (untagged && m->form == FORM_TAG) ok = ev->kind == SDX_UINT || (ev->kind == SDX_INT && ev->v.i >= 0);
        if (ok && binn) ok = ev->kind == SDX_INT && ev->v.i <= 0xffff && sdx_binn_type_valid((uint32_t)ev->v.i);
        if (untagged && m->form == FORM_SIMPLE)
            ok = ev->kind == SDX_INT && ((ev->v.i >= 0 && ev->v.i <= 19) || ev->v.i == 23 ||
                                         (ev->v.i >= 32 && ev->v.i <= 255));
        if (untagged && m->form == FORM_EXT) ok = ev->kind == SDX_INT && ev->v.i >= -128 && ev->v.i <= 127;
        if (!ok) goto mismatch;
        break;
    }
    case 3:
        if (m->form == FORM_TAG && key_is(ev, "$value")) {
            if (m->ntags == SDX_MAP_MAX_TAGS) return sdx_map_from_json_fail(m, SDX_ERR_LIMIT);
            if (m->ncloses == m->capcloses) {
                size_t cap = m->capcloses ? m->capcloses * 2 : 8;
                void *p = m->closes ? m->alloc.realloc(m->alloc.ctx, m->closes, m->capcloses * sizeof *m->closes,
                                                       cap * sizeof *m->closes)
                                    : m->alloc.malloc(m->alloc.ctx, cap * sizeof *m->closes);
                if (!p) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
                m->closes = p;
                m->capcloses = cap;
            }
            m->tags[m->ntags++] = m->held[2].v.u; /* INT >= 0 and UINT alike */
            m->nheld = 0;
            m->form = FORM_NONE;
            m->depth++;
            m->closes[m->ncloses++] = m->depth << 1;
            return SDX_OK;
        }
        if (m->form == FORM_SIMPLE && ev->kind == SDX_END) {
            sdx_event s = sdx_map_event(SDX_NULL);
            s.tag_kind = SDX_TAG_CBOR_SIMPLE;
            s.tag = (uint64_t)m->held[2].v.i;
            m->nheld = 0;
            m->form = FORM_NONE;
            if (send_item(m, &s)) return m->err;
            item_done(m);
            return SDX_OK;
        }
        if (m->form == FORM_EXT && key_is(ev, "$data")) {
            keep.v.str.ptr = "$data";
            break;
        }
        goto mismatch;
    case 4: {
        if (m->form != FORM_EXT || ev->kind != SDX_STR || !untagged) goto mismatch;
        /* the text (kept for a release) and room to decode it after it */
        size_t n = ev->v.str.len;
        if (n > SIZE_MAX / 2 - 8) goto mismatch;
        char *copy = sdx_map_scratch_get(&m->strs, &m->alloc, n + n / 4 * 3 + 8);
        if (!copy) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
        if (n) memcpy(copy, ev->v.str.ptr, n);
        keep.v.str.ptr = copy;
        break;
    }
    case 5: {
        if (ev->kind != SDX_END) goto mismatch;
        const sdx_event *data = &m->held[4];
        char *bytes = m->strs.ptr + data->v.str.len;
        size_t len = sdx_base64_decode(bytes, data->v.str.ptr, data->v.str.len);
        if (len == SIZE_MAX) goto mismatch;
        sdx_event x = sdx_map_event(SDX_BIN);
        x.tag_kind = SDX_TAG_MSGPACK_EXT;
        x.tag = (uint64_t)m->held[2].v.i;
        x.v.str.ptr = bytes;
        x.v.str.len = len;
        m->nheld = 0;
        m->form = FORM_NONE;
        if (send_item(m, &x)) return m->err;
        item_done(m);
        return SDX_OK;
    }
    default: goto mismatch;
    }
    m->held[m->nheld++] = keep;
    return SDX_OK;
mismatch:
    if (release(m)) return m->err;
    return sdx_map_from_json_put(m, ev);
}

/* ------------------------------------------------------------------------ */
/* The API                                                                   */
/* ------------------------------------------------------------------------ */

sdx_err sdx_map_from_json_init(sdx_map_from_json *m, sdx_sink out, const sdx_map_opts *opts) {
    static const sdx_map_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    memset(m, 0, sizeof *m);
    m->out = out;
    m->flags = opts->flags;
    m->target = opts->target;
    m->max_digits = opts->max_digits ? opts->max_digits : SDX_MAP_DEFAULT_MAX_DIGITS;
    m->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    const uint32_t targets = SDX_MAP_TARGET_CBOR | SDX_MAP_TARGET_MSGPACK_EXT | SDX_MAP_TARGET_BSON |
                             SDX_MAP_TARGET_BINN;
    bool bson_mixed = (opts->target & SDX_MAP_TARGET_BSON) && (opts->target & ~(uint32_t)SDX_MAP_TARGET_BSON);
    if (!sdx_map_flags_ok(opts->flags) || (opts->target & ~targets) || bson_mixed ||
        opts->max_digits > SDX_MAP_MAX_DIGITS_CAP)
        return sdx_map_from_json_fail(m, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

sdx_err sdx_map_from_json_put(sdx_map_from_json *m, const sdx_event *ev) {
    if (m->err) return m->err;
    if (m->target & SDX_MAP_TARGET_BSON) return sdx_map_ejson_put(m, ev);
    if (m->ncloses && (m->closes[m->ncloses - 1] & 1)) {
        /* the end of a {"$tag":N,"$value":V} map: it was never sent */
        if (ev->kind != SDX_END) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
        m->ncloses--;
        m->depth--;
        item_done(m);
        return SDX_OK;
    }
    if (m->nheld) return hold(m, ev);
    if (ev->kind == SDX_MAP && (m->flags & SDX_MAP_TAGS_WRAP) && m->target) {
        m->held[0] = *ev;
        m->nheld = 1;
        return SDX_OK;
    }
    return pass(m, ev);
}

sdx_err sdx_map_from_json_finish(sdx_map_from_json *m) {
    if (!m->err && m->nheld) release(m);
    if (m->target & SDX_MAP_TARGET_BSON) sdx_map_ejson_finish(m);
    sdx_err e = sdx_sink_finish(m->out);
    if (e && !m->err) m->err = e;
    sdx_map_scratch_free(&m->strs, &m->alloc);
    sdx_map_scratch_free(&m->text, &m->alloc);
    sdx_map_scratch_free(&m->limbs, &m->alloc);
    if (m->closes) m->alloc.free(m->alloc.ctx, m->closes);
    m->closes = NULL;
    m->ncloses = m->capcloses = 0;
    m->nheld = 0;
    m->ntags = 0;
    return m->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) { return sdx_map_from_json_put(ctx, ev); }
static sdx_err sink_finish(void *ctx) { return sdx_map_from_json_finish(ctx); }
static const sdx_sink_vt from_json_vt = {sink_put, sink_finish};

sdx_sink sdx_map_from_json_sink(sdx_map_from_json *m) {
    sdx_sink s = {&from_json_vt, m};
    return s;
}
