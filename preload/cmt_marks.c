/*
 * cmt_marks.c — see cmt_marks.h.
 *
 * CUMEMTRACK_MARK_SIGNAL=USR2 (or SIGUSR2, or a number) records a "signal" marker when the
 * process receives that signal; without it the tracker installs no signal handler.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmt_internal.h"
#include "cmt_marks.h"
#include "cmt_records.h"
#include "cmt_writer.h"

_Atomic int cmt_pending_marks;

void cmt_marker(const char *label, unsigned flags, const char *domain) {
    if (!cmt_writer_ensure()) return;
    cmt_rec_marker(label, flags, domain);
}

void cmt_marks_flush(void) {
    while (atomic_load_explicit(&cmt_pending_marks, memory_order_relaxed) > 0) {
        atomic_fetch_sub(&cmt_pending_marks, 1);
        cmt_marker("signal", CMT_MARK_SIGNAL, "");
    }
}

static void on_mark_signal(int sig) {
    (void)sig;
    int saved = errno;
    /* Writing is safe only when this thread is not inside the tracker (its block and locks);
     * otherwise the marker is written by the next tracked call. */
    if (cmt_writer_path() && cmt_enter()) {
        cmt_marker("signal", CMT_MARK_SIGNAL, "");
        cmt_leave();
    } else {
        atomic_fetch_add(&cmt_pending_marks, 1);
        cmt_gate_close(); /* the next general pre-hook writes it */
    }
    errno = saved;
}

static int signal_number(const char *s) {
    if (!strncasecmp(s, "SIG", 3)) s += 3;
    static const struct {
        const char *name;
        int sig;
    } names[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2},   {"HUP", SIGHUP},
                 {"URG", SIGURG},   {"WINCH", SIGWINCH}, {"PWR", SIGPWR}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcasecmp(s, names[i].name)) return names[i].sig;
    char *e;
    long n = strtol(s, &e, 10);
    if (*s && !*e && ((n >= SIGRTMIN && n <= SIGRTMAX) || n == SIGUSR1 || n == SIGUSR2)) return (int)n;
    return -1;
}

void cmt_marks_init(void) {
    const char *v = getenv("CUMEMTRACK_MARK_SIGNAL");
    if (v && *v) {
        int sig = signal_number(v);
        if (sig < 0) {
            cmt_warn("warning: CUMEMTRACK_MARK_SIGNAL=\"%s\" is not USR1, USR2, HUP, URG, WINCH, PWR "
                     "or a real-time signal number; no marker signal",
                     v);
            return;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_mark_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
}
CMT_LIFECYCLE(marks, 20, cmt_marks_init, NULL);

/* The public entry point (include/cumemtrack.h). */
CMT_EXPORT void cmt_mark(const char *label) {
    cmt_init();
    if (!label || !cmt_enter()) return;
    cmt_marker(label, CMT_MARK_POINT, "");
    cmt_leave();
}

/* A test runner's tests (include/cumemtrack.h): a range of domain CMT_TEST_DOMAIN per test. The
 * end carries the name too, so the analyzer can tell an end that belongs to another test. */
CMT_EXPORT void cmt_test_begin(const char *name) {
    cmt_init();
    if (!cmt_enter()) return;
    cmt_marker(name ? name : "", CMT_MARK_RANGE_PUSH, CMT_TEST_DOMAIN);
    cmt_leave();
}

CMT_EXPORT void cmt_test_end(const char *name) {
    cmt_init();
    if (!cmt_enter()) return;
    cmt_marker(name ? name : "", CMT_MARK_RANGE_POP, CMT_TEST_DOMAIN);
    cmt_leave();
}

CMT_EXPORT const char *cmt_dump_path(void) {
    return cmt_writer_path();
}
