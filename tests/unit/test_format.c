/*
 * test_format.c — pins the binary layout of the dump (include/cmt_format.h): header and block
 * header offsets, record type values, kind and flag values, and the varint/zigzag encoding. A
 * failure here means the on-disk format changed: bump CMT_VERSION_MAJOR and update the readers.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmt_format.h"
#include "cmt_wire.h"

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define AT(type, field, off) CHECK(offsetof(struct type, field) == (off))

int main(void) {
    CHECK(sizeof(struct cmt_file_header) == 4096);
    AT(cmt_file_header, magic, 0);
    AT(cmt_file_header, version_major, 8);
    AT(cmt_file_header, version_minor, 10);
    AT(cmt_file_header, header_size, 12);
    AT(cmt_file_header, block_size, 16);
    AT(cmt_file_header, flags, 20);
    AT(cmt_file_header, pid, 24);
    AT(cmt_file_header, ppid, 28);
    AT(cmt_file_header, clock_id, 32);
    AT(cmt_file_header, rank, 36);
    AT(cmt_file_header, local_rank, 40);
    AT(cmt_file_header, world_size, 44);
    AT(cmt_file_header, stack_depth, 48);
    AT(cmt_file_header, stacks_available, 52);
    AT(cmt_file_header, start_realtime_ns, 56);
    AT(cmt_file_header, start_clock_ns, 64);
    AT(cmt_file_header, counters, 72);
    AT(cmt_file_header, blocks_used, 328);
    AT(cmt_file_header, cmdline_len, 336);
    AT(cmt_file_header, exit_status, 340); /* 2.3 (reserved0 before) */
    AT(cmt_file_header, host, 344);
    AT(cmt_file_header, job_id, 600);
    AT(cmt_file_header, cuda_visible_devices, 728);
    AT(cmt_file_header, cuda_device_order, 1240);
    AT(cmt_file_header, exe, 1304);
    AT(cmt_file_header, cmdline, 2328);
    AT(cmt_file_header, proc_start_ticks, 4072);
    AT(cmt_file_header, dump_id, 4080);
    CHECK(sizeof(((struct cmt_file_header *)0)->cmdline) == 1744);
    CHECK(CMT_VERSION_MINOR >= 1); /* proc_start_ticks and dump_id exist from 2.1 */
    CHECK(sizeof(struct cmt_block_header) == 32);
    AT(cmt_block_header, magic, 0);
    AT(cmt_block_header, writer, 4);
    AT(cmt_block_header, index, 8);
    AT(cmt_block_header, tid, 12);
    AT(cmt_block_header, base_seq, 16);
    AT(cmt_block_header, base_time_ns, 24);
    CHECK(CMT_HEADER_SIZE == 4096 && CMT_BLOCK_SIZE == 65536 && CMT_BLOCK_MAGIC == 0x42544d43u);
    CHECK(memcmp(CMT_MAGIC, "CUMEMTRK", 8) == 0);
    CHECK(CMT_VERSION_MAJOR == 2 && CMT_VERSION_MAJOR_OLDEST == 1);

    /* record types, kinds, flags and counters are on disk too */
    CHECK(CMT_REC_ALLOC == 1 && CMT_REC_FREE == 2 && CMT_REC_RETRACK == 3 && CMT_REC_OOM == 4);
    CHECK(CMT_REC_FAILED == 5 && CMT_REC_TEARDOWN == 6 && CMT_REC_STACK == 7 && CMT_REC_DEVICE == 8);
    CHECK(CMT_REC_CTX == 9 && CMT_REC_EXIT == 10 && CMT_REC_PYCODE == 11 && CMT_REC_MODULE_LOAD == 0x40);
    CHECK(CMT_REC_MODULE_UNLOAD == 0x41 && CMT_REC_POOL == 0x42 && CMT_REC_UNMATCHED_PROC == 0x43);
    CHECK(CMT_REC_VMM_MAP == 0x44 && CMT_REC_INFO == 0x45 && CMT_REC_MARKER == 0x46);
    CHECK(CMT_REC_ALERT == 0x47 && CMT_REC_EXEC_FAILED == 0x48 && CMT_REC_API_NAME == 0x49);
    CHECK(CMT_REC_PYTHON == 0x4b && CMT_VERSION_MINOR >= 3);
    CHECK(CMT_PY_ON == 1 && CMT_PY_NO_LAYOUT == 2);
    CHECK(CMT_EXIT_SLOT(CMT_EXIT_CLEAN, -1) == 0x800001ffu && CMT_EXIT_SLOT_SET == 0x80000000u);
    CHECK(CMT_REC_SUBALLOC == 0x4a && CMT_SUB_HEAP_REGISTER == 1 && CMT_SUB_HEAP_UNREGISTER == 2);
    CHECK(CMT_SUB_HEAP_RESET == 3 && CMT_SUB_REGION_REGISTER == 4 && CMT_SUB_REGION_UNREGISTER == 5);
    CHECK(CMT_SUB_REGION_RESIZE == 6);
    CHECK(CMT_KIND_DEVICE == 0 && CMT_KIND_PITCH == 1 && CMT_KIND_MANAGED == 2 && CMT_KIND_ASYNC == 3);
    CHECK(CMT_KIND_HOST_PINNED == 4 && CMT_KIND_HOST_REGISTERED == 5 && CMT_KIND_VMM == 6);
    CHECK(CMT_KIND_ARRAY == 7 && CMT_KIND_IMPORTED == 8 && CMT_KIND_GRAPH == 9 && CMT_KIND_COUNT == 10);
    CHECK(CMT_SPACE_ADDR == 0 && CMT_SPACE_ARRAY == 1 && CMT_SPACE_VMM == 2);
    CHECK(CMT_FLAG_CAPTURED == 4 && CMT_FLAG_UNKNOWN == 8 && CMT_FLAG_PRIMARY == 0x10);
    CHECK(CMT_FLAG_AT_EXIT == 0x20 && CMT_FLAG_PER_THREAD == 0x40);
    CHECK(CMT_EXIT_CLEAN == 1 && CMT_EXIT_IMMEDIATE == 2 && CMT_EXIT_EXEC == 3);
    CHECK(CMT_CTR_DROPPED_EVENTS == 0 && CMT_CTR_DROPPED_STACKS == 1 && CMT_CTR_TABLE_FULL == 2);
    CHECK(CMT_CTR_WRITE_STOPPED == 3 && CMT_CTR_UNMATCHED_PROC == 4);
    CHECK(CMT_CTR_DEEPBIND_STRIPPED == 5 && CMT_CTR_UNWIND_FAILED == 6 && CMT_CTR_COUNT <= CMT_MAX_COUNTERS);
    CHECK(CMT_CTR_PYTHON_WALK_FAILED == 7 && CMT_CTR_CTX_TABLE_FULL == 8 && CMT_CTR_POOL_TABLE_FULL == 9 &&
          CMT_CTR_VMM_UNDO_FULL == 10);

    /* encoding: LEB128 and zigzag, byte for byte */
    uint8_t b[16];
    CHECK(cmt_put_varint(b, 0) - b == 1 && b[0] == 0);
    CHECK(cmt_put_varint(b, 127) - b == 1 && b[0] == 0x7f);
    CHECK(cmt_put_varint(b, 300) - b == 2 && b[0] == 0xac && b[1] == 0x02);
    CHECK(cmt_put_varint(b, UINT64_MAX) - b == 10 && b[9] == 0x01);
    CHECK(cmt_zz_enc(0) == 0 && cmt_zz_enc(-1) == 1 && cmt_zz_enc(1) == 2 && cmt_zz_enc(-2) == 3);
    CHECK(cmt_zz_dec(cmt_zz_enc(INT64_MIN)) == INT64_MIN && cmt_zz_dec(cmt_zz_enc(INT64_MAX)) == INT64_MAX);
    uint8_t *e = cmt_put_str(b, "abc", 8);
    CHECK(e - b == 4 && b[0] == 3 && memcmp(b + 1, "abc", 3) == 0);
    struct cmt_cursor c = {b, e, 1};
    size_t len;
    const char *s = cmt_get_str(&c, &len, 8);
    CHECK(c.ok && len == 3 && memcmp(s, "abc", 3) == 0);
    /* malformed input is refused, never overrun */
    uint8_t bad[3] = {0x80, 0x80, 0x80};
    struct cmt_cursor d = {bad, bad + 3, 1};
    (void)cmt_get_varint(&d);
    CHECK(!d.ok);
    uint8_t longstr[2] = {0x7f, 'x'};
    struct cmt_cursor f = {longstr, longstr + 2, 1};
    CHECK(cmt_get_str(&f, &len, 1000) == NULL && !f.ok);

    printf("%s\n", failures ? "format layout: FAILED" : "format layout: ok");
    return failures != 0;
}
