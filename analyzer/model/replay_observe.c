/*
 * replay_observe.c — what a replay tells its observer (struct cmt_report_opts.observer: timeline.c,
 * the analysis' GPU series, export): a (stack, device) counter that changed, a GPU's live bytes
 * after a record, an OOM, a sub-allocation, a marker. Only called when there is an observer. See
 * replay.h.
 */
#include "replay.h"

#include <string.h>

#include "replay_internal.h"

static void notify(struct cmt_replay *r, struct cmt_live_change *c) {
    c->proc = r->observer_id;
    r->observer(r->observer_arg, r, c);
}

/* A (stack, device) counter of a GPU changed by the allocation (ptr, granted, size) beginning (up) or ending
 * (at: -1 freed, else its leak verdict). */
void cmt_replay_notify_stack(struct cmt_replay *r, const struct cmt_event *e, const struct cmt_stack_live *s, int up,
                             uint64_t ptr, uint64_t granted, uint64_t size, int at) {
    struct cmt_live_change c = {.kind = CMT_CHANGE_STACK,
                                .record = e->type,
                                .time_ns = e->time_ns,
                                .device = s->device,
                                .dev = cmt_replay_device(r, s->device),
                                .stack = s->stack,
                                .stack_bytes = s->bytes,
                                .up = up,
                                .ptr = ptr,
                                .granted = granted,
                                .at = at,
                                .requested = size};
    notify(r, &c);
}

/* After record e: LIVE changes of the GPUs it changed, or the OOM / MARKER itself. */
void cmt_replay_observe(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_live_change c = {.record = e->type, .time_ns = e->time_ns, .device = -1};
    switch (e->type) {
    case CMT_REC_ALLOC:
        c.size = e->size;
        /* fall through */
    case CMT_REC_FREE:
    case CMT_REC_RETRACK:
    case CMT_REC_TEARDOWN:
        for (size_t i = 0; i < r->ndevs; i++) {
            struct cmt_devstate *d = &r->devs[i];
            if (d->observed_live == d->live) continue;
            d->observed_live = d->live;
            c.kind = CMT_CHANGE_LIVE;
            c.device = d->ordinal;
            c.dev = d;
            c.live = d->live;
            c.api = cmt_replay_api_name(r, e->api); /* the teardown's own call for TEARDOWN */
            notify(r, &c);
        }
        return;
    case CMT_REC_OOM:
        c.kind = CMT_CHANGE_OOM;
        c.device = e->device;
        c.dev = e->device >= 0 ? cmt_replay_device(r, e->device) : NULL;
        c.live = e->device >= 0 ? (c.dev ? c.dev->live : 0) : r->host_live;
        c.stack = e->stack;
        c.requested = e->size;
        c.size = e->size;
        c.label = cmt_replay_api_name(r, e->api);
        c.api = c.label;
        c.label_len = c.label ? strlen(c.label) : 0;
        notify(r, &c);
        return;
    case CMT_REC_SUBALLOC:
        c.kind = CMT_CHANGE_SUBALLOC;
        c.op = e->op;
        c.heap = e->heap;
        c.ptr = e->ptr;
        c.size = e->size;
        c.stack = e->stack;
        notify(r, &c);
        return;
    case CMT_REC_MARKER:
        c.kind = CMT_CHANGE_MARKER;
        c.label = e->str1;
        c.label_len = e->str1_len;
        c.mark_kind = e->flags;
        c.writer = e->writer;
        notify(r, &c);
        return;
    default:
        return;
    }
}
