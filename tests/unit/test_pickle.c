/*
 * test_pickle.c — analyzer/util/pickle.c's writer: writes argv[1], a pickle holding every kind of value
 * it writes at its edges (integers at each opcode's limits and beyond 63 bits, strings that are
 * not UTF-8, tuples, bools, None, batches of more than 1000 items, more than 256 memoized strings,
 * a memoized list referenced twice). tests/cases/export_torch_pickle.sh loads it with Python's own
 * pickle and compares it with what it should be.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pickle.h"

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    if (!f) return 2;
    struct cmt_pickle *p = cmt_pk_new(f);
    if (!p) return 1;
    static const int64_t ints[] = {0,
                                   1,
                                   255,
                                   256,
                                   65535,
                                   65536,
                                   -1,
                                   -128,
                                   -129,
                                   -256,
                                   INT32_MAX,
                                   INT32_MIN,
                                   (int64_t)INT32_MAX + 1,
                                   (int64_t)INT32_MIN - 1,
                                   INT64_MAX,
                                   INT64_MIN,
                                   0x7fffffffffll,
                                   -0x8000000000ll};
    static const uint64_t uints[] = {0, 1ull << 63, UINT64_MAX, 0xdeadbeefcafef00dull, 0x7efff18d2100ull};
    static const char *const strs[] = {"",         "h\xc3\xa9llo", "bad\xff",          "cut\xe2\x82",
                                       "\xc0\xaf", "\xed\xa0\x80", "\xf0\x9d\x84\x9e", "\xf4\x90\x80\x80",
                                       "a\0b"};
    cmt_pk_dict(p);
    cmt_pk_str(p, "ints");
    cmt_pk_list(p);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        cmt_pk_int(p, ints[i]);
    cmt_pk_close(p);
    cmt_pk_str(p, "uints");
    cmt_pk_list(p);
    for (size_t i = 0; i < sizeof uints / sizeof uints[0]; i++)
        cmt_pk_uint(p, uints[i]);
    cmt_pk_close(p);
    cmt_pk_str(p, "strs");
    cmt_pk_list(p);
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        cmt_pk_strn(p, strs[i], i == 8 ? 3 : strlen(strs[i]));
    cmt_pk_close(p);
    cmt_pk_str(p, "misc");
    cmt_pk_tuple(p);
    cmt_pk_bool(p, 1);
    cmt_pk_bool(p, 0);
    cmt_pk_none(p);
    cmt_pk_str(p, NULL);
    cmt_pk_tuple(p);
    cmt_pk_close(p);
    cmt_pk_list(p);
    cmt_pk_close(p);
    cmt_pk_dict(p);
    cmt_pk_close(p);
    cmt_pk_close(p);
    cmt_pk_str(p, "many");
    cmt_pk_list(p);
    for (int i = 0; i < 2500; i++)
        cmt_pk_int(p, i);
    cmt_pk_close(p);
    cmt_pk_str(p, "keys");
    cmt_pk_dict(p);
    char buf[32];
    for (int i = 0; i < 1500; i++) { /* 1500 distinct strings: memo ids past 255 */
        snprintf(buf, sizeof buf, "k%d", i);
        cmt_pk_key_int(p, buf, i);
    }
    cmt_pk_close(p);
    cmt_pk_str(p, "again");
    cmt_pk_list(p);
    for (int i = 0; i < 1500; i += 7) { /* memoized: BINGET and LONG_BINGET */
        snprintf(buf, sizeof buf, "k%d", i);
        cmt_pk_str(p, buf);
    }
    cmt_pk_close(p);
    cmt_pk_str(p, "shared1");
    cmt_pk_list(p);
    uint32_t h = cmt_pk_memoize(p);
    cmt_pk_key_str(p, "x", "y");
    cmt_pk_close(p);
    cmt_pk_str(p, "shared2");
    cmt_pk_memo_get(p, h);
    cmt_pk_close(p);
    int rc = cmt_pk_end(p);
    return fclose(f) || rc ? 1 : 0;
}
