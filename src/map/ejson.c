/*
 * MongoDB Extended JSON v2 read into BSON-tagged events (map.h, the
 * from-JSON layer with SDX_MAP_TARGET_BSON), and helpers both directions
 * share.
 *
 * The format is the one of the Extended JSON specification
 * (mongodb/specifications, source/extended-json/extended-json.md): a BSON
 * type JSON lacks is a "type wrapper", a map whose keys are keywords
 * ({"$oid": "..."}, {"$binary": {"base64": ..., "subType": ...}}, ...),
 * in canonical or relaxed mode, plus the legacy forms the specification
 * still asks parsers to accept ({"$binary": "...", "$type": "..."},
 * {"$regex": "...", "$options": "..."}, {"$date": "ISO-8601"}, {"$uuid"}).
 *
 * How: a map whose first key is one of the keywords is held whole (its
 * events, strings copied into an arena) until it closes, so that its keys
 * may come in any order. Then the held events are walked without
 * recursion: each map that begins with a keyword is read as a wrapper and
 * replaced by one tagged event (bson.h's table); one that is no wrapper
 * after all (the query operators {"$regex": {...}} and {"$type": ...}) is
 * sent on as a plain map, its contents walked the same way. A wrapper with
 * the wrong keys or value types is SDX_ERR_SYNTAX. A $scope document is
 * encoded with the BSON writer into scratch memory and sent inside the
 * tagged code with scope; that is the one recursion, bounded by
 * SDX_BSON_MAX_SCOPE_NESTING (SDX_ERR_DEPTH beyond it).
 */
#include <math.h>
#include <string.h>

#include "core/base64.h"
#include "map/map_internal.h"
#include "num/num.h"
#include "sdx/bson.h"

/* ------------------------------------------------------------------------ */
/* Shared helpers                                                            */
/* ------------------------------------------------------------------------ */

bool sdx_map_flags_ok(uint32_t flags) {
    const uint32_t known = SDX_MAP_TAGS_DROP | SDX_MAP_TAGS_WRAP | SDX_MAP_UNDEFINED_NULL | SDX_MAP_EJSON_RELAXED |
                           SDX_MAP_EJSON_CANONICAL | SDX_MAP_EJSON_OFF;
    uint32_t ejson = flags & (SDX_MAP_EJSON_RELAXED | SDX_MAP_EJSON_CANONICAL | SDX_MAP_EJSON_OFF);
    if (flags & ~known) return false;
    if ((flags & SDX_MAP_TAGS_DROP) && (flags & SDX_MAP_TAGS_WRAP)) return false;
    return (ejson & (ejson - 1)) == 0;
}

void sdx_map_sort_bytes(char *dst, const char *src, size_t n) {
    size_t count[256] = {0};
    for (size_t i = 0; i < n; i++) count[(uint8_t)src[i]]++;
    for (unsigned c = 0; c < 256; c++)
        for (size_t k = 0; k < count[c]; k++) *dst++ = (char)c;
}

/* ------------------------------------------------------------------------ */
/* Holding a candidate map                                                   */
/* ------------------------------------------------------------------------ */

static bool has_text(const sdx_event *e) {
    return e->kind == SDX_STR || e->kind == SDX_KEY || e->kind == SDX_BIN || e->kind == SDX_RAW;
}

/* The keywords that make a map a candidate when they come first. */
static bool is_keyword(const sdx_event *key) {
    static const char *const words[] = {"$oid",           "$symbol",  "$numberInt",        "$numberLong",
                                        "$numberDouble",  "$numberDecimal", "$binary",    "$type",
                                        "$uuid",          "$code",    "$scope",            "$timestamp",
                                        "$regularExpression", "$regex", "$options",        "$dbPointer",
                                        "$date",          "$minKey",  "$maxKey",           "$undefined"};
    if (key->kind != SDX_KEY || key->v.str.len < 2 || key->v.str.ptr[0] != '$') return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == key->v.str.len && memcmp(words[i], key->v.str.ptr, key->v.str.len) == 0) return true;
    return false;
}

/* Append one event to the held ones; its text is copied into the arena and
 * its offset kept in `tag` until the walk (events from a JSON reader carry
 * no tags; a tagged one here is SDX_ERR_USAGE). */
static sdx_err append(sdx_map_from_json *m, const sdx_event *ev) {
    if (ev->tag_kind != SDX_TAG_NONE) return sdx_map_from_json_fail(m, SDX_ERR_USAGE);
    if (m->nevs == m->capevs) {
        size_t cap = m->capevs ? m->capevs * 2 : 16;
        if (cap > SIZE_MAX / sizeof *m->evs) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
        void *p = m->evs ? m->alloc.realloc(m->alloc.ctx, m->evs, m->capevs * sizeof *m->evs, cap * sizeof *m->evs)
                         : m->alloc.malloc(m->alloc.ctx, cap * sizeof *m->evs);
        if (!p) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
        m->evs = p;
        m->capevs = cap;
    }
    sdx_event e = *ev;
    if (has_text(ev)) {
        size_t n = ev->v.str.len;
        if (n > SIZE_MAX - 1 - m->arena_len) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
        char *a = sdx_map_scratch_get(&m->arena, &m->alloc, m->arena_len + n + 1);
        if (!a) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
        if (n) memcpy(a + m->arena_len, ev->v.str.ptr, n);
        e.tag = m->arena_len;
        e.v.str.ptr = NULL;
        m->arena_len += n + 1;
    }
    m->evs[m->nevs++] = e;
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Reading the values of wrappers                                            */
/* ------------------------------------------------------------------------ */

/* The held events with their text resolved, and for each map or array the
 * index of its END. */
typedef struct walk {
    sdx_event *ev;
    size_t *end;
} walk;

/* One entry of a map: its key and its value's first and last event. */
typedef struct entry {
    const sdx_event *key;
    size_t at, last;
} entry;

#define MAX_ENTRIES 4

/* The entries of the map at index i (up to MAX_ENTRIES; the count of all in
 * *total). */
static size_t entries(const walk *w, size_t i, entry *out, size_t *total) {
    size_t n = 0, k = i + 1, stop = w->end[i];
    *total = 0;
    while (k < stop) {
        size_t v = k + 1;
        size_t last = (w->ev[v].kind == SDX_MAP || w->ev[v].kind == SDX_ARRAY) ? w->end[v] : v;
        if (n < MAX_ENTRIES) out[n++] = (entry){&w->ev[k], v, last};
        (*total)++;
        k = last + 1;
    }
    return n;
}

static bool key_eq(const sdx_event *key, const char *s) {
    size_t n = strlen(s);
    return key->v.str.len == n && memcmp(key->v.str.ptr, s, n) == 0;
}

/* The entry keyed `s`, or NULL. */
static const entry *find(const entry *es, size_t n, const char *s) {
    for (size_t i = 0; i < n; i++)
        if (key_eq(es[i].key, s)) return &es[i];
    return NULL;
}

/* The value of an entry when it is a string, else NULL. */
static const sdx_event *str_of(const walk *w, const entry *e) {
    return e && w->ev[e->at].kind == SDX_STR ? &w->ev[e->at] : NULL;
}

/* A map value with exactly the keys a and b (in any order): their entries
 * in *ea, *eb. */
static bool two_keys(const walk *w, const entry *e, const char *a, const char *b, entry *ea, entry *eb) {
    if (!e || w->ev[e->at].kind != SDX_MAP) return false;
    entry es[MAX_ENTRIES];
    size_t total, n = entries(w, e->at, es, &total);
    const entry *x = find(es, n, a), *y = find(es, n, b);
    if (total != 2 || !x || !y) return false;
    *ea = *x;
    *eb = *y;
    return true;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* n bytes from 2n hex digits. */
static bool unhex(uint8_t *dst, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        dst[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

/* A decimal integer, "-"? digits, within [lo, hi]. */
static bool parse_int(const sdx_event *s, int64_t lo, int64_t hi, int64_t *out) {
    const char *p = s->v.str.ptr, *end = p + s->v.str.len;
    bool neg = p < end && *p == '-';
    p += neg;
    if (p == end || end - p > 19) return false;
    uint64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (uint64_t)(*p - '0'); /* at most 19 digits: no overflow */
    }
    uint64_t limit = neg ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)hi;
    if (v > limit) return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* $numberDouble's text: "Infinity", "-Infinity", "NaN" or a decimal
 * number, whole. */
static bool parse_double(const sdx_event *s, double *out) {
    const char *p = s->v.str.ptr, *end = p + s->v.str.len;
    if (key_eq(s, "Infinity") || key_eq(s, "-Infinity")) {
        *out = p[0] == '-' ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    if (key_eq(s, "NaN")) {
        *out = NAN;
        return true;
    }
    return p < end && sdx_parse_double(p, end, out) == end;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms", days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned mo, unsigned d) {
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at *p as a number (advances *p); -1 when they are not digits. */
static int digits(const char **p, const char *end, int n) {
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (*p >= end || **p < '0' || **p > '9') return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

/* An ISO-8601 date-time as relaxed Extended JSON writes it (RFC 3339:
 * YYYY-MM-DDTHH:MM:SS, an optional fraction, then Z or an offset +HH:MM or
 * +HHMM) in milliseconds since the epoch; digits of the fraction beyond
 * milliseconds are dropped. */
static bool parse_date(const sdx_event *s, int64_t *ms) {
    const char *p = s->v.str.ptr, *end = p + s->v.str.len;
    int y = digits(&p, end, 4);
    if (y < 0 || p == end || *p++ != '-') return false;
    int mo = digits(&p, end, 2);
    if (mo < 1 || mo > 12 || p == end || *p++ != '-') return false;
    int d = digits(&p, end, 2);
    static const unsigned char mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d < 1 || d > mdays[mo - 1] || p == end || (*p != 'T' && *p != 't')) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap) return false;
    p++;
    int h = digits(&p, end, 2);
    if (h < 0 || h > 23 || p == end || *p++ != ':') return false;
    int mi = digits(&p, end, 2);
    if (mi < 0 || mi > 59 || p == end || *p++ != ':') return false;
    int sec = digits(&p, end, 2);
    if (sec < 0 || sec > 60) return false; /* 60: a leap second, read as the next one */
    int frac = 0;
    if (p < end && *p == '.') {
        p++;
        int k = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++, k++)
            if (k < 3) frac = frac * 10 + (*p - '0');
        if (k == 0) return false;
        for (; k < 3; k++) frac *= 10;
    }
    int64_t offset = 0;
    if (p < end && (*p == 'Z' || *p == 'z')) {
        p++;
    } else if (p < end && (*p == '+' || *p == '-')) {
        int sign = *p++ == '-' ? -1 : 1;
        int oh = digits(&p, end, 2);
        if (p < end && *p == ':') p++;
        int om = digits(&p, end, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
        offset = sign * (int64_t)(oh * 60 + om) * 60;
    } else {
        return false;
    }
    if (p != end) return false;
    int64_t t = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    *ms = t * 1000 + frac;
    return true;
}

/* $uuid's text: 8-4-4-4-12 hex digits. */
static bool parse_uuid(const sdx_event *s, uint8_t out[16]) {
    const char *p = s->v.str.ptr;
    if (s->v.str.len != 36 || p[8] != '-' || p[13] != '-' || p[18] != '-' || p[23] != '-') return false;
    char hex[32];
    memcpy(hex, p, 8);
    memcpy(hex + 8, p + 9, 4);
    memcpy(hex + 12, p + 14, 4);
    memcpy(hex + 16, p + 19, 4);
    memcpy(hex + 20, p + 24, 12);
    return unhex(out, hex, 16);
}

/* ------------------------------------------------------------------------ */
/* Wrappers                                                                  */
/* ------------------------------------------------------------------------ */

static sdx_err walk_range(sdx_map_from_json *m, const walk *w, sdx_sink out, size_t from, size_t to);

static sdx_event tagged(sdx_kind kind, uint64_t tag) {
    sdx_event e = sdx_map_event(kind);
    e.tag_kind = SDX_TAG_BSON;
    e.tag = tag;
    return e;
}

/* A binary of subtype st from base64 text (SDX_BIN, tagged unless st is 0). */
static sdx_err put_binary(sdx_map_from_json *m, sdx_sink out, const sdx_event *b64, const sdx_event *type) {
    size_t tl = type->v.str.len;
    int hi = tl == 2 ? hex_digit(type->v.str.ptr[0]) : 0, lo = tl ? hex_digit(type->v.str.ptr[tl - 1]) : -1;
    if (tl < 1 || tl > 2 || hi < 0 || lo < 0) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    uint8_t st = (uint8_t)(hi << 4 | lo);
    char *bytes = sdx_map_scratch_get(&m->text, &m->alloc, b64->v.str.len / 4 * 3 + 3);
    if (!bytes) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    size_t n = sdx_base64_decode(bytes, b64->v.str.ptr, b64->v.str.len);
    if (n == SIZE_MAX) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    sdx_event e = st ? tagged(SDX_BIN, SDX_BSON_BINARY_TAG(st)) : sdx_map_event(SDX_BIN);
    e.v.str.ptr = bytes;
    e.v.str.len = n;
    return sdx_map_from_json_send(m, out, &e);
}

/* A regular expression from its pattern and options: pattern NUL options
 * NUL, the options sorted (the specification's canonical order). NUL
 * inside either is SDX_ERR_SYNTAX (BSON cstrings). */
static sdx_err put_regex(sdx_map_from_json *m, sdx_sink out, const sdx_event *pat, const sdx_event *opt) {
    size_t pl = pat->v.str.len, ol = opt->v.str.len;
    if (memchr(pat->v.str.ptr, 0, pl) || memchr(opt->v.str.ptr, 0, ol))
        return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    if (pl > SIZE_MAX - ol - 2) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    char *b = sdx_map_scratch_get(&m->text, &m->alloc, pl + ol + 2);
    if (!b) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    if (pl) memcpy(b, pat->v.str.ptr, pl);
    b[pl] = 0;
    sdx_map_sort_bytes(b + pl + 1, opt->v.str.ptr, ol);
    b[pl + 1 + ol] = 0;
    sdx_event e = tagged(SDX_BIN, SDX_BSON_REGEX);
    e.v.str.ptr = b;
    e.v.str.len = pl + ol + 2;
    return sdx_map_from_json_send(m, out, &e);
}

/* {"$dbPointer":{"$ref":"ns","$id":{"$oid":"..."}}}: int32 length, string,
 * NUL, 12-byte id. */
static sdx_err put_dbpointer(sdx_map_from_json *m, const walk *w, sdx_sink out, const entry *e) {
    entry ref, id;
    if (!two_keys(w, e, "$ref", "$id", &ref, &id)) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    const sdx_event *ns = str_of(w, &ref);
    if (!ns || w->ev[id.at].kind != SDX_MAP || ns->v.str.len > INT32_MAX - 1)
        return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    entry es[MAX_ENTRIES];
    size_t total, n = entries(w, id.at, es, &total);
    const entry *o = find(es, n, "$oid");
    const sdx_event *hex = str_of(w, o);
    if (total != 1 || !hex || hex->v.str.len != 24) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    size_t len = ns->v.str.len;
    char *b = sdx_map_scratch_get(&m->text, &m->alloc, len + 17);
    if (!b) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    uint32_t l32 = (uint32_t)len + 1;
    for (int k = 0; k < 4; k++) b[k] = (char)(l32 >> (8 * k));
    if (len) memcpy(b + 4, ns->v.str.ptr, len);
    b[4 + len] = 0;
    if (!unhex((uint8_t *)b + 5 + len, hex->v.str.ptr, 12)) return sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    sdx_event ev = tagged(SDX_BIN, SDX_BSON_DBPOINTER);
    ev.v.str.ptr = b;
    ev.v.str.len = len + 17;
    return sdx_map_from_json_send(m, out, &ev);
}

/* {"$code":"...","$scope":{...}}: the scope encoded with the BSON writer
 * (converted by this layer on the way), then int32 total, int32 length,
 * string, NUL, scope. */
static sdx_err put_code_w_scope(sdx_map_from_json *m, const walk *w, sdx_sink out, const sdx_event *code,
                                const entry *scope) {
    if (m->scope_level >= SDX_BSON_MAX_SCOPE_NESTING) return sdx_map_from_json_fail(m, SDX_ERR_DEPTH);
#ifdef SDX_NO_BSON
    /* the scope is a BSON document, and the BSON writer was left out */
    (void)w, (void)out, (void)code, (void)scope;
    return sdx_map_from_json_fail(m, SDX_ERR_UNSUPPORTED);
#else
    sdx_buf sb;
    sdx_buf_init(&sb, &m->alloc);
    sdx_bson_writer bw;
    sdx_bson_write_opts wo = {0, &m->alloc};
    sdx_bson_writer_init(&bw, &sb, &wo);
    m->scope_level++;
    walk_range(m, w, sdx_bson_writer_sink(&bw), scope->at, scope->last + 1);
    m->scope_level--;
    sdx_err e = sdx_bson_writer_finish(&bw);
    if (e) sdx_map_from_json_fail(m, e);
    size_t sl = sdx_buf_len(&sb), cl = code->v.str.len;
    if (!m->err && (cl > INT32_MAX || sl > (size_t)INT32_MAX - 9 - cl)) sdx_map_from_json_fail(m, SDX_ERR_LIMIT);
    char *b = m->err ? NULL : sdx_map_scratch_get(&m->text, &m->alloc, 9 + cl + sl);
    if (!m->err && !b) sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    if (!m->err) {
        uint32_t total = (uint32_t)(9 + cl + sl), l32 = (uint32_t)cl + 1;
        for (int k = 0; k < 4; k++) {
            b[k] = (char)(total >> (8 * k));
            b[4 + k] = (char)(l32 >> (8 * k));
        }
        if (cl) memcpy(b + 8, code->v.str.ptr, cl);
        b[8 + cl] = 0;
        memcpy(b + 9 + cl, sdx_buf_data(&sb), sl);
        sdx_event ev = tagged(SDX_BIN, SDX_BSON_CODE_W_SCOPE);
        ev.v.str.ptr = b;
        ev.v.str.len = 9 + cl + sl;
        sdx_map_from_json_send(m, out, &ev);
    }
    sdx_buf_destroy(&sb);
    return m->err;
#endif
}

/* wrapper()'s two ways to end after dealing with the map: a malformed
 * wrapper (SDX_ERR_SYNTAX, sticky), or its value sent. Both return true. */
static bool bad(sdx_map_from_json *m) {
    sdx_map_from_json_fail(m, SDX_ERR_SYNTAX);
    return true;
}

static bool sent(sdx_map_from_json *m, sdx_sink out, const sdx_event *ev) {
    sdx_map_from_json_send(m, out, ev);
    return true;
}

/* The map at index i, whose first key is a keyword: sent as the one tagged
 * event it stands for (returns true), or found to be no wrapper (false,
 * nothing sent); SDX_ERR_SYNTAX for a malformed wrapper. */
static bool wrapper(sdx_map_from_json *m, const walk *w, sdx_sink out, size_t i) {
    entry es[MAX_ENTRIES];
    size_t total, n = entries(w, i, es, &total);
    if (n == 0) return false; /* not reached: the caller saw a first key */
    const sdx_event *k0 = es[0].key;
    const entry *x;
    /* Query operators that share a keyword: {"$regex": not a string, ...},
     * {"$type": ...} without "$binary", "$options" without "$regex". */
    const entry *rx = find(es, n, "$regex");
    if (rx && !str_of(w, rx)) return false;
    if (key_eq(k0, "$type") && !find(es, n, "$binary")) return false;
    if (key_eq(k0, "$options") && !rx) return false;
    if (rx && total == 1) return false; /* {"$regex": "..."} alone: the query operator */

    const sdx_event *s0 = str_of(w, &es[0]);
    sdx_event ev;
    int64_t iv;
    if (total == 1 && key_eq(k0, "$oid")) {
        uint8_t id[12];
        if (!s0 || s0->v.str.len != 24 || !unhex(id, s0->v.str.ptr, 12)) return bad(m);
        ev = tagged(SDX_BIN, SDX_BSON_OBJECTID);
        ev.v.str.ptr = (const char *)id;
        ev.v.str.len = 12;
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$symbol")) {
        if (!s0) return bad(m);
        ev = *s0;
        ev.tag_kind = SDX_TAG_BSON;
        ev.tag = SDX_BSON_SYMBOL;
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$numberInt")) {
        if (!s0 || !parse_int(s0, INT32_MIN, INT32_MAX, &iv)) return bad(m);
        ev = tagged(SDX_INT, SDX_BSON_INT32);
        ev.v.i = iv;
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$numberLong")) {
        if (!s0 || !parse_int(s0, INT64_MIN, INT64_MAX, &iv)) return bad(m);
        ev = tagged(SDX_INT, SDX_BSON_INT64);
        ev.v.i = iv;
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$numberDouble")) {
        ev = sdx_map_event(SDX_DOUBLE);
        if (!s0 || !parse_double(s0, &ev.v.d)) return bad(m);
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$numberDecimal")) {
        uint8_t d[16];
        sdx_err e = s0 ? sdx_bson_decimal128_from_string(s0->v.str.ptr, s0->v.str.len, d) : SDX_ERR_SYNTAX;
        if (e) return sdx_map_from_json_fail(m, e), true; /* SDX_ERR_SYNTAX, or SDX_ERR_RANGE: not exact */
        ev = tagged(SDX_BIN, SDX_BSON_DECIMAL128);
        ev.v.str.ptr = (const char *)d;
        ev.v.str.len = 16;
        return sent(m, out, &ev);
    }
    if ((x = find(es, n, "$binary")) != NULL) {
        entry b64, st;
        const entry *type = find(es, n, "$type");
        if (total == 1 && two_keys(w, x, "base64", "subType", &b64, &st) && str_of(w, &b64) && str_of(w, &st))
            return put_binary(m, out, str_of(w, &b64), str_of(w, &st)), true;
        if (total == 2 && type && str_of(w, x) && str_of(w, type)) /* legacy */
            return put_binary(m, out, str_of(w, x), str_of(w, type)), true;
        return bad(m);
    }
    if (total == 1 && key_eq(k0, "$uuid")) {
        uint8_t u[16];
        if (!s0 || !parse_uuid(s0, u)) return bad(m);
        ev = tagged(SDX_BIN, SDX_BSON_BINARY_TAG(4));
        ev.v.str.ptr = (const char *)u;
        ev.v.str.len = 16;
        return sent(m, out, &ev);
    }
    if ((x = find(es, n, "$code")) != NULL || find(es, n, "$scope")) {
        const sdx_event *code = str_of(w, x);
        const entry *scope = find(es, n, "$scope");
        if (!code || total != (scope ? 2u : 1u)) return bad(m);
        if (!scope) {
            ev = *code;
            ev.tag_kind = SDX_TAG_BSON;
            ev.tag = SDX_BSON_CODE;
            return sent(m, out, &ev);
        }
        if (w->ev[scope->at].kind != SDX_MAP) return bad(m);
        return put_code_w_scope(m, w, out, code, scope), true;
    }
    if (total == 1 && key_eq(k0, "$timestamp")) {
        entry t, inc;
        if (!two_keys(w, &es[0], "t", "i", &t, &inc)) return bad(m);
        const sdx_event *tv = &w->ev[t.at], *iv2 = &w->ev[inc.at];
        if (tv->kind != SDX_INT || iv2->kind != SDX_INT || tv->v.i < 0 || tv->v.i > UINT32_MAX || iv2->v.i < 0 ||
            iv2->v.i > UINT32_MAX)
            return bad(m);
        uint64_t ts = (uint64_t)tv->v.i << 32 | (uint64_t)iv2->v.i;
        ev = tagged(ts > INT64_MAX ? SDX_UINT : SDX_INT, SDX_BSON_TIMESTAMP);
        ev.v.u = ts;
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$regularExpression")) {
        entry p, o;
        if (!two_keys(w, &es[0], "pattern", "options", &p, &o) || !str_of(w, &p) || !str_of(w, &o))
            return bad(m);
        return put_regex(m, out, str_of(w, &p), str_of(w, &o)), true;
    }
    if (rx) { /* legacy {"$regex": "...", "$options": "..."} */
        const sdx_event *o = str_of(w, find(es, n, "$options"));
        if (total != 2 || !o) return bad(m);
        return put_regex(m, out, str_of(w, rx), o), true;
    }
    if (total == 1 && key_eq(k0, "$dbPointer")) return put_dbpointer(m, w, out, &es[0]), true;
    if (total == 1 && key_eq(k0, "$date")) {
        const sdx_event *v = &w->ev[es[0].at];
        int64_t ms;
        if (v->kind == SDX_STR) {
            if (!parse_date(v, &ms)) return bad(m);
        } else {
            entry in[MAX_ENTRIES];
            size_t t2, n2 = v->kind == SDX_MAP ? entries(w, es[0].at, in, &t2) : 0;
            const sdx_event *nl = n2 == 1 && t2 == 1 && key_eq(in[0].key, "$numberLong") ? str_of(w, &in[0]) : NULL;
            if (!nl || !parse_int(nl, INT64_MIN, INT64_MAX, &ms)) return bad(m);
        }
        ev = tagged(SDX_INT, SDX_BSON_DATETIME);
        ev.v.i = ms;
        return sent(m, out, &ev);
    }
    if (total == 1 && (key_eq(k0, "$minKey") || key_eq(k0, "$maxKey"))) {
        const sdx_event *v = &w->ev[es[0].at];
        if (v->kind != SDX_INT || v->v.i != 1) return bad(m);
        ev = tagged(SDX_NULL, key_eq(k0, "$minKey") ? SDX_BSON_MINKEY : SDX_BSON_MAXKEY);
        return sent(m, out, &ev);
    }
    if (total == 1 && key_eq(k0, "$undefined")) {
        const sdx_event *v = &w->ev[es[0].at];
        if (v->kind != SDX_BOOL || !v->v.b) return bad(m);
        ev = tagged(SDX_NULL, SDX_BSON_UNDEFINED);
        return sent(m, out, &ev);
    }
    /* a keyword with other keys beside it, or of the wrong form */
    return bad(m);
}

/* Send the held events [from, to) to `out`, each map that begins with a
 * keyword as its wrapper's value. Iterative; recursion only through
 * put_code_w_scope. */
static sdx_err walk_range(sdx_map_from_json *m, const walk *w, sdx_sink out, size_t from, size_t to) {
    for (size_t i = from; i < to && !m->err;) {
        const sdx_event *e = &w->ev[i];
        if (e->kind == SDX_MAP && w->end[i] > i + 1 && is_keyword(&w->ev[i + 1]) && wrapper(m, w, out, i)) {
            i = w->end[i] + 1;
            continue;
        }
        sdx_map_from_json_send(m, out, e);
        i++;
    }
    return m->err;
}

/* The held map is complete: resolve the text, find each container's end,
 * walk it into m->out, and forget it. */
static sdx_err release_held(sdx_map_from_json *m) {
    size_t n = m->nevs;
    if (n > SIZE_MAX / 2 / sizeof(size_t)) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    size_t *end = sdx_map_scratch_get(&m->strs, &m->alloc, 2 * n * sizeof(size_t));
    if (!end) return sdx_map_from_json_fail(m, SDX_ERR_NOMEM);
    size_t *stack = end + n, top = 0;
    for (size_t i = 0; i < n; i++) {
        sdx_event *e = &m->evs[i];
        if (has_text(e)) {
            e->v.str.ptr = m->arena.ptr + e->tag;
            e->tag = 0;
        }
        end[i] = i;
        if (e->kind == SDX_MAP || e->kind == SDX_ARRAY) stack[top++] = i;
        else if (e->kind == SDX_END && top) end[stack[--top]] = i;
    }
    walk w = {m->evs, end};
    walk_range(m, &w, m->out, 0, n);
    m->nevs = 0;
    m->arena_len = 0;
    return m->err;
}

/* ------------------------------------------------------------------------ */
/* The layer's entry points (from_json.c calls them for SDX_MAP_TARGET_BSON) */
/* ------------------------------------------------------------------------ */

sdx_err sdx_map_ejson_put(sdx_map_from_json *m, const sdx_event *ev) {
    if (m->held_depth) {
        if (append(m, ev)) return m->err;
        if (ev->kind == SDX_MAP || ev->kind == SDX_ARRAY) m->held_depth++;
        if (ev->kind == SDX_END && --m->held_depth == 0) return release_held(m);
        return SDX_OK;
    }
    if (m->map_pending) {
        m->map_pending = 0;
        if (is_keyword(ev)) {
            m->held_depth = 1;
            if (append(m, &m->held[0])) return m->err;
            return append(m, ev);
        }
        if (sdx_map_from_json_send(m, m->out, &m->held[0])) return m->err;
    }
    if (ev->kind == SDX_MAP && ev->tag_kind == SDX_TAG_NONE) { /* its first key decides */
        m->held[0] = *ev;
        m->map_pending = 1;
        return SDX_OK;
    }
    return sdx_map_from_json_send(m, m->out, ev);
}

sdx_err sdx_map_ejson_finish(sdx_map_from_json *m) {
    /* a map began and the input ended: the target reports it unfinished */
    if (m->map_pending && !m->err) sdx_map_from_json_send(m, m->out, &m->held[0]);
    if (m->held_depth) sdx_map_from_json_fail(m, SDX_ERR_TRUNCATED); /* the input ended inside a wrapper */
    if (m->evs) m->alloc.free(m->alloc.ctx, m->evs);
    m->evs = NULL;
    m->nevs = m->capevs = 0;
    m->map_pending = 0;
    m->held_depth = 0;
    sdx_map_scratch_free(&m->arena, &m->alloc);
    return m->err;
}
