/*
 * util.h — the bottom of the analyzer (util -> reader -> replay -> analysis -> render -> cmd ->
 * main): the one hash table, array growth, sizes, GPU UUIDs.
 */
#ifndef CMT_UTIL_H
#define CMT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The one hash table of the analyzer: open addressing with linear probing, power-of-two capacity,
 * at most 3/4 full, deletion by backward shift (no tombstones). Entries are esz bytes each and
 * begin with struct cmt_hkey (16 bytes: the replay's live table is nothing else, 4 entries a cache
 * line); the rest of an entry is the user's. Keys are (a, b) with b < CMT_HKEY_B_MAX (a put of a
 * bigger b fails like out of memory). Big tables (>= 4 MiB) are their own mappings on transparent
 * huge pages (their lookups miss all over the table) and grow in place (mremap, then the entries
 * are moved inside the one mapping: no old table kept while rehashing). Used as a set of records
 * (the replay's live allocations) and as a map (a, b) -> index (cmt_htab_slot / cmt_htab_get). */
#define CMT_HKEY_B_MAX 0x80000000u
struct cmt_hkey {
    uint64_t a;
    uint32_t b;   /* b | CMT_HKEY_B_MAX; 0: empty slot */
    uint32_t val; /* free for the user; the map functions keep index + 1 in it */
};
static inline int cmt_hkey_used(const struct cmt_hkey *k) {
    return k->b != 0;
}

struct cmt_htab {
    unsigned char *e;
    size_t esz, cap, n, first_cap;
    int mapped; /* e is a mapping of its own (cap * esz bytes) */
};

/* esz: the entry size (>= sizeof(struct cmt_hkey)); first_cap: the capacity at the first insert
 * (a power of two). */
void cmt_htab_init(struct cmt_htab *t, size_t esz, size_t first_cap);
void cmt_htab_free(struct cmt_htab *t);
/* The entry of key (a, b), or NULL. */
void *cmt_htab_find(const struct cmt_htab *t, uint64_t a, uint32_t b);
/* The entry of key (a, b), added (zeroed but for its key) when missing (*existed says which), or
 * NULL when out of memory (or b >= CMT_HKEY_B_MAX). Entry pointers are valid until the next put or
 * delete. */
void *cmt_htab_put(struct cmt_htab *t, uint64_t a, uint32_t b, int *existed);
/* Removes an entry; another entry may move into its slot. */
void cmt_htab_del(struct cmt_htab *t, void *entry);
/* Entry i (i < cap) for iteration: check cmt_hkey_used. */
static inline void *cmt_htab_at(const struct cmt_htab *t, size_t i) {
    return t->e + i * t->esz;
}
/* Map use: the value (index + 1; 0 when newly added) of key (a, b), NULL when out of memory. */
uint32_t *cmt_htab_slot(struct cmt_htab *t, uint64_t a, uint32_t b);
/* Map use: the value of key (a, b) (index + 1), 0 when missing. */
uint32_t cmt_htab_get(const struct cmt_htab *t, uint64_t a, uint32_t b);

/* Grows an array *p of *cap elements of elem bytes to hold need (doubling, new part zeroed).
 * Returns 0, or -1 when out of memory (*p unchanged). */
int cmt_grow(void **p, size_t *cap, size_t need, size_t elem);
/* The same for arrays that may grow big: from 4 MiB on they are mappings of their own that grow
 * with mremap (no copy, no old array kept). Free with cmt_big_free(*p, *cap * elem). */
int cmt_grow_big(void **p, size_t *cap, size_t need, size_t elem);
void cmt_big_free(void *p, size_t bytes);

/* The table's hash of key (a, b). */
static inline uint64_t cmt_htab_hash(uint64_t a, uint32_t b) {
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6));
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}
/* Grows t (doubling its capacity); 0, or -1 when out of memory. cmt_htab_put calls it. */
int cmt_htab_grow(struct cmt_htab *t);

/* The hash of key (a, b) the table probes from (find_sz and put_sz take it computed). */
static inline uint64_t cmt_hkey_hash(uint64_t a, uint32_t b) {
    return cmt_htab_hash(a, b | CMT_HKEY_B_MAX);
}

/* find, put and del for a table whose entry size esz is a compile-time constant (== t->esz), with
 * the key's hash h = cmt_hkey_hash(a, b) computed by the caller: the same functions (cmt_htab_find,
 * cmt_htab_put, cmt_htab_del are these with t->esz), inlined with fixed-size copies, for the
 * replay's live table (a lookup or two per event, the hash computed once per event). */
#define CMT_HTAB_AT(t, i, esz) ((struct cmt_hkey *)((t)->e + (i) * (esz)))
static inline __attribute__((always_inline)) void *cmt_htab_find_sz(const struct cmt_htab *t, uint64_t a, uint32_t b,
                                                                    size_t esz, uint64_t h) {
    if (!t->cap || b >= CMT_HKEY_B_MAX) return NULL;
    uint32_t kb = b | CMT_HKEY_B_MAX;
    size_t j = h & (t->cap - 1);
    for (struct cmt_hkey *k; cmt_hkey_used(k = CMT_HTAB_AT(t, j, esz)); j = (j + 1) & (t->cap - 1))
        if (k->a == a && k->b == kb) return k;
    return NULL;
}

static inline __attribute__((always_inline)) void *cmt_htab_put_sz(struct cmt_htab *t, uint64_t a, uint32_t b,
                                                                   int *existed, size_t esz, uint64_t h) {
    if (b >= CMT_HKEY_B_MAX) return NULL;
    if ((t->n + 1) * 4 > t->cap * 3 && cmt_htab_grow(t) != 0) return NULL;
    uint32_t kb = b | CMT_HKEY_B_MAX;
    size_t j = h & (t->cap - 1);
    struct cmt_hkey *k;
    for (; cmt_hkey_used(k = CMT_HTAB_AT(t, j, esz)); j = (j + 1) & (t->cap - 1))
        if (k->a == a && k->b == kb) {
            *existed = 1;
            return k;
        }
    *existed = 0;
    __builtin_memset(k, 0, esz);
    k->a = a;
    k->b = kb;
    t->n++;
    return k;
}

static inline __attribute__((always_inline)) void cmt_htab_del_sz(struct cmt_htab *t, void *entry, size_t esz) {
    size_t mask = t->cap - 1, i = (size_t)((unsigned char *)entry - t->e) / esz, j = i;
    CMT_HTAB_AT(t, i, esz)->b = 0;
    t->n--;
    for (;;) {
        j = (j + 1) & mask;
        struct cmt_hkey *k = CMT_HTAB_AT(t, j, esz);
        if (!cmt_hkey_used(k)) return;
        size_t h = cmt_htab_hash(k->a, k->b) & mask;
        /* move entry j into the hole at i when its home is not in (i, j] cyclically */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            __builtin_memcpy(CMT_HTAB_AT(t, i, esz), k, esz);
            k->b = 0;
            i = j;
        }
    }
}

/* Starts loading the cache line at p. A volatile asm on x86: GCC 12 judges a function made of
 * nothing but __builtin_prefetch "looping pure" and deletes its calls, inline or not, so the binary
 * had no prefetch at all; tests/cases/analyzer_prefetch.sh checks the shipped binary for it. */
static inline void cmt_prefetch(const void *p) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p);
#endif
}
/* Starts loading the slot where key (a, b) would be. */
static inline void cmt_htab_prefetch(const struct cmt_htab *t, uint64_t a, uint32_t b) {
    if (t->cap) cmt_prefetch(cmt_htab_at(t, cmt_htab_hash(a, b | CMT_HKEY_B_MAX) & (t->cap - 1)));
}

/* int64 time arithmetic that cannot overflow: the sum / difference, or INT64_MIN / INT64_MAX where
 * it would not fit. A dump's clocks lie in [0, CMT_TIME_MAX) once the reader has checked them, but
 * a header copied from a file that changed since (a running dump, a crafted one) must not make
 * the renderers' arithmetic undefined. */
static inline int64_t cmt_add_sat(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b < 0 ? INT64_MIN : INT64_MAX) : r;
}
static inline int64_t cmt_sub_sat(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_sub_overflow(a, b, &r) ? (b > 0 ? INT64_MIN : INT64_MAX) : r;
}

/* Human-readable size ("1.5 MiB") into buf. */
const char *cmt_human_size(uint64_t bytes, char *buf, size_t cap);
/* Parses "123", "4K", "10MiB", "1G", "512 MiB" (blanks may come before the unit; K M G T are
 * powers of 1024 with or without "B", "iB"); returns 0 or -1. python/cumemtrack/__init__.py
 * (parse_size) mirrors this grammar. */
int cmt_parse_size(const char *s, uint64_t *out);
/* Formats a 16-byte uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (buf >= 41 bytes). */
void cmt_uuid_format(const uint8_t uuid[16], char *buf);

#endif
