/*
 * Inputs of the sdx command: a file or stdin read in bounded chunks by a
 * format's streaming reader, the format chosen by -f, the file extension or
 * the content, and positions for messages ("file:line:column" for text
 * formats, "file: byte N" for binary ones).
 */
#ifndef SDX_CLI_INPUT_H
#define SDX_CLI_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "formats.h"

typedef struct cli_input {
    const char *name;     /* the path, or "<stdin>" */
    int fd;
    bool close_fd;
    int read_errno;       /* errno of the first read error (0: none) */
    bool spool_failed;    /* ... which was writing the temporary copy */
    int64_t start;        /* offset of a regular file where reading began */
    uint64_t total;       /* bytes handed to the reader so far */
    /* Look-ahead for content detection, handed to the reader first. */
    unsigned char *peek;
    size_t peek_len, peek_pos;
    /* Text formats: a window over the most recent input and the line and
     * column where it starts, to turn byte offsets into line:column. */
    bool track;
    unsigned char *win;
    size_t win_len;
    uint64_t win_start;
    uint64_t win_line, win_col;
    /* The format and its reader. */
    const cli_format *fmt;
    bool guessed;         /* chosen from the content, of which no format read a byte */
    bool hints;           /* messages may suggest mapping options */
    void *reader;
    sdx_source src;
    /* Two passes for container counts (opts->counts, counts.h): the
     * counts, and for an input that cannot be read twice (a pipe) a
     * temporary copy made during the first pass (-1: none). */
    cli_counts *counts;
    int spool_fd;
    bool spooling;
} cli_input;

/* Open `path` (NULL or "-": stdin) and its reader: the format is `forced`
 * if not NULL, else the one the extension names, else the first in registry
 * order that reads the beginning of the content without error (or, if none
 * does, the one that reads furthest). With opts->counts and a format that
 * does not store counts, the whole input is read once here to count (a
 * pipe is copied to a temporary file on the way), and its errors are
 * reported here. Returns 0, or an exit code after printing a message (the
 * input is closed then). */
int cli_input_open(cli_input *in, const char *path, const cli_format *forced, const cli_read_opts *opts);

/* Free the reader and close the file. */
void cli_input_close(cli_input *in);

/* The next event (see sdx_source_next). */
static inline bool cli_input_next(cli_input *in, sdx_event *ev) { return sdx_source_next(in->src, ev); }

/* Byte offset just after the last event read. */
static inline uint64_t cli_input_offset(const cli_input *in) { return sdx_source_offset(in->src); }

/* Where byte `offset` is, for messages: "name:LINE:COLUMN" for a text
 * format when the offset is still in the window (with `skip_separators`
 * first skipping the format's separators, to point at the value that
 * follows), else "name: byte N". Writes at most `cap` bytes with a NUL. */
void cli_input_where(const cli_input *in, uint64_t offset, bool skip_separators, char *buf, size_t cap);

/* After cli_input_next() returned false: SDX_OK at a clean end; else print
 * the reader's error with its position and return its code (SDX_ERR_IO for
 * a read error, reported with the system's reason). */
sdx_err cli_input_report(cli_input *in);

#endif /* SDX_CLI_INPUT_H */
