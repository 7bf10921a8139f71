/*
 * Moving events from an input to writers: a writer that starts afresh for
 * every top-level value (so a sequence becomes newline-delimited JSON or
 * back-to-back binary values), the loop that pumps a reader into a sink,
 * and the messages for values a target cannot represent.
 */
#ifndef SDX_CLI_PUMP_H
#define SDX_CLI_PUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "formats.h"
#include "input.h"
#include "output.h"

/* A format's writer for a stream of top-level values: one writer_init per
 * value on the same output buffer, finished when the value is complete.
 * As an sdx_sink: put takes any number of complete values; finish reports
 * an incomplete last value (SDX_ERR_USAGE). */
typedef struct cli_writer {
    const cli_format *fmt;
    cli_write_opts opts;
    sdx_buf *out;
    void *mem;       /* the format's writer (fmt->writer_size bytes) */
    sdx_sink inner;  /* its sink while a value is open */
    bool open;       /* a value is being written */
    uint64_t depth;  /* containers open in the current value */
    uint64_t values; /* top-level values completed */
    sdx_err err;     /* sticky */
} cli_writer;

/* Prepare a writer of `fmt` (writable) on `out`. Returns SDX_ERR_NOMEM or
 * SDX_OK. */
sdx_err cli_writer_init(cli_writer *w, const cli_format *fmt, const cli_write_opts *opts, sdx_buf *out);

/* The writer as a sink (valid while w is). */
sdx_sink cli_writer_sink(cli_writer *w);

/* Release the writer (finishing an open value, whose error is dropped). */
void cli_writer_destroy(cli_writer *w);

/* Print the message for an error a sink returned for event `ev` (NULL when
 * it came from finishing), with `where` naming the input position; `target`
 * (may be NULL) is the format being written, `out` (may be NULL) the output
 * for I/O errors. Returns the exit code. */
int cli_report_sink_error(sdx_err err, const sdx_event *ev, const char *where, const cli_format *target,
                          const cli_output *out);

/* The text of that message (without position) in buf[0, cap); returns the
 * exit code. */
int cli_sink_error_text(sdx_err err, const sdx_event *ev, const cli_format *target, const cli_output *out,
                        char *buf, size_t cap);

/* Pump every event of `in` into `sink` and finish the sink. Errors are
 * reported (reader errors with their position, sink errors with the
 * position of the value the sink refused). Returns the exit code. */
int cli_pump(cli_input *in, sdx_sink sink, const cli_format *target, const cli_output *out);

/* Pump `in` into a writer of `to` (a cli_writer on `out`'s buffer) and
 * finish it. Returns the exit code, errors reported. */
int cli_pump_to(cli_input *in, cli_output *out, const cli_format *to, const cli_write_opts *opts);

/* The end of a command: commit `out` if rc is 0 (its error becomes the
 * exit code), else abort it; then close `in` (NULL: none). Returns the
 * exit code. */
int cli_finish(int rc, cli_output *out, cli_input *in);

/* A short name of an event's kind ("string", "binary", ...). */
const char *cli_kind_name(const sdx_event *ev);

#endif /* SDX_CLI_PUMP_H */
