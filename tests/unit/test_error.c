/* Error codes and their descriptions. */
#include "sdx/common.h"
#include "test.h"

TEST(every_code_has_a_distinct_text) {
    for (int i = 0; i < SDX_ERR__COUNT; i++) {
        const char *s = sdx_strerror((sdx_err)i);
        CHECK(s != NULL && s[0] != '\0');
        CHECK(strcmp(s, "unknown error") != 0);
        for (int j = 0; j < i; j++) CHECK(strcmp(s, sdx_strerror((sdx_err)j)) != 0);
    }
}

TEST(unknown_codes) {
    CHECK(strcmp(sdx_strerror(SDX_ERR__COUNT), "unknown error") == 0);
    CHECK(strcmp(sdx_strerror((sdx_err)-1), "unknown error") == 0);
    CHECK(strcmp(sdx_strerror((sdx_err)1000), "unknown error") == 0);
    CHECK(strcmp(sdx_strerror(SDX_OK), "no error") == 0);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"every_code_has_a_distinct_text", every_code_has_a_distinct_text},
                                  {"unknown_codes", unknown_codes},
                                  {0, 0}});
}
