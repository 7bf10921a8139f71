/* The shared library: a program using only the public API links against it
 * and works, and internal functions are not exported. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>

#include "sdx/sdx.h"
#include "test.h"

static const char *library_path;

TEST(public_api_through_shared_library) {
    char mem[64];
    sdx_buf b;
    sdx_buf_init_fixed(&b, mem, sizeof mem);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    sdx_json_writer_begin_array(&w, 2);
    sdx_json_writer_double(&w, 0.1);
    sdx_json_writer_string(&w, "\n", 1);
    sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(mem, sdx_buf_len(&b), "[0.1,\"\\n\"]");
    CHECK(strcmp(sdx_strerror(SDX_ERR_UTF8), "invalid UTF-8") == 0);
    CHECK(sdx_simd_name() != NULL);
}

TEST(only_public_symbols_are_exported) {
    if (!CHECK(library_path != NULL)) return;
    void *h = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (!CHECK(h != NULL)) {
        fprintf(stderr, "  %s\n", dlerror());
        return;
    }
    CHECK(dlsym(h, "sdx_json_writer_init") != NULL);
    CHECK(dlsym(h, "sdx_buf_reserve_slow") != NULL);
    CHECK(dlsym(h, "sdx_strerror") != NULL);
    CHECK(dlsym(h, "sdx_simd_name") != NULL);
    /* internal */
    CHECK(dlsym(h, "sdx_u64_to_dec") == NULL);
    CHECK(dlsym(h, "sdx_dtoa_json") == NULL);
    CHECK(dlsym(h, "sdx_utf8_valid_prefix") == NULL);
    CHECK(dlsym(h, "sdx_simd_active") == NULL);
    dlclose(h);
}

int main(int argc, char **argv) {
    /* The first argument is the shared library's path (from CMake). */
    if (argc > 1 && strchr(argv[1], '/')) {
        library_path = argv[1];
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    return test_run(argc, argv,
                    (test_case[]){{"public_api_through_shared_library", public_api_through_shared_library},
                                  {"only_public_symbols_are_exported", only_public_symbols_are_exported},
                                  {0, 0}});
}
