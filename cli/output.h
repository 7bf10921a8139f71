/*
 * Outputs of the sdx command: stdout, or a file written atomically — to a
 * temporary file beside it that is renamed over it only when everything
 * went well, so that a failed command never leaves a partial file and an
 * existing file stays untouched.
 */
#ifndef SDX_CLI_OUTPUT_H
#define SDX_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sdx/buf.h"

/* Bytes collected before a write(2): many small values (a sequence, each
 * flushed when its writer finishes) go out together. */
#define CLI_OUTPUT_PENDING 65536

typedef struct cli_output {
    const char *name;  /* the path, or "<stdout>" */
    int fd;
    char *tmp;         /* the temporary file being written, or NULL */
    char *final;       /* where it goes on success */
    int write_errno;   /* errno of the first failed write (0: none) */
    long long base;    /* the file offset of the output's first byte, when
                          the buffer may patch what it flushed */
    sdx_buf buf;       /* writers write here; flushed in chunks to fd */
    /* An optional filter between buf and the file (the colouriser): gets
     * each chunk instead of the file; it writes on with cli_output_write. */
    sdx_write_fn filter;
    void (*filter_end)(void *ctx); /* after the last chunk (may be NULL) */
    void *filter_ctx;
    char *pending;
    size_t pending_len;
} cli_output;

/* Open `path` (NULL or "-": stdout). A path that exists and is not a
 * regular file (a device such as /dev/null, a pipe) is written directly;
 * otherwise a temporary file is created in the same directory. Returns 0
 * or, after a message, CLI_EXIT_IO. */
int cli_output_open(cli_output *o, const char *path);

/* The buffer to give writers (a stream buffer; memory stays bounded).
 * Into a regular file (not opened for appending) it may patch bytes it
 * has flushed (sdx_buf_set_patch), so that BSON's and Binn's sizes are
 * patched in place rather than their containers held in memory; not
 * through a filter. */
static inline sdx_buf *cli_output_buf(cli_output *o) { return &o->buf; }

/* Write bytes to the file (through the pending buffer); for filters.
 * Returns len, or less on error (errno kept for the message). */
size_t cli_output_write(void *ctx, const void *data, size_t len);

/* Finish: flush everything, and for a file fsync it and rename it over its
 * path. Returns 0, or CLI_EXIT_IO after a message (then the temporary file
 * is removed and an existing file at the path is untouched). Releases the
 * output either way. */
int cli_output_commit(cli_output *o);

/* Give up: remove the temporary file, leave the path as it was, release the
 * output (stdout gets what was written so far). Safe after a failed
 * commit. */
void cli_output_abort(cli_output *o);

#endif /* SDX_CLI_OUTPUT_H */
