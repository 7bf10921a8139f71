/*
 * cJSON 1.7.15 (Debian), JSON, Tree: cJSON_ParseWithLengthOpts (cJSON_Parse
 * with a length, reporting where parsing stopped) and a walk of the cJSON
 * tree.
 *
 * cJSON keeps every number as a double (valuedouble; valueint is a
 * saturated int copy of it) and records nothing else: no flag says whether
 * the text was an integer, and valueint cannot hold more than 32 bits. The
 * walk therefore hashes valuedouble for every number — what cJSON produced.
 * Integers hash differently from doubles, so any document with integers
 * fails verification; guessing an integer from an integral double would
 * be the adapter inventing information cJSON does not keep.
 *
 * Strings and keys are NUL-terminated without a length (strlen).
 */
#include "cjson_common.h"

static int walk(const cJSON *v, sbh *h) {
    switch (v->type & 0xFF) {
    case cJSON_NULL: sbh_null(h); return 0;
    case cJSON_False: sbh_bool(h, 0); return 0;
    case cJSON_True: sbh_bool(h, 1); return 0;
    case cJSON_Number: sbh_double(h, v->valuedouble); return 0;
    case cJSON_String: sbh_str(h, v->valuestring, strlen(v->valuestring)); return 0;
    case cJSON_Array:
        sbh_array(h);
        for (const cJSON *c = v->child; c; c = c->next)
            if (walk(c, h)) return 1;
        sbh_end(h);
        return 0;
    case cJSON_Object:
        sbh_map(h);
        for (const cJSON *c = v->child; c; c = c->next) {
            sbh_key(h, c->string, strlen(c->string));
            if (walk(c, h)) return 1;
        }
        sbh_end(h);
        return 0;
    default: bench_error("cJSON item of unknown type %d", v->type); return 1;
    }
}

static int adapter_parse(const char *data, size_t len, sbh *h) {
    cJSON *doc = cjson_load(data, len);
    if (!doc) return 1;
    int bad = walk(doc, h);
    cJSON_Delete(doc);
    return bad;
}

const bench_adapter bench_adapter_def = {"cjson", "C", "json", "tree", NULL, adapter_parse};
