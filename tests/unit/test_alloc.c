/* The default allocator. */
#include "sdx/common.h"
#include "test.h"

TEST(default_allocator_round_trip) {
    const sdx_alloc *a = sdx_alloc_default();
    CHECK(a && a->malloc && a->realloc && a->free);
    char *p = a->malloc(a->ctx, 10);
    if (!CHECK(p != NULL)) return;
    memcpy(p, "0123456789", 10);
    p = a->realloc(a->ctx, p, 10, 100000);
    if (!CHECK(p != NULL)) return;
    CHECK(memcmp(p, "0123456789", 10) == 0);
    p = a->realloc(a->ctx, p, 100000, 5);
    if (!CHECK(p != NULL)) return;
    CHECK(memcmp(p, "01234", 5) == 0);
    a->free(a->ctx, p);
    a->free(a->ctx, NULL);
    /* Zero-size requests give a usable, freeable pointer. */
    p = a->malloc(a->ctx, 0);
    CHECK(p != NULL);
    a->free(a->ctx, p);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"default_allocator_round_trip", default_allocator_round_trip},
                                  {0, 0}});
}
