/*
 * decode.c — the checked path of the reader: decodes one record of any type from a stream's open
 * block (decode_payload: the one place that knows every record's payload), with every varint
 * bounds-checked; a record cut by the end of a truncated dump ends its stream, anything else that
 * does not decode is corruption. Also the frames of a decoded stack, Python ones interleaved.
 */
#include "reader_internal.h"

#include <string.h>

#include "cmt_wire.h"

/* cmt_get_varint with the one-byte case inline (most fields of hot records). */
static inline __attribute__((always_inline)) uint64_t rd_varint(struct cmt_cursor *c) {
    if (__builtin_expect(c->p < c->end && *c->p < 0x80 && c->ok, 1)) return *c->p++;
    return cmt_get_varint(c);
}
static inline __attribute__((always_inline)) int64_t rd_zvarint(struct cmt_cursor *c) {
    return cmt_zz_dec(rd_varint(c));
}
#define cmt_get_varint rd_varint
#define cmt_get_zvarint rd_zvarint

static uint64_t get_ptr(struct cmt_cursor *c, struct cmt_stream *s) {
    int64_t delta = cmt_get_zvarint(c);
    s->ptr += (uint64_t)delta;
    return s->ptr;
}

static void get_alloc(struct cmt_cursor *c, struct cmt_stream *s, struct cmt_event *e) {
    e->api = cmt_get_varint(c);
    e->kind = cmt_get_varint(c);
    e->flags = cmt_get_varint(c);
    e->device = cmt_get_zvarint(c);
    e->ptr = get_ptr(c, s);
    e->size = cmt_get_varint(c);
    e->granted = cmt_get_varint(c);
    if (!e->granted) e->granted = e->size;
    e->stack = cmt_get_varint(c);
    e->ctx = cmt_get_varint(c);
}

/* Decodes the payload of type t from c into e; returns 0 on success, -1 with *why set. */
static int decode_payload(struct cmt_cursor *c, struct cmt_stream *s, struct cmt_event *e, unsigned t,
                          const char **why) {
    switch (t) {
    case CMT_REC_ALLOC:
    case CMT_REC_RETRACK:
        get_alloc(c, s, e);
        if (t == CMT_REC_RETRACK) e->result = cmt_get_varint(c);
        if (c->ok && (!span_ok(e->ptr, e->size) || !span_ok(e->ptr, e->granted))) {
            *why = "allocation of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_FREE:
        e->api = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->ptr = get_ptr(c, s);
        break;
    case CMT_REC_OOM:
    case CMT_REC_FAILED:
        e->api = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->size = cmt_get_varint(c);
        e->stack = cmt_get_varint(c);
        e->result = cmt_get_varint(c);
        break;
    case CMT_REC_TEARDOWN:
        e->api = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->ctx = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        break;
    case CMT_REC_STACK: {
        e->id = cmt_get_varint(c);
        uint64_t n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_FRAMES) {
            *why = "STACK nframes exceeds CMT_MAX_FRAMES";
            return -1;
        }
        e->nframes = (uint32_t)n;
        uint64_t a = 0;
        for (uint32_t i = 0; i < e->nframes && c->ok; i++) {
            a = i ? a + (uint64_t)cmt_get_zvarint(c) : cmt_get_varint(c);
            s->frames[i] = a;
        }
        if (s->major < 2) break; /* 1.x: no Python frames */
        n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_FRAMES) {
            *why = "STACK npy exceeds CMT_MAX_FRAMES";
            return -1;
        }
        e->npy = (uint32_t)n;
        for (uint32_t i = 0; i < e->npy && c->ok; i++) {
            struct cmt_pyframe_rec *f = &s->py[i];
            f->code = cmt_get_varint(c);
            f->line = cmt_get_varint(c);
            f->at = cmt_get_varint(c);
            if (c->ok &&
                (f->code == 0 || f->code > CMT_MAX_PYCODES || f->at > e->nframes || (i && f->at < s->py[i - 1].at))) {
                *why = "STACK Python frame out of range (code id, or at not within nframes and non-decreasing)";
                return -1;
            }
        }
        break;
    }
    case CMT_REC_PYCODE:
        e->id = cmt_get_varint(c);
        e->first_line = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        if (c->ok && (e->id == 0 || e->id > CMT_MAX_PYCODES)) {
            *why = "PYCODE id out of range";
            return -1;
        }
        break;
    case CMT_REC_DEVICE: {
        e->device = cmt_get_zvarint(c);
        e->total = cmt_get_varint(c);
        const uint8_t *u = cmt_get_bytes(c, 16);
        if (u) memcpy(e->uuid, u, 16);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    }
    case CMT_REC_CTX:
        e->ctx = cmt_get_varint(c);
        e->device = cmt_get_zvarint(c);
        e->handle = cmt_get_varint(c);
        break;
    case CMT_REC_EXIT:
        e->exit_how = cmt_get_varint(c);
        e->exit_status = cmt_get_zvarint(c);
        /* as wait() reports it (before 2.3 the tracer wrote exit()'s argument: -1 for 255) */
        if (e->exit_how == CMT_EXIT_CLEAN || e->exit_how == CMT_EXIT_IMMEDIATE) e->exit_status &= 0xff;
        break;
    case CMT_REC_MODULE_LOAD: {
        e->id = cmt_get_varint(c);
        e->base = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        uint64_t n = cmt_get_varint(c);
        if (c->ok && n > CMT_MAX_SEGMENTS) {
            *why = "MODULE_LOAD nseg exceeds CMT_MAX_SEGMENTS";
            return -1;
        }
        e->nseg = (uint32_t)n;
        for (uint32_t i = 0; i < e->nseg && c->ok; i++) {
            s->segs[i].vaddr = cmt_get_varint(c);
            s->segs[i].memsz = cmt_get_varint(c);
            s->segs[i].flags = cmt_get_varint(c);
        }
        break;
    }
    case CMT_REC_MODULE_UNLOAD:
        e->id = cmt_get_varint(c);
        break;
    case CMT_REC_POOL:
        e->pool = cmt_get_varint(c);
        e->location_type = cmt_get_varint(c);
        e->location_id = cmt_get_zvarint(c);
        e->op = cmt_get_varint(c);
        break;
    case CMT_REC_UNMATCHED_PROC:
        e->version = cmt_get_varint(c);
        e->flags = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    case CMT_REC_VMM_MAP:
        e->op = cmt_get_varint(c);
        e->ptr = cmt_get_varint(c); /* plain address in extension records */
        e->size = cmt_get_varint(c);
        e->handle = cmt_get_varint(c);
        if (c->ok && !span_ok(e->ptr, e->size)) {
            *why = "mapping of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_INFO:
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    case CMT_REC_MARKER:
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        e->flags = cmt_get_varint(c);
        e->str2 = cmt_get_str(c, &e->str2_len, CMT_MAX_STR);
        break;
    case CMT_REC_ALERT:
        e->device = cmt_get_zvarint(c);
        e->live = cmt_get_varint(c);
        e->threshold = cmt_get_varint(c);
        e->caller = (int64_t)cmt_get_varint(c);
        break;
    case CMT_REC_EXEC_FAILED:
        e->err = cmt_get_zvarint(c);
        break;
    case CMT_REC_API_NAME:
        e->id = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    case CMT_REC_SUBALLOC:
        e->op = cmt_get_varint(c);
        e->heap = cmt_get_varint(c);
        e->ptr = cmt_get_varint(c);
        e->size = cmt_get_varint(c);
        e->stack = cmt_get_varint(c);
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        if (c->ok && !span_ok(e->ptr, e->size)) {
            *why = "region of more than 2^57 bytes, or ending past 2^64 (ptr + size overflows)";
            return -1;
        }
        break;
    case CMT_REC_PYTHON:
        e->op = cmt_get_varint(c);      /* enum cmt_py_state */
        e->version = cmt_get_varint(c); /* major << 16 | minor << 8 | micro */
        e->str1 = cmt_get_str(c, &e->str1_len, CMT_MAX_STR);
        break;
    default:
        if (t < CMT_REC_EXT_FIRST) {
            *why = "unknown core record type";
            return -1;
        }
        break; /* unknown extension: skipped */
    }
    if (!c->ok) {
        *why = "payload does not decode";
        return -1;
    }
    return 0;
}

/* Every field of ev readers may look at, reset (the checked path does it before each record). */
void cmt_rd_reset_event(struct cmt_event *e) {
    e->api = e->kind = e->flags = e->ptr = e->size = e->granted = e->stack = e->ctx = e->result = 0;
    e->id = e->total = e->handle = e->base = 0;
    e->op = e->heap = e->pool = e->location_type = e->exit_how = e->version = e->live = e->threshold = 0;
    e->device = e->location_id = e->exit_status = e->err = e->caller = 0;
    e->nframes = e->nseg = e->npy = 0;
    e->first_line = 0;
    e->str1 = e->str2 = NULL;
    e->str1_len = e->str2_len = 0;
    e->payload = NULL;
    e->payload_len = 0;
}

/* The checked path: decodes the record of type t (its type byte read; it began at off) into s->ev
 * and its deltas into *sd, *td. 1; 0 at the end of a truncated dump; -1 when corrupt. */
__attribute__((noinline)) int cmt_rd_decode_record(struct cmt_dump *d, struct cmt_stream *s, unsigned t, uint64_t off,
                                                   uint64_t *sd, uint64_t *td) {
    struct cmt_cursor *c = &s->c;
    struct cmt_event *e = &s->ev;
    /* reset only the fields readers may look at for this record */
    e->type = (uint8_t)t;
    e->writer = s->writer;
    e->offset = off;
    cmt_rd_reset_event(e);
    s->cold_set = 1;
    *sd = cmt_get_varint(c);
    *td = cmt_get_varint(c);
    const char *why = NULL;
    int rc = 0;
    if (!c->ok) {
        why = "record header does not decode";
        rc = -1;
    } else if (t >= CMT_REC_EXT_FIRST) {
        if (t > CMT_REC_EXT_LAST) {
            why = "invalid record type";
            rc = -1;
        } else {
            uint64_t plen = cmt_get_varint(c);
            if (!c->ok || plen > (uint64_t)(c->end - c->p)) {
                why = "payload length past the end of the block";
                c->ok = 0;
                rc = -1;
            } else {
                struct cmt_cursor sub = {c->p, c->p + plen, 1};
                e->payload = c->p;
                e->payload_len = (size_t)plen;
                c->p += plen;
                rc = decode_payload(&sub, s, e, t, &why);
            }
        }
    } else {
        rc = decode_payload(c, s, e, t, &why);
    }
    if (rc != 0) {
        /* cut by the truncation: the record runs past the end of the file's last bytes */
        if (s->partial && !c->ok && (c->p >= c->end || t >= CMT_REC_EXT_FIRST)) {
            s->open = 0;
            s->done = 1;
            return 0;
        }
        cmt_rd_corrupt(d, off, "record type 0x%02x (writer %u, block at offset %llu): %s", t, s->writer,
                (unsigned long long)s->block_off, why);
        return -1;
    }
    if ((e->str1 || e->str2 || e->payload) && !d->follow && s->base != d->map + s->block_off) {
        /* strings and payloads point into the mapping: valid as long as the dump is open */
        const uint8_t *m = d->map + s->block_off;
        if (e->str1) e->str1 = (const char *)m + ((const uint8_t *)e->str1 - s->base);
        if (e->str2) e->str2 = (const char *)m + ((const uint8_t *)e->str2 - s->base);
        if (e->payload) e->payload = m + (e->payload - s->base);
    }
    return 1;
}

size_t cmt_stack_frames(const struct cmt_event *e, struct cmt_frame *out, size_t max, int keep_eval) {
    size_t k = 0, j = 0;
    for (uint32_t i = 0; i <= e->nframes; i++) {
        int ran = 0;
        for (; j < e->npy && e->py[j].at == i && k < max; j++, ran = 1)
            out[k++] = (struct cmt_frame){CMT_FRAME_PYTHON, 0, 0, e->py[j].code, e->py[j].line};
        if (i < e->nframes && (!ran || keep_eval) && k < max)
            out[k++] = (struct cmt_frame){CMT_FRAME_NATIVE, ran, e->frames[i], 0, 0};
    }
    return k;
}
