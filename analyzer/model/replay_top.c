/*
 * replay_top.c — the stacks on top of a device: the top stacks live at each device's peak (drawn
 * once, at the end, from the counters' values kept at the peak's epoch: replay.c sdc_keep), at an
 * OOM (with every device's live bytes then), and the largest live now. See replay.h.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

uint64_t cmt_replay_top_stack(const struct cmt_replay *r, int64_t device, uint64_t *bytes) {
    uint64_t top = 0;
    *bytes = 0;
    for (size_t i = 0; i < r->t->nsdc; i++) {
        const struct cmt_stack_live *s = &r->t->sdc[i];
        if (s->device == device && s->bytes && (s->bytes > *bytes || (s->bytes == *bytes && s->stack < top))) {
            *bytes = s->bytes;
            top = s->stack;
        }
    }
    return top;
}

static int cmp_stack_bytes(const void *x, const void *y) {
    const struct cmt_stack_bytes *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* Counter i's bytes and allocations: now, or (epoch != 0) at its device's peak snapshot. */
static inline struct cmt_stack_bytes sdc_value(const struct cmt_replay_live *t, size_t i, uint64_t epoch) {
    const struct cmt_stack_live *s = &t->sdc[i];
    const struct sdc_peak *p = &t->sdc_peak[i];
    if (epoch && p->epoch == epoch) return (struct cmt_stack_bytes){s->stack, p->bytes, p->count};
    return (struct cmt_stack_bytes){s->stack, s->bytes, s->count};
}

/* Top n stacks live on device (by bytes desc, then stack id), now or (epoch != 0) at that device's
 * snapshot, into a new array; n may be CMT_TOP_ALL (every stack live on it). */
static struct cmt_stack_bytes *top_stacks(struct cmt_replay *r, int64_t device, uint64_t epoch, size_t *nout) {
    size_t n = r->top_n, k = 0;
    struct cmt_replay_live *t = r->t;
    size_t m = 0;
    for (size_t i = 0; i < t->nsdc; i++)
        m += t->sdc[i].device == device && sdc_value(t, i, epoch).bytes;
    struct cmt_stack_bytes *top = calloc(m ? m : 1, sizeof *top);
    if (!top) {
        cmt_replay_lost(r);
        *nout = 0;
        return NULL;
    }
    for (size_t i = 0; i < t->nsdc; i++) {
        if (t->sdc[i].device != device) continue;
        struct cmt_stack_bytes v = sdc_value(t, i, epoch);
        if (v.bytes) top[k++] = v;
    }
    qsort(top, k, sizeof *top, cmp_stack_bytes);
    *nout = k < n ? k : n;
    return top;
}

/* The end: every device's peak snapshot (none before its first peak). */
void cmt_replay_peak_snapshots(struct cmt_replay *r) {
    for (size_t i = 0; i < r->ndevs; i++) {
        struct cmt_devstate *d = &r->devs[i];
        if (!d->snap_epoch) continue;
        free(d->peak_top);
        d->peak_top = top_stacks(r, d->ordinal, d->snap_epoch, &d->npeak_top);
    }
}

void cmt_replay_oom(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (cmt_grow((void **)&r->ooms, &t->capooms, r->nooms + 1, sizeof *r->ooms) != 0) {
        cmt_replay_lost(r);
        return;
    }
    struct cmt_oom *o = &r->ooms[r->nooms++];
    memset(o, 0, sizeof *o);
    o->device = e->device;
    o->requested = e->size;
    o->stack = e->stack;
    o->api = e->api;
    o->seq = e->seq;
    o->time_ns = e->time_ns;
    const struct cmt_devstate *d = e->device >= 0 ? cmt_replay_device(r, e->device) : NULL;
    o->live_bytes = e->device >= 0 ? (d ? d->live : 0) : r->host_live;
    o->live_dev = calloc(r->ndevs + 1, sizeof *o->live_dev);
    o->live_bytes_dev = calloc(r->ndevs + 1, sizeof *o->live_bytes_dev);
    if (o->live_dev && o->live_bytes_dev) {
        for (size_t i = 0; i < r->ndevs; i++) {
            o->live_dev[i] = r->devs[i].ordinal;
            o->live_bytes_dev[i] = r->devs[i].live;
        }
        o->nlive = r->ndevs;
    } else
        cmt_replay_lost(r);
    o->top = top_stacks(r, e->device < 0 ? -1 : e->device, 0, &o->ntop);
}
