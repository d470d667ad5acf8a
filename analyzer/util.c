/*
 * util.c — small helpers every analyzer module may use (depends on nothing else in analyzer/):
 * the one hash table, array growth, human-readable and parsed sizes, GPU UUID formatting. See util.h.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---------------------------------------------------------------- hash table */

#define mix cmt_htab_hash

/* Zeroed memory for a table; big ones on transparent huge pages (a TLB miss costs as much as the
 * cache miss, more on VMs). */
static void *table_alloc(size_t bytes) {
    if (bytes < (4u << 20)) return calloc(1, bytes);
    void *p = NULL;
    if (posix_memalign(&p, 2u << 20, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes & ~(size_t)4095, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

#define KEY(t, i) ((struct cmt_hkey *)cmt_htab_at((t), (i)))

void cmt_htab_init(struct cmt_htab *t, size_t esz, size_t first_cap) {
    memset(t, 0, sizeof *t);
    t->esz = esz;
    t->first_cap = first_cap;
}

void cmt_htab_free(struct cmt_htab *t) {
    free(t->e);
    t->e = NULL;
    t->cap = t->n = 0;
}

static int htab_grow(struct cmt_htab *t) {
    size_t ncap = t->cap ? t->cap * 2 : t->first_cap;
    struct cmt_htab nt = *t;
    nt.e = table_alloc(ncap * t->esz);
    if (!nt.e) return -1;
    nt.cap = ncap;
    for (size_t i = 0; i < t->cap; i++) {
        const struct cmt_hkey *k = KEY(t, i);
        if (!k->used) continue;
        size_t j = mix(k->a, k->b) & (ncap - 1);
        while (KEY(&nt, j)->used)
            j = (j + 1) & (ncap - 1);
        memcpy(cmt_htab_at(&nt, j), k, t->esz);
    }
    free(t->e);
    *t = nt;
    return 0;
}

void *cmt_htab_find(const struct cmt_htab *t, uint64_t a, uint64_t b) {
    if (!t->cap) return NULL;
    size_t j = mix(a, b) & (t->cap - 1);
    for (struct cmt_hkey *k; (k = KEY(t, j))->used; j = (j + 1) & (t->cap - 1))
        if (k->a == a && k->b == b) return k;
    return NULL;
}

void *cmt_htab_put(struct cmt_htab *t, uint64_t a, uint64_t b, int *existed) {
    if ((t->n + 1) * 4 > t->cap * 3 && htab_grow(t) != 0) return NULL;
    size_t j = mix(a, b) & (t->cap - 1);
    struct cmt_hkey *k;
    for (; (k = KEY(t, j))->used; j = (j + 1) & (t->cap - 1))
        if (k->a == a && k->b == b) {
            *existed = 1;
            return k;
        }
    *existed = 0;
    memset(k, 0, t->esz);
    k->a = a;
    k->b = b;
    k->used = 1;
    t->n++;
    return k;
}

void cmt_htab_del(struct cmt_htab *t, void *entry) {
    size_t mask = t->cap - 1, i = (size_t)((unsigned char *)entry - t->e) / t->esz, j = i;
    KEY(t, i)->used = 0;
    t->n--;
    for (;;) {
        j = (j + 1) & mask;
        struct cmt_hkey *k = KEY(t, j);
        if (!k->used) return;
        size_t home = mix(k->a, k->b) & mask;
        /* move entry j into the hole at i when its home is not in (i, j] cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            memcpy(cmt_htab_at(t, i), k, t->esz);
            k->used = 0;
            i = j;
        }
    }
}

uint32_t *cmt_htab_slot(struct cmt_htab *t, uint64_t a, uint64_t b) {
    int existed;
    struct cmt_hkey *k = cmt_htab_put(t, a, b, &existed);
    return k ? &k->val : NULL;
}

uint32_t cmt_htab_get(const struct cmt_htab *t, uint64_t a, uint64_t b) {
    const struct cmt_hkey *k = cmt_htab_find(t, a, b);
    return k ? k->val : 0;
}

int cmt_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*p, ncap * elem);
    if (!np) return -1;
    memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
    *p = np;
    *cap = ncap;
    return 0;
}

/* ---------------------------------------------------------------- sizes, UUIDs */

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
        if (c == 'B' && !end[1])
            m = 1;
        else {
            if (c == 'K')
                m = 1ull << 10;
            else if (c == 'M')
                m = 1ull << 20;
            else if (c == 'G')
                m = 1ull << 30;
            else if (c == 'T')
                m = 1ull << 40;
            else
                return -1;
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
