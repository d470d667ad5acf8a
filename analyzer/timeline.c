/*
 * timeline.c — live device bytes over time, as the replay tells them (its CMT_CHANGE_* calls): no
 * live table of its own. Every process has its own state (the dumps load in parallel); the
 * series and marks are put in process order at the end (cmt_tl_finish). See timeline.h.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tl_dev {
    int64_t device;
    size_t series;                 /* index into the process' series, (size_t)-1: none yet */
    uint64_t top_stack, top_bytes; /* the stack with the most bytes live on it (dirty: to recompute) */
    int dirty;
};

struct cmt_tl_proc {
    struct tl_dev *devs;
    size_t ndevs;
    struct cmt_tl_series *series;
    size_t nseries, capseries;
    struct cmt_tl_mark *marks;
    size_t nmarks, capmarks;
    int out_of_memory;
    uint64_t last_stack; /* the stack of the last STACK change (the record a LIVE change follows) */
};

void cmt_tl_init(struct cmt_tl *tl, struct cmt_analysis *a, size_t nbuckets) {
    memset(tl, 0, sizeof *tl);
    tl->a = a;
    tl->nbuckets = nbuckets;
}

int cmt_tl_begin(void *arg, size_t nprocs) {
    struct cmt_tl *tl = arg;
    tl->pst = calloc(nprocs ? nprocs : 1, sizeof *tl->pst);
    if (!tl->pst) return -1;
    tl->npst = nprocs;
    return 0;
}

double cmt_tl_seconds(int64_t t) {
    return (double)t / 1e9;
}

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

/* ---------------------------------------------------------------- state */

static struct tl_dev *dev_state(struct cmt_tl_proc *p, int64_t device) {
    for (size_t i = 0; i < p->ndevs; i++)
        if (p->devs[i].device == device) return &p->devs[i];
    struct tl_dev *n = realloc(p->devs, (p->ndevs + 1) * sizeof *n);
    if (!n) {
        p->out_of_memory = 1;
        return NULL;
    }
    p->devs = n;
    n[p->ndevs] = (struct tl_dev){device, (size_t)-1, 0, 0, 0};
    return &n[p->ndevs++];
}

/* a (stack, device) counter changed: keep the top stack, or mark it to recompute */
static void stack_changed(struct tl_dev *d, const struct cmt_live_change *c) {
    if (c->up) {
        if (c->stack_bytes >= d->top_bytes && !d->dirty) {
            d->top_stack = c->stack;
            d->top_bytes = c->stack_bytes;
        } else if (c->stack == d->top_stack)
            d->top_bytes = c->stack_bytes;
    } else if (c->stack == d->top_stack)
        d->dirty = 1;
}

static void top_of(const struct cmt_replay *r, struct tl_dev *d) {
    if (!d->dirty) return;
    d->top_stack = cmt_replay_top_stack(r, d->device, &d->top_bytes);
    d->dirty = 0;
}

static struct cmt_tl_series *series_of(struct cmt_tl *tl, struct cmt_tl_proc *p, size_t proc, struct tl_dev *d) {
    if (d->series != (size_t)-1) return &p->series[d->series];
    if (cmt_grow((void **)&p->series, &p->capseries, p->nseries + 1, sizeof *p->series) != 0) {
        p->out_of_memory = 1;
        return NULL;
    }
    struct cmt_tl_series *s = &p->series[p->nseries];
    memset(s, 0, sizeof *s);
    s->b = calloc(tl->nbuckets, sizeof *s->b);
    if (!s->b) {
        p->out_of_memory = 1;
        return NULL;
    }
    s->proc = proc;
    s->device = d->device;
    s->width = 1000000; /* 1 ms to start with */
    d->series = p->nseries++;
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

static void series_point(struct cmt_tl *tl, const struct cmt_replay *r, struct tl_dev *d, struct cmt_tl_series *s,
                         int64_t t, uint64_t v) {
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
    if (!b->has || v > b->max || v > s->peak) top_of(r, d);
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

static void add_mark(struct cmt_tl_proc *p, struct cmt_tl_mark m, const char *label, size_t len) {
    m.label = label ? strndup(label, len) : NULL;
    if ((label && !m.label) || cmt_grow((void **)&p->marks, &p->capmarks, p->nmarks + 1, sizeof *p->marks) != 0) {
        free(m.label);
        p->out_of_memory = 1;
        return;
    }
    p->marks[p->nmarks++] = m;
}

/* ---------------------------------------------------------------- the observer */

static const char *event_name(uint8_t record) {
    switch (record) {
    case CMT_REC_ALLOC:
        return "alloc";
    case CMT_REC_FREE:
        return "free";
    case CMT_REC_RETRACK:
        return "retrack";
    default:
        return "teardown";
    }
}

void cmt_tl_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c) {
    struct cmt_tl *tl = arg;
    size_t pi = c->proc;
    struct cmt_tl_proc *p = &tl->pst[pi];
    int64_t t = c->time_ns - tl->a->procs[pi].hdr.start_clock_ns;
    char u[48];
    struct cmt_tl_row row = {pi,         t, c->device, cmt_device_uuid(c->dev, u), c->live, NULL, c->label,
                             c->label_len, 0, 0};
    switch (c->kind) {
    case CMT_CHANGE_STACK: {
        p->last_stack = c->stack;
        struct tl_dev *d = tl->nbuckets ? dev_state(p, c->device) : NULL;
        if (d) stack_changed(d, c);
        return;
    }
    case CMT_CHANGE_LIVE: {
        row.event = event_name(c->record);
        row.label = NULL;
        row.label_len = 0;
        row.stack = p->last_stack;
        if (tl->row) tl->row(tl->row_arg, &row);
        struct tl_dev *d = tl->nbuckets ? dev_state(p, c->device) : NULL;
        struct cmt_tl_series *s = d ? series_of(tl, p, pi, d) : NULL;
        if (!s) return;
        if (!s->b[0].has && t > 0) series_point(tl, r, d, s, 0, 0); /* starts at zero */
        series_point(tl, r, d, s, t, c->live);
        return;
    }
    case CMT_CHANGE_OOM:
        row.event = "oom";
        row.size = c->requested;
        row.stack = c->stack;
        if (tl->row) tl->row(tl->row_arg, &row);
        if (tl->nbuckets)
            add_mark(p, (struct cmt_tl_mark){CMT_TL_OOM, pi, t, c->device, c->requested, c->live, c->stack, NULL},
                     c->label, c->label_len);
        return;
    case CMT_CHANGE_MARKER:
        row.event = "marker";
        if (tl->row) tl->row(tl->row_arg, &row);
        if (tl->nbuckets)
            add_mark(p, (struct cmt_tl_mark){CMT_TL_MARKER, pi, t, -1, 0, 0, 0, NULL}, c->label, c->label_len);
        return;
    }
}

int cmt_tl_finish(struct cmt_tl *tl) {
    size_t ns = 0, nm = 0;
    for (size_t i = 0; i < tl->npst; i++) {
        ns += tl->pst[i].nseries;
        nm += tl->pst[i].nmarks;
        tl->out_of_memory |= tl->pst[i].out_of_memory;
    }
    tl->series = calloc(ns + 1, sizeof *tl->series);
    tl->marks = calloc(nm + 1, sizeof *tl->marks);
    if (!tl->series || !tl->marks) tl->out_of_memory = 1;
    for (size_t i = 0; i < tl->npst; i++) {
        struct cmt_tl_proc *p = &tl->pst[i];
        if (tl->series)
            memcpy(tl->series + tl->nseries, p->series, p->nseries * sizeof *p->series);
        else
            for (size_t k = 0; k < p->nseries; k++)
                free(p->series[k].b);
        if (tl->marks)
            memcpy(tl->marks + tl->nmarks, p->marks, p->nmarks * sizeof *p->marks);
        else
            for (size_t k = 0; k < p->nmarks; k++)
                free(p->marks[k].label);
        if (tl->series) tl->nseries += p->nseries;
        if (tl->marks) tl->nmarks += p->nmarks;
        free(p->series);
        free(p->marks);
        free(p->devs);
    }
    free(tl->pst);
    tl->pst = NULL;
    tl->npst = 0;
    return tl->out_of_memory ? -1 : 0;
}

void cmt_tl_free(struct cmt_tl *tl) {
    for (size_t i = 0; i < tl->nseries; i++)
        free(tl->series[i].b);
    free(tl->series);
    for (size_t i = 0; i < tl->nmarks; i++)
        free(tl->marks[i].label);
    free(tl->marks);
    for (size_t i = 0; i < tl->npst; i++) {
        struct cmt_tl_proc *p = &tl->pst[i];
        for (size_t k = 0; k < p->nseries; k++)
            free(p->series[k].b);
        free(p->series);
        for (size_t k = 0; k < p->nmarks; k++)
            free(p->marks[k].label);
        free(p->marks);
        free(p->devs);
    }
    free(tl->pst);
    memset(tl, 0, sizeof *tl);
}
