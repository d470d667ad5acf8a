/*
 * suppress.h — leak suppressions in LSan syntax: one "leak:PATTERN" per line, '#' comments and
 * blank lines ignored. PATTERN matches as a substring (with '*' wildcards; a leading '^' or a
 * trailing '$' anchors it) the function, file or module of any frame of a leak's stack. Hits and
 * bytes are counted per suppression.
 */
#ifndef CMT_SUPPRESS_H
#define CMT_SUPPRESS_H

#include <stddef.h>
#include <stdint.h>

struct cmt_suppression {
    char *pattern;
    uint64_t leaks, bytes; /* leak groups suppressed, their bytes */
};

struct cmt_suppressions {
    struct cmt_suppression *v;
    size_t n;
};

/* Loads path (appending to s); returns 0, or -1 with a message in err ("FILE:LINE: why"). */
int cmt_suppress_load(struct cmt_suppressions *s, const char *path, char *err, size_t errlen);
void cmt_suppress_free(struct cmt_suppressions *s);
/* 1 when pattern matches text (substring with '*' wildcards, '^'/'$' anchors). */
int cmt_suppress_match(const char *pattern, const char *text);

#endif
