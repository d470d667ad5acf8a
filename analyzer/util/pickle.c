/*
 * pickle.c — the streaming pickle writer; see pickle.h. Opcodes (Python's pickletools): PROTO 2,
 * EMPTY_DICT/EMPTY_LIST + MARK ... SETITEMS/APPENDS, MARK ... TUPLE, BININT1/BININT2/BININT/LONG1,
 * NEWTRUE/NEWFALSE, NONE, BINUNICODE, BINPUT/LONG_BINPUT, BINGET/LONG_BINGET, STOP.
 */
#include "pickle.h"

#include <stdlib.h>
#include <string.h>

#define PK_DEPTH 32    /* containers open at once */
#define PK_BATCH 1000  /* items per APPENDS / SETITEMS (Python's pickler's batch) */
#define PK_MEMO_MIN 64 /* first capacity of the string memo (a power of two) */

enum { PK_DICT, PK_LIST, PK_TUPLE };

struct pk_level {
    int kind;
    unsigned batch; /* values written since the last MARK (dict: keys and values) */
};

struct pk_str { /* a memoized string: its bytes (copied) and handle */
    uint64_t h;
    char *s;
    size_t n;
    uint32_t handle; /* memo index + 1; 0: empty slot */
};

struct cmt_pickle {
    FILE *f;
    struct pk_level lv[PK_DEPTH];
    int depth, broken;
    uint32_t next_memo;
    struct pk_str *strs;
    size_t cap, nstrs;
};

static void op(struct cmt_pickle *p, int c) {
    putc_unlocked(c, p->f); /* one thread writes the file */
}

static void u32le(struct cmt_pickle *p, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite_unlocked(b, 1, 4, p->f);
}

/* Before a value: the first of a batch opens it with MARK. */
static void before(struct cmt_pickle *p) {
    if (p->depth && !p->lv[p->depth - 1].batch) op(p, '(');
}

static void flush_batch(struct cmt_pickle *p, struct pk_level *l) {
    if (!l->batch) return;
    op(p, l->kind == PK_DICT ? 'u' : 'e'); /* SETITEMS / APPENDS */
    l->batch = 0;
}

/* After a value: a full batch is handed over (a dict's only after a value: keys pair up). */
static void after(struct cmt_pickle *p) {
    if (!p->depth) return;
    struct pk_level *l = &p->lv[p->depth - 1];
    l->batch++;
    if (l->kind != PK_TUPLE && l->batch >= (l->kind == PK_DICT ? 2u * PK_BATCH : PK_BATCH)) flush_batch(p, l);
}

struct cmt_pickle *cmt_pk_new(FILE *f) {
    struct cmt_pickle *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->f = f;
    op(p, 0x80); /* PROTO 2 */
    op(p, 2);
    return p;
}

int cmt_pk_end(struct cmt_pickle *p) {
    int rc = p->depth || p->broken ? -1 : 0;
    op(p, '.'); /* STOP */
    for (size_t i = 0; i < p->cap; i++)
        free(p->strs[i].s);
    free(p->strs);
    free(p);
    return rc;
}

static void open_level(struct cmt_pickle *p, int kind) {
    before(p);
    if (p->depth == PK_DEPTH) {
        p->broken = 1;
        return;
    }
    if (kind == PK_DICT)
        op(p, '}'); /* EMPTY_DICT */
    else if (kind == PK_LIST)
        op(p, ']'); /* EMPTY_LIST */
    else
        op(p, '('); /* a tuple's MARK: its items stay on the stack until TUPLE */
    p->lv[p->depth++] = (struct pk_level){kind, kind == PK_TUPLE ? 1u : 0u};
}

void cmt_pk_dict(struct cmt_pickle *p) {
    open_level(p, PK_DICT);
}
void cmt_pk_list(struct cmt_pickle *p) {
    open_level(p, PK_LIST);
}
void cmt_pk_tuple(struct cmt_pickle *p) {
    open_level(p, PK_TUPLE);
}

void cmt_pk_close(struct cmt_pickle *p) {
    if (!p->depth) {
        p->broken = 1;
        return;
    }
    struct pk_level *l = &p->lv[--p->depth];
    if (l->kind == PK_TUPLE)
        op(p, 't'); /* TUPLE */
    else
        flush_batch(p, l);
    after(p);
}

void cmt_pk_int(struct cmt_pickle *p, int64_t v) {
    before(p);
    if (v >= 0 && v < 256) {
        op(p, 'K'); /* BININT1 */
        op(p, (int)v);
    } else if (v >= 0 && v < 65536) {
        op(p, 'M'); /* BININT2 */
        op(p, (int)(v & 0xff));
        op(p, (int)(v >> 8));
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        op(p, 'J'); /* BININT */
        u32le(p, (uint32_t)v);
    } else { /* LONG1: little-endian two's complement, as few bytes as keep the sign */
        unsigned char b[8];
        int n = 0;
        uint64_t u = (uint64_t)v;
        for (int i = 0; i < 8; i++)
            b[i] = (unsigned char)(u >> (8 * i));
        for (n = 8; n > 1; n--) {
            int top = b[n - 1], below = b[n - 2] & 0x80;
            if (!((top == 0 && !below) || (top == 0xff && below))) break;
        }
        op(p, 0x8a);
        op(p, n);
        fwrite_unlocked(b, 1, (size_t)n, p->f);
    }
    after(p);
}

void cmt_pk_uint(struct cmt_pickle *p, uint64_t v) {
    if (v <= INT64_MAX) {
        cmt_pk_int(p, (int64_t)v);
        return;
    }
    before(p); /* 2^63 and up: 9 bytes, the last 0 (positive) */
    unsigned char b[9];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    b[8] = 0;
    op(p, 0x8a);
    op(p, 9);
    fwrite_unlocked(b, 1, 9, p->f);
    after(p);
}

void cmt_pk_bool(struct cmt_pickle *p, int v) {
    before(p);
    op(p, v ? 0x88 : 0x89); /* NEWTRUE / NEWFALSE */
    after(p);
}

void cmt_pk_none(struct cmt_pickle *p) {
    before(p);
    op(p, 'N');
    after(p);
}

/* Length of the UTF-8 sequence at s (n bytes left) when it is a valid one, else 0. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0;  /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0; /* surrogates */
    if (c == 0xf0 && s[1] < 0x90) return 0;  /* overlong */
    if (c == 0xf4 && s[1] >= 0x90) return 0; /* above U+10FFFF */
    return len;
}

/* BINUNICODE of s, each byte of an invalid sequence written as U+FFFD. */
static void write_unicode(struct cmt_pickle *p, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t out = 0, bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(u + i, n - i);
        if (k) {
            out += k;
            i += k;
        } else {
            out += 3;
            bad++;
            i++;
        }
    }
    op(p, 'X');
    u32le(p, (uint32_t)out);
    if (!bad) {
        fwrite_unlocked(s, 1, n, p->f);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(u + i, n - i);
        if (k) {
            fwrite_unlocked(u + i, 1, k, p->f);
            i += k;
        } else {
            fwrite_unlocked("\xef\xbf\xbd", 1, 3, p->f);
            i++;
        }
    }
}

static void put_memo(struct cmt_pickle *p, uint32_t id) {
    if (id < 256) {
        op(p, 'q'); /* BINPUT */
        op(p, (int)id);
    } else {
        op(p, 'r'); /* LONG_BINPUT */
        u32le(p, id);
    }
}

uint32_t cmt_pk_memoize(struct cmt_pickle *p) {
    uint32_t id = p->next_memo++;
    put_memo(p, id);
    return id + 1;
}

void cmt_pk_memo_get(struct cmt_pickle *p, uint32_t handle) {
    before(p);
    uint32_t id = handle - 1;
    if (id < 256) {
        op(p, 'h'); /* BINGET */
        op(p, (int)id);
    } else {
        op(p, 'j'); /* LONG_BINGET */
        u32le(p, id);
    }
    after(p);
}

static uint64_t str_hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* The memo slot of string s: its entry, or the empty slot it would take; NULL when out of memory. */
static struct pk_str *str_slot(struct cmt_pickle *p, const char *s, size_t n, uint64_t h) {
    if ((p->nstrs + 1) * 4 > p->cap * 3) {
        size_t nc = p->cap ? p->cap * 2 : PK_MEMO_MIN;
        struct pk_str *v = calloc(nc, sizeof *v);
        if (!v) return NULL;
        for (size_t i = 0; i < p->cap; i++) {
            if (!p->strs[i].handle) continue;
            size_t j = p->strs[i].h & (nc - 1);
            while (v[j].handle)
                j = (j + 1) & (nc - 1);
            v[j] = p->strs[i];
        }
        free(p->strs);
        p->strs = v;
        p->cap = nc;
    }
    size_t j = h & (p->cap - 1);
    while (p->strs[j].handle && !(p->strs[j].h == h && p->strs[j].n == n && !memcmp(p->strs[j].s, s, n)))
        j = (j + 1) & (p->cap - 1);
    return &p->strs[j];
}

void cmt_pk_strn(struct cmt_pickle *p, const char *s, size_t n) {
    if (n > UINT32_MAX / 3) n = UINT32_MAX / 3;
    uint64_t h = str_hash(s, n);
    struct pk_str *e = str_slot(p, s, n, h); /* NULL (out of memory): written unmemoized */
    if (e && e->handle) {
        cmt_pk_memo_get(p, e->handle);
        return;
    }
    before(p);
    write_unicode(p, s, n);
    char *copy = e ? malloc(n + 1) : NULL;
    if (copy) { /* memoized before after(): a batch handed over there would leave another top */
        memcpy(copy, s, n);
        *e = (struct pk_str){h, copy, n, cmt_pk_memoize(p)};
        p->nstrs++;
    }
    after(p);
}

void cmt_pk_str(struct cmt_pickle *p, const char *s) {
    if (!s)
        cmt_pk_none(p);
    else
        cmt_pk_strn(p, s, strlen(s));
}

void cmt_pk_key_str(struct cmt_pickle *p, const char *key, const char *value) {
    cmt_pk_str(p, key);
    cmt_pk_str(p, value);
}

void cmt_pk_key_uint(struct cmt_pickle *p, const char *key, uint64_t value) {
    cmt_pk_str(p, key);
    cmt_pk_uint(p, value);
}

void cmt_pk_key_int(struct cmt_pickle *p, const char *key, int64_t value) {
    cmt_pk_str(p, key);
    cmt_pk_int(p, value);
}
