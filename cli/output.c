/*
 * Outputs (output.h): stdout or an atomically replaced file.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The temporary file of the output being written, removed by the signal
 * handler when the command is interrupted (one output per process). */
static char *volatile cleanup_path;

static void on_signal(int sig) {
    char *p = cleanup_path;
    if (p) unlink(p);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void set_cleanup(char *path) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    cleanup_path = path;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) != 0) continue;
        /* Leave ignored signals ignored (nohup). */
        if (old.sa_handler == SIG_IGN) continue;
        sa.sa_handler = path ? on_signal : SIG_DFL;
        sigaction(sigs[i], &sa, NULL);
    }
}

static bool write_all(cli_output *o, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (!o->write_errno) o->write_errno = errno;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool flush_pending(cli_output *o) {
    bool ok = write_all(o, o->pending, o->pending_len);
    o->pending_len = 0;
    return ok;
}

size_t cli_output_write(void *ctx, const void *data, size_t len) {
    cli_output *o = ctx;
    if (o->write_errno) return 0;
    if (o->pending_len + len <= CLI_OUTPUT_PENDING) {
        memcpy(o->pending + o->pending_len, data, len);
        o->pending_len += len;
        return len;
    }
    if (!flush_pending(o)) return 0;
    if (len <= CLI_OUTPUT_PENDING / 2) {
        memcpy(o->pending, data, len);
        o->pending_len = len;
        return len;
    }
    return write_all(o, data, len) ? len : 0;
}

/* The stream buffer's patch function (sdx_buf_set_patch): bytes given to
 * buf_write earlier, from offset `at` of the output, rewritten in the file
 * once the pending bytes are out. */
static int buf_patch(void *ctx, uint64_t at, const void *data, size_t len) {
    cli_output *o = ctx;
    if (o->write_errno || o->filter || !flush_pending(o)) return 0;
    const char *p = data;
    off_t off = (off_t)(o->base + (long long)at);
    while (len) {
        ssize_t w = pwrite(o->fd, p, len, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (!o->write_errno) o->write_errno = errno;
            return 0;
        }
        p += w;
        len -= (size_t)w;
        off += w;
    }
    return 1;
}

/* Patching where the output is a regular file that can seek and is not
 * opened for appending (where pwrite would append). */
static void allow_patch(cli_output *o) {
    struct stat st;
    if (fstat(o->fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    int fl = fcntl(o->fd, F_GETFL);
    off_t at = lseek(o->fd, 0, SEEK_CUR);
    if (fl < 0 || (fl & O_APPEND) || at < 0) return;
    o->base = (long long)at;
    sdx_buf_set_patch(&o->buf, buf_patch);
}

/* The stream buffer's write function: through the filter if there is one. */
static size_t buf_write(void *ctx, const void *data, size_t len) {
    cli_output *o = ctx;
    if (o->filter) return o->filter(o->filter_ctx, data, len);
    return cli_output_write(o, data, len);
}

static void release(cli_output *o) {
    sdx_buf_destroy(&o->buf);
    free(o->pending);
    o->pending = NULL;
    free(o->tmp);
    o->tmp = NULL;
    free(o->final);
    o->final = NULL;
}

/* The mode a new file gets: 0666 minus the umask. */
static mode_t default_mode(void) {
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int open_file(cli_output *o, const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            cli_message("cannot write %s: %s", path, strerror(EISDIR));
            return CLI_EXIT_IO;
        }
        /* A device or a pipe: nothing to replace, write it directly. */
        o->fd = open(path, O_WRONLY | O_TRUNC);
        if (o->fd < 0) {
            cli_message("cannot open %s: %s", path, strerror(errno));
            return CLI_EXIT_IO;
        }
        return 0;
    }
    bool exists = stat(path, &st) == 0;
    /* Through a symbolic link, replace its target and keep the link. */
    struct stat lst;
    char *final = NULL;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) final = realpath(path, NULL);
    if (!final) final = strdup(path);
    if (!final) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    o->final = final;
    const char *slash = strrchr(final, '/');
    size_t dir_len = slash ? (size_t)(slash - final) + 1 : 0;
    const char *base = final + dir_len;
    size_t cap = strlen(final) + 16;
    o->tmp = malloc(cap);
    if (!o->tmp) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    snprintf(o->tmp, cap, "%.*s.%s.XXXXXX", (int)dir_len, final, base);
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        int e = errno;
        cli_message("cannot create a file beside %s: %s", path, strerror(e));
        free(o->tmp);
        o->tmp = NULL;
        return CLI_EXIT_IO;
    }
    set_cleanup(o->tmp);
    if (fchmod(o->fd, exists ? (st.st_mode & 07777) : default_mode()) != 0) {
        cli_message("cannot set the mode of %s: %s", o->tmp, strerror(errno));
        return CLI_EXIT_IO;
    }
    return 0;
}

int cli_output_open(cli_output *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->pending = malloc(CLI_OUTPUT_PENDING);
    sdx_buf_init_stream(&o->buf, buf_write, o, 0, NULL);
    if (!o->pending) {
        cli_message("out of memory");
        release(o);
        return CLI_EXIT_IO;
    }
    if (!path || strcmp(path, "-") == 0) {
        o->name = "<stdout>";
        o->fd = STDOUT_FILENO;
        allow_patch(o);
        return 0;
    }
    o->name = path;
    int rc = open_file(o, path);
    if (rc) cli_output_abort(o);
    else allow_patch(o);
    return rc;
}

static int write_failed(cli_output *o) {
    int e = o->write_errno ? o->write_errno : EIO;
    cli_message("cannot write %s: %s", o->name, strerror(e));
    cli_output_abort(o);
    return CLI_EXIT_IO;
}

int cli_output_commit(cli_output *o) {
    if (sdx_buf_flush(&o->buf) != SDX_OK) return write_failed(o);
    if (o->filter_end) o->filter_end(o->filter_ctx);
    if (!flush_pending(o)) return write_failed(o);
    if (o->tmp) {
        if (fsync(o->fd) != 0 || close(o->fd) != 0) {
            o->write_errno = errno;
            o->fd = -1;
            return write_failed(o);
        }
        o->fd = -1;
        if (rename(o->tmp, o->final) != 0) {
            o->write_errno = errno;
            return write_failed(o);
        }
        set_cleanup(NULL);
        /* Make the rename itself durable (best effort: not every file
         * system lets a directory be opened or synced). */
        char *slash = strrchr(o->final, '/');
        if (slash) *slash = 0;
        int dir = open(slash ? (o->final[0] ? o->final : "/") : ".", O_RDONLY);
        if (dir >= 0) {
            fsync(dir);
            close(dir);
        }
    } else if (o->fd != STDOUT_FILENO && o->fd >= 0) {
        if (close(o->fd) != 0) {
            o->write_errno = errno;
            o->fd = -1;
            return write_failed(o);
        }
        o->fd = -1;
    }
    release(o);
    return 0;
}

void cli_output_abort(cli_output *o) {
    /* stdout cannot be taken back: let it show everything up to the error
     * (best effort; a write error here has been reported or is moot). */
    if (o->fd == STDOUT_FILENO && !o->tmp && !o->write_errno && o->pending) {
        sdx_buf_flush(&o->buf);
        if (o->filter_end) o->filter_end(o->filter_ctx);
        flush_pending(o);
    }
    if (o->fd >= 0 && o->fd != STDOUT_FILENO) close(o->fd);
    o->fd = -1;
    if (o->tmp) {
        unlink(o->tmp);
        set_cleanup(NULL);
    }
    release(o);
}
