/*
 * cmt_state.c — see cmt_state.h: the definitions of the shared state and the reading of the
 * CUMEMTRACK_* variables (CUMEMTRACK_OUTPUT, _DEPTH, _STACK_CACHE, _PYTHON, _CLOCK, _MANIFEST,
 * _NO_CHILDREN, _QUIET, _DISABLE, and the tests' _FAST), and the inline path's gate.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmt_internal.h"

struct cmt_config cmt_cfg = {.depth = 64, .stack_cache = true, .python = true};
_Atomic int cmt_disabled;
_Atomic uint32_t cmt_generation;
__thread struct cmt_tls cmt_tls __attribute__((tls_model("initial-exec")));

static _Atomic uint64_t gate_static;
/* Moved (seq_cst) to the fork-token page before the initialisation ends, closed there: a closer
 * that closed the old word set its condition before the move, so the opener, which reads the new
 * pointer, sees that condition. */
_Atomic(uint64_t) *_Atomic cmt_gate_at = &gate_static;

void cmt_gate_close(void) {
    _Atomic(uint64_t) *g = atomic_load(&cmt_gate_at);
    uint64_t w = atomic_load(g);
    while (!atomic_compare_exchange_weak(g, &w, (w | 1) + 1)) {
    }
}

void cmt_gate_open_from(uint64_t seen) {
    if (!(seen & 1)) atomic_compare_exchange_strong(atomic_load(&cmt_gate_at), &seen, seen | 1);
}

static int64_t mono_ns(clockid_t id);
static void clock_init(const char *v);

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

/* A yes/no variable: 1, yes, true, on / 0, no, false, off (any case); unset or empty: dflt; anything
 * else: one warning and dflt. */
static bool env_flag(const char *name, bool dflt) {
    static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"0", "no", "false", "off"};
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (!strcasecmp(v, yes[i])) return true;
        if (!strcasecmp(v, no[i])) return false;
    }
    cmt_warn("warning: %s=\"%s\" is not 1 or 0 (yes/no, true/false, on/off); using %d", name, v, dflt);
    return dflt;
}

void cmt_read_config(void) {
    cmt_log_quiet = env_flag("CUMEMTRACK_QUIET", false);
    if (env_flag("CUMEMTRACK_DISABLE", false)) atomic_store(&cmt_disabled, 1);
    const char *v = getenv("CUMEMTRACK_OUTPUT");
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
    cmt_cfg.stack_cache = env_flag("CUMEMTRACK_STACK_CACHE", true);
    cmt_cfg.python = env_flag("CUMEMTRACK_PYTHON", true);
    cmt_cfg.fast = env_flag("CUMEMTRACK_FAST", true);
    v = getenv("CUMEMTRACK_TEST_BUSY");
    cmt_cfg.busy_every = v ? (unsigned)strtoul(v, NULL, 10) : 0;
    clock_init(getenv("CUMEMTRACK_CLOCK"));
    v = getenv("CUMEMTRACK_MANIFEST");
    if (v && *v) absolute_path(cmt_cfg.manifest, sizeof cmt_cfg.manifest, v);
    cmt_cfg.no_children = env_flag("CUMEMTRACK_NO_CHILDREN", false);
    if (cmt_cfg.no_children) drop_from_ld_preload();
}

/* ---- the event clock ----
 *
 * Event times count in CLOCK_MONOTONIC's ns (the header's clock_id), read one of three ways:
 * - tsc (the default where the TSC is invariant and the kernel itself keeps time with it): rdtsc
 *   (about 10 ns) scaled to ns per thread segment: each thread takes a base pair (TSC,
 *   CLOCK_MONOTONIC) read back to back and extrapolates from it for at most ~20 ms of TSC ticks,
 *   then takes a new one, so the scale's error (measured once, over >= 10 ms) never builds up and
 *   the times follow CLOCK_MONOTONIC (NTP slewing included) within microseconds. Until the scale
 *   is measured, CLOCK_MONOTONIC itself.
 * - monotonic (CUMEMTRACK_CLOCK=monotonic, or no trustworthy TSC): clock_gettime(CLOCK_MONOTONIC).
 * - coarse (CUMEMTRACK_CLOCK=coarse): CLOCK_MONOTONIC_COARSE (a few ns; one kernel tick, 1-4 ms).
 * A thread's times never decrease (a new base pair may lie a little behind the extrapolation: the
 * thread's last time is kept). The source is recorded in the dump (INFO "clock").
 */
enum cmt_clock_source cmt_clock = CMT_CLOCK_SRC_MONOTONIC;

uint64_t cmt_tsc_mult; /* ns per tick << 32, 0 until measured */
uint64_t cmt_tsc_span; /* ticks a base pair is used for */
static uint64_t cal_tsc;            /* the calibration's first pair */
static int64_t cal_ns;
static _Atomic int calibrating;

static inline uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static int64_t mono_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A (tsc, ns) pair read back to back: false when the thread was interrupted in between. */
static bool clock_pair(uint64_t *tsc, int64_t *ns) {
    for (int i = 0; i < 8; i++) {
        uint64_t a = rdtsc();
        int64_t n = mono_ns(CLOCK_MONOTONIC);
        uint64_t b = rdtsc();
        if (b - a < 20000) { /* well under 10 us at any TSC rate */
            *tsc = a + (b - a) / 2;
            *ns = n;
            return true;
        }
    }
    return false;
}

/* Invariant TSC (CPUID 80000007h EDX bit 8) and the kernel's clocksource is the TSC (it checked
 * that the TSCs of all CPUs agree). */
static bool tsc_trustworthy(void) {
#if defined(__x86_64__)
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a < 0x80000007u) return false;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    if (!(d & (1u << 8))) return false;
    char buf[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f) return false;
    bool ok = fgets(buf, sizeof buf, f) && !strcmp(buf, "tsc\n");
    fclose(f);
    return ok;
#else
    return false;
#endif
}

static void clock_init(const char *v) {
    if (v && !strcmp(v, "coarse")) {
        cmt_clock = CMT_CLOCK_SRC_COARSE;
    } else if (v && !strcmp(v, "monotonic")) {
        cmt_clock = CMT_CLOCK_SRC_MONOTONIC;
    } else {
        if (v && *v && strcmp(v, "precise"))
            cmt_warn("warning: CUMEMTRACK_CLOCK=\"%s\" is not precise, monotonic or coarse; using precise", v);
        cmt_clock = tsc_trustworthy() && clock_pair(&cal_tsc, &cal_ns) ? CMT_CLOCK_SRC_TSC
                                                                       : CMT_CLOCK_SRC_MONOTONIC;
    }
}

const char *cmt_clock_name(void) {
    return cmt_clock == CMT_CLOCK_SRC_TSC ? "tsc" : cmt_clock == CMT_CLOCK_SRC_COARSE ? "coarse" : "monotonic";
}

/* Measures the scale once the calibration's first pair is >= 10 ms old (one thread does). */
static void calibrate(int64_t now) {
    if (now - cal_ns < 10000000 || atomic_exchange(&calibrating, 1)) return;
    uint64_t tsc;
    int64_t ns;
    if (clock_pair(&tsc, &ns) && tsc > cal_tsc && ns > cal_ns) {
        uint64_t mult = (uint64_t)(((unsigned __int128)(uint64_t)(ns - cal_ns) << 32) / (tsc - cal_tsc));
        uint64_t span = (tsc - cal_tsc) * 2; /* ~20 ms */
        if (mult && span > ((uint64_t)1 << 62) / mult) span = ((uint64_t)1 << 62) / mult;
        cmt_tsc_span = span;
        __atomic_store_n(&cmt_tsc_mult, mult, __ATOMIC_RELEASE);
        return;
    }
    atomic_store(&calibrating, 0); /* interrupted: the next call tries again */
}

int64_t cmt_now_slow(void) {
    struct cmt_tls *t = &cmt_tls;
    int64_t v;
    if (cmt_clock == CMT_CLOCK_SRC_COARSE) return mono_ns(CLOCK_MONOTONIC_COARSE);
    if (cmt_clock != CMT_CLOCK_SRC_TSC) return mono_ns(CLOCK_MONOTONIC);
    uint64_t tsc;
    if (!__atomic_load_n(&cmt_tsc_mult, __ATOMIC_ACQUIRE) || !clock_pair(&tsc, &v)) {
        v = mono_ns(CLOCK_MONOTONIC);
        calibrate(v);
        t->clk_tsc = 0; /* no base yet */
    } else {
        t->clk_tsc = tsc;
        t->clk_ns = v;
    }
    if (v < t->clk_last) v = t->clk_last;
    t->clk_last = v;
    return v;
}
