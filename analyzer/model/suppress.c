/*
 * suppress.c — suppression files and wildcard matching. See suppress.h.
 */
#include "suppress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glob with '*' only, anchored at both ends; iterative with one backtrack point (linear-ish). */
static int glob(const char *p, const char *t) {
    const char *star = NULL, *mark = NULL;
    while (*t) {
        if (*p == '*') {
            star = p++;
            mark = t;
        } else if (*p && *p == *t) {
            p++;
            t++;
        } else if (star) {
            p = star + 1;
            t = ++mark;
        } else
            return 0;
    }
    while (*p == '*')
        p++;
    return !*p;
}

int cmt_suppress_match(const char *pattern, const char *text) {
    if (!pattern || !text) return 0;
    size_t n = strlen(pattern);
    char buf[1024];
    if (n + 3 > sizeof buf) return 0;
    const char *p = pattern;
    size_t k = 0;
    if (*p == '^')
        p++;
    else
        buf[k++] = '*';
    size_t plen = strlen(p);
    int anchored_end = plen && p[plen - 1] == '$';
    memcpy(buf + k, p, plen - (size_t)anchored_end);
    k += plen - (size_t)anchored_end;
    if (!anchored_end) buf[k++] = '*';
    buf[k] = 0;
    return glob(buf, text);
}

int cmt_suppress_load(struct cmt_suppressions *s, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1200];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(p);
        while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            p[--n] = 0;
        if (!*p || *p == '#') continue;
        if (strncmp(p, "leak:", 5) != 0) {
            snprintf(err, errlen, "%s:%d: expected leak:PATTERN", path, lineno);
            fclose(f);
            return -1;
        }
        p += 5;
        if (!*p || strlen(p) > 1000) {
            snprintf(err, errlen, "%s:%d: empty or too long pattern", path, lineno);
            fclose(f);
            return -1;
        }
        struct cmt_suppression *v = realloc(s->v, (s->n + 1) * sizeof *v);
        if (!v || !(v[s->n].pattern = strdup(p))) {
            if (v) s->v = v;
            snprintf(err, errlen, "%s: out of memory", path);
            fclose(f);
            return -1;
        }
        s->v = v;
        v[s->n].leaks = v[s->n].bytes = 0;
        s->n++;
    }
    fclose(f);
    return 0;
}

void cmt_suppress_free(struct cmt_suppressions *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].pattern);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
