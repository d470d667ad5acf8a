/*
 * cmt_vmm.c — see cmt_vmm.h. VMM calls are rare: one mutex, uthash tables.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_driver.h"
#include "cmt_alerts.h"
#include "cmt_records.h"
#include "cmt_seq.h"
#include "cmt_vmm.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

#define HASH_NONFATAL_OOM 1
static int vmm_oom;
#define uthash_nonfatal_oom(obj) (vmm_oom = 1)
#include <uthash.h>

struct handle {
    UT_hash_handle hh;
    uint64_t handle, size;
    uint32_t stack, refs, maps;
    int device;
    uint8_t kind; /* CMT_KIND_VMM or CMT_KIND_IMPORTED */
    bool pending; /* imported, not mapped yet: nothing recorded */
};
struct mapping {
    UT_hash_handle hh;
    uint64_t va, size, handle;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle *handles;
static struct mapping *mappings;

#define MAX_UNDO 64
/* what an unmap or release removed, to put back if the driver refuses */
static __thread struct {
    int nmaps, nfreed;
    bool release_found, release_freed;
    struct mapping maps[MAX_UNDO];
    struct handle freed[MAX_UNDO];
    uint64_t late_seq[MAX_UNDO]; /* freed[i]'s FREE, in flight (flight[]): its reserved number, */
    int64_t late_time[MAX_UNDO]; /* and time; 0: written already (or none) */
} undo;

/* Handles whose release/unmap is inside the driver (their FREE is written when it returned, at
 * that moment, unless the handle was created again meanwhile: reused). Under lock. */
#define MAX_FLIGHT 64
static struct {
    uint64_t handle;
    bool reused;
} flight[MAX_FLIGHT];
static int nflight;

static void flight_reused(uint64_t handle) {
    for (int i = 0; i < nflight; i++)
        if (flight[i].handle == handle) flight[i].reused = true;
}

/* Inserts a copy of v into its table (under lock); NULL, counted in table_full, when memory ran out. */
static struct handle *add_handle(const struct handle *v) {
    struct handle *h = malloc(sizeof *h);
    if (h) {
        *h = *v;
        vmm_oom = 0;
        HASH_ADD(hh, handles, handle, sizeof h->handle, h);
        if (!vmm_oom) return h;
        free(h);
    }
    cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    return NULL;
}

static struct mapping *add_mapping(const struct mapping *v) {
    struct mapping *m = malloc(sizeof *m);
    if (m) {
        *m = *v;
        vmm_oom = 0;
        HASH_ADD(hh, mappings, va, sizeof m->va, m);
        if (!vmm_oom) return m;
        free(m);
    }
    cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    return NULL;
}

/* Ends h before the real release/unmap: its FREE stays in flight (written by flight_done when
 * the call returned) where undo and flight[] have room, else it is written now. */
static void end_handle(enum cmt_api api, struct handle *h) {
    HASH_DEL(handles, h);
    bool kept = undo.nfreed < MAX_UNDO;
    if (kept) {
        undo.freed[undo.nfreed] = *h;
        undo.late_seq[undo.nfreed] = 0;
    } else
        cmt_counter_add(CMT_CTR_VMM_UNDO_FULL, 1);
    if (!h->pending) {
        int64_t now = cmt_now(); /* not the time read last: see cmt_untrack */
        uint64_t seq = cmt_seq_def(now);
        if (kept && seq && nflight < MAX_FLIGHT) {
            flight[nflight].handle = h->handle;
            flight[nflight++].reused = false;
            undo.late_seq[undo.nfreed] = seq;
            undo.late_time[undo.nfreed] = now;
        } else {
            cmt_rec_free(api, CMT_SPACE_VMM, h->device, h->handle, seq, now);
        }
    }
    if (h->kind == CMT_KIND_VMM) cmt_live_add(h->device, -(int64_t)h->size, NULL);
    if (kept) undo.nfreed++;
    free(h);
}

/* The real release/unmap returned: the FREEs left in flight, at this moment unless the handle was
 * created again meanwhile (then at the number reserved before the call, before that ALLOC). */
static void flight_done(enum cmt_api api) {
    for (int i = 0; i < undo.nfreed; i++) {
        if (!undo.late_seq[i]) continue;
        const struct handle *h = &undo.freed[i];
        bool reused = true;
        for (int k = 0; k < nflight; k++)
            if (flight[k].handle == h->handle) {
                reused = flight[k].reused;
                flight[k] = flight[--nflight];
                break;
            }
        int64_t now = reused ? undo.late_time[i] : cmt_now();
        uint64_t seq = reused ? undo.late_seq[i] : cmt_seq_def(now);
        cmt_rec_free(api, CMT_SPACE_VMM, h->device, h->handle, seq, now);
        undo.late_seq[i] = 0;
    }
}

static void restore_handle(enum cmt_api api, const struct handle *saved, CUresult r) {
    struct handle *h = add_handle(saved);
    if (!h || h->pending) return;
    int64_t now = cmt_now();
    cmt_rec_alloc(CMT_REC_RETRACK, api, h->kind, CMT_SPACE_VMM, h->device, h->handle, h->size,
                   h->size, h->stack, 0, cmt_seq_def(now), now, r);
    if (h->kind == CMT_KIND_VMM) cmt_live_add(h->device, (int64_t)h->size, NULL);
}

void cmt_vmm_created(struct cmt_call *c, uint64_t handle, uint32_t stack) {
    int device = -2;
    if (c->vmm_prop) {
        if (c->vmm_prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            device = c->vmm_prop->location.id;
        else
            device = -1;
    }
    /* its identity even when no context was ever current (a device-addressed call) */
    if (device >= 0) cmt_device_note(device);
    pthread_mutex_lock(&lock);
    if (nflight) flight_reused(handle); /* its release is still inside the driver */
    add_handle(&(struct handle){
        .handle = handle, .size = c->size, .stack = stack, .refs = 1, .device = device, .kind = CMT_KIND_VMM});
    int64_t now = cmt_now();
    cmt_rec_alloc(CMT_REC_ALLOC, c->api, CMT_KIND_VMM, CMT_SPACE_VMM, device, handle, c->size, c->size,
                   stack, 0, cmt_seq_def(now), now, 0);
    cmt_live_add(device, (int64_t)c->size, c->caller);
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_imported(struct cmt_call *c, uint64_t handle, uint32_t stack) {
    (void)c;
    int device = -2;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    if (CMT_DRV(cuMemGetAllocationPropertiesFromHandle, &prop,
                (CUmemGenericAllocationHandle)handle) == CUDA_SUCCESS)
        device = prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? prop.location.id : -1;
    if (device >= 0) cmt_device_note(device);
    pthread_mutex_lock(&lock);
    if (nflight) flight_reused(handle);
    add_handle(&(struct handle){.handle = handle,
                                .stack = stack,
                                .refs = 1,
                                .device = device,
                                .kind = CMT_KIND_IMPORTED,
                                .pending = true});
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_release_pre(struct cmt_call *c) {
    pthread_mutex_lock(&lock);
    undo.nfreed = 0;
    struct handle *h;
    uint64_t key = c->ptr;
    HASH_FIND(hh, handles, &key, sizeof key, h);
    undo.release_found = h != NULL;
    undo.release_freed = false;
    if (!h) {
        int64_t now = cmt_now();
        cmt_rec_free(c->api, CMT_SPACE_VMM | CMT_FLAG_UNKNOWN, -2, key, cmt_seq_def(now), now);
    } else if (h->refs > 0 && --h->refs == 0 && h->maps == 0) {
        undo.release_freed = true;
        end_handle(c->api, h);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_release_post(struct cmt_call *c, CUresult r) {
    if (undo.release_freed) { /* the FREE in flight (before a RETRACK, if refused) */
        pthread_mutex_lock(&lock);
        flight_done(c->api);
        pthread_mutex_unlock(&lock);
    }
    if (r == CUDA_SUCCESS || !undo.release_found) return;
    pthread_mutex_lock(&lock);
    if (undo.release_freed && undo.nfreed) {
        restore_handle(c->api, &undo.freed[0], r);
    } else {
        struct handle *h;
        uint64_t key = c->ptr;
        HASH_FIND(hh, handles, &key, sizeof key, h);
        if (h) h->refs++;
    }
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_mapped(struct cmt_call *c) {
    pthread_mutex_lock(&lock);
    struct handle *h;
    uint64_t key = c->handle;
    HASH_FIND(hh, handles, &key, sizeof key, h);
    if (add_mapping(&(struct mapping){.va = c->ptr, .size = c->size, .handle = c->handle}) && h) h->maps++;
    if (h && h->pending) { /* an imported handle's first mapping: recorded now, with its size */
        h->pending = false;
        h->size = c->size;
        int64_t now = cmt_now();
        cmt_rec_alloc(CMT_REC_ALLOC, CMT_API_cuMemImportFromShareableHandle, CMT_KIND_IMPORTED,
                       CMT_SPACE_VMM, h->device, h->handle, h->size, h->size, h->stack, 0,
                       cmt_seq_def(now), now, 0);
    }
    cmt_rec_vmm_map(1, c->ptr, c->size, c->handle);
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_unmap_pre(struct cmt_call *c) {
    pthread_mutex_lock(&lock);
    undo.nmaps = 0;
    undo.nfreed = 0;
    uint64_t lo = c->ptr, hi = c->ptr + c->size;
    struct mapping *m, *tmp;
    cmt_rec_vmm_map(2, c->ptr, c->size, 0);
    HASH_ITER(hh, mappings, m, tmp) {
        if (m->va < lo || m->va >= hi) continue;
        HASH_DEL(mappings, m);
        if (undo.nmaps < MAX_UNDO)
            undo.maps[undo.nmaps++] = *m;
        else
            cmt_counter_add(CMT_CTR_VMM_UNDO_FULL, 1);
        struct handle *h;
        HASH_FIND(hh, handles, &m->handle, sizeof m->handle, h);
        if (h && h->maps > 0 && --h->maps == 0 && h->refs == 0) end_handle(c->api, h);
        free(m);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_unmap_post(struct cmt_call *c, CUresult r) {
    if (undo.nfreed) { /* the FREEs in flight (before the RETRACKs, if refused) */
        pthread_mutex_lock(&lock);
        flight_done(c->api);
        pthread_mutex_unlock(&lock);
    }
    if (r == CUDA_SUCCESS) return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < undo.nfreed; i++) restore_handle(c->api, &undo.freed[i], r);
    for (int i = 0; i < undo.nmaps; i++) {
        struct mapping *m = add_mapping(&undo.maps[i]);
        if (!m) continue;
        struct handle *h;
        HASH_FIND(hh, handles, &m->handle, sizeof m->handle, h);
        if (h) h->maps++;
        cmt_rec_vmm_map(1, m->va, m->size, m->handle);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_retained(struct cmt_call *c, uint64_t handle) {
    (void)c;
    pthread_mutex_lock(&lock);
    struct handle *h;
    HASH_FIND(hh, handles, &handle, sizeof handle, h);
    if (h) h->refs++;
    pthread_mutex_unlock(&lock);
}

void cmt_vmm_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    nflight = 0; /* the parent's frees in flight are the parent's */
    undo.nfreed = 0;
    handles = NULL; /* abandoned: another thread may have been inside them */
    mappings = NULL;
}
CMT_LIFECYCLE(vmm, 70, NULL, cmt_vmm_fork_child);
