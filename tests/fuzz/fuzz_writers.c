/*
 * Writer fuzz target: random event sequences into every format's writer.
 *
 * Input: the first byte holds CBOR write flags (bit 0 deterministic, bit
 * 1 definite lengths); the rest decodes into up to 512 events (fz_decode
 * below): every kind, values and lengths from the input, string bytes
 * taken from the input as they are (so often invalid UTF-8), containers
 * with a small count or SDX_COUNT_UNKNOWN, tags of every kind, and any
 * order at all: an END with nothing open, a key where a value is due, a
 * second root, containers left open, counts not met. The same sequence
 * goes to the writers of json, msgpack, cbor, bson, ubjson, bjdata and
 * binn, then finish(). Each writer must:
 *   - return an error (any code but SDX_ERR_NOMEM and SDX_ERR_IO: the
 *     output is an unbounded buffer) when the sequence breaks the event
 *     model in a way every writer checks: an END with nothing open or
 *     after a key without its value, a key where no key may come, a second
 *     root, a container left open, nothing written; and (every writer but
 *     BSON's, which has no counts) a container whose declared count is
 *     exceeded or not met;
 *   - or else produce output that the format's own parser accepts, and
 *     that reads back to the same events after the normalization of
 *     fuzz_transcode.c (float flags and NaN payloads, tags, INT/UINT,
 *     counts; and a string in key position is an SDX_KEY). The events are
 *     compared only when no event carries a tag of the writer's own format
 *     (a tag there changes the value's form: a UBJSON typed array of U is
 *     read back as binary, a BSON tag makes an int a datetime, ...), the
 *     sequence holds no SDX_NINT or SDX_RAW for JSON (written as number
 *     text, read back as a double or integer), and deterministic CBOR
 *     (which sorts map keys) is only parsed back with
 *     SDX_CBOR_READ_DETERMINISTIC.
 * The same sequence also goes into each writer over a stream buffer that
 * may patch what it flushed (sdx_buf_set_patch, chunks of 1 to 64 bytes
 * from the first byte's upper bits): the same outcome, and on success the
 * same bytes (BSON and Binn patch their sizes there instead of holding
 * the value).
 * Sanitizers catch the rest (the writers run their own allocations
 * through the default allocator; a leak is an error under ASan).
 */
#include "fuzz.h"
#include "../unit/patch_stream.h"

#define FZ_MAX_EVENTS 512
#define FZ_MAX_DEPTH 64

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static uint8_t fz_take(fz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static uint64_t fz_take_n(fz_in *in, int k) {
    uint64_t v = 0;
    while (k--) v = v << 8 | fz_take(in);
    return v;
}

/* The sequence and what a model of the event grammar says of it. */
typedef struct fz_seq {
    sdx_event ev[FZ_MAX_EVENTS];
    size_t n;
    int invalid;        /* breaks the grammar every writer checks */
    int count_mismatch; /* a declared count exceeded or not met */
    int tagged[FZ_NFORMATS]; /* an event carries a tag of that format */
    int nint_or_raw;    /* holds SDX_NINT or SDX_RAW */
    int nonstr_key;     /* a non-string value in key position */
    int tag_events;     /* holds SDX_TAG events (CBOR writes them, others skip) */
} fz_seq;

typedef struct fz_frame {
    int map;
    uint64_t items, count; /* items so far (keys and values), declared */
} fz_frame;

/* Decode the input into events, tracking the grammar. */
static void fz_decode(fz_in *in, fz_seq *s) {
    fz_frame st[FZ_MAX_DEPTH + 1];
    int depth = 0, roots = 0;
    uint8_t next_tag_kind = 0;
    uint64_t next_tag = 0;
    memset(s, 0, sizeof *s);
    while (in->n && s->n < FZ_MAX_EVENTS) {
        uint8_t op = fz_take(in);
        sdx_event e;
        memset(&e, 0, sizeof e);
        switch (op & 15) {
        case 0: e.kind = SDX_NULL; break;
        case 1:
            e.kind = SDX_BOOL;
            e.v.b = (op >> 4) & 1;
            break;
        case 2:
            e.kind = SDX_INT;
            e.v.i = (int8_t)fz_take(in);
            break;
        case 3:
            e.kind = SDX_INT;
            e.v.u = fz_take_n(in, 8);
            break;
        case 4:
            e.kind = SDX_UINT;
            e.v.u = fz_take_n(in, 8);
            break;
        case 5: {
            e.kind = SDX_DOUBLE;
            uint64_t b = fz_take_n(in, 8);
            memcpy(&e.v.d, &b, 8);
            break;
        }
        case 6: {
            /* a double that a float holds exactly, flagged so; a small
             * integer also as a half */
            e.kind = SDX_DOUBLE;
            uint32_t b = (uint32_t)fz_take_n(in, 4);
            float f;
            memcpy(&f, &b, 4);
            e.v.d = f;
            e.flags = SDX_EVENT_FLOAT32;
            if (op & 16) {
                e.v.d = (double)(int8_t)b;
                e.flags = SDX_EVENT_FLOAT16;
            }
            break;
        }
        case 7:
        case 8:
        case 9: {
            e.kind = (op & 15) == 7 ? SDX_STR : (op & 15) == 8 ? SDX_BIN : SDX_KEY;
            size_t len = fz_take(in) % 24;
            if (len > in->n) len = in->n;
            e.v.str.ptr = (const char *)in->p;
            e.v.str.len = len;
            in->p += len;
            in->n -= len;
            break;
        }
        case 10:
        case 11: {
            e.kind = (op & 15) == 10 ? SDX_ARRAY : SDX_MAP;
            uint8_t c = fz_take(in);
            e.v.count = c < 0x80 ? c % 6 : SDX_COUNT_UNKNOWN;
            break;
        }
        case 12:
        case 13: e.kind = SDX_END; break;
        case 14:
            if (op & 16) {
                e.kind = SDX_NINT;
                e.v.u = fz_take_n(in, 8) | 1ull << 63;
            } else {
                static const char *const raws[] = {"12", "-0.5e3", "18446744073709551616",
                                                   "1.", "x", "1e999", "-", "0012"};
                const char *t = raws[fz_take(in) % 8];
                e.kind = SDX_RAW;
                e.v.str.ptr = t;
                e.v.str.len = strlen(t);
            }
            break;
        default: {
            /* a tag: on the next event, or (bit 4) an SDX_TAG event */
            uint8_t k = (uint8_t)(1 + fz_take(in) % 7);
            uint64_t t = fz_take(in);
            if (k == SDX_TAG_BINN && (t & 1)) t |= 0x1000;
            if (op & 16) {
                e.kind = SDX_TAG;
                e.tag_kind = k;
                e.tag = t;
                s->tag_events = 1;
            } else {
                next_tag_kind = k;
                next_tag = t;
                continue;
            }
            break;
        }
        }
        if (e.kind != SDX_TAG && next_tag_kind) {
            e.tag_kind = next_tag_kind;
            e.tag = next_tag;
            next_tag_kind = 0;
        }
        switch (e.tag_kind) {
        case SDX_TAG_MSGPACK_EXT: s->tagged[FZ_MSGPACK] = 1; break;
        case SDX_TAG_CBOR:
        case SDX_TAG_CBOR_SIMPLE: s->tagged[FZ_CBOR] = 1; break;
        case SDX_TAG_BSON: s->tagged[FZ_BSON] = 1; break;
        case SDX_TAG_UBJSON: s->tagged[FZ_UBJSON] = s->tagged[FZ_BJDATA] = 1; break;
        case SDX_TAG_BINN: s->tagged[FZ_BINN] = 1; break;
        default: break;
        }
        if (e.kind == SDX_NINT || e.kind == SDX_RAW) s->nint_or_raw = 1;

        /* the grammar */
        fz_frame *f = depth ? &st[depth] : NULL;
        if (e.kind == SDX_TAG) {
            e.depth = (uint32_t)depth;
        } else if (e.kind == SDX_END) {
            if (!f) {
                s->invalid = 1;
            } else {
                if (f->map && (f->items & 1)) s->invalid = 1;
                if (f->count != SDX_COUNT_UNKNOWN && f->items != f->count * (f->map ? 2 : 1))
                    s->count_mismatch = 1;
                depth--;
            }
            e.depth = (uint32_t)depth;
        } else {
            e.depth = (uint32_t)depth;
            if (!f) {
                if (roots++) s->invalid = 1;
                if (e.kind == SDX_KEY) s->invalid = 1;
            } else {
                int key_pos = f->map && !(f->items & 1);
                if (e.kind == SDX_KEY && !key_pos) s->invalid = 1;
                if (key_pos && e.kind == SDX_STR) e.kind = SDX_KEY; /* a string key */
                if (key_pos && e.kind != SDX_KEY) s->nonstr_key = 1;
                if (f->count != SDX_COUNT_UNKNOWN && f->items >= f->count * (f->map ? 2 : 1))
                    s->count_mismatch = 1;
                f->items++;
            }
            if (e.kind == SDX_ARRAY || e.kind == SDX_MAP) {
                if (depth == FZ_MAX_DEPTH) break; /* no deeper: stop here */
                depth++;
                st[depth].map = e.kind == SDX_MAP;
                st[depth].items = 0;
                st[depth].count = e.v.count;
            }
        }
        s->ev[s->n++] = e;
    }
    if (depth || roots == 0) s->invalid = 1;
}

/* The sequence's events as the recorder sees them (the recorder drops what
 * the normalization says). */
static void fz_rec_seq(fz_rec *r, const fz_seq *s, uint32_t norm) {
    memset(r, 0, sizeof *r);
    r->norm = norm;
    for (size_t i = 0; i < s->n; i++) fz_rec_put(r, &s->ev[i]);
    if (r->oom) fz_fail("out of memory", "recorder");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static fz_seq s;
    fz_in in = {data + 1, size - 1};
    fz_decode(&in, &s);
    const uint32_t norm = FZ_N_FLAGS | FZ_N_TAGS | FZ_N_INT | FZ_N_COUNT;
    fz_rec want;
    fz_rec_seq(&want, &s, norm);
    int deterministic = data[0] & 1;
    for (int to = 0; to < FZ_NFORMATS; to++) {
        const char *name = fz_names[to];
        uint32_t wflags = 0;
        if (to == FZ_CBOR) {
            if (deterministic) wflags |= SDX_CBOR_WRITE_DETERMINISTIC;
            if (data[0] & 2) wflags |= SDX_CBOR_WRITE_DEFINITE;
        }
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        fz_writer w;
        if (fz_writer_init(&w, to, wflags, &out) != SDX_OK) fz_fail("writer init failed", name);
        for (size_t i = 0; i < s.n; i++) sdx_sink_put(w.sink, &s.ev[i]);
        sdx_err e = sdx_sink_finish(w.sink);
        {
            patch_file pf = {0};
            sdx_buf ps;
            patch_file_buf(&ps, &pf, 1 + (size_t)(data[0] >> 2), NULL);
            fz_writer pw;
            if (fz_writer_init(&pw, to, wflags, &ps) != SDX_OK) fz_fail("writer init failed", name);
            for (size_t i = 0; i < s.n; i++) sdx_sink_put(pw.sink, &s.ev[i]);
            sdx_err pe = sdx_sink_finish(pw.sink);
            if ((pe != SDX_OK) != (e != SDX_OK))
                fz_fail("a patchable stream changes whether the writer succeeds", name);
            if (!e && (pf.len != sdx_buf_len(&out) || (pf.len && memcmp(pf.p, sdx_buf_data(&out), pf.len))))
                fz_fail("a patchable stream changes the bytes", name);
            sdx_buf_destroy(&ps);
            free(pf.p);
        }
        int must_fail = s.invalid || (s.count_mismatch && to != FZ_BSON);
        if (e == SDX_ERR_NOMEM || e == SDX_ERR_IO) fz_fail("the writer failed unexpectedly", name);
        if (e != SDX_OK) {
            fz_refused++;
            sdx_buf_destroy(&out);
            continue;
        }
        if (must_fail) fz_fail("the writer accepted a sequence that breaks the event model", name);
        fz_ropts o = fz_ropts_make(to, 0);
        if (to == FZ_CBOR && deterministic) o.cbor.flags |= SDX_CBOR_READ_DETERMINISTIC;
        o.json.max_depth = o.msgpack.max_depth = o.cbor.max_depth = o.ubjson.max_depth =
            o.binn.max_depth = FZ_MAX_DEPTH + 2;
        o.bson.max_depth = FZ_MAX_DEPTH + 2;
        /* the CBOR writer writes any number of tags on an item; the
         * reader's default limit is 64 (SDX_ERR_LIMIT beyond it) */
        o.cbor.max_tags = FZ_MAX_EVENTS + 1;
        sdx_error err;
        sdx_doc *d = fz_parse(&o, (const uint8_t *)sdx_buf_data(&out), sdx_buf_len(&out), &err);
        if (!d) {
            fprintf(stderr, "  %s at %zu\n", sdx_strerror(err.code), err.offset);
            fz_fail("the parser rejects what the writer wrote", name);
        }
        int compare = !s.tagged[to] && !(to == FZ_JSON && s.nint_or_raw) &&
                      !(to == FZ_CBOR && deterministic);
        if (compare) {
            fz_rec got;
            fz_rec_doc(&got, d, norm);
            if (!fz_rec_same(&want, &got)) fz_fail("the output reads back to other events", name);
            free(got.p);
            fz_compared++;
        }
        sdx_doc_free(d);
        sdx_buf_destroy(&out);
    }
    free(want.p);
    return 0;
}

#ifndef SDX_LIBFUZZER
/* Seeds: op bytes as fz_decode reads them (low nibble the kind). */
static const fz_seedlit seeds[] = {
    /* {"ab": [1, 2.0f, "x"]} with known counts */
    FZ_SEED("\x00\x0b\x01\x09\x02" "ab" "\x0a\x03\x02\x01\x06\x40\x00\x00\x00\x07\x01x\x0c\x0c"),
    /* [null, true, uint max, bin, {}] unknown counts */
    FZ_SEED("\x02\x0a\xff\x00\x11\x04\xff\xff\xff\xff\xff\xff\xff\xff\x08\x03" "abc\x0b\xff\x0c\x0c"),
    /* an END with nothing open */
    FZ_SEED("\x00\x0c"),
    /* a value where a key is due, then a tagged int */
    FZ_SEED("\x00\x0b\x02\x02\x05\x02\x07\x0f\x01\x02\x00\x0c"),
    /* a CBOR tag event on a string, an ext-tagged bin */
    FZ_SEED("\x01\x0a\xff\x1f\x02\x20\x07\x03" "abc\x0f\x00\x05\x08\x02" "hi\x0c"),
    /* regression (libFuzzer, clang UBSan): an empty map in deterministic
     * CBOR computed NULL + 0 before any entry was listed */
    FZ_SEED("\x03\x7b\xd9\xac"),
    /* more CBOR tags on one item than the reader's default max_tags (a
     * limit of the harness's read-back, fixed in the target) */
    FZ_SEED("\x64\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"
            "\x66\x7b\x64\x64\x64\x66\x7b\x2b\x2f"),
    /* NINT, RAW, NaN */
    FZ_SEED("\x00\x0a\xff\x1e\x00\x00\x00\x00\x00\x00\x00\x05\x0e\x00\x05\x7f\xf8\x00\x00\x00\x00\x00\x01\x0c"),    /* regression (libFuzzer, ASan/UBSan, the patchable stream of 1-byte
     * chunks): a MessagePack array of unknown count began when the stream
     * buffer was full; its header went straight to the stream before the
     * pin was set, and the end moved bytes the buffer no longer held */
    FZ_SEED("\x02\x5b\x41\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83"
            "\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\xd1\x83\x83\x83\x83\x83\x83"
            "\x83\x83\x83\x83\x83\xa3\x83\x83\x83\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\x3a\xff\xff\xff\xff\xff\xbd\x05\x00\x3a\xff\x00\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc2\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xd3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc2\xc3\xc3\xc3\xc3\xc3\x04\x9e\x91\x8f\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\x83\x83\x83\x83\x83\x83\x83\x83\x83\x83\xd1\x83\x83\x83\x83\x83\x83\x83"
            "\x83\x83\x83\x83\xa3\x83\x83\x83\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\x3a\xff\xff\xff\xff\xff\xbd\x05\x00\x3a\xff\x00\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc2\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xd3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\xc3\xc3\xd3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3\xc3"
            "\xc3\xc3\xc3\xc3\x83\x02\x5b"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
                                      "\x11\x16\x1e\x1f\x02\x01\xff\x61";
    return fz_smoke_main("fuzz_writers_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 100000);
}
#endif
