/*
 * cmt_records.h — every record the tracer writes, one encoder each, in the order and with the
 * fields of the record list in include/cmt_format.h (the reader, analyzer/read/reader.c, mirrors them).
 * No other module encodes a payload: they call these. Framing (sequence, time, staging block)
 * is the writer's (cmt_writer.h). ALLOC, RETRACK and FREE take the sequence number and time the
 * caller took where it decided the event's place in the order; the others take their own
 * (cmt_seq.h: definitions and extension records with cmt_seq_def).
 */
#ifndef CMT_RECORDS_H
#define CMT_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmt_internal.h"
#include "cmt_seq.h"
#include "cmt_writer.h"

/* ALLOC or RETRACK (type), result: RETRACK only (the refused free's CUresult). Inline: they are
 * on every allocation's and free's path. The _as forms take cmt_rec_begin_as's gated. */
static inline __attribute__((always_inline)) void cmt_rec_alloc_as(bool gated, uint8_t type, enum cmt_api api, int kind,
                                                                   unsigned flags, int device, uint64_t ptr,
                                                                   uint64_t size, uint64_t granted, uint32_t stack,
                                                                   uint16_t ctx, uint64_t seq, int64_t now,
                                                                   int64_t result) {
    uint8_t *p = cmt_rec_begin_as(12 * CMT_VARINT_MAX, seq, now, gated);
    if (!p) return;
    p = cmt_put_varint(p, (uint64_t)api);
    p = cmt_put_varint(p, (uint64_t)kind);
    p = cmt_put_varint(p, flags);
    p = cmt_put_zvarint(p, device);
    p = cmt_put_ptr(p, ptr);
    p = cmt_put_varint(p, size);
    p = cmt_put_varint(p, granted == size ? 0 : granted);
    p = cmt_put_varint(p, stack);
    p = cmt_put_varint(p, ctx);
    if (type == CMT_REC_RETRACK) p = cmt_put_varint(p, (uint64_t)result);
    cmt_rec_end(type, p);
}
static inline __attribute__((always_inline)) void cmt_rec_alloc(uint8_t type, enum cmt_api api, int kind,
                                                                unsigned flags, int device, uint64_t ptr, uint64_t size,
                                                                uint64_t granted, uint32_t stack, uint16_t ctx,
                                                                uint64_t seq, int64_t now, int64_t result) {
    cmt_rec_alloc_as(false, type, api, kind, flags, device, ptr, size, granted, stack, ctx, seq, now, result);
}

static inline __attribute__((always_inline)) void cmt_rec_free_as(bool gated, enum cmt_api api, unsigned flags,
                                                                  int device, uint64_t ptr, uint64_t seq, int64_t now) {
    uint8_t *p = cmt_rec_begin_as(4 * CMT_VARINT_MAX, seq, now, gated);
    if (!p) return;
    p = cmt_put_varint(p, (uint64_t)api);
    p = cmt_put_varint(p, flags);
    p = cmt_put_zvarint(p, device);
    p = cmt_put_ptr(p, ptr);
    cmt_rec_end(CMT_REC_FREE, p);
}
static inline __attribute__((always_inline)) void cmt_rec_free(enum cmt_api api, unsigned flags, int device,
                                                               uint64_t ptr, uint64_t seq, int64_t now) {
    cmt_rec_free_as(false, api, flags, device, ptr, seq, now);
}

/* OOM or FAILED (type). */
void cmt_rec_failure(uint8_t type, enum cmt_api api, int device, uint64_t size, uint32_t stack, CUresult r) CMT_HIDDEN;
/* TEARDOWN and EXIT take a definition's number after `after` (cmt_ptr_clock(): every allocation
 * and free recorded before, on any thread, even one that only the application's synchronisation
 * orders before) and before whatever follows. cmt_rec_teardown returns its number (0: none). */
uint64_t cmt_rec_teardown(uint64_t after, enum cmt_api api, int device, uint16_t ctx, unsigned flags) CMT_HIDDEN;
/* STACK: n native frames (innermost first), npy Python frames as (code id | at << 32, line). */
void cmt_rec_stack(uint32_t id, const uintptr_t *frames, uint32_t n, const uintptr_t *py, uint32_t npy) CMT_HIDDEN;
void cmt_rec_device(int ordinal, uint64_t total, const uint8_t uuid[16], const char *name, const char *pci) CMT_HIDDEN;
void cmt_rec_ctx(uint16_t idx, int device, uint64_t handle) CMT_HIDDEN;
void cmt_rec_exit(uint64_t after, int how, int status) CMT_HIDDEN;
void cmt_rec_pycode(uint32_t id, int first_line, const char *file, const char *name) CMT_HIDDEN;

struct cmt_segment {
    uint64_t vaddr, memsz, flags;
};
void cmt_rec_module_load(uint32_t id, uint64_t base, const char *path, const uint8_t *build_id, size_t build_id_len,
                         const struct cmt_segment *seg, unsigned nseg) CMT_HIDDEN;
void cmt_rec_module_unload(uint32_t id) CMT_HIDDEN;
void cmt_rec_pool(uint64_t pool, int loc_type, int loc_id, int op) CMT_HIDDEN;
void cmt_rec_unmatched_proc(const char *sym, int version, uint64_t flags) CMT_HIDDEN;
void cmt_rec_vmm_map(int op, uint64_t va, uint64_t size, uint64_t handle) CMT_HIDDEN;
void cmt_rec_info(const char *key, const char *value) CMT_HIDDEN;
/* PYTHON (2.3): state (enum cmt_py_state), version (major << 16 | minor << 8 | micro), its text. */
void cmt_rec_python(unsigned state, uint32_t version, const char *text) CMT_HIDDEN;
void cmt_rec_marker(const char *label, unsigned flags, const char *domain) CMT_HIDDEN;
void cmt_rec_alert(int device, uint64_t live, uint64_t threshold, const void *caller) CMT_HIDDEN;
void cmt_rec_exec_failed(int err) CMT_HIDDEN;
void cmt_rec_suballoc(unsigned op, uint64_t heap, uint64_t ptr, uint64_t size, uint32_t stack,
                      const char *name) CMT_HIDDEN;

/* The dump's prologue (API_NAME records, INFO "clock"): the writer builds it while it creates the
 * dump (before any other record can be written), so these encoders only fill buf (and return its
 * end); buf holds CMT_ENC_MAX bytes. */
#include "cmt_wire.h"
#define CMT_ENC_MAX (2 * CMT_VARINT_MAX + 16 + 256)
static inline uint8_t *cmt_enc_api_name(uint8_t *buf, unsigned api, const char *sym) {
    uint8_t *p = cmt_put_varint(buf, api);
    return cmt_put_str(p, sym, 200);
}
static inline uint8_t *cmt_enc_info(uint8_t *buf, const char *key, const char *value) {
    uint8_t *p = cmt_put_str(buf, key, 16);
    return cmt_put_str(p, value, 256);
}

#endif
