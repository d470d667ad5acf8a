/*
 * cmt_records.c — see cmt_records.h. Core records first (cmt_rec_begin/cmt_rec_end: the payload
 * is written in place), then the extension records (built in a buffer, written with their length).
 */
#include <limits.h>
#include <string.h>

#include "cmt_records.h"
#include "cmt_seq.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

/* ---- core records ---- */

void cmt_rec_failure(uint8_t type, enum cmt_api api, int device, uint64_t size, uint32_t stack, CUresult r) {
    int64_t now = cmt_now();
    uint8_t *p = cmt_rec_begin(5 * CMT_VARINT_MAX, cmt_seq(now), now);
    if (!p) return;
    p = cmt_put_varint(p, (uint64_t)api);
    p = cmt_put_zvarint(p, device);
    p = cmt_put_varint(p, size);
    p = cmt_put_varint(p, stack);
    p = cmt_put_varint(p, (uint64_t)r);
    cmt_rec_end(type, p);
}

uint64_t cmt_rec_teardown(uint64_t after, enum cmt_api api, int device, uint16_t ctx, unsigned flags) {
    int64_t now = cmt_now();
    uint64_t seq = cmt_seq_def_after(after, now);
    uint8_t *p = cmt_rec_begin(4 * CMT_VARINT_MAX, seq, now);
    if (!p) return seq;
    p = cmt_put_varint(p, (uint64_t)api);
    p = cmt_put_zvarint(p, device);
    p = cmt_put_varint(p, ctx);
    p = cmt_put_varint(p, flags);
    cmt_rec_end(CMT_REC_TEARDOWN, p);
    return seq;
}

void cmt_rec_stack(uint32_t id, const uintptr_t *frames, uint32_t n, const uintptr_t *py, uint32_t npy) {
    int64_t now = cmt_now();
    uint8_t *p = cmt_rec_begin(3 * CMT_VARINT_MAX + (size_t)(n + 3 * npy) * CMT_VARINT_MAX, cmt_seq_def(now), now);
    if (!p) return;
    p = cmt_put_varint(p, id);
    p = cmt_put_varint(p, n);
    uintptr_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        p = i == 0 ? cmt_put_varint(p, frames[0]) : cmt_put_zvarint(p, (int64_t)(frames[i] - prev));
        prev = frames[i];
    }
    p = cmt_put_varint(p, npy);
    for (uint32_t i = 0; i < npy; i++) {
        p = cmt_put_varint(p, (uint32_t)py[2 * i]);
        p = cmt_put_varint(p, py[2 * i + 1]);
        p = cmt_put_varint(p, py[2 * i] >> 32);
    }
    cmt_rec_end(CMT_REC_STACK, p);
}

void cmt_rec_device(int ordinal, uint64_t total, const uint8_t uuid[16], const char *name, const char *pci) {
    uint8_t buf[512], *p = cmt_put_zvarint(buf, ordinal);
    p = cmt_put_varint(p, total);
    memcpy(p, uuid, 16);
    p = cmt_put_str(p + 16, name, 200);
    p = cmt_put_str(p, pci, 60);
    int64_t now = cmt_now();
    uint8_t *q = cmt_rec_begin((size_t)(p - buf), cmt_seq_def(now), now);
    if (!q) return;
    memcpy(q, buf, (size_t)(p - buf));
    cmt_rec_end(CMT_REC_DEVICE, q + (p - buf));
}

void cmt_rec_ctx(uint16_t idx, int device, uint64_t handle) {
    int64_t now = cmt_now();
    uint8_t *p = cmt_rec_begin(3 * CMT_VARINT_MAX, cmt_seq_def(now), now);
    if (!p) return;
    p = cmt_put_varint(p, idx);
    p = cmt_put_zvarint(p, device);
    p = cmt_put_varint(p, handle);
    cmt_rec_end(CMT_REC_CTX, p);
}

void cmt_rec_exit(uint64_t after, int how, int status) {
    int64_t now = cmt_now();
    uint8_t *p = cmt_rec_begin_last(2 * CMT_VARINT_MAX, cmt_seq_def_after(after, now), now);
    if (!p) return;
    p = cmt_put_varint(p, (uint64_t)how);
    p = cmt_put_zvarint(p, status);
    cmt_rec_end_last(CMT_REC_EXIT, p);
}

void cmt_rec_pycode(uint32_t id, int first_line, const char *file, const char *name) {
    int64_t now = cmt_now();
    size_t nf = strnlen(file, CMT_MAX_STR), nn = strnlen(name, CMT_MAX_STR);
    uint8_t *p = cmt_rec_begin(4 * CMT_VARINT_MAX + nf + nn, cmt_seq_def(now), now);
    if (!p) return;
    p = cmt_put_varint(p, id);
    p = cmt_put_varint(p, first_line > 0 ? (uint64_t)first_line : 0);
    p = cmt_put_str(p, file, CMT_MAX_STR);
    p = cmt_put_str(p, name, CMT_MAX_STR);
    cmt_rec_end(CMT_REC_PYCODE, p);
}

/* ---- extension records ----
 * Rare, and some define or order what others use (MODULE_LOAD, VMM_MAP): all raise the
 * definition floor (cmt_seq_def). */

static void ext(uint8_t type, const uint8_t *buf, const uint8_t *end) {
    int64_t now = cmt_now();
    cmt_emit_ext(type, cmt_seq_def(now), now, buf, (size_t)(end - buf));
}

void cmt_rec_module_load(uint32_t id, uint64_t base, const char *path, const uint8_t *build_id, size_t build_id_len,
                         const struct cmt_segment *seg, unsigned nseg) {
    uint8_t buf[PATH_MAX + 128 + CMT_MAX_SEGMENTS * 3 * CMT_VARINT_MAX];
    uint8_t *p = cmt_put_varint(buf, id);
    p = cmt_put_varint(p, base);
    p = cmt_put_str(p, path, PATH_MAX);
    p = cmt_put_varint(p, build_id_len);
    if (build_id_len) {
        memcpy(p, build_id, build_id_len);
        p += build_id_len;
    }
    if (nseg > CMT_MAX_SEGMENTS) nseg = CMT_MAX_SEGMENTS;
    p = cmt_put_varint(p, nseg);
    for (unsigned k = 0; k < nseg; k++) {
        p = cmt_put_varint(p, seg[k].vaddr);
        p = cmt_put_varint(p, seg[k].memsz);
        p = cmt_put_varint(p, seg[k].flags);
    }
    ext(CMT_REC_MODULE_LOAD, buf, p);
}

void cmt_rec_module_unload(uint32_t id) {
    uint8_t buf[CMT_VARINT_MAX], *p = cmt_put_varint(buf, id);
    ext(CMT_REC_MODULE_UNLOAD, buf, p);
}

void cmt_rec_pool(uint64_t pool, int loc_type, int loc_id, int op) {
    uint8_t buf[4 * CMT_VARINT_MAX], *p = cmt_put_varint(buf, pool);
    p = cmt_put_varint(p, (uint64_t)loc_type);
    p = cmt_put_zvarint(p, loc_id);
    p = cmt_put_varint(p, (uint64_t)op);
    ext(CMT_REC_POOL, buf, p);
}

void cmt_rec_unmatched_proc(const char *sym, int version, uint64_t flags) {
    uint8_t buf[512], *p = cmt_put_varint(buf, (uint64_t)version);
    p = cmt_put_varint(p, flags);
    p = cmt_put_str(p, sym, 256);
    ext(CMT_REC_UNMATCHED_PROC, buf, p);
}

void cmt_rec_vmm_map(int op, uint64_t va, uint64_t size, uint64_t handle) {
    uint8_t buf[4 * CMT_VARINT_MAX], *p = cmt_put_varint(buf, (uint64_t)op);
    p = cmt_put_varint(p, va);
    p = cmt_put_varint(p, size);
    p = cmt_put_varint(p, handle);
    ext(CMT_REC_VMM_MAP, buf, p);
}

void cmt_rec_info(const char *key, const char *value) {
    uint8_t buf[CMT_ENC_MAX], *p = cmt_enc_info(buf, key, value);
    ext(CMT_REC_INFO, buf, p);
}

void cmt_rec_python(unsigned state, uint32_t version, const char *text) {
    uint8_t buf[2 * CMT_VARINT_MAX + 80], *p = cmt_put_varint(buf, state);
    p = cmt_put_varint(p, version);
    p = cmt_put_str(p, text, 63);
    ext(CMT_REC_PYTHON, buf, p);
}

void cmt_rec_marker(const char *label, unsigned flags, const char *domain) {
    uint8_t buf[2048 + 3 * CMT_VARINT_MAX], *p = cmt_put_str(buf, label ? label : "", 1024);
    p = cmt_put_varint(p, flags);
    p = cmt_put_str(p, domain ? domain : "", 512);
    ext(CMT_REC_MARKER, buf, p);
}

void cmt_rec_alert(int device, uint64_t live, uint64_t threshold, const void *caller) {
    uint8_t buf[4 * CMT_VARINT_MAX], *p = cmt_put_zvarint(buf, device);
    p = cmt_put_varint(p, live);
    p = cmt_put_varint(p, threshold);
    p = cmt_put_varint(p, (uint64_t)(uintptr_t)caller);
    ext(CMT_REC_ALERT, buf, p);
}

void cmt_rec_exec_failed(int err) {
    uint8_t buf[CMT_VARINT_MAX], *p = cmt_put_zvarint(buf, err);
    ext(CMT_REC_EXEC_FAILED, buf, p);
}

void cmt_rec_suballoc(unsigned op, uint64_t heap, uint64_t ptr, uint64_t size, uint32_t stack, const char *name) {
    uint8_t buf[5 * CMT_VARINT_MAX + 256 + CMT_VARINT_MAX], *p = cmt_put_varint(buf, op);
    p = cmt_put_varint(p, heap);
    p = cmt_put_varint(p, ptr);
    p = cmt_put_varint(p, size);
    p = cmt_put_varint(p, stack);
    p = cmt_put_str(p, name ? name : "", 256);
    ext(CMT_REC_SUBALLOC, buf, p);
}
