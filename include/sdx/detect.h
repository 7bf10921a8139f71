/*
 * sdx — the formats by name, and telling an input's format from its first
 * bytes.
 *
 *   sdx_format f;
 *   bool guessed;
 *   if (sdx_detect_format(data, len, len, 0, &f, &guessed) == SDX_OK)
 *       printf("%s\n", sdx_format_name(f));       // "msgpack"
 *
 * The sdx command uses the same function for inputs given without -f and
 * without a known file extension, and so does the Python package
 * (sdx.loads(data) without fmt), so the two always agree.
 */
#ifndef SDX_DETECT_H
#define SDX_DETECT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The formats sdx reads and writes. Values are stable. A format left out
 * of the build (SDX_NO_MSGPACK, ...) keeps its number; detection never
 * gives it. */
typedef enum sdx_format {
    SDX_FORMAT_UNKNOWN = 0,
    SDX_FORMAT_JSON,
    SDX_FORMAT_MSGPACK,
    SDX_FORMAT_CBOR,
    SDX_FORMAT_BSON,
    SDX_FORMAT_UBJSON,
    SDX_FORMAT_BJDATA,
    SDX_FORMAT_BINN,
    SDX_FORMAT__COUNT
} sdx_format;

/* The format's short name: "json", "msgpack", "cbor", "bson", "ubjson",
 * "bjdata", "binn"; "unknown" for SDX_FORMAT_UNKNOWN and values out of
 * range. Never NULL. */
SDX_API const char *sdx_format_name(sdx_format format);

/* Detection options (flags). */
enum sdx_detect_flag {
    /* The input is a sequence of values (newline-delimited JSON, back to
     * back binary values): BSON's leading length need not be the input's
     * size. */
    SDX_DETECT_SEQUENCE = 1u << 0,
    /* Probe the readers without UTF-8 checks (for input that will be read
     * so): a string that is not UTF-8 then does not count against a
     * format. */
    SDX_DETECT_NO_UTF8_CHECK = 1u << 1
};

/* The bytes detection looks at: callers need pass no more than this many
 * from the start of the input (more are not read). */
#define SDX_DETECT_PEEK 16384

/* Tell the format of an input from its first `len` bytes at `data` (the
 * whole input, or a look-ahead of at least SDX_DETECT_PEEK bytes when it
 * is longer). `size` is the whole input's size in bytes, UINT64_MAX when
 * unknown (a pipe whose end lies beyond the look-ahead). In this order:
 *   1. CBOR's self-described tag (d9 d9 f7) at the start: CBOR;
 *   2. a leading int32 that is a plausible BSON document length (the
 *      input's size exactly, unless a sequence is read; a document the
 *      BSON reader accepts when it lies within the look-ahead): BSON;
 *   3. text that JSON could start with (no control bytes but tab, CR and
 *      LF; after whitespace and a UTF-8 byte-order mark, nothing or one of
 *      { [ " - 0-9 t f n): JSON;
 *   4. otherwise each reader (JSON, MessagePack, CBOR, UBJSON, BJData,
 *      Binn, in this order) is tried on the look-ahead as one value: the
 *      first that reads all of it (or is cut only by the end of the
 *      look-ahead) wins, else the one that read furthest.
 * *format gets the format; *guessed (if not NULL) is true when no reader
 * read a single byte of it (the format is then the first reader tried, a
 * guess that reading will report as an error). Returns SDX_OK, or
 * SDX_ERR_NOMEM when a probing reader cannot be allocated, or
 * SDX_ERR_INVALID_ARG for data NULL with len > 0, format NULL or unknown
 * flags (*format is then SDX_FORMAT_UNKNOWN). An empty input is JSON (whose
 * reader then reports it). */
SDX_API sdx_err sdx_detect_format(const void *data, size_t len, uint64_t size, uint32_t flags,
                                  sdx_format *format, bool *guessed);

#ifdef __cplusplus
}
#endif

#endif /* SDX_DETECT_H */
