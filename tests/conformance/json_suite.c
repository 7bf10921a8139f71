/*
 * JSONTestSuite's parsing tests (N. Seriot, "Parsing JSON is a Minefield",
 * test_parsing/: y_ files must be accepted, n_ files rejected, i_ files are
 * the parser's choice) run through every JSON reader of sdx:
 *
 *   json_suite DIR
 *
 * Each file is read by the tree parser (sdx_json_parse), the in-place parser
 * (sdx_json_parse_insitu) and the pull reader (sdx_json_reader_*), all with
 * default (strict) options. They must agree on every file: accepted by all
 * three with the same values (compared as canonical dumps, see conf_util.h),
 * or rejected by all three with the same error code and byte offset, and a
 * clean error report (message, offset within the input, line and column
 * matching the offset). Prints each miss, then a score line
 *
 *   json-test-suite: y 95/95 accepted, n 188/188 rejected, i 35 files: ...
 *
 * and exits non-zero on any miss or disagreement.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_util.h"

/* One way of reading a document: its result and canonical dump. */
typedef struct outcome {
    sdx_err code;
    sdx_error err;
    cbuf dump;
    const char *bad; /* the dump sink's complaint about the events, if any */
} outcome;

enum { VIA_PARSE, VIA_INSITU, VIA_READER, VIA_COUNT };
static const char *const via_name[VIA_COUNT] = {"parser", "insitu parser", "reader"};

typedef struct score {
    int y_total, y_ok, n_total, n_ok, i_total, i_accepted, i_rejected;
    int disagreements, unclean, files;
} score;

static void run_one(const char *data, size_t len, int via, outcome *o) {
    dump_sink d;
    cbuf_clear(&o->dump);
    dump_sink_init(&d, &o->dump);
    sdx_sink sink = dump_sink_sink(&d);
    if (via == VIA_READER) o->code = conf_read_into(data, len, NULL, &sink, &o->err);
    else o->code = conf_parse_into(data, len, NULL, via == VIA_INSITU, &sink, &o->err);
    if (o->code == SDX_OK && sdx_sink_finish(sink) != SDX_OK) o->code = SDX_ERR_USAGE;
    o->bad = d.bad;
}

/* Does outcome b agree with outcome a (the parser's)? */
static bool same_outcome(const outcome *a, const outcome *b) {
    if (a->code != b->code) return false;
    if (a->code == SDX_OK)
        return a->dump.len == b->dump.len && memcmp(a->dump.p, b->dump.p, a->dump.len) == 0;
    return a->err.offset == b->err.offset;
}

/* Check one file; returns whether it was accepted (by the parser). */
static bool check_file(const char *name, const char *data, size_t len, score *s) {
    outcome o[VIA_COUNT];
    memset(o, 0, sizeof o);
    for (int v = 0; v < VIA_COUNT; v++) run_one(data, len, v, &o[v]);
    for (int v = 0; v < VIA_COUNT; v++) {
        if (o[v].bad) {
            printf("MISS %s: the %s's events are malformed: %s\n", name, via_name[v], o[v].bad);
            s->unclean++;
        } else if (o[v].code != SDX_OK &&
                   (!conf_error_clean(&o[v].err, len) || !conf_error_position_ok(data, len, &o[v].err))) {
            printf("MISS %s: the %s's error report is not clean: %s\n", name, via_name[v],
                   conf_error_str(o[v].code, &o[v].err));
            s->unclean++;
        }
    }
    for (int v = 1; v < VIA_COUNT; v++) {
        if (same_outcome(&o[VIA_PARSE], &o[v])) continue;
        s->disagreements++;
        printf("MISS %s: the parser gives %s", name, conf_error_str(o[VIA_PARSE].code, &o[VIA_PARSE].err));
        printf(", the %s %s%s\n", via_name[v], conf_error_str(o[v].code, &o[v].err),
               o[v].code == SDX_OK && o[0].code == SDX_OK ? " (different values)" : "");
    }
    bool accepted = o[VIA_PARSE].code == SDX_OK;
    for (int v = 0; v < VIA_COUNT; v++) cbuf_free(&o[v].dump);
    return accepted;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The y_, n_ and i_ file names of `dir`, sorted; NULL if it cannot be read. */
static char **list_files(const char *dir, size_t *count) {
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (!((nm[0] == 'y' || nm[0] == 'n' || nm[0] == 'i') && nm[1] == '_')) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 512;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        names[n] = malloc(strlen(nm) + 1);
        if (!names[n]) abort();
        strcpy(names[n++], nm);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    *count = n;
    return names;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: json_suite DIR  (JSONTestSuite's test_parsing directory)\n");
        return 2;
    }
    size_t count = 0;
    char **names = list_files(argv[1], &count);
    if (!names || count == 0) {
        fprintf(stderr, "json_suite: no y_/n_/i_ files in %s\n", argv[1]);
        free(names);
        return 2;
    }
    score s;
    memset(&s, 0, sizeof s);
    int misses = 0;
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        size_t len;
        char *data = conf_read_file(path, &len);
        if (!data) {
            printf("MISS %s: cannot read\n", names[i]);
            misses++;
        } else {
            bool acc = check_file(names[i], data, len, &s);
            s.files++;
            switch (names[i][0]) {
            case 'y':
                s.y_total++, s.y_ok += acc;
                if (!acc) printf("MISS %s: rejected\n", names[i]), misses++;
                break;
            case 'n':
                s.n_total++, s.n_ok += !acc;
                if (acc) printf("MISS %s: accepted\n", names[i]), misses++;
                break;
            default: s.i_total++, s.i_accepted += acc, s.i_rejected += !acc; break;
            }
        }
        free(data);
        free(names[i]);
    }
    free(names);
    printf("json-test-suite: y %d/%d accepted, n %d/%d rejected, i %d files: %d accepted, %d "
           "rejected cleanly\n",
           s.y_ok, s.y_total, s.n_ok, s.n_total, s.i_total, s.i_accepted, s.i_rejected);
    printf("parser, insitu parser and reader: %d disagreements, %d unclean results on %d files\n",
           s.disagreements, s.unclean, s.files);
    bool ok = misses == 0 && s.disagreements == 0 && s.unclean == 0 && s.y_total > 0 && s.n_total > 0;
    return ok ? 0 : 1;
}
