/*
 * The count pass (counts.h). Counts are finished in post-order (at each
 * container's end) but needed in document order (at its beginning), so
 * they are stored by the container's number: mostly near the most recent
 * ones, which a direct-mapped cache of file pages serves.
 */
#include "counts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE_BYTES (CLI_COUNTS_PER_PAGE * sizeof(uint64_t))

int cli_counts_init(cli_counts *c) {
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->cache = calloc(CLI_COUNTS_PAGES, sizeof *c->cache);
    if (!c->cache) return ENOMEM;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/sdx-counts.XXXXXX", dir);
    c->fd = mkstemp(path);
    if (c->fd < 0) return errno;
    unlink(path);
    return 0;
}

static bool page_io(cli_counts *c, cli_count_page *p, bool write) {
    char *buf = (char *)p->count;
    size_t done = 0;
    while (done < PAGE_BYTES) {
        off_t at = (off_t)(p->index * PAGE_BYTES + done);
        ssize_t n = write ? pwrite(c->fd, buf + done, PAGE_BYTES - done, at)
                          : pread(c->fd, buf + done, PAGE_BYTES - done, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            if (!c->io_errno) c->io_errno = errno;
            return false;
        }
        if (n == 0) { /* reading past the end of the file: not written yet */
            memset(buf + done, 0, PAGE_BYTES - done);
            break;
        }
        done += (size_t)n;
    }
    return true;
}

/* The cached page holding container number `index`, or NULL on an error. */
static cli_count_page *page_of(cli_counts *c, uint64_t index) {
    uint64_t page = index / CLI_COUNTS_PER_PAGE;
    cli_count_page *p = &c->cache[page % CLI_COUNTS_PAGES];
    if (p->valid && p->index == page) return p;
    if (p->valid && p->dirty && !page_io(c, p, true)) return NULL;
    p->index = page;
    p->valid = true;
    p->dirty = false;
    if (!page_io(c, p, false)) {
        p->valid = false;
        return NULL;
    }
    return p;
}

sdx_err cli_counts_record(cli_counts *c, sdx_source src) {
    sdx_event ev = {0}; /* fields a reader leaves alone stay zero */
    while (sdx_source_next(src, &ev)) {
        if (ev.kind == SDX_END) {
            if (!c->depth) continue;
            cli_count_frame f = c->stack[--c->depth];
            cli_count_page *p = page_of(c, f.index);
            if (!p) return SDX_ERR_IO;
            p->count[f.index % CLI_COUNTS_PER_PAGE] = f.is_map ? f.items / 2 : f.items;
            p->dirty = true;
            continue;
        }
        if (ev.kind == SDX_TAG) continue; /* a tag on the next item, not an item */
        if (c->depth) c->stack[c->depth - 1].items++;
        if (ev.kind != SDX_ARRAY && ev.kind != SDX_MAP) continue;
        if (c->depth == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            cli_count_frame *s = realloc(c->stack, cap * sizeof *s);
            if (!s) return SDX_ERR_NOMEM;
            c->stack = s;
            c->cap = cap;
        }
        cli_count_frame *f = &c->stack[c->depth++];
        f->index = c->containers++;
        f->items = 0;
        f->is_map = ev.kind == SDX_MAP;
    }
    return sdx_source_error(src, NULL);
}

static bool counted_next(void *ctx, sdx_event *ev) {
    cli_counts *c = ctx;
    if (!sdx_source_next(c->inner, ev)) return false;
    if ((ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) && c->next < c->containers) {
        uint64_t i = c->next++;
        cli_count_page *p = page_of(c, i);
        /* A failed read of the file only costs memory: the count stays unknown. */
        if (p) ev->v.count = p->count[i % CLI_COUNTS_PER_PAGE];
    }
    return true;
}

static sdx_err counted_error(const void *ctx, sdx_error *err) {
    const cli_counts *c = ctx;
    return sdx_source_error(c->inner, err);
}

static uint64_t counted_offset(const void *ctx) {
    const cli_counts *c = ctx;
    return sdx_source_offset(c->inner);
}

static const sdx_source_vt counted_vt = {counted_next, counted_error, counted_offset};

sdx_source cli_counts_source(cli_counts *c, sdx_source inner) {
    c->inner = inner;
    c->next = 0;
    sdx_source s = {&counted_vt, c};
    return s;
}

void cli_counts_destroy(cli_counts *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    free(c->cache);
    c->cache = NULL;
    free(c->stack);
    c->stack = NULL;
}
