/*
 * The MessagePack timestamp extension (type -1): decoding its three forms,
 * and its RFC 3339 text for the JSON writer.
 *
 *   timestamp 32: 4 bytes, seconds as uint32 (nanoseconds 0)
 *   timestamp 64: 8 bytes, nanoseconds in the top 30 bits, seconds in the
 *                 low 34 bits
 *   timestamp 96: 12 bytes, nanoseconds as uint32, then seconds as int64
 */
#include "msgpack/msgpack_internal.h"
#include "sdx/msgpack.h"

bool sdx_msgpack_ts_decode(const uint8_t *p, size_t len, int64_t *sec, uint32_t *nsec) {
    uint32_t ns;
    int64_t s;
    switch (len) {
    case 4:
        ns = 0;
        s = (int64_t)sdx_load_be32(p);
        break;
    case 8: {
        uint64_t v = sdx_load_be64(p);
        ns = (uint32_t)(v >> 34);
        s = (int64_t)(v & 0x3ffffffffull);
        break;
    }
    case 12:
        ns = sdx_load_be32(p);
        s = (int64_t)sdx_load_be64(p + 4);
        break;
    default: return false;
    }
    if (ns >= 1000000000u) return false;
    *sec = s;
    *nsec = ns;
    return true;
}

bool sdx_msgpack_timestamp_decode(const void *data, size_t len, int64_t *seconds,
                                  uint32_t *nanoseconds) {
    int64_t s;
    uint32_t ns;
    if (!data || !sdx_msgpack_ts_decode((const uint8_t *)data, len, &s, &ns)) return false;
    if (seconds) *seconds = s;
    if (nanoseconds) *nanoseconds = ns;
    return true;
}

static char *put2(char *p, unsigned v) {
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/* Days since 1970-01-01 to a civil date in the proleptic Gregorian calendar:
 * the "civil_from_days" algorithm of H. Hinnant, "chrono-Compatible Low-Level
 * Date Algorithms" (eras of 400 years, March-based years). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    uint64_t doe = (uint64_t)(z - era * 146097);                          /* [0, 146096] */
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    uint64_t mp = (5 * doy + 2) / 153;                                    /* [0, 11] */
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

char *sdx_rfc3339(char *dst, int64_t sec, uint32_t nsec) {
    /* 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z */
    if (sec < -62167219200 || sec > 253402300799 || nsec >= 1000000000u) return NULL;
    int64_t days = sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
    unsigned secs = (unsigned)(sec - days * 86400);
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    char *p = dst;
    p = put2(p, (unsigned)(y / 100));
    p = put2(p, (unsigned)(y % 100));
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    p = put2(p, d);
    *p++ = 'T';
    p = put2(p, secs / 3600);
    *p++ = ':';
    p = put2(p, secs / 60 % 60);
    *p++ = ':';
    p = put2(p, secs % 60);
    if (nsec) {
        char frac[9];
        uint32_t v = nsec;
        for (int i = 8; i >= 0; i--) {
            frac[i] = (char)('0' + v % 10);
            v /= 10;
        }
        int n = 9;
        while (frac[n - 1] == '0') n--;
        *p++ = '.';
        memcpy(p, frac, (size_t)n);
        p += n;
    }
    *p++ = 'Z';
    return p;
}
