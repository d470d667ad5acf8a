/*
 * growth.c — markers and the stacks growing across them. See growth.h.
 */
#include "growth.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_format.h"
#include "reader.h"

/* observations of one (stack, device) counter across the markers of a series */
struct gstate {
    uint64_t first, last;
    uint32_t n, ups, downs;
    uint64_t *hist; /* downsampled values (CMT_GROWTH_HIST), NULL while the counter was always 0 */
    uint32_t hn, hstride;
};

/* keeps v, the counter's value at its observation idx, when idx is a multiple of the stride;
 * halves the history (doubling the stride) when full. Returns -1 when out of memory. */
static int hist_put(struct gstate *st, uint32_t idx, uint64_t v) {
    if (!st->hist) {
        if (!v) return 0; /* all zeros so far: allocated at the first non-zero value */
        st->hist = malloc(CMT_GROWTH_HIST * sizeof *st->hist);
        if (!st->hist) return -1;
        st->hn = 0;
        st->hstride = 1;
    }
    for (;;) {
        uint64_t next = (uint64_t)st->hn * st->hstride; /* the next index kept */
        if (next > idx) return 0;
        if (st->hn == CMT_GROWTH_HIST) {
            for (uint32_t k = 0; k < CMT_GROWTH_HIST / 2; k++)
                st->hist[k] = st->hist[2 * k];
            st->hn = CMT_GROWTH_HIST / 2;
            st->hstride *= 2;
            continue;
        }
        st->hist[st->hn++] = next == idx ? v : 0; /* the indices before the first value were 0 */
    }
}

struct cmt_series {
    char *label;
    uint64_t kind; /* CMT_MARK_POINT (marks and signals) or CMT_MARK_RANGE_PUSH */
    uint64_t n;
    struct gstate *st; /* indexed like the counters */
    size_t cap;
};

static int record(struct cmt_marker_log *g, const struct cmt_event *e, int64_t *dev, uint64_t *live, size_t ndev) {
    if (g->nmarkers >= CMT_MAX_MARKERS) {
        g->dropped++;
        free(dev);
        free(live);
        return 0;
    }
    if (!dev || cmt_grow((void **)&g->markers, &g->capmarkers, g->nmarkers + 1, sizeof *g->markers) != 0) {
        free(dev);
        free(live);
        return -1;
    }
    struct cmt_marker_rec *m = &g->markers[g->nmarkers];
    m->label = strndup(e->str1 ? e->str1 : "", e->str1_len);
    m->domain = strndup(e->str2 ? e->str2 : "", e->str2_len);
    m->flags = e->flags;
    m->time_ns = e->time_ns;
    m->seq = e->seq;
    m->dev = dev;
    m->live = live;
    m->ndev = ndev;
    if (!m->label || !m->domain) {
        free(m->label);
        free(m->domain);
        free(dev);
        free(live);
        return -1;
    }
    g->nmarkers++;
    return 0;
}

int cmt_marker_log_add(struct cmt_marker_log *g, const struct cmt_event *e, int64_t *dev, uint64_t *live, size_t ndev,
                       const struct cmt_stack_live *counters, size_t ncounters) {
    int rc = record(g, e, dev, live, ndev);
    /* the series of this label and kind: observe every (stack, device) counter */
    uint64_t kind = e->flags == CMT_MARK_RANGE_PUSH ? CMT_MARK_RANGE_PUSH : CMT_MARK_POINT;
    const char *label = e->str1 ? e->str1 : "";
    size_t llen = e->str1_len;
    struct cmt_series *s = NULL;
    for (size_t i = 0; i < g->nseries && !s; i++)
        if (g->series[i].kind == kind && strlen(g->series[i].label) == llen &&
            memcmp(g->series[i].label, label, llen) == 0)
            s = &g->series[i];
    if (!s) {
        if (cmt_grow((void **)&g->series, &g->capseries, g->nseries + 1, sizeof *g->series) != 0) return -1;
        s = &g->series[g->nseries];
        memset(s, 0, sizeof *s);
        s->label = strndup(label, llen);
        if (!s->label) return -1;
        s->kind = kind;
        g->nseries++;
    }
    if (cmt_grow((void **)&s->st, &s->cap, ncounters, sizeof *s->st) != 0) return -1;
    s->n++;
    for (size_t i = 0; i < ncounters; i++) {
        struct gstate *st = &s->st[i];
        uint64_t v = counters[i].bytes;
        if (hist_put(st, st->n, v) != 0) rc = -1;
        if (!st->n)
            st->first = v;
        else if (v > st->last)
            st->ups++;
        else if (v < st->last)
            st->downs++;
        st->last = v;
        st->n++;
    }
    return rc;
}

static int cmp_growth(const void *a, const void *b) {
    const struct cmt_growth *x = a, *y = b;
    if (x->bytes_per_marker != y->bytes_per_marker) return x->bytes_per_marker > y->bytes_per_marker ? -1 : 1;
    if (x->stack != y->stack) return x->stack < y->stack ? -1 : 1;
    return x->flags < y->flags ? -1 : x->flags > y->flags;
}

/* Stacks that grew persistently across a series: up at half the steps or more, down at a quarter
 * or fewer, and higher at the end than at the start. One entry per (stack, device, label). */
int cmt_marker_log_finish(struct cmt_marker_log *g, const struct cmt_stack_live *counters, size_t ncounters) {
    int rc = 0;
    for (size_t k = 0; k < g->nseries && !rc; k++) {
        const struct cmt_series *s = &g->series[k];
        for (size_t i = 0; i < s->cap && i < ncounters; i++) {
            const struct gstate *st = &s->st[i];
            if (st->n < 3 || st->last <= st->first) continue;
            uint32_t steps = st->n - 1;
            if (st->ups * 2 < steps || st->downs * 4 > steps) continue;
            bool dup = false;
            for (size_t q = 0; q < g->ngrowth && !dup; q++)
                dup = g->growth[q].stack == counters[i].stack && g->growth[q].device == counters[i].device &&
                      !strcmp(g->growth[q].label, s->label);
            if (dup) continue;
            if (cmt_grow((void **)&g->growth, &g->capgrowth, g->ngrowth + 1, sizeof *g->growth) != 0) {
                rc = -1;
                break;
            }
            g->growth[g->ngrowth++] = (struct cmt_growth){.label = s->label,
                                                          .flags = s->kind,
                                                          .stack = counters[i].stack,
                                                          .device = counters[i].device,
                                                          .first_bytes = st->first,
                                                          .last_bytes = st->last,
                                                          .markers = st->n,
                                                          .bytes_per_marker = (double)(st->last - st->first) / steps,
                                                          .hist = st->hist,
                                                          .hist_n = st->hn,
                                                          .hist_stride = st->hstride};
        }
    }
    if (g->ngrowth > 1) qsort(g->growth, g->ngrowth, sizeof *g->growth, cmp_growth);
    return rc;
}

void cmt_marker_log_free(struct cmt_marker_log *g) {
    for (size_t i = 0; i < g->nmarkers; i++) {
        free(g->markers[i].label);
        free(g->markers[i].domain);
        free(g->markers[i].dev);
        free(g->markers[i].live);
    }
    free(g->markers);
    free(g->growth);
    for (size_t i = 0; i < g->nseries; i++) {
        free(g->series[i].label);
        for (size_t k = 0; k < g->series[i].cap; k++)
            free(g->series[i].st[k].hist);
        free(g->series[i].st);
    }
    free(g->series);
    memset(g, 0, sizeof *g);
}
