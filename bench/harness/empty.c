/* The empty adapter: the harness alone, for the code-size baseline. Its
 * "write" emits nothing; it is never timed against the others. */
#include "adapter.h"

static int empty_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    (void)root;
    emit(ctx, "", 0);
    return 0;
}

const bench_adapter bench_adapter_def = {"empty", "C", "none", "write", empty_write, NULL};
