/*
 * Tests of the SIMD kernels and their dispatch.
 *
 * Every kernel this build has and this CPU runs (sdx_simd_kernels_for) is
 * run on the same inputs and compared with a plain byte loop written here:
 * every byte value at every position of every length 0..200 for each `set`,
 * random strings (also fed through repeated calls the way the JSON writer
 * makes them), and strings that end or start at a page boundary next to an
 * inaccessible page. Sources are exact-size heap blocks (AddressSanitizer
 * sees any over-read) and destinations have guard bytes around them (or are
 * exact-size blocks too), so a kernel that touches a byte outside
 * src[0, n) / dst[0, n) fails.
 *
 * utf8_valid_prefix: every kernel against the scalar reference
 * (sdx_utf8_valid_prefix) on valid mixed text of every length 0..300 with a
 * bad piece at every position; characters across every block edge; every
 * sequence of one to three bytes in ASCII text; long and random text; text
 * against inaccessible pages. The lookup tables of src/simd/utf8_kernel.h
 * are checked on all 65,536 byte pairs against the encodings of every
 * scalar value (tests/unit/utf8_ref.h).
 *
 * Dispatch: level names, sdx_simd_select, and the environment variable
 * SDX_SIMD at first use, both in this process (main sets SDX_SIMD=scalar
 * before anything else runs, unless it is already set) and, on Linux, in
 * copies of this executable started with various values.
 */
#include "guard_pages.h"

#include "simd/simd.h"

#include "core/utf8.h"
#include "sdx/common.h"
#include "simd/utf8_kernel.h"
#include "test.h"
#include "utf8_ref.h"

#include <stdarg.h>

#ifdef TEST_POSIX
#include <sys/wait.h>
#endif

static const unsigned test_sets[4] = {0, SDX_ESC_SLASH, SDX_ESC_HIGH,
                                      SDX_ESC_SLASH | SDX_ESC_HIGH};

/* ------------------------------------------------------------------------ */
/* The reference                                                             */
/* ------------------------------------------------------------------------ */

static int ref_stops(unsigned char c, unsigned set) {
    if (c < 0x20 || c == '"' || c == '\\') return 1;
    if ((set & SDX_ESC_SLASH) && c == '/') return 1;
    if ((set & SDX_ESC_HIGH) && c >= 0x80) return 1;
    return 0;
}

static size_t ref_scan(const char *src, size_t n, unsigned set) {
    for (size_t i = 0; i < n; i++)
        if (ref_stops((unsigned char)src[i], set)) return i;
    return n;
}

/* A byte that stops the scan for no `set`, different for neighbouring i. */
static char clean_byte(size_t i) {
    static const char clean[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_!#";
    return clean[(i * 7) % (sizeof clean - 1)];
}

/* ------------------------------------------------------------------------ */
/* Kernels under test                                                        */
/* ------------------------------------------------------------------------ */

static const sdx_simd_kernels *kernels[SDX_SIMD__COUNT];
static int kernel_count;

static void collect_kernels(void) {
    if (kernel_count) return;
    for (int l = 0; l < SDX_SIMD__COUNT; l++) {
        const sdx_simd_kernels *k = sdx_simd_kernels_for((sdx_simd_level)l);
        if (k) kernels[kernel_count++] = k;
    }
    printf("# kernels on this machine:");
    for (int i = 0; i < kernel_count; i++) printf(" %s", kernels[i]->name);
    printf("\n");
}

/* A failed check inside a loop: print the first few in detail (with the
 * kernel, `set` and length), count them all. */
static long failures_shown;

static void fail_at(const char *file, int line, const sdx_simd_kernels *k, unsigned set,
                    size_t n, const char *fmt, ...) {
    if (failures_shown++ >= 12) {
        test_checks_failed++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  kernel %s, set %u, n %zu: ", k->name, set, n);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    test_fail_at(file, line, "kernel output");
}

#define FAIL(k, set, n, ...) fail_at(__FILE__, __LINE__, (k), (set), (n), __VA_ARGS__)

/* A block of off + n bytes (at least 1) in *block; returns block + off, so
 * that the n bytes from there end exactly at the end of the heap block. */
static char *alloc_ending(size_t off, size_t n, char **block) {
    *block = malloc(off + n ? off + n : 1);
    return *block ? *block + off : NULL;
}

#define GUARD 64
#define GUARD_BYTE 0x5A

static unsigned char guard_pattern[GUARD];

/* The GUARD bytes before dst and after dst[n - 1] still hold GUARD_BYTE. */
static int guards_intact(const unsigned char *dst, size_t n) {
    if (guard_pattern[0] != GUARD_BYTE) memset(guard_pattern, GUARD_BYTE, GUARD);
    return memcmp(dst - GUARD, guard_pattern, GUARD) == 0 &&
           memcmp(dst + n, guard_pattern, GUARD) == 0;
}

/* ------------------------------------------------------------------------ */
/* Exhaustive: one special byte in a clean string                            */
/* ------------------------------------------------------------------------ */

#define MAX_LEN 200

/* Every byte value at every position of every length 0..MAX_LEN. */
static void exhaustive_one(const sdx_simd_kernels *k, unsigned set) {
    const size_t dst_size = MAX_LEN + 2 * GUARD + 64;
    unsigned char *dst_block = malloc(dst_size);
    char *poison = malloc(MAX_LEN);
    if (!CHECK(dst_block && poison)) {
        free(dst_block);
        free(poison);
        return;
    }
    const long failed_before = test_checks_failed;
    for (size_t n = 0; n <= MAX_LEN && test_checks_failed - failed_before < 1000; n++) {
        memset(dst_block, GUARD_BYTE, dst_size);
        /* src ends exactly at the end of its heap block; the alignment of
         * src and dst varies with n */
        char *src_block;
        char *src = alloc_ending((n * 13) % 64, n, &src_block);
        if (!CHECK(src != NULL)) break;
        unsigned char *dst = dst_block + GUARD + (n * 29) % 64;
        for (size_t i = 0; i < n; i++) {
            src[i] = clean_byte(i + n);
            poison[i] = (char)(src[i] ^ 0x55); /* differs from src in every byte */
        }
        if (n == 0) {
            size_t r = k->json_escape_copy((char *)dst, src, 0, set);
            test_checks_run += 2;
            if (r != 0) FAIL(k, set, n, "empty string gave %zu", r);
            if (!guards_intact(dst, 0)) FAIL(k, set, n, "wrote outside dst[0, n)");
        }
        for (size_t pos = 0; pos < n; pos++) {
            for (unsigned b = 0; b < 256; b++) {
                src[pos] = (char)b;
                memcpy(dst, poison, n);
                dst[pos] = (unsigned char)(b ^ 0x55);
                size_t r = k->json_escape_copy((char *)dst, src, n, set);
                size_t expect = ref_stops((unsigned char)b, set) ? pos : n;
                test_checks_run += 3;
                if (r != expect)
                    FAIL(k, set, n, "byte 0x%02x at %zu: result %zu, expected %zu", b, pos, r,
                         expect);
                else if (memcmp(dst, src, r) != 0)
                    FAIL(k, set, n, "byte 0x%02x at %zu: dst[0, %zu) differs from src", b, pos,
                         r);
                if (!guards_intact(dst, n))
                    FAIL(k, set, n, "byte 0x%02x at %zu: wrote outside dst[0, n)", b, pos);
            }
            src[pos] = clean_byte(pos + n);
        }
        free(src_block);
    }
    free(poison);
    free(dst_block);
}

TEST(escape_every_byte_every_position) {
    collect_kernels();
    CHECK(kernel_count >= 1 && kernels[0]->level == SDX_SIMD_SCALAR);
    for (int i = 0; i < kernel_count; i++)
        for (int s = 0; s < 4; s++) exhaustive_one(kernels[i], test_sets[s]);
}

/* ------------------------------------------------------------------------ */
/* Random strings, as single calls and as a writer would call                */
/* ------------------------------------------------------------------------ */

static size_t random_length(uint64_t *rng) {
    uint64_t r = test_rand(rng);
    switch (r & 7) {
    case 0:
        return (size_t)((r >> 8) % 4097);
    case 1:
    case 2:
        return (size_t)((r >> 8) % 257);
    default:
        return (size_t)((r >> 8) % 65);
    }
}

/* A random string: printable ASCII, arbitrary bytes, or mostly clean with
 * rare arbitrary bytes. */
static void random_string(uint64_t *rng, char *s, size_t n) {
    const uint64_t kind = test_rand(rng) % 4;
    const uint64_t rarity = 1 + test_rand(rng) % 300;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand(rng);
        if (kind == 0) s[i] = (char)(0x20 + r % 95);
        else if (kind == 1) s[i] = (char)(r & 0xFF);
        else s[i] = (r >> 16) % rarity == 0 ? (char)(r & 0xFF) : clean_byte((size_t)(r >> 24));
    }
}

TEST(escape_random_strings) {
    collect_kernels();
    uint64_t rng = 0x5d5u;
    const long rounds = (long)(20000 * test_scale());
    for (long round = 0; round < rounds; round++) {
        const size_t n = random_length(&rng);
        char *src_block, *dst_block;
        char *src = alloc_ending((size_t)(test_rand(&rng) % 64), n, &src_block);
        char *dst = alloc_ending((size_t)(test_rand(&rng) % 64), n, &dst_block);
        if (!CHECK(src && dst)) {
            free(src_block);
            free(dst_block);
            return;
        }
        random_string(&rng, src, n);
        for (int s = 0; s < 4; s++) {
            const unsigned set = test_sets[s];
            /* one call from position `start`, for a few starts */
            for (int t = 0; t < 3; t++) {
                size_t start = t == 0 || n == 0 ? 0 : (size_t)(test_rand(&rng) % (n + 1));
                size_t expect = start + ref_scan(src + start, n - start, set);
                for (int i = 0; i < kernel_count; i++) {
                    const sdx_simd_kernels *k = kernels[i];
                    memset(dst, 0, n);
                    size_t r =
                        start + k->json_escape_copy(dst + start, src + start, n - start, set);
                    test_checks_run += 2;
                    if (r != expect)
                        FAIL(k, set, n, "from %zu: result %zu, expected %zu", start, r, expect);
                    else if (memcmp(dst + start, src + start, r - start) != 0)
                        FAIL(k, set, n, "from %zu: dst differs from src before %zu", start, r);
                }
            }
            /* the calls a JSON writer makes: scan, handle the byte, go on;
             * every kernel must stop at the same places and copy the same */
            for (int i = 0; i < kernel_count; i++) {
                const sdx_simd_kernels *k = kernels[i];
                size_t pos = 0;
                int ok = 1;
                memset(dst, 0, n);
                while (pos < n) {
                    size_t r = k->json_escape_copy(dst + pos, src + pos, n - pos, set);
                    size_t expect = ref_scan(src + pos, n - pos, set);
                    if (r != expect) {
                        FAIL(k, set, n, "writer loop at %zu: result %zu, expected %zu", pos, r,
                             expect);
                        ok = 0;
                        break;
                    }
                    pos += r;
                    if (pos < n) {
                        dst[pos] = src[pos]; /* the writer would escape it */
                        pos++;
                    }
                }
                test_checks_run++;
                if (ok && memcmp(dst, src, n) != 0) FAIL(k, set, n, "writer loop output differs");
            }
        }
        free(src_block);
        free(dst_block);
    }
}

/* Long clean strings with one special byte at each of the last 130
 * positions, across the ends of the vector loops. */
TEST(escape_long_strings) {
    collect_kernels();
    static const size_t lens[] = {255, 256, 257, 511, 512, 513, 1000, 1024, 4095, 4096, 4097};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const size_t n = lens[li];
        char *src_block;
        char *src = alloc_ending(li % 4, n, &src_block);
        unsigned char *dst_block = malloc(n + 2 * GUARD);
        if (!CHECK(src && dst_block)) {
            free(src_block);
            free(dst_block);
            return;
        }
        unsigned char *dst = dst_block + GUARD;
        memset(dst_block, GUARD_BYTE, n + 2 * GUARD);
        for (size_t i = 0; i < n; i++) src[i] = clean_byte(i);
        for (int i = 0; i < kernel_count; i++) {
            const sdx_simd_kernels *k = kernels[i];
            for (int s = 0; s < 4; s++) {
                const unsigned set = test_sets[s];
                const char special = (set & SDX_ESC_HIGH) ? (char)0xC3 : '"';
                for (size_t pos = n - 130; pos <= n; pos++) {
                    if (pos < n) src[pos] = special;
                    memset(dst, 0, n);
                    size_t r = k->json_escape_copy((char *)dst, src, n, set);
                    test_checks_run += 3;
                    if (r != pos) FAIL(k, set, n, "stop at %zu: result %zu", pos, r);
                    else if (memcmp(dst, src, r) != 0)
                        FAIL(k, set, n, "stop at %zu: dst differs from src", pos);
                    if (!guards_intact(dst, n))
                        FAIL(k, set, n, "stop at %zu: wrote outside dst[0, n)", pos);
                    if (pos < n) src[pos] = clean_byte(pos);
                }
            }
        }
        free(src_block);
        free(dst_block);
    }
}

#ifdef TEST_PAGES
/* Strings that end at the end of a page followed by an inaccessible page,
 * or start at the start of a page preceded by one: any access beyond the
 * string faults, including those the sanitizer does not see (masked vector
 * loads and stores). */
TEST(escape_at_page_boundaries) {
    collect_kernels();
    guard_pages g;
    if (!CHECK(guard_pages_map(&g, 2, 1))) return;
    const size_t ps = g.size;
    char *src_page = guard_region(&g, 0), *dst_page = guard_region(&g, 1);
    for (int i = 0; i < kernel_count; i++) {
        const sdx_simd_kernels *k = kernels[i];
        for (int s = 0; s < 4; s++) {
            const unsigned set = test_sets[s];
            for (size_t n = 0; n <= 300; n++) {
                for (int at_start = 0; at_start < 2; at_start++) {
                    char *src = at_start ? src_page : src_page + ps - n;
                    char *dst = at_start ? dst_page : dst_page + ps - n;
                    for (size_t j = 0; j < n; j++) src[j] = clean_byte(j);
                    /* clean, then a special byte at the first, then the last position */
                    for (int v = 0; v < 3 && (v == 0 || n > 0); v++) {
                        size_t pos = v == 0 ? n : v == 1 ? 0 : n - 1;
                        if (pos < n) src[pos] = '\\';
                        memset(dst, 0, n);
                        size_t r = k->json_escape_copy(dst, src, n, set);
                        test_checks_run += 2;
                        if (r != pos) FAIL(k, set, n, "stop at %zu: result %zu", pos, r);
                        else if (memcmp(dst, src, r) != 0)
                            FAIL(k, set, n, "stop at %zu: dst differs from src", pos);
                        if (pos < n) src[pos] = clean_byte(pos);
                    }
                }
            }
        }
    }
    guard_pages_unmap(&g);
}
#endif

/* ------------------------------------------------------------------------ */
/* The JSON string scan (reading)                                            */
/* ------------------------------------------------------------------------ */

/* json_string_scan stops where json_escape_copy with set 0 stops: the
 * reference is ref_scan(s, n, 0). Sources are exact-size heap blocks or sit
 * against inaccessible pages, so an over-read fails. */

/* Every byte value at every position of every length 0..MAX_LEN, and the
 * first stop when a second special byte follows the first. */
TEST(string_scan_every_byte_every_position) {
    collect_kernels();
    for (int ki = 0; ki < kernel_count; ki++) {
        const sdx_simd_kernels *k = kernels[ki];
        const long failed_before = test_checks_failed;
        for (size_t n = 0; n <= MAX_LEN && test_checks_failed - failed_before < 1000; n++) {
            char *block;
            char *src = alloc_ending((n * 13) % 64, n, &block);
            if (!CHECK(src != NULL)) return;
            for (size_t i = 0; i < n; i++) src[i] = clean_byte(i + n);
            test_checks_run++;
            if (k->json_string_scan(src, n) != n) FAIL(k, 0, n, "clean string: not n");
            for (size_t pos = 0; pos < n; pos++) {
                for (unsigned b = 0; b < 256; b++) {
                    src[pos] = (char)b;
                    size_t r = k->json_string_scan(src, n);
                    size_t expect = ref_stops((unsigned char)b, 0) ? pos : n;
                    test_checks_run++;
                    if (r != expect)
                        FAIL(k, 0, n, "byte 0x%02x at %zu: result %zu, expected %zu", b, pos, r,
                             expect);
                }
                /* a quote at pos and a control byte after it: pos wins */
                src[pos] = '"';
                if (pos + 1 < n) src[n - 1] = '\x01';
                test_checks_run++;
                if (k->json_string_scan(src, n) != pos) FAIL(k, 0, n, "two stops, first at %zu", pos);
                if (pos + 1 < n) src[n - 1] = clean_byte(n - 1 + n);
                src[pos] = clean_byte(pos + n);
            }
            free(block);
        }
    }
}

/* Long strings, a stop at each of the last 130 positions and at each of
 * the first 130, across the ends of the vector loops. */
TEST(string_scan_long_strings) {
    collect_kernels();
    static const size_t lens[] = {255, 256, 257, 511, 512, 513, 1000, 1024, 4095, 4096, 4097};
    static const char specials[] = {'"', '\\', '\x1f', '\0'};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const size_t n = lens[li];
        char *block;
        char *src = alloc_ending(li % 4, n, &block);
        if (!CHECK(src != NULL)) return;
        for (size_t i = 0; i < n; i++) src[i] = (char)(i % 3 == 0 ? 0xC3 : clean_byte(i));
        for (int i = 0; i < kernel_count; i++) {
            const sdx_simd_kernels *k = kernels[i];
            for (size_t pos = 0; pos <= n; pos++) {
                if (pos >= 130 && pos < n - 130) continue;
                const char special = specials[pos % 4];
                char saved = pos < n ? src[pos] : 0;
                if (pos < n) src[pos] = special;
                size_t r = k->json_string_scan(src, n);
                test_checks_run++;
                if (r != pos) FAIL(k, 0, n, "stop 0x%02x at %zu: result %zu",
                                   (unsigned char)special, pos, r);
                if (pos < n) src[pos] = saved;
            }
        }
        free(block);
    }
}

/* A scan kernel of the table (json_string_scan or text_control_scan). */
typedef size_t (*scan_fn)(const char *s, size_t n);
typedef scan_fn (*scan_pick)(const sdx_simd_kernels *k);

static scan_fn pick_string_scan(const sdx_simd_kernels *k) { return k->json_string_scan; }
static size_t ref_string_scan(const char *s, size_t n) { return ref_scan(s, n, 0); }

/* Random strings from random starting points (with `long_every`, every
 * so many of them 4-4.3 KB long), each scanned the way a parser loops:
 * scan, step over the stop byte, scan again; against the reference. */
static void scan_random_strings(scan_pick pick, scan_fn ref, uint64_t rng, long long_every) {
    collect_kernels();
    const long rounds = (long)(20000 * test_scale());
    for (long round = 0; round < rounds; round++) {
        const size_t n = long_every && round % long_every == 0 ? 4096 + (size_t)(test_rand(&rng) % 300)
                                                               : random_length(&rng);
        char *block;
        char *src = alloc_ending((size_t)(test_rand(&rng) % 64), n, &block);
        if (!CHECK(src != NULL)) return;
        random_string(&rng, src, n);
        for (int i = 0; i < kernel_count; i++) {
            const sdx_simd_kernels *k = kernels[i];
            const scan_fn scan = pick(k);
            size_t pos = 0;
            while (pos <= n) {
                size_t r = pos + scan(src + pos, n - pos);
                size_t expect = pos + ref(src + pos, n - pos);
                test_checks_run++;
                if (r != expect) {
                    FAIL(k, 0, n, "from %zu: result %zu, expected %zu", pos, r, expect);
                    break;
                }
                pos = r + 1;
            }
        }
        free(block);
    }
}

TEST(string_scan_random_strings) { scan_random_strings(pick_string_scan, ref_string_scan, 0x5ca9u, 0); }

#ifdef TEST_PAGES
/* Strings against an inaccessible page on either side, with `stop` at the
 * start, at the end or nowhere: any read outside s[0, n) faults, masked
 * vector loads included. */
static void scan_at_page_boundaries(scan_pick pick, char stop) {
    collect_kernels();
    guard_pages g;
    if (!CHECK(guard_pages_map(&g, 1, 1))) return;
    const size_t ps = g.size;
    char *page_start = guard_region(&g, 0);
    for (int i = 0; i < kernel_count; i++) {
        const sdx_simd_kernels *k = kernels[i];
        const scan_fn scan = pick(k);
        for (size_t n = 0; n <= 300; n++) {
            for (int at_start = 0; at_start < 2; at_start++) {
                char *src = at_start ? page_start : page_start + ps - n;
                for (size_t j = 0; j < n; j++) src[j] = clean_byte(j);
                for (int v = 0; v < 3 && (v == 0 || n > 0); v++) {
                    size_t pos = v == 0 ? n : v == 1 ? 0 : n - 1;
                    if (pos < n) src[pos] = stop;
                    size_t r = scan(src, n);
                    test_checks_run++;
                    if (r != pos) FAIL(k, 0, n, "stop at %zu: result %zu", pos, r);
                    if (pos < n) src[pos] = clean_byte(pos);
                }
            }
        }
    }
    guard_pages_unmap(&g);
}

TEST(string_scan_at_page_boundaries) { scan_at_page_boundaries(pick_string_scan, '"'); }
#endif

/* ------------------------------------------------------------------------ */
/* Text control bytes                                                        */
/* ------------------------------------------------------------------------ */

/* text_control_scan's reference: a byte loop. */
static int ref_text_control(unsigned char c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

static size_t ref_text_control_scan(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (ref_text_control((unsigned char)s[i])) return i;
    return n;
}

/* Every byte value at every position of every length 0..MAX_LEN, over
 * text that holds tabs, newlines and carriage returns (the bytes below 0x20
 * that do not stop it), and the first stop when a second follows; inputs
 * are exact-size heap blocks. */
TEST(text_control_every_byte_every_position) {
    collect_kernels();
    for (int ki = 0; ki < kernel_count; ki++) {
        const sdx_simd_kernels *k = kernels[ki];
        const long failed_before = test_checks_failed;
        for (size_t n = 0; n <= MAX_LEN && test_checks_failed - failed_before < 1000; n++) {
            char *block;
            char *src = alloc_ending((n * 11) % 64, n, &block);
            if (!CHECK(src != NULL)) return;
            for (size_t i = 0; i < n; i++) src[i] = i % 5 == 1 ? "\t\n\r"[i % 3] : clean_byte(i + n);
            test_checks_run++;
            if (k->text_control_scan(src, n) != n) FAIL(k, 0, n, "clean text: not n");
            for (size_t pos = 0; pos < n; pos++) {
                const char saved = src[pos];
                for (unsigned b = 0; b < 256; b++) {
                    src[pos] = (char)b;
                    size_t r = k->text_control_scan(src, n);
                    size_t expect = ref_text_control((unsigned char)b) ? pos : n;
                    test_checks_run++;
                    if (r != expect)
                        FAIL(k, 0, n, "byte 0x%02x at %zu: result %zu, expected %zu", b, pos, r, expect);
                }
                /* a DEL at pos and a control byte after it: pos wins */
                src[pos] = 0x7f;
                const char last = src[n - 1];
                if (pos + 1 < n) src[n - 1] = '\x01';
                test_checks_run++;
                if (k->text_control_scan(src, n) != pos) FAIL(k, 0, n, "two stops, first at %zu", pos);
                if (pos + 1 < n) src[n - 1] = last;
                src[pos] = saved;
            }
            free(block);
        }
    }
}

static scan_fn pick_text_control(const sdx_simd_kernels *k) { return k->text_control_scan; }

/* Random text, some of it 4 KB and more, as detection sees it. */
TEST(text_control_random_text) { scan_random_strings(pick_text_control, ref_text_control_scan, 0x7e47u, 50); }

#ifdef TEST_PAGES
TEST(text_control_at_page_boundaries) { scan_at_page_boundaries(pick_text_control, '\x1b'); }
#endif

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* Every kernel's utf8_valid_prefix must give what the scalar reference in
 * src/core/utf8.c gives. Inputs are exact-size heap blocks (an over-read is
 * an AddressSanitizer error) or sit against inaccessible pages. */

static void fail_u8(const char *file, int line, const sdx_simd_kernels *k, size_t n,
                    const char *fmt, ...) {
    if (failures_shown++ >= 12) {
        test_checks_failed++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  kernel %s, n %zu: ", k->name, n);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    test_fail_at(file, line, "utf8_valid_prefix");
}

#define FAIL_U8(k, n, ...) fail_u8(__FILE__, __LINE__, (k), (n), __VA_ARGS__)

/* Under AddressSanitizer, inputs also have the bytes before s poisoned, so
 * a read before s[0] is reported even where s is not the start of a heap
 * block (kernels align their loads and read the 3 bytes before a block).
 * AddressSanitizer poisons whole 8-byte granules only: a read of the 1 to 7
 * bytes just before an s that is not 8-byte aligned goes unseen. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* n bytes that end at the end of a heap block and start `off` bytes into
 * it (the bytes before them poisoned under AddressSanitizer); free with
 * u8_free. */
static char *u8_alloc(size_t off, size_t n, char **block) {
    char *s = alloc_ending(off, n, block);
#ifdef TEST_ASAN
    if (s) ASAN_POISON_MEMORY_REGION(*block, off);
#endif
    return s;
}

static void u8_free(char *block, size_t off) {
#ifdef TEST_ASAN
    if (block) ASAN_UNPOISON_MEMORY_REGION(block, off);
#else
    (void)off;
#endif
    free(block);
}

/* json_escape_copy_utf8 of kernel k on src[0, n) with `set`, against its
 * contract (simd.h): with R the smaller of the first stop (SDX_ESC_HIGH
 * ignored) and the valid prefix, a result r <= R with dst[0, r) a copy, and
 * r == R unless src[r] is above 0x7F; the avx2 kernel, which validates
 * while it copies, must give R itself. Nothing is stored outside dst[0, n)
 * (the guards). */
static size_t check_escape_utf8(const sdx_simd_kernels *k, const char *src, size_t n, unsigned set,
                                const char *what, size_t detail) {
    static unsigned char *block;
    static size_t cap;
    if (n + 2 * GUARD > cap) {
        free(block);
        cap = 2 * (n + 2 * GUARD);
        block = malloc(cap);
        if (!CHECK(block != NULL)) {
            cap = 0;
            return n;
        }
    }
    unsigned char *dst = block + GUARD;
    memset(block, GUARD_BYTE, n + 2 * GUARD);
    const size_t stop = ref_scan(src, n, set & ~(unsigned)SDX_ESC_HIGH);
    const size_t valid = sdx_utf8_valid_prefix(src, n);
    const size_t want = stop < valid ? stop : valid;
    const size_t r = k->json_escape_copy_utf8((char *)dst, src, n, set);
    test_checks_run += 3;
    if (r > want || (r < want && (unsigned char)src[r] < 0x80) ||
        (k->level == SDX_SIMD_AVX2 && r != want))
        FAIL(k, set, n, "escape_copy_utf8, %s %zu: result %zu, expected %zu", what, detail, r, want);
    else if (memcmp(dst, src, r) != 0)
        FAIL(k, set, n, "escape_copy_utf8, %s %zu: dst[0, %zu) differs from src", what, detail, r);
    if (!guards_intact(dst, n)) FAIL(k, set, n, "escape_copy_utf8, %s %zu: wrote outside dst[0, n)", what, detail);
    return r <= n ? r : n;
}

/* json_escape_copy_utf8 is checked on every u8_escape_stride-th input of
 * u8_check_all (utf8_every_short_sequence, with its 18 million inputs,
 * takes every 16th). */
static unsigned u8_escape_stride = 1, u8_escape_count;

/* Run every kernel on s[0, n) and compare with the reference; `what`
 * describes the input for a failure message. Returns the reference's
 * result. json_escape_copy_utf8 runs on the inputs too (see above). */
static size_t u8_check_all(const char *s, size_t n, const char *what, size_t detail) {
    const size_t expect = sdx_utf8_valid_prefix(s, n);
    const int escape = ++u8_escape_count % u8_escape_stride == 0;
    for (int i = 0; i < kernel_count; i++) {
        const size_t got = kernels[i]->utf8_valid_prefix(s, n);
        test_checks_run++;
        if (got != expect)
            FAIL_U8(kernels[i], n, "%s %zu: result %zu, expected %zu", what, detail, got, expect);
        if (!escape) continue;
        /* SDX_ESC_HIGH is ignored: two sets suffice */
        check_escape_utf8(kernels[i], s, n, 0, what, detail);
        check_escape_utf8(kernels[i], s, n, SDX_ESC_SLASH | SDX_ESC_HIGH, what, detail);
    }
    return expect;
}

/* The well-formed encoding of cp (not a surrogate, at most 0x10FFFF). */
static size_t u8_encode(uint32_t cp, char *out) {
    uint8_t b[4];
    size_t len;
    ref_encode(cp, b, &len);
    memcpy(out, b, len);
    return len;
}

/* Characters of every length, with the edges of every range of table 3-7. */
static const uint32_t u8_chars[] = {
    'a',     '~',     0x00,    0x7F,    0x80,    0xE9,    0x7FF,  0x800,   0xFFF,
    0x1000,  0x4E2D,  0x65E5,  0xD7FF,  0xE000,  0xFFFD,  0xFFFF, 0x10000, 0x1F600,
    0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF,
};
#define U8_CHAR_COUNT (sizeof u8_chars / sizeof u8_chars[0])

/* Valid text of exactly n bytes: characters picked by `seed`, then ASCII
 * to fill what a longer character would overrun. */
static void u8_valid_text(char *s, size_t n, uint64_t seed) {
    size_t i = 0;
    while (i < n) {
        char c[4];
        size_t len = u8_encode(u8_chars[test_rand(&seed) % U8_CHAR_COUNT], c);
        if (len > n - i) len = u8_encode('a' + (uint32_t)(i % 26), c);
        memcpy(s + i, c, len);
        i += len;
    }
}

/* Ill-formed or cut pieces, of one to five bytes. */
static const struct {
    const char *bytes;
    size_t len;
} u8_bad[] = {
    {"\x80", 1},                 /* lone continuation */
    {"\xBF\xBF", 2},             /* two of them */
    {"\xC0\x80", 2},             /* overlong 2 */
    {"\xC1\xBF", 2},             /* overlong 2 */
    {"\xC2", 1},                 /* cut 2 */
    {"\xDF\x41", 2},             /* lead then ASCII */
    {"\xE0\x80\x80", 3},         /* overlong 3 */
    {"\xE0\x9F\xBF", 3},         /* overlong 3 */
    {"\xE1\x80", 2},             /* cut 3 */
    {"\xED\xA0\x80", 3},         /* surrogate */
    {"\xED\xBF\xBF", 3},         /* surrogate */
    {"\xEF\xBF\xC0", 3},         /* bad third byte */
    {"\xF0\x80\x80\x80", 4},     /* overlong 4 */
    {"\xF0\x8F\xBF\xBF", 4},     /* overlong 4 */
    {"\xF0\x9F\x98", 3},         /* cut 4 */
    {"\xF1", 1},                 /* cut 4 */
    {"\xF3\xBF\xBF\x7F", 4},     /* bad fourth byte */
    {"\xF4\x90\x80\x80", 4},     /* above U+10FFFF */
    {"\xF4\xBF\xBF\xBF", 4},     /* above U+10FFFF */
    {"\xF5\x80\x80\x80", 4},     /* never a lead */
    {"\xF8\x88\x80\x80\x80", 5}, /* old 5-byte form */
    {"\xFF", 1},                 /* never a byte */
    {"\xE2\x82\xAC\x80", 4},     /* valid, then a continuation too many */
    {"\xF0\x9F\x98\x80\x80", 5}, /* valid, then a continuation too many */
};
#define U8_BAD_COUNT (sizeof u8_bad / sizeof u8_bad[0])

#define U8_MAX_LEN 300

/* Valid mixed text of every length 0..U8_MAX_LEN with each bad piece at
 * every position (cut by the end where it does not fit): errors land on
 * every lane and every block edge, after every kind of character. */
TEST(utf8_every_error_every_position) {
    collect_kernels();
    char *text = malloc(U8_MAX_LEN);
    if (!CHECK(text != NULL)) return;
    const long failed_before = test_checks_failed;
    for (size_t n = 0; n <= U8_MAX_LEN && test_checks_failed - failed_before < 100; n++) {
        char *block;
        const size_t off = (n * 11) % 64;
        char *s = u8_alloc(off, n, &block);
        if (!CHECK(s != NULL)) break;
        u8_valid_text(text, n, n);
        memcpy(s, text, n);
        /* the text itself, and every prefix-cut of it (the last character
         * cut at the end) */
        test_checks_run++;
        if (u8_check_all(s, n, "valid text", 0) != n) FAIL_U8(kernels[0], n, "text not valid");
        for (size_t pos = 0; pos < n; pos++) {
            for (size_t b = 0; b < U8_BAD_COUNT; b++) {
                size_t len = u8_bad[b].len < n - pos ? u8_bad[b].len : n - pos;
                memcpy(s + pos, u8_bad[b].bytes, len);
                u8_check_all(s, n, "bad piece at", pos * 100 + b);
                memcpy(s + pos, text + pos, len);
            }
        }
        u8_free(block, off);
    }
    free(text);
}

/* A valid character, or a prefix of it cut short, at every position of
 * ASCII text of every length up to 200: characters straddle every 16-, 32-
 * and 64-byte boundary, end the input, or are cut before ASCII (also before
 * whole blocks of ASCII, which kernels skip without lookups). */
TEST(utf8_characters_across_block_edges) {
    collect_kernels();
    for (size_t n = 1; n <= 200; n++) {
        char *block;
        const size_t off = (n * 5) % 64;
        char *s = u8_alloc(off, n, &block);
        if (!CHECK(s != NULL)) return;
        for (size_t j = 0; j < n; j++) s[j] = (char)('A' + (j % 23));
        for (size_t c = 0; c < U8_CHAR_COUNT; c++) {
            char enc[4];
            const size_t len = u8_encode(u8_chars[c], enc);
            for (size_t cut = len; cut >= 1; cut--) {
                for (size_t pos = 0; pos < n; pos++) {
                    const size_t put = cut < n - pos ? cut : n - pos;
                    memcpy(s + pos, enc, put);
                    u8_check_all(s, n, "character (index, bytes) at", pos * 1000 + c * 10 + cut);
                    for (size_t j = pos; j < pos + put; j++) s[j] = (char)('A' + (j % 23));
                }
            }
        }
        u8_free(block, off);
    }
}

/* Every sequence of one and two bytes, and every three bytes starting with
 * a non-ASCII byte (one starting with ASCII is ASCII and two bytes), in
 * ASCII text: inside a block, across the 16-, 32- and 64-byte edges, and
 * ending the input. One- and two-byte sequences go to every place below;
 * three-byte ones to one place inside the text, chosen by their bytes, and
 * to the end of an input whose length they choose too. */
TEST(utf8_every_short_sequence) {
    collect_kernels();
    enum { TEXT = 72 };
    static const size_t inside[] = {0, 5, 14, 15, 30, 31, 47, 61, 62, 63, 64, 66};
    static const size_t ends[] = {3, 16, 17, 32, 33, 34, 35, 63, 64, 65, 70};
    const size_t n_inside = sizeof inside / sizeof inside[0];
    const size_t n_ends = sizeof ends / sizeof ends[0];
    char *blocks[TEXT + 1]; /* blocks[n]: n bytes of ASCII */
    for (size_t n = 0; n <= TEXT; n++) {
        blocks[n] = malloc(n ? n : 1);
        if (!CHECK(blocks[n] != NULL)) {
            for (size_t j = 0; j < n; j++) free(blocks[j]);
            return;
        }
        for (size_t j = 0; j < n; j++) blocks[n][j] = (char)('a' + j % 26);
    }
    const long failed_before = test_checks_failed;
    u8_escape_stride = 16;
    for (size_t len = 1; len <= 3; len++) {
        const uint32_t first = len == 3 ? 0x800000 : 0, last = 1u << (8 * len);
        for (uint32_t v = first; v < last && test_checks_failed - failed_before < 100; v++) {
            const size_t places = len < 3 ? n_inside + n_ends : 2;
            for (size_t t = 0; t < places; t++) {
                size_t pos, n;
                if (len == 3) {
                    pos = t == 0 ? inside[(v ^ v >> 8 ^ v >> 16) % n_inside] : 1 + v % 67;
                    n = t == 0 ? TEXT : pos + len;
                } else if (t < n_inside) {
                    pos = inside[t], n = TEXT;
                } else {
                    n = ends[t - n_inside], pos = n - len;
                }
                char *s = blocks[n];
                for (size_t j = 0; j < len; j++) s[pos + j] = (char)(v >> (8 * (len - 1 - j)));
                u8_check_all(s, n, "sequence (hex, then position) at", (size_t)v * 1000 + pos);
                for (size_t j = pos; j < pos + len; j++) s[j] = (char)('a' + j % 26);
            }
        }
    }
    u8_escape_stride = 1;
    for (size_t n = 0; n <= TEXT; n++) free(blocks[n]);
}

/* Random text of random length (to 4 KB): ASCII, CJK, emoji, mixes, and
 * mixes with garbage bytes, called on the whole and on random ranges. */
static size_t u8_random_text(uint64_t *rng, char *s, size_t cap) {
    const uint64_t kind = test_rand(rng) % 6;
    const uint64_t rarity = 1 + test_rand(rng) % 500;
    size_t i = 0;
    while (i + 4 <= cap) {
        uint64_t r = test_rand(rng);
        uint32_t cp;
        switch (kind) {
        case 0: cp = 0x20 + (uint32_t)(r % 95); break;                    /* ASCII */
        case 1: cp = 0x4E00 + (uint32_t)(r % 0x5200); break;              /* CJK */
        case 2: cp = 0x1F300 + (uint32_t)(r % 0x300); break;              /* emoji */
        case 3: cp = u8_chars[r % U8_CHAR_COUNT]; break;                  /* every length */
        default: /* mostly ASCII, some 2-byte */
            cp = (r >> 8) % 4 ? 0x20 + (uint32_t)(r % 95) : 0x80 + (uint32_t)(r % 0x700);
            break;
        }
        if (kind >= 3 && (r >> 20) % rarity == 0) {
            /* garbage: a random byte, or a bad piece */
            if ((r >> 40) & 1) s[i++] = (char)(r >> 48);
            else {
                size_t b = (size_t)(r >> 48) % U8_BAD_COUNT;
                size_t len = u8_bad[b].len < cap - i ? u8_bad[b].len : cap - i;
                memcpy(s + i, u8_bad[b].bytes, len);
                i += len;
            }
            continue;
        }
        i += u8_encode(cp, s + i);
    }
    while (i < cap) s[i++] = 'z';
    return i;
}

TEST(utf8_random_text) {
    collect_kernels();
    uint64_t rng = 0x7538u;
    const long rounds = (long)(20000 * test_scale());
    char *text = malloc(4100);
    if (!CHECK(text != NULL)) return;
    for (long round = 0; round < rounds; round++) {
        const size_t n = random_length(&rng);
        u8_random_text(&rng, text, n);
        char *block;
        const size_t off = (size_t)(test_rand(&rng) % 64);
        char *s = u8_alloc(off, n, &block);
        if (!CHECK(s != NULL)) break;
        memcpy(s, text, n);
        u8_check_all(s, n, "random text, round", (size_t)round);
        /* ranges [a, n) and [0, b) */
        for (int t = 0; t < 4 && n > 0; t++) {
            size_t a = (size_t)(test_rand(&rng) % n);
            u8_check_all(s + a, n - a, "random text, from", a);
            char *copy_block;
            const size_t copy_off = (size_t)(test_rand(&rng) % 64);
            char *copy = u8_alloc(copy_off, a, &copy_block);
            if (!CHECK(copy != NULL)) break;
            memcpy(copy, s, a);
            u8_check_all(copy, a, "random text, first bytes", a);
            u8_free(copy_block, copy_off);
        }
        u8_free(block, off);
    }
    free(text);
}

/* Text with stops among its characters (quotes, backslashes, control
 * bytes, slashes), in the calls a JSON writer makes: copy up to the
 * kernel's result, take the byte there (a stop, or one to validate from),
 * go on. */
TEST(escape_utf8_random_text) {
    collect_kernels();
    uint64_t rng = 0xe5c8u;
    const long rounds = (long)(10000 * test_scale());
    static const char stops[] = "\"\\/\x01\n\t";
    char *text = malloc(4100);
    if (!CHECK(text != NULL)) return;
    for (long round = 0; round < rounds; round++) {
        const size_t n = random_length(&rng);
        u8_random_text(&rng, text, n);
        const uint64_t every = 2 + test_rand(&rng) % 200;
        for (size_t i = 0; i < n; i++)
            if (test_rand(&rng) % every == 0 && (unsigned char)text[i] < 0x80)
                text[i] = stops[test_rand(&rng) % (sizeof stops - 1)];
        char *block;
        const size_t off = (size_t)(test_rand(&rng) % 64);
        char *s = u8_alloc(off, n, &block);
        if (!CHECK(s != NULL)) break;
        memcpy(s, text, n);
        for (int i = 0; i < kernel_count; i++) {
            const unsigned set = test_sets[round & 3];
            size_t pos = 0;
            while (pos < n) {
                pos += check_escape_utf8(kernels[i], s + pos, n - pos, set, "writer loop at", pos);
                if (pos == n) break;
                if ((unsigned char)s[pos] < 0x80) {
                    pos++; /* a stop, escaped by the writer */
                } else {
                    /* validated from here, or replaced where invalid */
                    const size_t v = sdx_utf8_valid_prefix(s + pos, n - pos);
                    pos += v ? v : sdx_utf8_invalid_len(s + pos, n - pos);
                }
            }
        }
        u8_free(block, off);
    }
    free(text);
}

/* Long valid text with a bad piece at each of the last 130 positions and
 * at every 61st position before them; long ASCII text with a cut character
 * near the start and at the end. */
TEST(utf8_long_text) {
    collect_kernels();
    static const size_t lens[] = {255, 256, 257, 511, 512, 513, 1000, 1024, 4095, 4096, 4097};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const size_t n = lens[li];
        char *block, *text = malloc(n);
        const size_t off = (li * 13) % 64;
        char *s = u8_alloc(off, n, &block);
        if (!CHECK(s && text)) {
            u8_free(block, off);
            free(text);
            return;
        }
        u8_valid_text(text, n, li);
        memcpy(s, text, n);
        for (size_t pos = 0; pos < n; pos += pos + 130 < n ? 61 : 1) {
            for (size_t b = 0; b < U8_BAD_COUNT; b += 3) {
                size_t len = u8_bad[b].len < n - pos ? u8_bad[b].len : n - pos;
                memcpy(s + pos, u8_bad[b].bytes, len);
                u8_check_all(s, n, "bad piece at", pos * 100 + b);
                memcpy(s + pos, text + pos, len);
            }
        }
        /* ASCII with a cut character at each of the first 300 positions:
         * the rest of the input is whole blocks of ASCII */
        memset(s, 'x', n);
        static const char *const cuts[] = {"\xC3", "\xE2\x82", "\xF0\x9F\x98"};
        for (size_t pos = 0; pos < 300 && pos < n; pos++) {
            for (size_t c = 0; c < 3 && pos + c < n; c++) {
                memcpy(s + pos, cuts[c], c + 1);
                u8_check_all(s, n, "cut character at", pos * 10 + c);
                memset(s + pos, 'x', c + 1);
            }
        }
        /* ASCII with one character at the end, cut or whole */
        for (size_t c = 0; c < U8_CHAR_COUNT; c++) {
            char enc[4];
            size_t len = u8_encode(u8_chars[c], enc);
            for (size_t cut = 1; cut <= len; cut++) {
                memcpy(s + n - cut, enc, cut);
                u8_check_all(s, n, "character cut to", cut);
                memset(s + n - cut, 'x', cut);
            }
        }
        u8_free(block, off);
        free(text);
    }
}

#ifdef TEST_PAGES
/* Text that ends at the end of a page followed by an inaccessible page, or
 * starts at the start of a page preceded by one: any read outside s[0, n)
 * faults, also the masked loads that AddressSanitizer does not check. */
TEST(utf8_at_page_boundaries) {
    collect_kernels();
    guard_pages g;
    if (!CHECK(guard_pages_map(&g, 1, 1))) return;
    const size_t ps = g.size;
    char *page_start = guard_region(&g, 0);
    char text[U8_MAX_LEN];
    for (size_t n = 0; n <= U8_MAX_LEN; n++) {
        u8_valid_text(text, n, n * 3);
        for (int at_start = 0; at_start < 2; at_start++) {
            char *s = at_start ? page_start : page_start + ps - n;
            /* valid; a bad piece at the start, then at the end; then the
             * whole text cut inside its last character (ASCII before a
             * 4-byte character at the end) */
            for (int v = 0; v < 4 && (v == 0 || n > 0); v++) {
                memcpy(s, text, n);
                if (v == 1) s[0] = (char)0xBF;
                if (v == 2) s[n - 1] = (char)0xC3;
                if (v == 3) {
                    char enc[4];
                    u8_encode(0x1F600, enc);
                    size_t cut = n < 3 ? n : 3;
                    memcpy(s + n - cut, enc, cut);
                }
                u8_check_all(s, n, "page edge (at start?, variant)",
                             (size_t)at_start * 10 + (size_t)v);
            }
        }
    }
    guard_pages_unmap(&g);
}
#endif

/* The lookup tables of src/simd/utf8_kernel.h against a definition of a bad
 * pair of adjacent bytes built from the encodings of every scalar value
 * (utf8_ref.h): for every pair (a, b), the bits of the lookup other than
 * bit 7 are nonzero exactly when no well-formed string has a followed by b
 * (a continuation after a continuation counts as allowed), and bit 7 is set
 * exactly when both are continuations. */
TEST(utf8_lookup_tables) {
    static const unsigned char prev_high[16] = {SDX_U8_TABLE_PREV_HIGH};
    static const unsigned char prev_low[16] = {SDX_U8_TABLE_PREV_LOW};
    static const unsigned char cur_high[16] = {SDX_U8_TABLE_CUR_HIGH};
    build_prefixes();
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            const unsigned kinds = prev_high[a >> 4] & prev_low[a & 15] & cur_high[b >> 4];
            const int a_cont = a >= 0x80 && a < 0xC0, b_cont = b >= 0x80 && b < 0xC0;
            int allowed;
            if (a < 0x80 || a_cont) {
                /* a ends a character or may: b must start one, or a is a
                 * continuation (what may follow depends on the count) */
                allowed = a_cont || !b_cont;
            } else {
                /* a lead: "a b" must be a whole 2-byte character or the
                 * start of a longer one */
                const uint8_t pair[2] = {(uint8_t)a, (uint8_t)b};
                const uint32_t v = a << 8 | b;
                allowed = ref_seq_len(pair, 2) == 2 || (prefix_bits[2][v >> 3] >> (v & 7) & 1);
            }
            test_checks_run += 2;
            if (((kinds & 0x7F) != 0) == allowed) {
                fprintf(stderr, "  pair %02x %02x: lookup %02x, allowed %d\n", a, b, kinds,
                        allowed);
                test_fail_at(__FILE__, __LINE__, "lookup of a pair");
            }
            if (((kinds & 0x80) != 0) != (a_cont && b_cont)) {
                fprintf(stderr, "  pair %02x %02x: lookup %02x\n", a, b, kinds);
                test_fail_at(__FILE__, __LINE__, "CONT_CONT bit");
            }
        }
    }
    utf8_ref_free();
}

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

/* Ranks by vector width, as documented in dispatch.c. */
static int rank_of(int level) {
    static const int ranks[SDX_SIMD__COUNT] = {0, 1, 2, 3, 1};
    return level >= 0 && level < SDX_SIMD__COUNT ? ranks[level] : 99;
}

/* What a cap of `level` (-1: none) should select, from sdx_simd_kernels_for. */
static int expected_under_cap(int level) {
    int best = SDX_SIMD_SCALAR;
    for (int l = 0; l < SDX_SIMD__COUNT; l++)
        if (sdx_simd_kernels_for((sdx_simd_level)l) && rank_of(l) > rank_of(best) &&
            (level < 0 || rank_of(l) <= rank_of(level)))
            best = l;
    return best;
}

TEST(level_names) {
    for (int l = 0; l < SDX_SIMD__COUNT; l++) {
        const char *name = sdx_simd_level_name((sdx_simd_level)l);
        if (!CHECK(name != NULL)) continue;
        CHECK_EQ_INT(sdx_simd_level_from_name(name), l);
    }
    CHECK(strcmp(sdx_simd_level_name(SDX_SIMD_SCALAR), "scalar") == 0);
    CHECK(strcmp(sdx_simd_level_name(SDX_SIMD_SSE2), "sse2") == 0);
    CHECK(strcmp(sdx_simd_level_name(SDX_SIMD_AVX2), "avx2") == 0);
    CHECK(strcmp(sdx_simd_level_name(SDX_SIMD_AVX512), "avx512") == 0);
    CHECK(strcmp(sdx_simd_level_name(SDX_SIMD_NEON), "neon") == 0);
    CHECK(sdx_simd_level_name(SDX_SIMD__COUNT) != NULL);
    CHECK_EQ_INT(sdx_simd_level_from_name("AVX2"), SDX_SIMD_AVX2);
    CHECK_EQ_INT(sdx_simd_level_from_name("Neon"), SDX_SIMD_NEON);
    CHECK_EQ_INT(sdx_simd_level_from_name("sse"), -1);
    CHECK_EQ_INT(sdx_simd_level_from_name("sse2 "), -1);
    CHECK_EQ_INT(sdx_simd_level_from_name("avx"), -1);
    CHECK_EQ_INT(sdx_simd_level_from_name(""), -1);
    CHECK_EQ_INT(sdx_simd_level_from_name("bogus"), -1);
    CHECK_EQ_INT(sdx_simd_level_from_name(NULL), -1);
}

TEST(kernel_tables) {
    const sdx_simd_kernels *scalar = sdx_simd_kernels_for(SDX_SIMD_SCALAR);
    CHECK(scalar == &sdx_simd_scalar);
    for (int l = 0; l < SDX_SIMD__COUNT; l++) {
        const sdx_simd_kernels *k = sdx_simd_kernels_for((sdx_simd_level)l);
        if (!k) continue;
        CHECK_EQ_INT(k->level, l);
        CHECK(k->name && strcmp(k->name, sdx_simd_level_name((sdx_simd_level)l)) == 0);
        CHECK(k->json_escape_copy != NULL);
        CHECK(k->utf8_valid_prefix != NULL);
        CHECK(k->json_string_scan != NULL);
        CHECK(k->text_control_scan != NULL);
        /* an empty string may come with null pointers */
        CHECK_EQ_U64(k->json_escape_copy(NULL, NULL, 0, 0), 0);
        CHECK_EQ_U64(k->utf8_valid_prefix(NULL, 0), 0);
        CHECK_EQ_U64(k->json_string_scan(NULL, 0), 0);
        CHECK_EQ_U64(k->text_control_scan(NULL, 0), 0);
    }
    CHECK(sdx_simd_kernels_for(SDX_SIMD__COUNT) == NULL);
    CHECK(sdx_simd_kernels_for((sdx_simd_level)-1) == NULL);
#if defined(__x86_64__) || defined(_M_X64)
    CHECK(sdx_simd_kernels_for(SDX_SIMD_SSE2) != NULL); /* part of x86-64 */
    CHECK(sdx_simd_kernels_for(SDX_SIMD_NEON) == NULL);
#elif defined(__aarch64__) || defined(_M_ARM64)
    CHECK(sdx_simd_kernels_for(SDX_SIMD_NEON) != NULL); /* part of AArch64 */
    CHECK(sdx_simd_kernels_for(SDX_SIMD_SSE2) == NULL);
    CHECK(sdx_simd_kernels_for(SDX_SIMD_AVX2) == NULL);
    CHECK(sdx_simd_kernels_for(SDX_SIMD_AVX512) == NULL);
#endif
}

TEST(select_caps_the_level) {
    const sdx_simd_level initial = sdx_simd_active()->level;
    for (int l = 0; l <= SDX_SIMD__COUNT; l++) {
        sdx_simd_level got = sdx_simd_select((sdx_simd_level)l);
        int want = expected_under_cap(l < SDX_SIMD__COUNT ? l : -1);
        CHECK_EQ_INT(got, want);
        CHECK(sdx_simd_active() == sdx_simd_kernels_for(got));
        CHECK(strcmp(sdx_simd_name(), sdx_simd_level_name(got)) == 0);
        if (l < SDX_SIMD__COUNT && sdx_simd_kernels_for((sdx_simd_level)l))
            CHECK_EQ_INT(got, l);
    }
    CHECK_EQ_INT(sdx_simd_select(SDX_SIMD_SCALAR), SDX_SIMD_SCALAR);
    /* a level of the other architecture caps at the same vector width */
#if defined(__x86_64__) || defined(_M_X64)
    CHECK_EQ_INT(sdx_simd_select(SDX_SIMD_NEON), SDX_SIMD_SSE2);
#elif defined(__aarch64__) || defined(_M_ARM64)
    CHECK_EQ_INT(sdx_simd_select(SDX_SIMD_SSE2), SDX_SIMD_NEON);
    CHECK_EQ_INT(sdx_simd_select(SDX_SIMD_AVX512), SDX_SIMD_NEON);
#endif
    CHECK_EQ_INT(sdx_simd_select(initial), initial);
    CHECK_EQ_INT(sdx_simd_active()->level, initial);
}

/* Set by main before any other call into the library. */
static const char *first_use_env;  /* SDX_SIMD at first use, NULL if unset */
static const char *first_use_name; /* sdx_simd_name() at first use */

TEST(environment_at_first_use) {
    if (!CHECK(first_use_name != NULL)) return;
    int cap = first_use_env ? sdx_simd_level_from_name(first_use_env) : -1;
    const char *want = sdx_simd_level_name((sdx_simd_level)expected_under_cap(cap));
    if (!CHECK(strcmp(first_use_name, want) == 0))
        fprintf(stderr, "  SDX_SIMD=%s selected %s, expected %s\n",
                first_use_env ? first_use_env : "(unset)", first_use_name, want);
}

#if defined(__linux__)
/* Run this executable with SDX_SIMD=value (NULL: unset) and `--print-simd`;
 * store what it prints. Returns 1 on success, 0 if it could not be run (no
 * way to execute it, e.g. under a user-mode emulator), -1 if it failed. */
static int run_child(const char *value, char *out, size_t out_size) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        if (value) setenv("SDX_SIMD", value, 1);
        else unsetenv("SDX_SIMD");
        char *const args[] = {"test_simd", "--print-simd", NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t got;
    while ((got = read(fds[0], out + len, out_size - 1 - len)) > 0) len += (size_t)got;
    close(fds[0]);
    out[len] = '\0';
    while (len && (out[len - 1] == '\n' || out[len - 1] == '\r')) out[--len] = '\0';
    int status;
    if (waitpid(pid, &status, 0) != pid) return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : -1;
}

TEST(environment_in_child_processes) {
    const char *values[] = {"scalar", "sse2", "avx2", "avx512", "neon", "SSE2", "bogus", "", NULL};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char out[64];
        int rc = run_child(values[i], out, sizeof out);
        if (rc == 0) {
            printf("# cannot re-run the test executable here; child-process checks skipped\n");
            return;
        }
        int cap = values[i] ? sdx_simd_level_from_name(values[i]) : -1;
        const char *want = sdx_simd_level_name((sdx_simd_level)expected_under_cap(cap));
        CHECK_EQ_INT(rc, 1);
        if (!CHECK(strcmp(out, want) == 0))
            fprintf(stderr, "  SDX_SIMD=%s selected \"%s\", expected %s\n",
                    values[i] ? values[i] : "(unset)", out, want);
    }
}
#endif

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--print-simd") == 0) {
        printf("%s\n", sdx_simd_name());
        return 0;
    }
    /* The first call into the dispatcher reads SDX_SIMD: make it "scalar"
     * for that call unless the caller chose a value. */
    first_use_env = getenv("SDX_SIMD");
#ifdef TEST_POSIX
    if (!first_use_env) {
        setenv("SDX_SIMD", "scalar", 1);
        first_use_env = "scalar";
        first_use_name = sdx_simd_name();
        unsetenv("SDX_SIMD");
    }
#endif
    if (!first_use_name) first_use_name = sdx_simd_name();
    /* the other tests start from the default choice */
    sdx_simd_select(SDX_SIMD__COUNT);

    return test_run(argc, argv, (test_case[]){
        {"environment_at_first_use", environment_at_first_use},
        {"level_names", level_names},
        {"kernel_tables", kernel_tables},
        {"select_caps_the_level", select_caps_the_level},
#if defined(__linux__)
        {"environment_in_child_processes", environment_in_child_processes},
#endif
        {"escape_every_byte_every_position", escape_every_byte_every_position},
        {"escape_long_strings", escape_long_strings},
#ifdef TEST_PAGES
        {"escape_at_page_boundaries", escape_at_page_boundaries},
#endif
        {"escape_random_strings", escape_random_strings},
        {"string_scan_every_byte_every_position", string_scan_every_byte_every_position},
        {"string_scan_long_strings", string_scan_long_strings},
#ifdef TEST_PAGES
        {"string_scan_at_page_boundaries", string_scan_at_page_boundaries},
#endif
        {"string_scan_random_strings", string_scan_random_strings},
        {"text_control_every_byte_every_position", text_control_every_byte_every_position},
#ifdef TEST_PAGES
        {"text_control_at_page_boundaries", text_control_at_page_boundaries},
#endif
        {"text_control_random_text", text_control_random_text},
        {"utf8_lookup_tables", utf8_lookup_tables},
        {"utf8_every_error_every_position", utf8_every_error_every_position},
        {"utf8_characters_across_block_edges", utf8_characters_across_block_edges},
        {"utf8_every_short_sequence", utf8_every_short_sequence},
        {"utf8_long_text", utf8_long_text},
#ifdef TEST_PAGES
        {"utf8_at_page_boundaries", utf8_at_page_boundaries},
#endif
        {"utf8_random_text", utf8_random_text},
        {"escape_utf8_random_text", escape_utf8_random_text},
        {0, 0}});
}
