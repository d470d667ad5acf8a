/*
 * cmt_alerts.c — see cmt_alerts.h.
 *
 * CUMEMTRACK_ALERT=SPEC[,SPEC...], SPEC = DEV:SIZE or DEV:PCT%, DEV = an ordinal or "all"
 * (e.g. all:90%, 0:40GiB). The first crossing per device prints one line to stderr
 * ("cumemtrack: alert: ...") and writes an ALERT record; falling back under re-arms it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmt_alerts.h"
#include "cmt_internal.h"
#include "cmt_python.h"
#include "cmt_records.h"
#include "cmt_stacks.h"

#define MAX_DEV 256
bool cmt_alerts_on;
static struct {
    int64_t bytes; /* absolute threshold, 0: none */
    int pct;       /* percentage of total memory, 0: none */
} spec_all, spec_dev[MAX_DEV];
static _Atomic int64_t live[MAX_DEV];
static _Atomic int fired[MAX_DEV];
static int64_t threshold[MAX_DEV]; /* resolved, 0: none yet */
static uint64_t total[MAX_DEV];
static uint8_t uuid[MAX_DEV][16];

static int64_t parse_size(const char *s, char **end) {
    errno = 0;
    double v = strtod(s, end);
    if (errno || *end == s || v < 0) return -1;
    const char *u = *end;
    double mul = 1;
    size_t n = strspn(u, "KMGTkmgtiBb");
    if (n) {
        char c = (char)(u[0] | 0x20);
        mul = c == 'k' ? 1024.0 : c == 'm' ? 1048576.0 : c == 'g' ? 1073741824.0 : c == 't' ? 1099511627776.0 : 0;
        if (mul == 0) return -1;
        *end = (char *)u + n;
    }
    return (int64_t)(v * mul);
}

static void parse_alerts(const char *env) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", env);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        int dev = -1;
        bool ok = colon != NULL;
        if (ok) {
            *colon = 0;
            if (strcmp(tok, "all") != 0) {
                char *e;
                long d = strtol(tok, &e, 10);
                ok = *tok && !*e && d >= 0 && d < MAX_DEV;
                dev = (int)d;
            }
        }
        int64_t bytes = 0;
        int pct = 0;
        if (ok) {
            char *e;
            int64_t v = parse_size(colon + 1, &e);
            if (*e == '%' && e[1] == 0) {
                ok = v > 0 && v <= 100 && !strpbrk(colon + 1, "KMGTkmgt");
                pct = (int)v;
            } else {
                ok = v > 0 && *e == 0;
                bytes = v;
            }
        }
        if (!ok) {
            cmt_warn("warning: CUMEMTRACK_ALERT: ignoring \"%s%s%s\" (want DEV:SIZE or DEV:PCT%%, "
                     "DEV an ordinal or all, e.g. all:90%% or 0:40GiB)",
                     tok, colon ? ":" : "", colon ? colon + 1 : "");
            continue;
        }
        if (dev < 0) {
            spec_all.bytes = bytes;
            spec_all.pct = pct;
        } else {
            spec_dev[dev].bytes = bytes;
            spec_dev[dev].pct = pct;
        }
        cmt_alerts_on = true;
    }
}

void cmt_alerts_device(int d, uint64_t tot, const uint8_t id[16]) {
    if (d < 0 || d >= MAX_DEV) return;
    total[d] = tot;
    memcpy(uuid[d], id, 16);
    int64_t b = spec_dev[d].bytes, p = spec_dev[d].pct;
    if (!b && !p) {
        b = spec_all.bytes;
        p = spec_all.pct;
    }
    __atomic_store_n(&threshold[d], p ? (int64_t)((unsigned __int128)tot * (uint64_t)p / 100) : b, __ATOMIC_RELEASE);
}

static void human(char *out, size_t cap, uint64_t v) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", x, unit[u]);
}

/* The first frame outside the tracker and the CUDA libraries: the application's call site. */
static const void *app_caller(const void *fallback) {
    void *frames[48];
    int n = cmt_stack_raw(frames, 48);
    for (int i = 0; i < n; i++) {
        Dl_info info;
        if (cmt_is_own_address(frames[i]) || !dladdr(frames[i], &info) || !info.dli_fname) continue;
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (!strncmp(base, "libcuda", 7) || !strncmp(base, "libcublas", 9) || !strncmp(base, "libnccl", 7)) continue;
        return frames[i];
    }
    return fallback;
}

static void alert(int d, int64_t now_live, int64_t thr, const void *caller) {
    char l[32], t[32], where[1280] = "unknown caller", line[2048], py[768];
    caller = app_caller(caller);
    human(l, sizeof l, (uint64_t)now_live);
    human(t, sizeof t, (uint64_t)thr);
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (info.dli_sname)
            snprintf(where, sizeof where, "%s (%s+0x%lx)", info.dli_sname, base,
                     (unsigned long)((uintptr_t)caller - (uintptr_t)info.dli_fbase));
        else
            snprintf(where, sizeof where, "%s+0x%lx", base,
                     (unsigned long)((uintptr_t)caller - (uintptr_t)info.dli_fbase));
    }
    if (cmt_python_where(py, sizeof py)) { /* the Python line first, the native caller after it */
        char native[sizeof where];
        memcpy(native, where, sizeof where);
        size_t k = strlen(py), m = strnlen(native, sizeof where - k - 4);
        memcpy(where, py, k);
        where[k] = ' ', where[k + 1] = '[';
        memcpy(where + k + 2, native, m);
        where[k + 2 + m] = ']', where[k + 3 + m] = 0;
    }
    const uint8_t *u = uuid[d];
    int n = snprintf(line, sizeof line,
                     "cumemtrack: alert: device %d (GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                     "%02x%02x%02x%02x%02x%02x) live %s >= threshold %s, pid %d, at %s\n",
                     d, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                     u[15], l, t, (int)getpid(), where);
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
    cmt_rec_alert(d, (uint64_t)now_live, (uint64_t)thr, caller);
}

void cmt_live_count(int d, int64_t delta, const void *caller) {
    if (d < 0 || d >= MAX_DEV) return;
    int64_t now_live = atomic_fetch_add(&live[d], delta) + delta;
    int64_t thr = __atomic_load_n(&threshold[d], __ATOMIC_ACQUIRE);
    if (!thr) return;
    if (now_live >= thr) {
        if (!atomic_exchange(&fired[d], 1)) alert(d, now_live, thr, caller);
    } else if (delta < 0 && atomic_load_explicit(&fired[d], memory_order_relaxed)) {
        atomic_store(&fired[d], 0); /* re-armed */
    }
}

void cmt_alerts_init(void) {
    const char *v = getenv("CUMEMTRACK_ALERT");
    if (v && *v) parse_alerts(v);
}
CMT_LIFECYCLE(alerts, 10, cmt_alerts_init, NULL);
