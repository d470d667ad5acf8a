/*
 * timeline.c — live device bytes over time, as the replay tells them (its CMT_CHANGE_* calls): no
 * live table of its own. Every process has its own state (the dumps load in parallel); the
 * series and marks are put in process order at the end (cmt_tl_finish). See timeline.h.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

struct tl_dev {
    int64_t device;
    size_t series;                 /* index into the process' series, (size_t)-1: none yet */
    uint64_t top_stack, top_bytes; /* the stack with the most bytes live on it (dirty: to recompute) */
    int dirty;
};

struct open_range {
    uint32_t writer; /* the thread that pushed it */
    char *label;     /* malloc'd */
    size_t mark;     /* index into the process' marks, (size_t)-1: none kept */
};

struct cmt_tl_proc {
    struct tl_dev *devs;
    size_t ndevs;
    struct cmt_tl_series *series;
    size_t nseries, capseries;
    struct cmt_tl_mark *marks;
    size_t nmarks, capmarks;
    struct open_range *open; /* NVTX ranges pushed and not popped yet, innermost last */
    size_t nopen, capopen;
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

int cmt_tl_series_init(struct cmt_tl_series *s, size_t nbuckets) {
    memset(s, 0, sizeof *s);
    s->b = calloc(nbuckets ? nbuckets : 1, sizeof *s->b);
    s->width = 1000000; /* 1 ms to start with */
    return s->b ? 0 : -1;
}

static struct cmt_tl_series *series_of(struct cmt_tl *tl, struct cmt_tl_proc *p, size_t proc, struct tl_dev *d) {
    if (d->series != (size_t)-1) return &p->series[d->series];
    if (cmt_grow((void **)&p->series, &p->capseries, p->nseries + 1, sizeof *p->series) != 0) {
        p->out_of_memory = 1;
        return NULL;
    }
    struct cmt_tl_series *s = &p->series[p->nseries];
    if (cmt_tl_series_init(s, tl->nbuckets) != 0) {
        p->out_of_memory = 1;
        return NULL;
    }
    s->proc = proc;
    s->device = d->device;
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

struct cmt_tl_bucket *cmt_tl_bucket_at(struct cmt_tl_series *s, size_t nb, int64_t t) {
    if (t < 0) t = 0;
    while ((uint64_t)(t / s->width) >= nb) {
        for (size_t i = 0; i < nb / 2; i++) {
            struct cmt_tl_bucket m;
            merge_bucket(&m, &s->b[2 * i], &s->b[2 * i + 1]);
            s->b[i] = m;
        }
        memset(s->b + nb / 2, 0, (nb - nb / 2) * sizeof *s->b);
        s->width *= 2;
    }
    return &s->b[t / s->width];
}

void cmt_tl_bucket_put(struct cmt_tl_series *s, struct cmt_tl_bucket *b, int64_t t, uint64_t v, uint64_t top_stack,
                       uint64_t top_bytes) {
    if (t < 0) t = 0;
    if (!b->has) {
        *b = (struct cmt_tl_bucket){1, v, v, v, t, t, t, top_stack, top_bytes};
    } else {
        if (v < b->min) {
            b->min = v;
            b->tmin = t;
        }
        if (v > b->max) {
            b->max = v;
            b->tmax = t;
            b->top_stack = top_stack;
            b->top_bytes = top_bytes;
        }
        b->last = v;
        b->tlast = t;
    }
    if (v > s->peak) {
        s->peak = v;
        s->peak_t = t;
        s->peak_top_stack = top_stack;
        s->peak_top_bytes = top_bytes;
    }
    s->last = v;
    s->tlast = t;
}

static void series_point(struct cmt_tl *tl, const struct cmt_replay *r, struct tl_dev *d, struct cmt_tl_series *s,
                         int64_t t, uint64_t v) {
    struct cmt_tl_bucket *b = cmt_tl_bucket_at(s, tl->nbuckets, t);
    if (!b->has || v > b->max || v > s->peak) top_of(r, d);
    cmt_tl_bucket_put(s, b, t, v, d->top_stack, d->top_bytes);
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

const char *cmt_tl_event_name(enum cmt_tl_event e) {
#define CMT_TL_EV_NAME(id, name) [id] = name,
    static const char *const names[] = {CMT_TL_EVENTS(CMT_TL_EV_NAME)};
#undef CMT_TL_EV_NAME
    return (unsigned)e < sizeof names / sizeof *names ? names[e] : "?";
}

static enum cmt_tl_event live_event(uint8_t record) {
    switch (record) {
    case CMT_REC_ALLOC:
        return CMT_TL_EV_ALLOC;
    case CMT_REC_FREE:
        return CMT_TL_EV_FREE;
    case CMT_REC_RETRACK:
        return CMT_TL_EV_RETRACK;
    default:
        return CMT_TL_EV_TEARDOWN;
    }
}

void cmt_tl_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c) {
    struct cmt_tl *tl = arg;
    size_t pi = c->proc;
    struct cmt_tl_proc *p = &tl->pst[pi];
    int64_t t = cmt_sub_sat(c->time_ns, tl->a->procs[pi].hdr.start_clock_ns);
    char u[48];
    struct cmt_tl_row row = {.proc = pi,
                             .t = t,
                             .device = c->device,
                             .uuid = cmt_device_uuid(c->dev, u),
                             .live = c->live,
                             .label = c->label,
                             .label_len = c->label_len,
                             .size = c->size,
                             .api = c->api,
                             .writer = c->writer};
    switch (c->kind) {
    case CMT_CHANGE_STACK: {
        p->last_stack = c->stack;
        struct tl_dev *d = tl->nbuckets ? dev_state(p, c->device) : NULL;
        if (d) stack_changed(d, c);
        return;
    }
    case CMT_CHANGE_LIVE: {
        row.event = live_event(c->record);
        row.label = NULL;
        row.label_len = 0;
        row.stack = c->record == CMT_REC_TEARDOWN ? 0 : p->last_stack; /* a teardown ends many */
        row.live_change = 1;
        if (tl->row) tl->row(tl->row_arg, &row);
        struct tl_dev *d = tl->nbuckets ? dev_state(p, c->device) : NULL;
        struct cmt_tl_series *s = d ? series_of(tl, p, pi, d) : NULL;
        if (!s) return;
        if (!s->b[0].has && t > 0) series_point(tl, r, d, s, 0, 0); /* starts at zero */
        series_point(tl, r, d, s, t, c->live);
        return;
    }
    case CMT_CHANGE_SUBALLOC: /* inside a device allocation: changes no device's live bytes */
        return;
    case CMT_CHANGE_OOM:
        row.event = CMT_TL_EV_OOM;
        row.size = c->requested;
        row.stack = c->stack;
        if (tl->row) tl->row(tl->row_arg, &row);
        if (tl->nbuckets)
            add_mark(p,
                     (struct cmt_tl_mark){CMT_TL_OOM, pi, t, c->device, c->requested, c->live, c->stack, NULL, 0, -1},
                     c->label, c->label_len);
        return;
    case CMT_CHANGE_MARKER:
        if (c->mark_kind == CMT_MARK_RANGE_POP) { /* closes the latest open push: no marker of its own */
            row.event = CMT_TL_EV_RANGE_END;
            row.label = NULL;
            row.label_len = 0;
            struct open_range o = {0, NULL, (size_t)-1};
            size_t k = p->nopen;
            while (k && p->open[k - 1].writer != c->writer) /* ranges nest per thread */
                k--;
            if (k) {
                o = p->open[k - 1];
                memmove(p->open + k - 1, p->open + k, (p->nopen - k) * sizeof *p->open);
                p->nopen--;
            } else
                row.unmatched = 1;
            if (o.label) {
                row.label = o.label;
                row.label_len = strlen(o.label);
            }
            if (tl->row) tl->row(tl->row_arg, &row);
            if (o.mark != (size_t)-1) p->marks[o.mark].t_end = t;
            free(o.label);
            return;
        }
        row.event = c->mark_kind == CMT_MARK_RANGE_PUSH ? CMT_TL_EV_RANGE_BEGIN : CMT_TL_EV_MARKER;
        if (tl->row) tl->row(tl->row_arg, &row);
        size_t mi = (size_t)-1;
        if (tl->nbuckets) {
            size_t before = p->nmarks;
            add_mark(p,
                     (struct cmt_tl_mark){CMT_TL_MARKER, pi, t, -1, 0, 0, 0, NULL,
                                          c->mark_kind == CMT_MARK_RANGE_PUSH ? CMT_MARK_RANGE_PUSH
                                          : c->mark_kind == CMT_MARK_SIGNAL   ? CMT_MARK_SIGNAL
                                                                              : CMT_MARK_POINT,
                                          -1},
                     c->label, c->label_len);
            if (p->nmarks > before) mi = before;
        }
        if (c->mark_kind == CMT_MARK_RANGE_PUSH) {
            char *l = strndup(c->label ? c->label : "", c->label_len);
            if (!l || cmt_grow((void **)&p->open, &p->capopen, p->nopen + 1, sizeof *p->open) != 0) {
                free(l);
                p->out_of_memory = 1;
                return;
            }
            p->open[p->nopen++] = (struct open_range){c->writer, l, mi};
        }
        return;
    }
}

static void free_open(struct cmt_tl_proc *p) {
    for (size_t k = 0; k < p->nopen; k++)
        free(p->open[k].label);
    free(p->open);
    p->open = NULL;
    p->nopen = p->capopen = 0;
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
    /* the observer saw the dumps by their input index; the analysis left out the unreadable ones */
    size_t *to = calloc(tl->npst + 1, sizeof *to);
    if (!tl->series || !tl->marks || !to) tl->out_of_memory = 1;
    for (size_t i = 0; to && i <= tl->npst; i++)
        to[i] = (size_t)-1;
    for (size_t k = 0; to && k < tl->a->nprocs; k++)
        if (tl->a->procs[k].input < tl->npst) to[tl->a->procs[k].input] = k;
    for (size_t i = 0; i < tl->npst; i++) {
        struct cmt_tl_proc *p = &tl->pst[i];
        if (!to || to[i] == (size_t)-1) { /* left out (or no memory): drop what it told */
            for (size_t k = 0; k < p->nseries; k++)
                free(p->series[k].b);
            for (size_t k = 0; k < p->nmarks; k++)
                free(p->marks[k].label);
            p->nseries = p->nmarks = 0;
        }
        for (size_t k = 0; k < p->nseries; k++)
            p->series[k].proc = to[i];
        for (size_t k = 0; k < p->nmarks; k++)
            p->marks[k].proc = to[i];
        if (tl->series && p->nseries) /* (memcpy from NULL, even of 0 bytes, is undefined) */
            memcpy(tl->series + tl->nseries, p->series, p->nseries * sizeof *p->series);
        else
            for (size_t k = 0; k < p->nseries; k++)
                free(p->series[k].b);
        if (tl->marks && p->nmarks)
            memcpy(tl->marks + tl->nmarks, p->marks, p->nmarks * sizeof *p->marks);
        else
            for (size_t k = 0; k < p->nmarks; k++)
                free(p->marks[k].label);
        if (tl->series) tl->nseries += p->nseries;
        if (tl->marks) tl->nmarks += p->nmarks;
        free(p->series);
        free(p->marks);
        free(p->devs);
        free_open(p);
    }
    free(to);
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
        free_open(p);
    }
    free(tl->pst);
    memset(tl, 0, sizeof *tl);
}
