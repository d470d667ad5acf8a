/*
 * cmt_log.c — one-line messages to stderr ("cumemtrack: ..."), formatted into a stack buffer and
 * written with one write(2): no allocation, no stdio, safe in any hook and after fork.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "cmt_internal.h"

bool cmt_log_quiet;

static void cmt_vwarn(const char *fmt, va_list ap) {
    if (cmt_log_quiet) return;
    int saved = errno;
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "cumemtrack[%d]: ", (int)getpid());
    if (n < 0) n = 0;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0) m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
    errno = saved;
}

void cmt_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cmt_vwarn(fmt, ap);
    va_end(ap);
}

void cmt_warn_once(atomic_int *flag, const char *fmt, ...) {
    if (atomic_exchange(flag, 1)) return;
    va_list ap;
    va_start(ap, fmt);
    cmt_vwarn(fmt, ap);
    va_end(ap);
}
