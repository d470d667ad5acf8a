/*
 * replay_defs.c — the definitions a dump carries, kept by its replay: devices (their state, found
 * or added by ordinal), native stacks (STACK), Python code objects (PYCODE), modules
 * (MODULE_LOAD), API names and contexts, and their look-ups. See replay.h.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

const struct cmt_stack *cmt_replay_stack(const struct cmt_replay *r, uint64_t id) {
    uint32_t v = cmt_htab_get(&r->t->stack_map, id, 0);
    return v ? &r->t->stacks[v - 1] : NULL;
}

const struct cmt_replay_pycode *cmt_replay_pycode(const struct cmt_replay *r, uint64_t id) {
    if (!id || id > r->t->npycodes || !r->t->pycodes[id - 1].name) return NULL;
    return &r->t->pycodes[id - 1];
}

void cmt_replay_def_pycode(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (!e->id || e->id > CMT_MAX_PYCODES) return; /* the reader refuses those */
    if (e->id > t->npycodes) {
        if (cmt_grow((void **)&t->pycodes, &t->cappycodes, e->id, sizeof *t->pycodes) != 0) {
            cmt_replay_lost(r);
            return;
        }
        memset(t->pycodes + t->npycodes, 0, (e->id - t->npycodes) * sizeof *t->pycodes);
        t->npycodes = e->id;
    }
    struct cmt_replay_pycode *c = &t->pycodes[e->id - 1];
    free(c->file);
    free(c->name);
    c->file = strndup(e->str1 ? e->str1 : "", e->str1_len);
    c->name = strndup(e->str2 ? e->str2 : "", e->str2_len);
    c->first_line = e->first_line;
    if (!c->file || !c->name) {
        free(c->file);
        free(c->name);
        c->file = c->name = NULL;
        cmt_replay_lost(r);
    }
}

const char *cmt_replay_api_name(const struct cmt_replay *r, uint64_t api) {
    uint32_t v = cmt_htab_get(&r->t->api_map, api, 0);
    return v ? r->t->api_names[v - 1] : NULL;
}

int64_t cmt_replay_ctx_device(const struct cmt_replay *r, uint64_t ctx) {
    uint32_t v = cmt_htab_get(&r->t->ctx_map, ctx, 0);
    return v ? r->t->ctxdev[v - 1] : -2;
}

void cmt_replay_def_module(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (cmt_grow((void **)&r->mods, &t->capmods, r->nmods + 1, sizeof *r->mods) != 0) {
        cmt_replay_lost(r);
        return;
    }
    struct cmt_module *m = &r->mods[r->nmods];
    memset(m, 0, sizeof *m);
    m->id = e->id;
    m->base = e->base;
    m->path = strndup(e->str1 ? e->str1 : "", e->str1_len);
    m->build_id = malloc(e->str2_len + 1);
    m->segs = malloc((e->nseg + 1) * sizeof *m->segs);
    if (!m->path || !m->build_id || !m->segs) {
        cmt_replay_lost(r);
        free(m->path);
        free(m->build_id);
        free(m->segs);
        return;
    }
    if (e->str2_len) memcpy(m->build_id, e->str2, e->str2_len);
    m->build_id_len = e->str2_len;
    memcpy(m->segs, e->segs, e->nseg * sizeof *m->segs);
    m->nseg = e->nseg;
    m->loaded_at = ++r->mod_events;
    r->nmods++;
}

void cmt_replay_def_stack(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    uint32_t *slot = cmt_htab_slot(&t->stack_map, e->id, 0);
    uint64_t *fr = slot ? malloc((e->nframes + 1) * sizeof *fr) : NULL;
    struct cmt_pyframe_rec *py = e->npy ? malloc(e->npy * sizeof *py) : NULL;
    if (!fr || (e->npy && !py)) {
        free(fr);
        free(py);
        cmt_replay_lost(r);
        return;
    }
    memcpy(fr, e->frames, e->nframes * sizeof *fr);
    if (e->npy) memcpy(py, e->py, e->npy * sizeof *py);
    if (*slot) { /* redefinition: the last one wins */
        struct cmt_stack *s = &t->stacks[*slot - 1];
        free((void *)s->frames);
        free((void *)s->py);
        s->frames = fr;
        s->nframes = e->nframes;
        s->py = py;
        s->npy = e->npy;
        s->mod_epoch = r->mod_events;
        return;
    }
    if (cmt_grow((void **)&t->stacks, &t->capstacks, t->nstacks + 1, sizeof *t->stacks) != 0) {
        cmt_replay_lost(r);
        free(fr);
        free(py);
        return;
    }
    t->stacks[t->nstacks] = (struct cmt_stack){e->id, e->nframes, fr, e->npy, py, r->mod_events};
    *slot = (uint32_t)++t->nstacks;
}

struct cmt_devstate *cmt_replay_dev_get_slow(struct cmt_replay *r, int64_t ord) {
    struct cmt_replay_live *t = r->t;
    uint32_t *slot = cmt_htab_slot(&t->dev_map, (uint64_t)ord, 0);
    if (!slot) return NULL;
    if (*slot) {
        if (ord >= 0 && ord < DEV_SMALL) t->dev_small[ord] = *slot;
        return &r->devs[*slot - 1];
    }
    if (cmt_grow((void **)&r->devs, &t->capdevs, r->ndevs + 1, sizeof *r->devs) != 0) return NULL;
    cmt_replay_devs_moved(r);
    struct cmt_devstate *d = &r->devs[r->ndevs++];
    memset(d, 0, sizeof *d);
    d->ordinal = ord;
    *slot = (uint32_t)r->ndevs;
    return d;
}

const struct cmt_devstate *cmt_replay_device(const struct cmt_replay *r, int64_t ord) {
    uint32_t v = cmt_htab_get(&r->t->dev_map, (uint64_t)ord, 0);
    return v ? &r->devs[v - 1] : NULL;
}

const char *cmt_device_uuid(const struct cmt_devstate *d, char *buf) {
    if (!d || !d->has_info) return NULL;
    cmt_uuid_format(d->uuid, buf);
    return buf;
}

const char *cmt_replay_uuid(const struct cmt_replay *r, int64_t device, char *buf) {
    return cmt_device_uuid(device >= 0 ? cmt_replay_device(r, device) : NULL, buf);
}
