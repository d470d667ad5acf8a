/*
 * cmt_apis.c — the description of each hooked variant (struct cmt_api_info: its exported name,
 * the name cuGetProcAddress is asked for, version, per-thread flag, family and kind), generated
 * from cmt_hooks.h. Data only: the wrappers' addresses are cmt_wrappers.c's (cmt_api_wrappers).
 */
#include "cmt_internal.h"

const struct cmt_api_info cmt_apis[CMT_API_COUNT] = {
#define CMT_API_INFO(sym, base, ver, pt, fam, knd, params, args, fill)                                                 \
    [CMT_API_##sym] = {#sym, base, ver, pt, CMT_FAM_##fam, CMT_KIND_##knd},
    CMT_HOOKS(CMT_API_INFO)
#undef CMT_API_INFO
};
