/*
 * Memory of the harness's own, outside the malloc heap: the tree file while
 * the tree is built, the input of a parse test, and the copy of a Write
 * test's output kept for verification and for the hashing alone.
 *
 * Why: in the heap these would leave holes, or sit in the way, where the
 * measured library's buffers grow. A tree file read into a heap block and
 * freed after the tree is built leaves a hole of its size below the tree;
 * a library's output buffer that starts in it grows in place to the hole's
 * end and is then moved (the whole output copied) in every iteration, or
 * not, by the luck of the sizes. The copy of the output, made while the
 * library's buffer is alive and kept through the timed iterations, can do
 * the same. With the harness's blocks here, and stdio's buffers static
 * (main.c), the heap above the tree is the library's alone from one
 * iteration to the next (bench/README.md, 2026-12-05). The Rust runner
 * does the same (bench/rust/src/pages.rs).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "pages.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void *bench_pages(size_t n) {
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    return p;
}

void bench_pages_free(void *p, size_t n) {
    if (p) munmap(p, n ? n : 1);
}

char *bench_pages_file(const char *path, size_t *len, size_t pad) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    int fs = fstat(fd, &st);
    if (fs != 0 || !S_ISREG(st.st_mode)) {
        int e = fs != 0 ? errno : EINVAL; /* not a stale errno for a non-regular file */
        close(fd);
        errno = e;
        return NULL;
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *p = bench_pages(n + pad); /* zero-filled: the padding too */
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { /* an error, or the file shrank */
            int e = r < 0 ? errno : EIO;
            bench_pages_free(p, n + pad);
            close(fd);
            errno = e;
            return NULL;
        }
        got += (size_t)r;
    }
    close(fd);
    *len = n;
    return p;
}
