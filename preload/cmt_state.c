/*
 * cmt_state.c — see cmt_state.h: the definitions of the shared state and the reading of the
 * CUMEMTRACK_* variables (CUMEMTRACK_OUTPUT, _DEPTH, _STACK_CACHE, _PYTHON, _CLOCK, _MANIFEST,
 * _NO_CHILDREN, _QUIET, _DISABLE).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmt_internal.h"

struct cmt_config cmt_cfg = {.depth = 64, .precise_clock = true, .stack_cache = true, .python = true};
_Atomic int cmt_disabled;
_Atomic uint32_t cmt_generation;
__thread struct cmt_tls cmt_tls __attribute__((tls_model("initial-exec")));

static void absolute_path(char *dst, size_t cap, const char *src) {
    if (src[0] == '/') {
        snprintf(dst, cap, "%s", src);
        return;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    size_t n = strlen(cwd);
    if (n + 1 + strlen(src) + 1 > cap) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    memcpy(dst, cwd, n);
    dst[n] = '/';
    strcpy(dst + n + 1, src);
}

/* Removes this library from LD_PRELOAD so exec'd children run untracked (run --no-children). */
static void drop_from_ld_preload(void) {
    const char *lp = getenv("LD_PRELOAD");
    if (!lp) return;
    char out[8192];
    size_t at = 0;
    const char *s = lp;
    while (*s) {
        size_t n = strcspn(s, ": ");
        if (n && !(n >= 17 && memmem(s, n, "libcumemtrack", 13))) {
            if (at && at < sizeof out - 1) out[at++] = ':';
            if (at + n < sizeof out - 1) {
                memcpy(out + at, s, n);
                at += n;
            }
        }
        s += n;
        while (*s == ':' || *s == ' ')
            s++;
    }
    out[at] = 0;
    if (at)
        setenv("LD_PRELOAD", out, 1);
    else
        unsetenv("LD_PRELOAD");
}

void cmt_read_config(void) {
    const char *v = getenv("CUMEMTRACK_QUIET");
    cmt_log_quiet = v && *v && strcmp(v, "0") != 0;
    v = getenv("CUMEMTRACK_DISABLE");
    if (v && *v && strcmp(v, "0") != 0) atomic_store(&cmt_disabled, 1);
    v = getenv("CUMEMTRACK_OUTPUT");
    if (v && !*v) {
        cmt_warn("warning: CUMEMTRACK_OUTPUT is empty; using cumemtrack.%%h.%%p.cmt");
        v = NULL;
    }
    absolute_path(cmt_cfg.output_template, sizeof cmt_cfg.output_template, v ? v : "cumemtrack.%h.%p.cmt");
    v = getenv("CUMEMTRACK_DEPTH");
    if (v) {
        char *end;
        errno = 0;
        long d = strtol(v, &end, 10);
        if (!*v || *end || errno || d < 0 || d > (long)CMT_MAX_FRAMES)
            cmt_warn("warning: CUMEMTRACK_DEPTH=\"%s\" is not a number from 0 to %u; using 64", v, CMT_MAX_FRAMES);
        else
            cmt_cfg.depth = (unsigned)d;
    }
    v = getenv("CUMEMTRACK_STACK_CACHE");
    cmt_cfg.stack_cache = !(v && !strcmp(v, "0"));
    v = getenv("CUMEMTRACK_PYTHON");
    cmt_cfg.python = !(v && !strcmp(v, "0"));
    v = getenv("CUMEMTRACK_CLOCK");
    if (v && *v) {
        if (!strcmp(v, "coarse"))
            cmt_cfg.precise_clock = false;
        else if (strcmp(v, "precise"))
            cmt_warn("warning: CUMEMTRACK_CLOCK=\"%s\" is neither precise nor coarse; using precise", v);
    }
    v = getenv("CUMEMTRACK_MANIFEST");
    if (v && *v) absolute_path(cmt_cfg.manifest, sizeof cmt_cfg.manifest, v);
    v = getenv("CUMEMTRACK_NO_CHILDREN");
    cmt_cfg.no_children = v && *v && strcmp(v, "0") != 0;
    if (cmt_cfg.no_children) drop_from_ld_preload();
}

/* Event times: CLOCK_MONOTONIC by default (ns resolution; 20-70 ns a read),
 * CLOCK_MONOTONIC_COARSE with CUMEMTRACK_CLOCK=coarse (a few ns; one kernel tick of resolution,
 * 1-4 ms), for allocation-heavy jobs. Both count from the same origin, so the header's
 * start_clock_ns relates either to wall-clock time. */
int64_t cmt_now(void) {
    struct timespec ts;
    clock_gettime(cmt_cfg.precise_clock ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
