/*
 * sdx, any format, Write: the format's streaming writer into a growable
 * sdx_buf. Compiled once per format with -DSDX_FMT=<name>: every sdx format
 * has the same verbs (sdx_<name>_writer_*), so a new format is benchmarked
 * by adding its name to SDX_BENCH_WRITE_FORMATS in CMakeLists.txt.
 */
#include "adapter.h"
#include "sdx/sdx.h"

/* sdx_<fmt><suffix>; the suffix is one token ("_writer_bool"), so it is
 * never macro-expanded (bool is a macro in C11). */
#define SDX_CAT3_(a, b, c) a##b##c
#define SDX_CAT3(a, b, c) SDX_CAT3_(a, b, c)
#define W(suffix) SDX_CAT3(sdx_, SDX_FMT, suffix)
#define SDX_STR_(x) #x
#define SDX_STR(x) SDX_STR_(x)

typedef W(_writer) writer_t;

static void write_node(writer_t *w, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: W(_writer_null)(w); break;
    case BT_BOOL: W(_writer_bool)(w, n->v.b); break;
    case BT_INT: W(_writer_int)(w, n->v.i); break;
    case BT_UINT: W(_writer_uint)(w, n->v.u); break;
    case BT_DOUBLE: W(_writer_double)(w, n->v.d); break;
    case BT_STR: W(_writer_string)(w, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
        W(_writer_begin_array)(w, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) write_node(w, &n->v.c.items[i]);
        W(_writer_end)(w);
        break;
    case BT_MAP:
        W(_writer_begin_map)(w, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            W(_writer_key)(w, k->v.str.ptr, k->v.str.len);
            write_node(w, &n->v.c.items[2 * i + 1]);
        }
        W(_writer_end)(w);
        break;
    }
}

static int sdx_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    writer_t w;
#ifdef SDX_BENCH_WRITE_FLAGS
    /* measurement builds only (bench/README.md, "Update, 2026-12-06,
     * seventh"), e.g. -DSDX_BENCH_WRITE_FLAGS=SDX_CBOR_WRITE_NO_UTF8_CHECK;
     * the suite's programs never define it */
    W(_write_opts) opts = {0};
    opts.flags = SDX_BENCH_WRITE_FLAGS;
    W(_writer_init)(&w, &b, &opts);
#else
    W(_writer_init)(&w, &b, NULL);
#endif
    write_node(&w, root);
    sdx_err e = W(_writer_finish)(&w);
    if (!e) emit(ctx, sdx_buf_data(&b), sdx_buf_len(&b));
    else bench_error("%s", sdx_strerror(e));
    sdx_buf_destroy(&b);
    return e != SDX_OK;
}

const bench_adapter bench_adapter_def = {"sdx", "C", SDX_STR(SDX_FMT), "write", sdx_write, NULL};
