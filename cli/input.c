/*
 * Inputs (input.h): reading with read(2) in the chunks the reader asks for,
 * content detection over a look-ahead, and line:column positions.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Bytes of look-ahead the content detection reads. */
#define PEEK_SIZE SDX_DETECT_PEEK

/* The position window keeps at least this many recent bytes (and at most
 * twice as many). A reader holds less than one 64 KiB chunk beyond the
 * last event it returned, so an event's offset is always inside. */
#define WINDOW_KEEP (256u * 1024u)

/* Advance a line/column pair over p[0, n). Columns count bytes, from 1. */
static void advance(uint64_t *line, uint64_t *col, const unsigned char *p, size_t n) {
    const unsigned char *last = NULL, *q = p, *end = p + n;
    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        ++*line;
        last = q++;
    }
    if (last) *col = (uint64_t)(end - last);
    else *col += n;
}

/* Append fresh input to the window, dropping (and counting lines over) the
 * oldest bytes beyond twice WINDOW_KEEP. */
static void track(cli_input *in, const unsigned char *p, size_t n) {
    if (n > WINDOW_KEEP) {
        advance(&in->win_line, &in->win_col, in->win, in->win_len);
        in->win_start += in->win_len;
        in->win_len = 0;
        size_t skip = n - WINDOW_KEEP;
        advance(&in->win_line, &in->win_col, p, skip);
        in->win_start += skip;
        p += skip;
        n = WINDOW_KEEP;
    }
    if (in->win_len + n > 2 * WINDOW_KEEP) {
        size_t drop = in->win_len + n - WINDOW_KEEP;
        advance(&in->win_line, &in->win_col, in->win, drop);
        memmove(in->win, in->win + drop, in->win_len - drop);
        in->win_len -= drop;
        in->win_start += drop;
    }
    memcpy(in->win + in->win_len, p, n);
    in->win_len += n;
}

/* read(2) until `cap` bytes, the end, or an error (-1, errno set). A
 * partial read returns what arrived: the reader asks again. */
static ssize_t read_some(int fd, void *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0 || errno != EINTR) return n;
    }
}

/* The reader's read function: the look-ahead first, then the file. */
static size_t input_read(void *ctx, void *buf, size_t cap) {
    cli_input *in = ctx;
    size_t n;
    if (in->peek_pos < in->peek_len) {
        n = in->peek_len - in->peek_pos;
        if (n > cap) n = cap;
        memcpy(buf, in->peek + in->peek_pos, n);
        in->peek_pos += n;
    } else {
        ssize_t got = read_some(in->fd, buf, cap);
        if (got < 0) {
            if (!in->read_errno) in->read_errno = errno;
            return (size_t)-1;
        }
        n = (size_t)got;
    }
    if (in->spooling && n) {
        const char *p = buf;
        size_t left = n;
        while (left) {
            ssize_t w = write(in->spool_fd, p, left);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                if (!in->read_errno) in->read_errno = errno;
                in->spool_failed = true;
                return (size_t)-1;
            }
            p += w;
            left -= (size_t)w;
        }
    }
    if (in->track && n) track(in, buf, n);
    in->total += n;
    return n;
}

/* Fill the look-ahead: up to PEEK_SIZE bytes; *at_end when that is all. */
static int fill_peek(cli_input *in, bool *at_end) {
    in->peek = malloc(PEEK_SIZE);
    if (!in->peek) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    *at_end = false;
    while (in->peek_len < PEEK_SIZE) {
        ssize_t got = read_some(in->fd, in->peek + in->peek_len, PEEK_SIZE - in->peek_len);
        if (got < 0) {
            cli_message("cannot read %s: %s", in->name, strerror(errno));
            return CLI_EXIT_IO;
        }
        if (got == 0) {
            *at_end = true;
            break;
        }
        in->peek_len += (size_t)got;
    }
    return 0;
}

/* The input's size in bytes: the look-ahead when it holds everything,
 * else a regular file's size from where reading began; UINT64_MAX when
 * unknown (a pipe). */
static uint64_t input_size(const cli_input *in, bool at_end) {
    if (at_end) return in->peek_len;
    struct stat st;
    if (in->start >= 0 && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= in->start)
        return (uint64_t)(st.st_size - in->start);
    return UINT64_MAX;
}

/* The format from the content (sdx_detect_format, detect.h: the library's
 * detection, which the Python package uses too). */
static int detect(cli_input *in, const cli_read_opts *opts) {
    bool at_end;
    int rc = fill_peek(in, &at_end);
    if (rc) return rc;
    uint32_t flags = 0;
    if (opts->seq) flags |= SDX_DETECT_SEQUENCE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) flags |= SDX_DETECT_NO_UTF8_CHECK;
    sdx_format f;
    bool guessed;
    if (sdx_detect_format(in->peek, in->peek_len, input_size(in, at_end), flags, &f, &guessed) != SDX_OK) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    in->fmt = cli_format_by_name(sdx_format_name(f));
    in->guessed = guessed;
    return 0;
}

static int open_reader(cli_input *in, const cli_read_opts *opts) {
    in->reader = in->fmt->reader_new(input_read, in, opts);
    if (!in->reader) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    in->src = in->fmt->reader_source(in->reader);
    return 0;
}

/* A temporary file in $TMPDIR (else /tmp), already unlinked; -1 (errno
 * set) on failure. */
static int temp_file(void) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/sdx-input.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

/* The first of two passes (counts.h): count, then start reading again from
 * the beginning with the counts going into the events. */
static int count_pass(cli_input *in, const cli_read_opts *opts) {
    in->counts = malloc(sizeof *in->counts);
    if (!in->counts) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    int e = cli_counts_init(in->counts);
    if (!e && in->start < 0) {
        in->spool_fd = temp_file();
        if (in->spool_fd < 0) e = errno;
        in->spooling = in->spool_fd >= 0;
    }
    if (e) {
        cli_message("cannot create a temporary file: %s", strerror(e));
        return CLI_EXIT_IO;
    }
    sdx_err err = cli_counts_record(in->counts, in->src);
    if (err == SDX_ERR_IO && in->counts->io_errno) {
        cli_message("cannot write a temporary file: %s", strerror(in->counts->io_errno));
        return CLI_EXIT_IO;
    }
    if (err == SDX_ERR_NOMEM) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    if (err) return cli_exit_for(cli_input_report(in));
    /* Again from the beginning: the spool, or the file where it began. */
    in->fmt->reader_free(in->reader);
    in->reader = NULL;
    int fd = in->spooling ? in->spool_fd : in->fd;
    if (lseek(fd, in->spooling ? 0 : (off_t)in->start, SEEK_SET) < 0) {
        cli_message("cannot read %s again: %s", in->name, strerror(errno));
        return CLI_EXIT_IO;
    }
    if (in->spooling) {
        if (in->close_fd) close(in->fd);
        in->fd = in->spool_fd;
        in->close_fd = true;
        in->spool_fd = -1;
        in->spooling = false;
    }
    in->peek_len = in->peek_pos = 0;
    in->total = 0;
    in->win_len = 0;
    in->win_start = 0;
    in->win_line = in->win_col = 1;
    int rc = open_reader(in, opts);
    if (!rc) in->src = cli_counts_source(in->counts, in->src);
    return rc;
}

int cli_input_open(cli_input *in, const char *path, const cli_format *forced, const cli_read_opts *opts) {
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->spool_fd = -1;
    in->hints = opts->mapping_hints;
    if (!path || strcmp(path, "-") == 0) {
        in->name = "<stdin>";
        in->fd = STDIN_FILENO;
    } else {
        in->name = path;
        in->fd = open(path, O_RDONLY);
        if (in->fd < 0) {
            cli_message("cannot open %s: %s", path, strerror(errno));
            return CLI_EXIT_IO;
        }
        in->close_fd = true;
    }
    struct stat st;
    if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_message("cannot read %s: %s", in->name, strerror(EISDIR));
        cli_input_close(in);
        return CLI_EXIT_IO;
    }
    off_t here = -1;
    if (S_ISREG(st.st_mode)) here = lseek(in->fd, 0, SEEK_CUR);
    in->start = here >= 0 ? (int64_t)here : -1;
    int rc = 0;
    in->fmt = forced;
    if (!in->fmt && path && strcmp(path, "-") != 0) in->fmt = cli_format_by_path(path);
    if (in->fmt && !cli_format_readable(in->fmt)) {
        cli_message("%s: sdx cannot read %s yet", in->name, in->fmt->name);
        cli_input_close(in);
        return CLI_EXIT_USAGE;
    }
    if (!in->fmt) rc = detect(in, opts);
    if (!rc && in->fmt->text) {
        in->track = true;
        in->win = malloc(2 * WINDOW_KEEP);
        in->win_line = in->win_col = 1;
        if (!in->win) {
            cli_message("out of memory");
            rc = CLI_EXIT_IO;
        }
    }
    if (!rc) rc = open_reader(in, opts);
    if (!rc && opts->counts && !in->fmt->counts_known) rc = count_pass(in, opts);
    if (rc) cli_input_close(in);
    return rc;
}

void cli_input_close(cli_input *in) {
    if (in->reader) in->fmt->reader_free(in->reader);
    in->reader = NULL;
    if (in->counts) cli_counts_destroy(in->counts);
    free(in->counts);
    in->counts = NULL;
    if (in->spool_fd >= 0) close(in->spool_fd);
    in->spool_fd = -1;
    if (in->close_fd) close(in->fd);
    in->close_fd = false;
    free(in->peek);
    in->peek = NULL;
    free(in->win);
    in->win = NULL;
}

void cli_input_where(const cli_input *in, uint64_t offset, bool skip_separators, char *buf, size_t cap) {
    if (in->track && offset >= in->win_start && offset <= in->win_start + in->win_len) {
        size_t at = (size_t)(offset - in->win_start);
        if (skip_separators && in->fmt->separators)
            while (at < in->win_len && strchr(in->fmt->separators, in->win[at])) at++;
        uint64_t line = in->win_line, col = in->win_col;
        advance(&line, &col, in->win, at);
        snprintf(buf, cap, "%s:%" PRIu64 ":%" PRIu64, in->name, line, col);
        return;
    }
    snprintf(buf, cap, "%s: byte %" PRIu64, in->name, offset);
}

sdx_err cli_input_report(cli_input *in) {
    sdx_error e;
    sdx_err code = sdx_source_error(in->src, &e);
    if (code == SDX_OK) return SDX_OK;
    if (code == SDX_ERR_IO) {
        const char *why = in->read_errno ? strerror(in->read_errno) : "read error";
        if (in->spool_failed) cli_message("cannot keep a temporary copy of %s: %s", in->name, why);
        else cli_message("cannot read %s: %s", in->name, why);
        return code;
    }
    if (code == SDX_ERR_NOMEM) {
        cli_message("out of memory reading %s", in->name);
        return code;
    }
    char where[512];
    if (in->fmt->text && e.line)
        snprintf(where, sizeof where, "%s:%zu:%zu", in->name, e.line, e.column);
    else
        cli_input_where(in, e.offset, false, where, sizeof where);
    fprintf(stderr, "%s: error: %s%s\n", where, e.msg ? e.msg : sdx_strerror(code),
            code == SDX_ERR_UTF8 && in->hints ? " (--utf8=replace reads it anyway)" : "");
    if (in->guessed)
        fprintf(stderr, "%s: note: no format reads this input; it was read as %s (choose one with -f)\n",
                in->name, in->fmt->name);
    return code;
}
