/*
 * nlohmann/json: what the adapters compiled once per format (-DNL_FMT=msgpack,
 * cbor, bson, ubjson; json for Serialize) share: the headers,
 * NL_STR(NL_FMT) (the format's name) and NL_CAT(from_, NL_FMT) /
 * NL_CAT(to_, NL_FMT) (its reader and writer), and ordered_json, which keeps
 * the document's key order (nlohmann::json sorts keys).
 */
#ifndef BENCH_NL_COMMON_H
#define BENCH_NL_COMMON_H

#include <nlohmann/json.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

#define NL_CAT_(a, b) a##b
#define NL_CAT(a, b) NL_CAT_(a, b)
#define NL_STR_(x) #x
#define NL_STR(x) NL_STR_(x)

using json = nlohmann::ordered_json;

#endif
