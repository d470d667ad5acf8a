/*
 * cmt_timeline.c — live device bytes over time through the replay hook. See cmt_timeline.h.
 */
#include "cmt_timeline.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a live device allocation, mirrored for the per-stack accounting (series only) */
struct tl_live {
    uint64_t ptr, stack, ctx, granted;
    int64_t device;
    uint8_t used, space;
};

struct tl_sb { /* bytes live per (device, stack) */
    int64_t device;
    uint64_t stack, bytes;
    uint8_t used;
};

struct tl_dev {
    int64_t device;
    size_t series;       /* index into tl->series, (size_t)-1: none yet */
    uint64_t last_live;
    uint64_t top_stack, top_bytes;
    int dirty;
};

struct cmt_tl_proc {
    struct tl_live *live;
    size_t lcap, ln;
    struct tl_sb *sb;
    size_t scap, sn;
    struct tl_dev *devs;
    size_t ndevs;
};

void cmt_tl_init(struct cmt_tl *tl, struct cmt_analysis *a, size_t nbuckets) {
    memset(tl, 0, sizeof *tl);
    tl->a = a;
    tl->nbuckets = nbuckets;
}

double cmt_tl_seconds(int64_t t) { return (double)t / 1e9; }

const char *cmt_tl_iso(const struct cmt_process *p, int64_t t, char *buf, size_t cap) {
    int64_t ns = p->hdr.start_realtime_ns + t;
    time_t s = (time_t)(ns / 1000000000);
    long us = (long)((ns % 1000000000) / 1000);
    if (us < 0) {
        us += 1000000;
        s--;
    }
    struct tm tm;
    if (!gmtime_r(&s, &tm)) {
        snprintf(buf, cap, "?");
        return buf;
    }
    char d[32];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%06ldZ", d, us);
    return buf;
}

/* ---------------------------------------------------------------- hash tables */

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static int live_grow(struct cmt_tl_proc *p) {
    size_t nc = p->lcap ? p->lcap * 2 : 1024;
    struct tl_live *n = calloc(nc, sizeof *n);
    if (!n) return -1;
    for (size_t i = 0; i < p->lcap; i++) {
        if (!p->live[i].used) continue;
        size_t h = mix(p->live[i].ptr ^ ((uint64_t)p->live[i].space << 62)) & (nc - 1);
        while (n[h].used) h = (h + 1) & (nc - 1);
        n[h] = p->live[i];
    }
    free(p->live);
    p->live = n;
    p->lcap = nc;
    return 0;
}

static size_t live_find(const struct cmt_tl_proc *p, uint64_t space, uint64_t ptr) {
    if (!p->lcap) return (size_t)-1;
    size_t h = mix(ptr ^ (space << 62)) & (p->lcap - 1);
    while (p->live[h].used) {
        if (p->live[h].ptr == ptr && p->live[h].space == space) return h;
        h = (h + 1) & (p->lcap - 1);
    }
    return (size_t)-1;
}

static void live_del(struct cmt_tl_proc *p, size_t i) { /* backward-shift deletion */
    size_t m = p->lcap - 1, j = i;
    p->live[i].used = 0;
    p->ln--;
    for (;;) {
        j = (j + 1) & m;
        if (!p->live[j].used) return;
        size_t h = mix(p->live[j].ptr ^ ((uint64_t)p->live[j].space << 62)) & m;
        /* can j move to i? only when its home h is not in (i, j] cyclically */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            p->live[i] = p->live[j];
            p->live[j].used = 0;
            i = j;
        }
    }
}

static struct tl_sb *sb_get(struct cmt_tl_proc *p, int64_t device, uint64_t stack) {
    if (p->sn * 2 >= p->scap) {
        size_t nc = p->scap ? p->scap * 2 : 256;
        struct tl_sb *n = calloc(nc, sizeof *n);
        if (!n) return NULL;
        for (size_t i = 0; i < p->scap; i++) {
            if (!p->sb[i].used) continue;
            size_t h = mix(p->sb[i].stack * 31 + (uint64_t)p->sb[i].device) & (nc - 1);
            while (n[h].used) h = (h + 1) & (nc - 1);
            n[h] = p->sb[i];
        }
        free(p->sb);
        p->sb = n;
        p->scap = nc;
    }
    size_t h = mix(stack * 31 + (uint64_t)device) & (p->scap - 1);
    while (p->sb[h].used) {
        if (p->sb[h].stack == stack && p->sb[h].device == device) return &p->sb[h];
        h = (h + 1) & (p->scap - 1);
    }
    p->sb[h] = (struct tl_sb){device, stack, 0, 1};
    p->sn++;
    return &p->sb[h];
}

/* ---------------------------------------------------------------- state */

static struct cmt_tl_proc *proc_state(struct cmt_tl *tl, size_t proc) {
    if (proc >= tl->npst) {
        struct cmt_tl_proc *n = realloc(tl->pst, (proc + 1) * sizeof *n);
        if (!n) return NULL;
        memset(n + tl->npst, 0, (proc + 1 - tl->npst) * sizeof *n);
        tl->pst = n;
        tl->npst = proc + 1;
    }
    return &tl->pst[proc];
}

static struct tl_dev *dev_state(struct cmt_tl_proc *p, int64_t device) {
    for (size_t i = 0; i < p->ndevs; i++)
        if (p->devs[i].device == device) return &p->devs[i];
    struct tl_dev *n = realloc(p->devs, (p->ndevs + 1) * sizeof *n);
    if (!n) return NULL;
    p->devs = n;
    n[p->ndevs] = (struct tl_dev){device, (size_t)-1, 0, 0, 0, 0};
    return &n[p->ndevs++];
}

static void stack_add(struct cmt_tl_proc *p, int64_t device, uint64_t stack, uint64_t bytes, int sign) {
    struct tl_sb *s = sb_get(p, device, stack);
    struct tl_dev *d = dev_state(p, device);
    if (!s || !d) return;
    if (sign > 0) {
        s->bytes += bytes;
        if (s->bytes >= d->top_bytes && !d->dirty) {
            d->top_stack = stack;
            d->top_bytes = s->bytes;
        } else if (stack == d->top_stack)
            d->top_bytes = s->bytes;
    } else {
        s->bytes -= bytes < s->bytes ? bytes : s->bytes;
        if (stack == d->top_stack) d->dirty = 1;
    }
}

static void top_of(struct cmt_tl_proc *p, struct tl_dev *d) {
    if (!d->dirty) return;
    d->top_stack = 0;
    d->top_bytes = 0;
    for (size_t i = 0; i < p->scap; i++) {
        const struct tl_sb *s = &p->sb[i];
        if (s->used && s->device == d->device && s->bytes > d->top_bytes) {
            d->top_bytes = s->bytes;
            d->top_stack = s->stack;
        }
    }
    d->dirty = 0;
}

static void track_alloc(struct cmt_tl_proc *p, const struct cmt_event *e) {
    uint64_t space = e->flags & CMT_FLAG_SPACE_MASK;
    size_t i = live_find(p, space, e->ptr);
    if (i != (size_t)-1) {
        stack_add(p, p->live[i].device, p->live[i].stack, p->live[i].granted, -1);
        live_del(p, i);
    }
    if (e->device < 0) return;
    if ((p->ln + 1) * 2 > p->lcap && live_grow(p) != 0) return;
    size_t h = mix(e->ptr ^ (space << 62)) & (p->lcap - 1);
    while (p->live[h].used) h = (h + 1) & (p->lcap - 1);
    p->live[h] = (struct tl_live){e->ptr, e->stack, e->ctx, e->granted, e->device, 1, (uint8_t)space};
    p->ln++;
    stack_add(p, e->device, e->stack, e->granted, 1);
}

static void track_free(struct cmt_tl_proc *p, const struct cmt_event *e) {
    size_t i = live_find(p, e->flags & CMT_FLAG_SPACE_MASK, e->ptr);
    if (i == (size_t)-1) return;
    stack_add(p, p->live[i].device, p->live[i].stack, p->live[i].granted, -1);
    live_del(p, i);
}

static void track_teardown(struct cmt_tl_proc *p, const struct cmt_event *e) {
    for (size_t i = 0; i < p->lcap;) {
        struct tl_live *l = &p->live[i];
        if (l->used && (e->ctx ? l->ctx == e->ctx : l->ctx && l->device == e->device)) {
            stack_add(p, l->device, l->stack, l->granted, -1);
            live_del(p, i); /* another entry may have moved into i */
            continue;
        }
        i++;
    }
}

static struct cmt_tl_series *series_of(struct cmt_tl *tl, size_t proc, struct tl_dev *d) {
    if (d->series != (size_t)-1) return &tl->series[d->series];
    if (tl->nseries == tl->capseries) {
        size_t nc = tl->capseries ? tl->capseries * 2 : 16;
        struct cmt_tl_series *n = realloc(tl->series, nc * sizeof *n);
        if (!n) return NULL;
        tl->series = n;
        tl->capseries = nc;
    }
    struct cmt_tl_series *s = &tl->series[tl->nseries];
    memset(s, 0, sizeof *s);
    s->b = calloc(tl->nbuckets, sizeof *s->b);
    if (!s->b) return NULL;
    s->proc = proc;
    s->device = d->device;
    s->width = 1000000; /* 1 ms to start with */
    d->series = tl->nseries++;
    return s;
}

static void merge_bucket(struct cmt_tl_bucket *o, const struct cmt_tl_bucket *a, const struct cmt_tl_bucket *b) {
    if (!a->has) {
        *o = *b;
        return;
    }
    *o = *a;
    if (!b->has) return;
    if (b->min < o->min) {
        o->min = b->min;
        o->tmin = b->tmin;
    }
    if (b->max > o->max) {
        o->max = b->max;
        o->tmax = b->tmax;
        o->top_stack = b->top_stack;
        o->top_bytes = b->top_bytes;
    }
    o->last = b->last;
    o->tlast = b->tlast;
}

static void series_point(struct cmt_tl *tl, struct cmt_tl_proc *p, struct tl_dev *d, struct cmt_tl_series *s, int64_t t,
                         uint64_t v) {
    if (t < 0) t = 0;
    size_t nb = tl->nbuckets;
    while ((uint64_t)(t / s->width) >= nb) {
        for (size_t i = 0; i < nb / 2; i++) {
            struct cmt_tl_bucket m;
            merge_bucket(&m, &s->b[2 * i], &s->b[2 * i + 1]);
            s->b[i] = m;
        }
        memset(s->b + nb / 2, 0, (nb - nb / 2) * sizeof *s->b);
        s->width *= 2;
    }
    struct cmt_tl_bucket *b = &s->b[t / s->width];
    if (!b->has || v > b->max || v > s->peak) {
        top_of(p, d);
    }
    if (!b->has) {
        *b = (struct cmt_tl_bucket){1, v, v, v, t, t, t, d->top_stack, d->top_bytes};
    } else {
        if (v < b->min) {
            b->min = v;
            b->tmin = t;
        }
        if (v > b->max) {
            b->max = v;
            b->tmax = t;
            b->top_stack = d->top_stack;
            b->top_bytes = d->top_bytes;
        }
        b->last = v;
        b->tlast = t;
    }
    if (v > s->peak) {
        s->peak = v;
        s->peak_t = t;
        s->peak_top_stack = d->top_stack;
        s->peak_top_bytes = d->top_bytes;
    }
    s->last = v;
    s->tlast = t;
}

static int add_mark(struct cmt_tl *tl, const struct cmt_tl_mark *m) {
    if (tl->nmarks == tl->capmarks) {
        size_t nc = tl->capmarks ? tl->capmarks * 2 : 64;
        struct cmt_tl_mark *n = realloc(tl->marks, nc * sizeof *n);
        if (!n) return -1;
        tl->marks = n;
        tl->capmarks = nc;
    }
    tl->marks[tl->nmarks++] = *m;
    return 0;
}

/* ---------------------------------------------------------------- the hook */

void cmt_tl_hook(void *arg, const struct cmt_event *e, const struct cmt_replay *r) {
    struct cmt_tl *tl = arg;
    const struct cmt_process *proc =
        (const struct cmt_process *)(const void *)((const char *)r - offsetof(struct cmt_process, replay));
    size_t pi = (size_t)(proc - tl->a->procs);
    int64_t t = e->time_ns - proc->hdr.start_clock_ns;
    const char *what = NULL;
    switch (e->type) {
    case CMT_REC_ALLOC: what = "alloc"; break;
    case CMT_REC_FREE: what = "free"; break;
    case CMT_REC_RETRACK: what = "retrack"; break;
    case CMT_REC_TEARDOWN: what = "teardown"; break;
    case CMT_REC_OOM:
    case CMT_REC_MARKER: break;
    default: return;
    }
    struct cmt_tl_proc *p = proc_state(tl, pi);
    if (!p) return;
    char u[48];
    if (e->type == CMT_REC_OOM || e->type == CMT_REC_MARKER) {
        struct cmt_tl_row row = {pi, t, -1, NULL, 0, "marker", e->str1, e->str1_len, 0};
        struct cmt_tl_mark m = {CMT_TL_MARKER, pi, t, -1, 0, 0, 0, NULL};
        if (e->type == CMT_REC_OOM) {
            const struct cmt_devstate *d = e->device >= 0 ? cmt_replay_device(r, e->device) : NULL;
            row.device = e->device;
            row.uuid = d && d->has_info ? (cmt_uuid_format(d->uuid, u), u) : NULL;
            row.live = e->device >= 0 ? (d ? d->live : 0) : r->host_live;
            row.event = "oom";
            row.label = cmt_replay_api_name(r, e->api);
            row.label_len = row.label ? strlen(row.label) : 0;
            row.size = e->size;
            m = (struct cmt_tl_mark){CMT_TL_OOM, pi, t, e->device, e->size, row.live, e->stack, NULL};
        }
        if (tl->row) tl->row(tl->row_arg, &row);
        if (tl->nbuckets) {
            m.label = row.label ? strndup(row.label, row.label_len) : NULL;
            if (add_mark(tl, &m) != 0) free(m.label);
        }
        return;
    }
    if (tl->nbuckets && !(e->flags & CMT_FLAG_CAPTURED)) {
        if (e->type == CMT_REC_ALLOC || e->type == CMT_REC_RETRACK) track_alloc(p, e);
        else if (e->type == CMT_REC_FREE) track_free(p, e);
        else track_teardown(p, e);
    }
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct cmt_devstate *d = &r->devs[i];
        struct tl_dev *td = dev_state(p, d->ordinal);
        if (!td || td->last_live == d->live) continue;
        td->last_live = d->live;
        if (tl->row) {
            struct cmt_tl_row row = {pi, t, d->ordinal, d->has_info ? (cmt_uuid_format(d->uuid, u), u) : NULL, d->live, what, NULL, 0, 0};
            tl->row(tl->row_arg, &row);
        }
        if (tl->nbuckets) {
            struct cmt_tl_series *s = series_of(tl, pi, td);
            if (!s) continue;
            if (!s->b[0].has && t > 0) series_point(tl, p, td, s, 0, 0); /* starts at zero */
            series_point(tl, p, td, s, t, d->live);
        }
    }
}

void cmt_tl_free(struct cmt_tl *tl) {
    for (size_t i = 0; i < tl->nseries; i++) free(tl->series[i].b);
    free(tl->series);
    for (size_t i = 0; i < tl->nmarks; i++) free(tl->marks[i].label);
    free(tl->marks);
    for (size_t i = 0; i < tl->npst; i++) {
        free(tl->pst[i].live);
        free(tl->pst[i].sb);
        free(tl->pst[i].devs);
    }
    free(tl->pst);
    memset(tl, 0, sizeof *tl);
}
