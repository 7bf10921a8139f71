/*
 * sdx — the mapping layer: how tagged and special values look in JSON, and
 * back. One place for every format (../shared/DESIGN.md, "Tags, special
 * types and JSON"): the JSON writer knows nothing of MessagePack ext types
 * or CBOR tags; this layer sits between any event source and the JSON
 * writer and turns such events into events JSON has, by one documented
 * convention per tag kind. The reverse layer sits between the JSON reader
 * and the writer of a format that has the type.
 *
 *   sdx_json_writer w;
 *   sdx_json_writer_init(&w, &out, NULL);
 *   sdx_map_to_json m;
 *   sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), NULL);
 *   sdx_transcode(reader_source, sdx_map_to_json_sink(&m));  // finishes m, then w
 *
 * Rule (DESIGN.md): a value that the target cannot represent is an error
 * unless a mapping is asked for. Every convention below that is on by
 * default writes the value exactly (a number's exact text, a date's RFC 3339
 * text) in the form JSON users expect; values JSON has no form for (tags
 * sdx gives no meaning, ext types other than the timestamp, CBOR simple
 * values) are SDX_ERR_UNSUPPORTED unless SDX_MAP_TAGS_DROP or
 * SDX_MAP_TAGS_WRAP asks for a form. The default is strict (nothing is
 * silently lost) but useful (everything with a lossless JSON form has it).
 *
 * ---- To JSON: the conventions --------------------------------------------
 *
 * MessagePack ext (SDX_BIN tagged SDX_TAG_MSGPACK_EXT):
 *   timestamp (type -1) in years 0000-9999   RFC 3339 string in UTC with as
 *                                            many fraction digits as needed,
 *                                            none to nine:
 *                                            "2018-01-02T03:04:05.5Z"
 *   any other ext value, and timestamps outside those years: the tags
 *   policy; wrapped: {"$ext":TYPE,"$data":"BASE64"} (RFC 4648, padded);
 *   dropped: the payload as a plain binary (the JSON writer's binary option
 *   decides: SDX_JSON_WRITE_BIN_BASE64 or SDX_ERR_UNSUPPORTED).
 *
 * CBOR tags (SDX_TAG_CBOR on the item's event; further tags on one item
 * arrive before it as SDX_TAG events, outermost first). Only the innermost
 * tag other than 55799 has a meaning here; every tag outside it goes by the
 * tags policy (none of these tags is defined on tagged content).
 *   55799 self-described CBOR (RFC 8949 §3.4.6)   skipped, wherever it is
 *   2 / 3 on a byte string, a big-endian magnitude n (§3.4.3; leading zero
 *     bytes and the empty string allowed)     the exact integer n / -1 - n
 *                                            as a JSON number
 *   4 on [e, m], decimal fraction m * 10^e (§3.4.4; e an integer, m an
 *     integer or a bignum)                   the exact number: "273.15",
 *                                            "1500", "0.0015", and beyond
 *                                            six places of zeros "15e-30",
 *                                            "15e40"
 *   5 on [e, m], bigfloat m * 2^e (§3.4.4)  the exact decimal text (2^-k =
 *                                            5^k / 10^k): [-1, 3] -> "1.5";
 *                                            its digits count against the
 *                                            digit limit
 *   0 on a text string, RFC 3339 date-time (§3.4.1)   the string as is
 *   1 on an integer or a float, seconds since the epoch (§3.4.2)
 *                                            RFC 3339 string in UTC as for
 *                                            MessagePack timestamps, when
 *                                            it is a whole number of
 *                                            nanoseconds in years 0000-9999;
 *                                            otherwise the tags policy
 *   24 on a byte string, embedded CBOR (§3.4.5.1)  the byte string (its
 *                                            bytes kept exactly; the JSON
 *                                            writer's binary option applies)
 *   21 / 22 / 23 on a byte string, expected conversion (§3.4.5.2)
 *                                            a string in base64url without
 *                                            padding / base64 / base16
 *                                            (lower case), as RFC 8949 §6.1
 *                                            converts them
 *   any other tag, and a tag above on content of another type: the tags
 *   policy; wrapped: {"$tag":N,"$value":V} (V converted by these rules);
 *   dropped: V alone.
 * RFC 8949 §6.1 suggests bignums as base64url strings "to prevent a likely
 * numeric overflow for the JSON decoder"; sdx writes their exact number
 * instead, which sdx and most JSON libraries read back exactly (sdx with
 * SDX_JSON_READ_BIGNUM_RAW) and which the reverse layer turns back into the
 * same bignum.
 *
 * CBOR simple values (SDX_NULL tagged SDX_TAG_CBOR_SIMPLE):
 *   undefined (23)   null with SDX_MAP_UNDEFINED_NULL, else as the others
 *   others           the tags policy; wrapped: {"$simple":N}; dropped: null
 *
 * SDX_NINT (-2^64 .. -2^63 - 1): passed on; the JSON writer writes its exact
 * decimal text.
 *
 * BSON (SDX_TAG_BSON, the table of bson.h): MongoDB Extended JSON v2
 * (mongodb/specifications, extended-json), relaxed mode by default:
 *   binary, subtype s        {"$binary":{"base64":"...","subType":"xx"}}
 *   ObjectId                 {"$oid":"24 hex digits"}
 *   datetime                 relaxed, years 1970-9999: {"$date":"ISO-8601
 *                            with milliseconds"}; else and canonical:
 *                            {"$date":{"$numberLong":"ms"}}
 *   regular expression       {"$regularExpression":{"pattern":"...",
 *                            "options":"..."}} (options sorted)
 *   DBPointer                {"$dbPointer":{"$ref":"ns","$id":{"$oid":"..."}}}
 *   code / symbol            {"$code":"..."} / {"$symbol":"..."}
 *   code with scope          {"$code":"...","$scope":{...}} (the scope read
 *                            with the BSON reader and converted likewise)
 *   timestamp                {"$timestamp":{"t":seconds,"i":increment}}
 *   int64                    relaxed: the number; canonical:
 *                            {"$numberLong":"n"}
 *   int32 (tag 0x10)         relaxed: the number; canonical {"$numberInt":"n"}
 *   decimal128               {"$numberDecimal":"..."} (bson.h's decimal128
 *                            text)
 *   undefined, min/max key   {"$undefined":true}, {"$minKey":1}, {"$maxKey":1}
 *   array held as a map      a JSON array (its odd keys dropped)
 * SDX_MAP_EJSON_RELAXED / _CANONICAL make every value Extended JSON (for a
 * BSON source, where int32, double and generic binary arrive untagged):
 * untagged binaries as subtype 0, NaN and infinities as
 * {"$numberDouble":"NaN"|"Infinity"|"-Infinity"}, and in canonical mode
 * every integer ({"$numberInt"} when it fits int32, else {"$numberLong"})
 * and double ({"$numberDouble":"1.0"}). SDX_MAP_EJSON_OFF: BSON-tagged
 * values go by the tags policy. A BSON tag on an event of another kind than
 * the table's goes by the tags policy; a composite value (regex, DBPointer,
 * code with scope) whose bytes are malformed is SDX_ERR_INVALID_ARG.
 *
 * UBJSON and BJData (SDX_TAG_UBJSON: the element type of a strongly typed
 * container; ubjson.h): the array or the object itself, untagged. The tag
 * records only how the container was encoded, so JSON loses nothing it has
 * a form for.
 *
 * Binn (SDX_TAG_BINN, binn.h):
 *   datetime (0xa1), date (0xa2), time (0xa3) on a string   the string as
 *                                            is (as CBOR tag 0)
 *   any other Binn type (decimal, currency, user types): the tags policy;
 *   wrapped: {"$tag":TYPE,"$value":V} as for CBOR tags (read back into the
 *   Binn type, below); dropped: V alone.
 *
 * Tagged values where a map key is due are passed on as converted; the JSON
 * writer accepts what a key can be (a string event is SDX_ERR_KEY, and a
 * number or null becomes a key only with SDX_JSON_WRITE_STRINGIFY_KEYS).
 *
 * ---- From JSON ------------------------------------------------------------
 *
 * The JSON reader (with SDX_JSON_READ_BIGNUM_RAW) gives integers beyond 64
 * bits, and numbers whose double would be infinite, as SDX_RAW text. For a
 * target that has CBOR tags (SDX_MAP_TARGET_CBOR):
 *   an integer in -2^64 .. -2^63 - 1        SDX_NINT (CBOR major type 1)
 *   any other integer beyond 64 bits        a bignum: SDX_BIN tagged CBOR 2
 *                                            (n >= 0) or 3 (-1 - n), the
 *                                            magnitude without leading zeros
 *   a number with a fraction or exponent    a decimal fraction 4([e, m]),
 *                                            exact (m an integer or bignum;
 *                                            e beyond int64: SDX_ERR_RANGE)
 * so that CBOR -> JSON -> CBOR gives back every bignum (in preferred form).
 * With SDX_MAP_TAGS_WRAP the wrapped forms above are read back as well: a
 * map that is exactly {"$tag":N,"$value":V} (N an unsigned integer) becomes
 * V tagged N (SDX_MAP_TARGET_CBOR); {"$simple":N} the simple value N (N in
 * 0..19, 23, 32..255); {"$ext":T,"$data":"BASE64"} (T in -128..127) the ext
 * value (SDX_MAP_TARGET_MSGPACK_EXT); {"$tag":T,"$value":V} with T a Binn
 * type parameter (binn.h) V tagged SDX_TAG_BINN T (SDX_MAP_TARGET_BINN,
 * the form Binn values take wrapped). A map that does not match is passed on
 * unchanged, except one that begins {"$tag":N,"$value":V and goes on after
 * V: that is SDX_ERR_SYNTAX, since the tag was already sent. Other events
 * pass through unchanged; a target without these types rejects SDX_RAW as
 * before.
 *
 * For SDX_MAP_TARGET_BSON (alone; with other targets SDX_ERR_INVALID_ARG)
 * the layer reads MongoDB Extended JSON, both modes and the legacy forms
 * ({"$binary":"...","$type":"xx"}, {"$regex":"...","$options":"..."},
 * {"$date":"ISO-8601"} with Z or an offset, {"$uuid":"8-4-4-4-12"}), into
 * the tagged events of bson.h's table, so that BSON -> JSON -> BSON gives
 * back the same bytes. A map is read as a wrapper when its first key is one
 * of the keywords ($oid, $symbol, $numberInt, $numberLong, $numberDouble,
 * $numberDecimal, $binary, $type, $uuid, $code, $scope, $timestamp,
 * $regularExpression, $regex, $options, $dbPointer, $date, $minKey,
 * $maxKey, $undefined); the map is held until it closes, and its keys may
 * come in any order. The query operators {"$regex": not a string, ...},
 * {"$regex":"..."} alone, {"$type": ...} without "$binary" and "$options"
 * without "$regex" stay plain maps. A wrapper with missing, extra or
 * ill-typed keys, or a value out of range (an int32 text beyond int32, an
 * ObjectId not of 24 hex digits, a NUL in a regex) is SDX_ERR_SYNTAX (a
 * $numberDecimal that needs rounding SDX_ERR_RANGE); the
 * input ending inside one SDX_ERR_TRUNCATED. A $scope document is encoded
 * with the BSON writer into scratch memory (code with scope nested deeper
 * than SDX_BSON_MAX_SCOPE_NESTING: SDX_ERR_DEPTH). Other JSON passes as it
 * is (numbers: the BSON writer picks int32, int64 or double).
 *
 * ---- Limits and memory -----------------------------------------------------
 *
 * Base 256 <-> base 10 conversion is quadratic in the length, so its size is
 * bounded by max_digits (decimal digits of one number; default 4300, the
 * limit Python sets on int <-> str conversion for the same reason,
 * CVE-2020-10735): a longer number is SDX_ERR_LIMIT. Scratch memory (a
 * number's digits and limbs, a wrapped value's base64, the nesting of open
 * wrappers) grows to the largest value seen, through opts->alloc; failure
 * is SDX_ERR_NOMEM. Errors are sticky, as a writer's.
 */
#ifndef SDX_MAP_H
#define SDX_MAP_H

#include "common.h"
#include "sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options (flags) of both directions; all off by default. */
enum sdx_map_flag {
    /* Tagged values JSON has no form for: write the content without the tag
     * (an ext value's payload as a binary, a simple value as null). */
    SDX_MAP_TAGS_DROP = 1u << 0,
    /* Tagged values JSON has no form for: write them wrapped,
     * {"$tag":N,"$value":V}, {"$ext":T,"$data":"BASE64"}, {"$simple":N};
     * from JSON: read those maps back as the tagged values. Given with
     * SDX_MAP_TAGS_DROP: SDX_ERR_INVALID_ARG. */
    SDX_MAP_TAGS_WRAP = 1u << 1,
    /* CBOR undefined as null (without it, undefined goes by the tags
     * policy). */
    SDX_MAP_UNDEFINED_NULL = 1u << 2,
    /* To JSON, MongoDB Extended JSON for every value, relaxed mode: besides
     * the BSON-tagged values (relaxed by default), untagged binaries become
     * {"$binary": ...} (subtype 0) and NaN and the infinities
     * {"$numberDouble": ...}. For a BSON source. */
    SDX_MAP_EJSON_RELAXED = 1u << 3,
    /* To JSON, canonical Extended JSON for every value: as relaxed, and
     * every number wrapped too ({"$numberInt"}, {"$numberLong"},
     * {"$numberDouble"}), dates as {"$date":{"$numberLong": ...}}. */
    SDX_MAP_EJSON_CANONICAL = 1u << 4,
    /* To JSON, no Extended JSON: BSON-tagged values go by the tags policy
     * (by default SDX_ERR_UNSUPPORTED). At most one of the three EJSON
     * flags (else SDX_ERR_INVALID_ARG). */
    SDX_MAP_EJSON_OFF = 1u << 5
};

/* The types a target format has, for the reverse layer (bits). */
enum sdx_map_target {
    SDX_MAP_TARGET_CBOR = 1u << 0,        /* CBOR tags, SDX_NINT, simple values */
    SDX_MAP_TARGET_MSGPACK_EXT = 1u << 1, /* MessagePack ext types */
    SDX_MAP_TARGET_BSON = 1u << 2,        /* BSON types: read Extended JSON
                                             (not with the other targets) */
    SDX_MAP_TARGET_BINN = 1u << 3         /* Binn types (SDX_TAG_BINN) */
};

/* Default and highest max_digits. */
#define SDX_MAP_DEFAULT_MAX_DIGITS 4300u
#define SDX_MAP_MAX_DIGITS_CAP 100000u

/* Options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_map_opts {
    uint32_t flags;         /* sdx_map_flag bits */
    uint32_t target;        /* reverse layer: sdx_map_target bits */
    uint32_t max_digits;    /* decimal digits of one number; 0 = default,
                               at most SDX_MAP_MAX_DIGITS_CAP */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_map_opts;

/* Outer tags held for one item (more: SDX_ERR_LIMIT). */
#define SDX_MAP_MAX_TAGS 16

/* Scratch memory of a layer (private). */
typedef struct sdx_map_scratch {
    char *ptr;
    size_t cap;
} sdx_map_scratch;

/* The to-JSON layer. All fields are private; it lives in caller memory
 * and must not be copied after sdx_map_to_json_init(). */
typedef struct sdx_map_to_json {
    sdx_sink out;
    sdx_err err;
    uint32_t flags;
    uint32_t max_digits;
    sdx_alloc alloc;
    uint64_t depth;          /* containers open in the input */
    uint32_t ntags;          /* outer tags held for the next item */
    sdx_event tags[SDX_MAP_MAX_TAGS];
    uint64_t *wraps;         /* input depth at which each open wrapper map
                                closes, innermost last */
    size_t nwraps, capwraps;
    uint64_t *keyless;       /* input depth inside each open BSON array held
                                as a map (its keys are dropped) */
    size_t nkeyless, capkeyless;
    /* A decimal fraction or bigfloat being collected: its array event, the
     * elements seen (0-2) and the mantissa's bytes (in `frac`). */
    int collecting;          /* 0, or the tag (4 or 5) */
    uint32_t nelem;
    sdx_event frac_array;
    sdx_event frac_elem[2];
    sdx_map_scratch frac;
    sdx_map_scratch text;    /* digits, base64 */
    sdx_map_scratch limbs;
} sdx_map_to_json;

/* Start a layer that writes into `out` (usually sdx_json_writer_sink()).
 * `opts` NULL means defaults. Returns SDX_ERR_INVALID_ARG (also kept as the
 * sticky error) for unknown flags, both TAGS flags, or max_digits above the
 * cap; else SDX_OK. Nothing is allocated until needed. */
SDX_API sdx_err sdx_map_to_json_init(sdx_map_to_json *m, sdx_sink out, const sdx_map_opts *opts);

/* Take one event: convert it by the conventions above and send the result
 * to `out`. Returns the sticky error: the layer's own (SDX_ERR_UNSUPPORTED
 * for a value without a JSON form, SDX_ERR_LIMIT, SDX_ERR_NOMEM,
 * SDX_ERR_USAGE for events out of order) or the one `out` returned. */
SDX_API sdx_err sdx_map_to_json_put(sdx_map_to_json *m, const sdx_event *ev);

/* The layer as a sink (valid while `m` is). */
SDX_API sdx_sink sdx_map_to_json_sink(sdx_map_to_json *m);

/* End: checks that no tag or collected value is left pending (SDX_ERR_USAGE
 * otherwise), finishes `out`, frees what the layer allocated and returns
 * the sticky error (or out's). Call it exactly once, also after an error. */
SDX_API sdx_err sdx_map_to_json_finish(sdx_map_to_json *m);

/* The from-JSON layer (private fields; caller memory; not to be copied). */
typedef struct sdx_map_from_json {
    sdx_sink out;
    sdx_err err;
    uint32_t flags;
    uint32_t target;
    uint32_t max_digits;
    sdx_alloc alloc;
    uint64_t depth;          /* containers open in the input */
    sdx_event held[6];       /* a map that may be a wrapped form */
    uint32_t nheld;
    uint32_t form;           /* which form it may be */
    uint32_t ntags;          /* CBOR tags read for the next item */
    uint64_t tags[SDX_MAP_MAX_TAGS];
    uint64_t *closes;        /* per open {"$tag"} map: its inner depth << 1,
                                | 1 once its value is complete */
    size_t ncloses, capcloses;
    sdx_map_scratch strs;    /* a held string; a number's digits */
    sdx_map_scratch text;
    sdx_map_scratch limbs;
    /* Extended JSON (SDX_MAP_TARGET_BSON): a map that may be a type
     * wrapper, held whole as events (strings in `arena`, by offset) until
     * it closes. */
    sdx_event *evs;
    size_t nevs, capevs;
    sdx_map_scratch arena;
    size_t arena_len;
    uint64_t held_depth;     /* open maps and arrays of the held events */
    uint32_t scope_level;    /* nesting of $scope documents being encoded */
    uint8_t map_pending;     /* a map began; its first key decides */
} sdx_map_from_json;

/* Start a reverse layer writing into `out` (the target's writer) for a
 * target with the types in opts->target. Returns SDX_ERR_INVALID_ARG (kept
 * as the sticky error) for unknown flags or targets, both TAGS flags, or
 * max_digits above the cap; else SDX_OK. */
SDX_API sdx_err sdx_map_from_json_init(sdx_map_from_json *m, sdx_sink out, const sdx_map_opts *opts);

/* Take one event (from a JSON reader): convert it by the conventions above
 * and send the result to `out`. Returns the sticky error: SDX_ERR_LIMIT,
 * SDX_ERR_RANGE (a decimal exponent beyond int64), SDX_ERR_SYNTAX (a
 * {"$tag"} map with more entries; a malformed Extended JSON wrapper),
 * SDX_ERR_DEPTH ($scope nesting), SDX_ERR_NOMEM, or out's. */
SDX_API sdx_err sdx_map_from_json_put(sdx_map_from_json *m, const sdx_event *ev);

/* The reverse layer as a sink (valid while `m` is). */
SDX_API sdx_sink sdx_map_from_json_sink(sdx_map_from_json *m);

/* End: sends a map still held (the input ended inside it; the target then
 * reports the unfinished value), finishes `out`, frees what the layer
 * allocated and returns the sticky error. Call it exactly once. */
SDX_API sdx_err sdx_map_from_json_finish(sdx_map_from_json *m);

#ifdef __cplusplus
}
#endif

#endif /* SDX_MAP_H */
