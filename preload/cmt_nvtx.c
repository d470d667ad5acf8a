/*
 * cmt_nvtx.c — the tracker as an NVTX injection library. At start-up it points
 * NVTX_INJECTION64_PATH at itself (never overriding a value already set, e.g. by a profiler);
 * NVTX then calls InitializeInjectionNvtx2 once per module that uses it, and we fill the core and
 * domain callback slots: ranges (push/pop) and marks become MARKER records, so the analyzer can
 * show live memory at each and label allocations made inside a range. Domains are filtered by
 * CUMEMTRACK_NVTX_DOMAINS (comma list: NAME, -NAME, * for all, "default" for the default domain;
 * default "*,-NCCL": NCCL emits a range per collective).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "cmt_internal.h"
#include "cmt_signals.h"

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
    if (!d->on || cmt_disabled || cmt_tls.depth > 0) return;
    cmt_tls.depth++;
    cmt_marker(label, flags, d->name);
    cmt_tls.depth--;
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
    NvtxFunctionTable t = NULL;
    unsigned n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
        set_slot(t, n, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)nv_mark_a);
        set_slot(t, n, NVTX_CBID_CORE_MarkEx, (NvtxFunctionPointer)nv_mark_ex);
        set_slot(t, n, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)nv_push_a);
        set_slot(t, n, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)nv_push_ex);
        set_slot(t, n, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)nv_pop);
    }
    t = NULL;
    n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
        set_slot(t, n, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)nv_dmark_ex);
        set_slot(t, n, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)nv_dpush_ex);
        set_slot(t, n, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)nv_dpop);
        set_slot(t, n, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)nv_dcreate_a);
        set_slot(t, n, NVTX_CBID_CORE2_DomainDestroy, (NvtxFunctionPointer)nv_ddestroy);
        set_slot(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)nv_dregister_a);
    }
    return 1;
}

/* Called from cmt_init: offer ourselves as the NVTX injection unless one is already set. */
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
