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

#define BIG_BYTES (4u << 20)

/* Zeroed memory of its own for a big table or array, on transparent huge pages (a TLB miss costs
 * as much as the cache miss, more on VMs). NULL when out of memory. */
static void *big_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* Grows a big mapping in place or moves it (page tables, not bytes); the new part reads zero. */
static void *big_remap(void *p, size_t old, size_t bytes) {
    void *np = mremap(p, old, bytes, MREMAP_MAYMOVE);
    if (np == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(np, bytes, MADV_HUGEPAGE);
#endif
    return np;
}

void cmt_big_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes >= BIG_BYTES)
        munmap(p, bytes);
    else
        free(p);
}

int cmt_grow_big(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    size_t old = *cap * elem, bytes = ncap * elem;
    void *np;
    if (bytes < BIG_BYTES) {
        np = realloc(*p, bytes);
        if (!np) return -1;
        memset((char *)np + old, 0, bytes - old);
    } else if (old >= BIG_BYTES) {
        if (!(np = big_remap(*p, old, bytes))) return -1;
    } else {
        if (!(np = big_map(bytes))) return -1;
        if (old) memcpy(np, *p, old);
        free(*p);
    }
    *p = np;
    *cap = ncap;
    return 0;
}

void cmt_htab_init(struct cmt_htab *t, size_t esz, size_t first_cap) {
    memset(t, 0, sizeof *t);
    t->esz = esz;
    t->first_cap = first_cap;
}

void cmt_htab_free(struct cmt_htab *t) {
    if (t->mapped)
        munmap(t->e, t->cap * t->esz);
    else
        free(t->e);
    t->e = NULL;
    t->cap = t->n = 0;
    t->mapped = 0;
}

/* The first empty slot from the home of key (a, b) (there is one: the table is at most 3/4 full);
 * esz: t->esz, a constant where inlined. */
static inline __attribute__((always_inline)) size_t free_slot_sz(const struct cmt_htab *t, uint64_t a, uint32_t b,
                                                                 size_t esz) {
    size_t j = mix(a, b) & (t->cap - 1);
    while (cmt_hkey_used(CMT_HTAB_AT(t, j, esz)))
        j = (j + 1) & (t->cap - 1);
    return j;
}

/* After a mapping of half slots grew to cap = 2 * half in place: every entry of the old half is
 * taken out and put back from its home under the new mask, in the old half's order from its first
 * empty slot s on. That order keeps every probe path whole, so every entry is found from its home
 * when it ends (tests/unit/test_replay.c test_htab_in_place_growth checks it on every slot, with
 * paths that wrap):
 * - a path only crosses slots that are never emptied again: entries are only taken out of slots
 *   not yet done (each once), and a path never crosses one. An entry taken from slot i had its old
 *   home h in i's old cluster, which begins after s (s is empty): a path from h (slots h .. i-1
 *   done, i just emptied) ends at i at the latest; one from h + half runs in the new half, which
 *   nothing empties;
 * - a path from the new half wraps onto slot 0 only when the new half's slots from its home on are
 *   all taken: while the old half's wrapped cluster at slot 0 is not done yet (i in (s, half)),
 *   entries with homes in the last k slots were taken from the last k slots (no wrap before it),
 *   so at most k: they fit; after it, slots 0 .. i-1 are done and i is empty.
 * The entries land where the same loop with a generic copy put them (the layout, hence the order a
 * teardown ends allocations in, is unchanged); esz: t->esz, a constant where inlined. */
static inline __attribute__((always_inline)) void rehash_in_place_sz(struct cmt_htab *t, size_t half, size_t esz) {
    unsigned char tmp[256];
    size_t s = 0;
    while (cmt_hkey_used(CMT_HTAB_AT(t, s, esz)))
        s++;
    for (size_t step = 1; step <= half; step++) {
        size_t i = (s + step) & (half - 1);
        struct cmt_hkey *k = CMT_HTAB_AT(t, i, esz);
        if (!cmt_hkey_used(k)) continue;
        memcpy(tmp, k, esz);
        k->b = 0;
        const struct cmt_hkey *tk = (const struct cmt_hkey *)tmp;
        memcpy(CMT_HTAB_AT(t, free_slot_sz(t, tk->a, tk->b, esz), esz), tmp, esz);
    }
}

static void rehash_in_place(struct cmt_htab *t, size_t half) {
    if (t->esz == sizeof(struct cmt_hkey)) /* the live table's and the maps' 16-byte entries */
        rehash_in_place_sz(t, half, sizeof(struct cmt_hkey));
    else
        rehash_in_place_sz(t, half, t->esz);
}

/* Copies the entries of t into nt (empty, bigger), in t's slot order. */
static inline __attribute__((always_inline)) void rehash_copy_sz(struct cmt_htab *nt, const struct cmt_htab *t,
                                                                 size_t esz) {
    for (size_t i = 0; i < t->cap; i++) {
        const struct cmt_hkey *k = CMT_HTAB_AT(t, i, esz);
        if (cmt_hkey_used(k)) memcpy(CMT_HTAB_AT(nt, free_slot_sz(nt, k->a, k->b, esz), esz), k, esz);
    }
}

int cmt_htab_grow(struct cmt_htab *t) {
    size_t ncap = t->cap ? t->cap * 2 : t->first_cap, bytes = ncap * t->esz;
    if (t->mapped && t->esz <= 256) { /* grow the mapping, move the entries inside it */
        unsigned char *e = big_remap(t->e, t->cap * t->esz, bytes);
        if (!e) return -1;
        size_t half = t->cap;
        t->e = e;
        t->cap = ncap;
        rehash_in_place(t, half);
        return 0;
    }
    struct cmt_htab nt = *t;
    nt.mapped = bytes >= BIG_BYTES;
    nt.e = nt.mapped ? big_map(bytes) : calloc(1, bytes);
    if (!nt.e) return -1;
    nt.cap = ncap;
    if (t->esz == sizeof(struct cmt_hkey))
        rehash_copy_sz(&nt, t, sizeof(struct cmt_hkey));
    else
        rehash_copy_sz(&nt, t, t->esz);
    cmt_htab_free(t);
    *t = nt;
    return 0;
}

void *cmt_htab_find(const struct cmt_htab *t, uint64_t a, uint32_t b) {
    return cmt_htab_find_sz(t, a, b, t->esz, cmt_hkey_hash(a, b));
}

void *cmt_htab_put(struct cmt_htab *t, uint64_t a, uint32_t b, int *existed) {
    return cmt_htab_put_sz(t, a, b, existed, t->esz, cmt_hkey_hash(a, b));
}

void cmt_htab_del(struct cmt_htab *t, void *entry) {
    cmt_htab_del_sz(t, entry, t->esz);
}

uint32_t *cmt_htab_slot(struct cmt_htab *t, uint64_t a, uint32_t b) {
    int existed;
    struct cmt_hkey *k = cmt_htab_put(t, a, b, &existed);
    return k ? &k->val : NULL;
}

uint32_t cmt_htab_get(const struct cmt_htab *t, uint64_t a, uint32_t b) {
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
    /* "512 MiB": blanks between the number and its unit (not after it) */
    char *unit = end;
    while (*unit == ' ' || *unit == '\t')
        unit++;
    if (*unit && unit > end) end = unit;
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
