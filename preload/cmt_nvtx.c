/*
 * cmt_nvtx.c — the tracker as an NVTX injection library. At start-up it points
 * NVTX_INJECTION64_PATH at itself (never overriding a value already set, e.g. by a profiler);
 * NVTX then calls InitializeInjectionNvtx2 once per module that uses it, and we fill the core and
 * domain callback slots: ranges (push/pop) and marks become MARKER records, so the analyzer can
 * show live memory at each and label allocations made inside a range. Domains are filtered by
 * CUMEMTRACK_NVTX_DOMAINS (comma list: NAME, -NAME, * for all, "default" for the default domain;
 * default "*,-NCCL": NCCL emits a range per collective).
 * The NVTX memory-heap extension (InitializeInjectionNvtxExtension) lets pool allocators report
 * their sub-allocations: heaps and regions become SUBALLOC records with the region's stack, and the
 * report shows them inside their pools.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* the types and ids only: an injection library implements the API, it does not load one (the
 * headers' implementation part is NVTX's loader, which would dlopen an injection itself) */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>

#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_marks.h"
#include "cmt_nvtx.h"
#include "cmt_stacks.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

struct cmt_nvtx_domain {
    bool on;
    char name[128];
};

static char filter[1024] = "*,-NCCL";

static bool domain_enabled(const char *name) {
    bool on = false;
    char buf[sizeof filter];
    memcpy(buf, filter, sizeof buf);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "*")) on = true;
        else if (t[0] == '-' && !strcmp(t + 1, name)) on = false;
        else if (!strcmp(t, name)) on = true;
    }
    return on;
}

static struct cmt_nvtx_domain default_domain = {.on = true, .name = "default"};

static const struct cmt_nvtx_domain *dom(nvtxDomainHandle_t d) {
    return d ? (const struct cmt_nvtx_domain *)d : &default_domain;
}

static const char *message(const nvtxEventAttributes_t *a, char *tmp, size_t cap) {
    if (!a) return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED: return a->message.registered ? (const char *)a->message.registered : "";
    case NVTX_MESSAGE_TYPE_UNICODE: {
        size_t i = 0;
        for (const wchar_t *w = a->message.unicode; w && *w && i + 1 < cap; w++)
            tmp[i++] = *w > 0 && *w < 128 ? (char)*w : '?';
        tmp[i] = 0;
        return tmp;
    }
    default: return "";
    }
}

static __thread int range_level;

static void record(const char *label, unsigned flags, const struct cmt_nvtx_domain *d) {
    if (!d->on || !cmt_enter()) return;
    cmt_marker(label, flags, d->name);
    cmt_leave();
}

static int push(nvtxDomainHandle_t d, const char *label) {
    record(label, CMT_MARK_RANGE_PUSH, dom(d));
    return range_level++;
}
static int pop(nvtxDomainHandle_t d) {
    record("", CMT_MARK_RANGE_POP, dom(d));
    return range_level > 0 ? --range_level : -1;
}

static void nv_mark_a(const char *m) { record(m ? m : "", CMT_MARK_POINT, &default_domain); }
static void nv_mark_ex(const nvtxEventAttributes_t *a) {
    char tmp[256];
    record(message(a, tmp, sizeof tmp), CMT_MARK_POINT, &default_domain);
}
static int nv_push_a(const char *m) { return push(NULL, m ? m : ""); }
static int nv_push_ex(const nvtxEventAttributes_t *a) {
    char tmp[256];
    return push(NULL, message(a, tmp, sizeof tmp));
}
static int nv_pop(void) { return pop(NULL); }
static void nv_dmark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char tmp[256];
    record(message(a, tmp, sizeof tmp), CMT_MARK_POINT, dom(d));
}
static int nv_dpush_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char tmp[256];
    return push(d, message(a, tmp, sizeof tmp));
}
static int nv_dpop(nvtxDomainHandle_t d) { return pop(d); }
/* Start/end ranges may cross threads: a start is recorded like a push (a "range" marker of that
 * label), an end like a pop. */
static _Atomic uint64_t next_range_id;
static nvtxRangeId_t start(nvtxDomainHandle_t d, const char *label) {
    record(label, CMT_MARK_RANGE_PUSH, dom(d));
    return atomic_fetch_add(&next_range_id, 1) + 1;
}
static void end(nvtxDomainHandle_t d) { record("", CMT_MARK_RANGE_POP, dom(d)); }
static nvtxRangeId_t nv_start_a(const char *m) { return start(NULL, m ? m : ""); }
static nvtxRangeId_t nv_start_ex(const nvtxEventAttributes_t *a) {
    char tmp[256];
    return start(NULL, message(a, tmp, sizeof tmp));
}
static void nv_end(nvtxRangeId_t id) {
    (void)id;
    end(NULL);
}
static nvtxRangeId_t nv_dstart_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char tmp[256];
    return start(d, message(a, tmp, sizeof tmp));
}
static void nv_dend(nvtxDomainHandle_t d, nvtxRangeId_t id) {
    (void)id;
    end(d);
}

static nvtxDomainHandle_t nv_dcreate_a(const char *name) {
    struct cmt_nvtx_domain *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    snprintf(d->name, sizeof d->name, "%s", name ? name : "");
    d->on = domain_enabled(d->name);
    return (nvtxDomainHandle_t)d;
}
static void nv_ddestroy(nvtxDomainHandle_t d) {
    (void)d; /* kept: a late pop may still name it */
}
static nvtxStringHandle_t nv_dregister_a(nvtxDomainHandle_t d, const char *s) {
    (void)d;
    return (nvtxStringHandle_t)strdup(s ? s : "");
}

static void set_slot(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn) {
    if (table && id < size && table[id]) *table[id] = fn;
}

CMT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
    cmt_init();
    if (!get) return 0;
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable) return 0;
    static const struct {
        NvtxCallbackModule module;
        unsigned id;
        NvtxFunctionPointer fn;
    } hooks[] = {
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)nv_mark_a},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, (NvtxFunctionPointer)nv_mark_ex},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)nv_push_a},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)nv_push_ex},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)nv_pop},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer)nv_start_a},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, (NvtxFunctionPointer)nv_start_ex},
        {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer)nv_end},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)nv_dmark_ex},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)nv_dpush_ex},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)nv_dpop},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, (NvtxFunctionPointer)nv_dstart_ex},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, (NvtxFunctionPointer)nv_dend},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)nv_dcreate_a},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, (NvtxFunctionPointer)nv_ddestroy},
        {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)nv_dregister_a},
    };
    const NvtxCallbackModule modules[] = {NVTX_CB_MODULE_CORE, NVTX_CB_MODULE_CORE2};
    for (size_t m = 0; m < sizeof modules / sizeof *modules; m++) {
        NvtxFunctionTable t = NULL;
        unsigned n = 0;
        if (!cb->GetModuleFunctionTable(modules[m], &t, &n)) continue;
        for (size_t i = 0; i < sizeof hooks / sizeof *hooks; i++)
            if (hooks[i].module == modules[m]) set_slot(t, n, hooks[i].id, hooks[i].fn);
    }
    return 1;
}

/* ---- the memory-heap extension ---- */

static bool enter(nvtxDomainHandle_t d) {
    if (!dom(d)->on || !cmt_enter()) return false;
    if (cmt_writer_ensure()) return true;
    cmt_leave();
    return false;
}

static nvtxMemHeapHandle_t nv_heap_register(nvtxDomainHandle_t d, nvtxMemHeapDesc_t const *desc) {
    const nvtxMemVirtualRangeDesc_t *r = desc && desc->type == NVTX_MEM_TYPE_VIRTUAL_ADDRESS
                                             ? (const nvtxMemVirtualRangeDesc_t *)desc->typeSpecificDesc
                                             : NULL;
    if (!r) return NULL;
    if (enter(d)) {
        const char *name = desc->messageType == NVTX_MESSAGE_TYPE_ASCII ? desc->message.ascii
                           : desc->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? (const char *)desc->message.registered
                                                                               : dom(d)->name;
        cmt_rec_suballoc(CMT_SUB_HEAP_REGISTER, (uintptr_t)r->ptr, (uintptr_t)r->ptr, r->size, 0, name);
        cmt_leave();
    }
    return (nvtxMemHeapHandle_t)(uintptr_t)r->ptr; /* a virtual-address heap is its own handle */
}

static void heap_op(nvtxDomainHandle_t d, nvtxMemHeapHandle_t heap, unsigned op) {
    if (!enter(d)) return;
    cmt_rec_suballoc(op, (uintptr_t)heap, 0, 0, 0, NULL);
    cmt_leave();
}
static void nv_heap_unregister(nvtxDomainHandle_t d, nvtxMemHeapHandle_t h) { heap_op(d, h, CMT_SUB_HEAP_UNREGISTER); }
static void nv_heap_reset(nvtxDomainHandle_t d, nvtxMemHeapHandle_t h) { heap_op(d, h, CMT_SUB_HEAP_RESET); }

static void nv_regions_register(nvtxDomainHandle_t d, nvtxMemRegionsRegisterBatch_t const *b) {
    if (!b || b->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || !b->regionDescElements) return;
    size_t step = b->regionDescElementSize ? b->regionDescElementSize : sizeof(nvtxMemVirtualRangeDesc_t);
    bool on = enter(d);
    uint32_t stack = on ? cmt_stack_capture(NULL) : 0;
    for (size_t i = 0; i < b->regionCount; i++) {
        const nvtxMemVirtualRangeDesc_t *r =
            (const nvtxMemVirtualRangeDesc_t *)((const char *)b->regionDescElements + i * step);
        if (on) cmt_rec_suballoc(CMT_SUB_REGION_REGISTER, (uintptr_t)b->heap, (uintptr_t)r->ptr, r->size, stack, NULL);
        if (b->regionHandleElementsOut) b->regionHandleElementsOut[i] = (nvtxMemRegionHandle_t)(uintptr_t)r->ptr;
    }
    if (on) cmt_leave();
}

static void nv_regions_resize(nvtxDomainHandle_t d, nvtxMemRegionsResizeBatch_t const *b) {
    if (!b || b->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || !b->regionDescElements || !enter(d)) return;
    size_t step = b->regionDescElementSize ? b->regionDescElementSize : sizeof(nvtxMemVirtualRangeDesc_t);
    for (size_t i = 0; i < b->regionDescCount; i++) {
        const nvtxMemVirtualRangeDesc_t *r =
            (const nvtxMemVirtualRangeDesc_t *)((const char *)b->regionDescElements + i * step);
        cmt_rec_suballoc(CMT_SUB_REGION_RESIZE, 0, (uintptr_t)r->ptr, r->size, 0, NULL);
    }
    cmt_leave();
}

static void nv_regions_unregister(nvtxDomainHandle_t d, nvtxMemRegionsUnregisterBatch_t const *b) {
    if (!b || !b->refElements || !enter(d)) return;
    size_t step = b->refElementSize ? b->refElementSize : sizeof(nvtxMemRegionRef_t);
    for (size_t i = 0; i < b->refCount; i++) {
        const nvtxMemRegionRef_t *r = (const nvtxMemRegionRef_t *)((const char *)b->refElements + i * step);
        cmt_rec_suballoc(CMT_SUB_REGION_UNREGISTER, 0, (uintptr_t)r->pointer, 0, 0, NULL);
    }
    cmt_leave();
}

CMT_EXPORT int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info) {
    cmt_init();
    if (!info || info->moduleId != NVTX_EXT_MODULEID_MEM || info->compatId != NVTX_EXT_COMPATID_MEM ||
        info->segmentsCount < 1 || !info->segments)
        return 1; /* other extensions: nothing to hook, not an error */
    nvtxExtModuleSegment_t *seg = &info->segments[0];
    struct {
        size_t id;
        void *fn;
    } const slots[] = {
        {NVTX3EXT_CBID_nvtxMemHeapRegister, (void *)nv_heap_register},
        {NVTX3EXT_CBID_nvtxMemHeapUnregister, (void *)nv_heap_unregister},
        {NVTX3EXT_CBID_nvtxMemHeapReset, (void *)nv_heap_reset},
        {NVTX3EXT_CBID_nvtxMemRegionsRegister, (void *)nv_regions_register},
        {NVTX3EXT_CBID_nvtxMemRegionsResize, (void *)nv_regions_resize},
        {NVTX3EXT_CBID_nvtxMemRegionsUnregister, (void *)nv_regions_unregister},
    };
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
        if (seg->functionSlots && slots[i].id < seg->slotCount) seg->functionSlots[slots[i].id] = (intptr_t)slots[i].fn;
    return 1;
}

/* At the initialisation (nvtx_start below): offer ourselves as the NVTX injection unless one is already set. */
void cmt_nvtx_setup(bool for_children) {
    const char *f = getenv("CUMEMTRACK_NVTX_DOMAINS");
    if (f && *f) snprintf(filter, sizeof filter, "%s", f);
    default_domain.on = domain_enabled("default");
    const char *cur = getenv("NVTX_INJECTION64_PATH");
    if ((cur && *cur) || !for_children) return;
    Dl_info info;
    char path[PATH_MAX];
    if (!dladdr((void *)InitializeInjectionNvtx2, &info) || !info.dli_fname) return;
    if (!realpath(info.dli_fname, path)) return;
    setenv("NVTX_INJECTION64_PATH", path, 0);
}

/* The initialisation's step (cmt_init.h): for children unless they are not tracked. */
static void nvtx_start(void) {
    cmt_nvtx_setup(!cmt_cfg.no_children && !cmt_disabled);
}
CMT_LIFECYCLE(nvtx, 30, nvtx_start, NULL);
