/*
 * cmt_wire.h — varint/zigzag encoding of dump records (see cmt_format.h), shared by the writer and
 * the reader. Encoders write into a caller-sized buffer; decoders are bounds-checked and report
 * malformed input instead of reading past the end.
 */
#ifndef CMT_WIRE_H
#define CMT_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CMT_VARINT_MAX 10

static inline uint64_t cmt_zz_enc(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t cmt_zz_dec(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Writes v at p (room for CMT_VARINT_MAX bytes); returns the new end. */
static inline uint8_t *cmt_put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}
static inline uint8_t *cmt_put_zvarint(uint8_t *p, int64_t v) { return cmt_put_varint(p, cmt_zz_enc(v)); }

/* Writes a length-prefixed string, cut at max bytes. */
static inline uint8_t *cmt_put_str(uint8_t *p, const char *s, size_t max) {
    size_t n = s ? strnlen(s, max) : 0;
    p = cmt_put_varint(p, n);
    if (n) memcpy(p, s, n);
    return p + n;
}

/* A bounds-checked read cursor. Once a read fails, ok is 0 and every later read returns 0. */
struct cmt_cursor {
    const uint8_t *p, *end;
    int ok;
};

static inline uint64_t cmt_get_varint(struct cmt_cursor *c) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (!c->ok || c->p >= c->end) break;
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->ok = 0;
    return 0;
}
static inline int64_t cmt_get_zvarint(struct cmt_cursor *c) { return cmt_zz_dec(cmt_get_varint(c)); }
static inline uint8_t cmt_get_u8(struct cmt_cursor *c) {
    if (!c->ok || c->p >= c->end) {
        c->ok = 0;
        return 0;
    }
    return *c->p++;
}
/* Returns a pointer to n raw bytes in the input, or NULL (and ok = 0) when they are not there. */
static inline const uint8_t *cmt_get_bytes(struct cmt_cursor *c, size_t n) {
    if (!c->ok || (size_t)(c->end - c->p) < n) {
        c->ok = 0;
        return NULL;
    }
    const uint8_t *r = c->p;
    c->p += n;
    return r;
}
/* Reads a string: *len gets its length (bounded by max, else ok = 0). Not NUL-terminated. */
static inline const char *cmt_get_str(struct cmt_cursor *c, size_t *len, size_t max) {
    uint64_t n = cmt_get_varint(c);
    if (n > max) {
        c->ok = 0;
        *len = 0;
        return NULL;
    }
    *len = (size_t)n;
    return (const char *)cmt_get_bytes(c, (size_t)n);
}

#endif
