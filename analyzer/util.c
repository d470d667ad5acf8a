/*
 * util.c — small helpers every analyzer module may use (depends on nothing else in analyzer/):
 * human-readable and parsed sizes, GPU UUID formatting. See util.h.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cmt_human_size(uint64_t b, char *buf, size_t cap) {
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (b < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)b);
        return buf;
    }
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    snprintf(buf, cap, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, u[i]);
    return buf;
}

int cmt_parse_size(const char *s, uint64_t *out) {
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    uint64_t m = 1;
    if (*end) {
        char c = (char)toupper((unsigned char)*end);
        if (c == 'B' && !end[1]) m = 1;
        else {
            if (c == 'K') m = 1ull << 10;
            else if (c == 'M') m = 1ull << 20;
            else if (c == 'G') m = 1ull << 30;
            else if (c == 'T') m = 1ull << 40;
            else return -1;
            const char *r = end + 1;
            if (*r && strcmp(r, "iB") && strcmp(r, "B") && strcmp(r, "ib")) return -1;
        }
    }
    if (m > 1 && v > UINT64_MAX / m) return -1;
    *out = (uint64_t)v * m;
    return 0;
}

void cmt_uuid_format(const uint8_t u[16], char *buf) {
    static const char hx[] = "0123456789abcdef";
    char *p = buf;
    memcpy(p, "GPU-", 4);
    p += 4;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hx[u[i] >> 4];
        *p++ = hx[u[i] & 15];
    }
    *p = 0;
}
