/*
 * Tree files: the harness's plain tree on disk, so that benchmark programs
 * (C and Rust) load real-world documents without linking any JSON library.
 * bench_tool converts a corpus document into one; SPEC.md has the format.
 */
#ifndef SDX_BENCH_TREEFILE_H
#define SDX_BENCH_TREEFILE_H

#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write `root` to `path`; 0 on success. */
int bt_write_file(const char *path, const bt_node *root);

/* Read a tree file; NULL (and a message on stderr) if it is missing or
 * malformed. Free with bt_free. */
bt_node *bt_read_file(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_TREEFILE_H */
